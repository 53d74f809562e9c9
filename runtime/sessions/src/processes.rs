//! Child processes adapters ask for: spawn with piped stdio in their own process
//! group, stream their output line by line, report their exit, kill the group.

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentplex_host::{ExitStatus, Input, SpawnRequest};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};
use tokio::sync::watch;

use super::incoming::Inbox;
use agentplex_processes::group::{Leader, Pipes};
use agentplex_processes::in_use::{self, Hold};
use agentplex_session::{Incoming, Stream};

/// How long output readers may run on after the process exits (a grandchild can
/// hold the pipes open) before the exit is reported anyway.
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);

/// How often a reader waiting for its session to have room checks whether the
/// process is gone (then it stops waiting).
const GONE_CHECK: Duration = Duration::from_millis(50);

/// How many of a process's first stdout lines are kept for sessions that attach to
/// it later (a shared server's banner names its URL; see the WIT `share-key`).
pub const REPLAYED_LINES: usize = 64;
/// Most bytes of those first lines kept: the first line that would pass it ends
/// the lines kept (a banner is short; an agent's first lines may be megabytes).
pub const REPLAYED_BYTES: usize = 64 << 10;

/// What a session needs to start its processes.
pub struct SpawnContext {
    /// Session-wide variables (client env, credentials).
    pub env: Vec<(String, String)>,
    /// Names the variables of the daemon's environment the processes do not
    /// inherit (other agents' credentials; `env` and the request's variables may
    /// still set them). Asked at each spawn, so that a session at rest holds no list.
    pub env_remove: Box<dyn Fn() -> Vec<String> + Send + Sync>,
    pub directory: PathBuf,
    /// Searched after PATH for bare program names.
    pub install_dir: PathBuf,
    pub max_line_bytes: usize,
    /// How many steps of `nice` below the daemon the processes run (see
    /// [`agentplex_processes::priority`]).
    pub nice: u8,
}

/// A session that receives a process's output, under its own name for it.
pub struct Subscriber {
    pub session_id: String,
    pub process_id: String,
    pub incoming: Inbox,
}

/// A running child process and the sessions that receive its output (one, or
/// several for a shared process).
pub struct ProcessEntry {
    pub pid: u32,
    /// When the kernel started it (see [`start_time`]), to recognise it later.
    pub started: Option<u64>,
    /// The process, unreaped while its group may be signalled: reaped once it has
    /// exited and its group was killed (or when the entry is dropped).
    pub leader: Leader,
    /// The installed package folder it runs from, kept until the entry is dropped.
    _package: Option<Hold>,
    /// Feeds the stdin writer; `None` once stdin is closed.
    pub stdin: Mutex<Option<UnboundedSender<Vec<u8>>>>,
    pub subscribers: Mutex<Vec<Subscriber>>,
    /// The first stdout lines, for subscribers that come later.
    first_lines: Mutex<FirstLines>,
    exited: AtomicBool,
    /// The process is gone (it exited) though its exit may not be reported yet:
    /// its remaining output is still being read.
    gone: watch::Sender<bool>,
}

impl ProcessEntry {
    /// Whether the process has ended.
    pub fn exited(&self) -> bool {
        self.exited.load(Ordering::SeqCst)
    }

    /// Whether the process is gone, reported or not.
    pub fn gone(&self) -> bool {
        *self.gone.borrow()
    }

    /// Resolves once the process is gone (its leader exited).
    pub async fn wait_gone(&self) {
        let _ = self.gone.subscribe().wait_for(|gone| *gone).await;
    }

    /// Queues bytes for the process's stdin (dropped once stdin is closed).
    pub fn write_stdin(&self, bytes: Vec<u8>) {
        if let Some(stdin) = self.stdin.lock().unwrap().as_ref() {
            let _ = stdin.send(bytes);
        }
    }

    /// Closes the process's stdin.
    pub fn close_stdin(&self) {
        self.stdin.lock().unwrap().take();
    }

    /// Adds a subscriber to a running process: it first receives the process's
    /// first stdout lines, then everything printed from now on. Returns the
    /// subscriber back when the process has already exited.
    pub fn attach(&self, subscriber: Subscriber) -> Result<(), Subscriber> {
        // Under the subscribers lock no line is broadcast, so the replay and the
        // live lines neither overlap nor leave a gap; and a process that has not
        // yet broadcast its exit will deliver it to the new subscriber too.
        let mut subscribers = self.subscribers.lock().unwrap();
        if self.exited() {
            return Err(subscriber);
        }
        for line in self.first_lines.lock().unwrap().lines.iter() {
            let _ = subscriber.incoming.send(Incoming::Adapter(Input::Stdout {
                process_id: subscriber.process_id.clone(),
                line: line.clone(),
            }));
        }
        subscribers.push(subscriber);
        Ok(())
    }

    /// Stops sending output to a session; returns how many subscribers remain.
    pub fn unsubscribe(&self, session_id: &str) -> usize {
        let mut subscribers = self.subscribers.lock().unwrap();
        subscribers.retain(|s| s.session_id != session_id);
        subscribers.len()
    }

    /// Sends one message to every subscriber, built for its name of the process.
    fn broadcast(&self, message: impl Fn(&str) -> Incoming) {
        let mut subscribers = self.subscribers.lock().unwrap();
        subscribers.retain(|s| s.incoming.send(message(&s.process_id)).is_ok());
    }

    /// Who receives the next output line: each subscriber's inbox under its name
    /// for the process. `replayed` is first kept among the lines replayed to later
    /// subscribers (under the same lock as [`Self::attach`], so a line is either
    /// replayed to a new subscriber or sent to it, never both).
    fn line_targets(&self, replayed: Option<&str>) -> Vec<(String, Inbox)> {
        let mut subscribers = self.subscribers.lock().unwrap();
        if let Some(line) = replayed {
            self.first_lines.lock().unwrap().keep(line);
        }
        subscribers.retain(|s| !s.incoming.is_closed());
        subscribers
            .iter()
            .map(|s| (s.process_id.clone(), s.incoming.clone()))
            .collect()
    }

    /// Sends an output line to a session when it has room for it: the reader
    /// waits, and so the process does, while the session is behind. Once the
    /// process is gone its last lines go without waiting (they are few: what the
    /// pipe held), so its exit is reported promptly.
    async fn send_line(&self, inbox: &Inbox, message: Incoming) {
        loop {
            if self.gone() {
                let _ = inbox.send(message);
                return;
            }
            match tokio::time::timeout(GONE_CHECK, inbox.room(message.size())).await {
                Ok(Ok(room)) => {
                    let _ = inbox.send_in(message, room);
                    return;
                }
                Ok(Err(_)) => return,
                Err(_) => continue,
            }
        }
    }

    /// Kills the process and everything in its process group (unless its group
    /// is no longer the daemon's to signal).
    pub fn kill(&self) {
        self.leader.kill_group();
    }
}

/// A process's first stdout lines: at most [`REPLAYED_LINES`] and [`REPLAYED_BYTES`].
#[derive(Default)]
struct FirstLines {
    lines: Vec<String>,
    bytes: usize,
    /// A line did not fit: no later line is kept either.
    full: bool,
}

impl FirstLines {
    /// Keeps the next line when it still fits.
    fn keep(&mut self, line: &str) {
        self.full = self.full
            || self.lines.len() == REPLAYED_LINES
            || self.bytes + line.len() > REPLAYED_BYTES;
        if !self.full {
            self.bytes += line.len();
            self.lines.push(line.to_owned());
        }
    }
}

pub use agentplex_processes::group::start_time;

/// Kills the process group of an agent a previous daemon started, if that
/// process still runs (a daemon killed with SIGKILL leaves its agents behind).
pub fn kill_orphan(pid: u32, started: Option<u64>) {
    if started.is_some_and(|started| agentplex_processes::group::kill_orphan(pid, started)) {
        tracing::info!(pid, "killed an agent process left by the previous daemon");
    }
}

/// Starts a process; its output, overlong lines and exit go to `subscriber` (and to
/// whoever subscribes later).
pub fn spawn(
    request: &SpawnRequest,
    context: &SpawnContext,
    subscriber: Subscriber,
) -> std::io::Result<Arc<ProcessEntry>> {
    let program = agentplex_install::locate_program(&request.argv[0], &context.install_dir)
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "not in the install dir nor on PATH",
            )
        })?;
    let (real, package) = in_use::hold(&program);
    let mut command = std::process::Command::new(real);
    command.arg0(&program);
    agentplex_processes::secrets::keep_from_child(&mut command);
    for name in (context.env_remove)() {
        command.env_remove(name);
    }
    command
        .args(&request.argv[1..])
        .envs(context.env.iter().cloned())
        .envs(request.env.iter().cloned())
        .current_dir(
            request
                .cwd
                .as_deref()
                .map(Path::new)
                .unwrap_or(&context.directory),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    agentplex_processes::priority::lower(&mut command, context.nice);
    let (leader, mut child) = Leader::spawn(&mut command)?;
    let pipes = Pipes::take(&mut child)?;
    let (stdin_tx, mut stdin_rx) = unbounded_channel::<Vec<u8>>();
    let pid = leader.pid();
    let entry = Arc::new(ProcessEntry {
        pid,
        started: start_time(pid),
        leader,
        _package: package,
        stdin: Mutex::new(Some(stdin_tx)),
        subscribers: Mutex::new(vec![subscriber]),
        first_lines: Mutex::new(FirstLines::default()),
        exited: AtomicBool::new(false),
        gone: watch::Sender::new(false),
    });

    if let Some(mut stdin) = pipes.stdin {
        tokio::spawn(async move {
            while let Some(bytes) = stdin_rx.recv().await {
                if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
        });
    }

    let max = context.max_line_bytes;
    let stdout = pipes
        .stdout
        .map(|out| tokio::spawn(forward_lines(out, max, Stream::Stdout, entry.clone())));
    let stderr = pipes
        .stderr
        .map(|err| tokio::spawn(forward_lines(err, max, Stream::Stderr, entry.clone())));

    let waiter = entry.clone();
    tokio::spawn(async move {
        let status = waiter.leader.exited().await;
        waiter.gone.send_replace(true);
        // Its exit is reported once its last output is read (up to a few
        // seconds): meanwhile its sessions start nothing on it.
        waiter.broadcast(|process_id| Incoming::ProcessGone {
            process_id: process_id.to_owned(),
        });
        for reader in [stdout, stderr].into_iter().flatten() {
            let abort = reader.abort_handle();
            if tokio::time::timeout(DRAIN_AFTER_EXIT, reader)
                .await
                .is_err()
            {
                abort.abort();
            }
        }
        // The agent is gone: what is left of its group (tools, servers it started)
        // goes with it, then it is reaped, and its group is never signalled again.
        waiter.leader.kill_group();
        waiter.leader.reap();
        let status = match status {
            Ok(status) => {
                use std::os::unix::process::ExitStatusExt;
                ExitStatus {
                    code: status.code(),
                    signal: status.signal(),
                }
            }
            Err(_) => ExitStatus {
                code: None,
                signal: None,
            },
        };
        waiter.exited.store(true, Ordering::SeqCst);
        waiter.broadcast(|process_id| {
            Incoming::Adapter(Input::Exit {
                process_id: process_id.to_owned(),
                status,
            })
        });
    });

    Ok(entry)
}

async fn forward_lines(
    reader: impl AsyncRead + Unpin,
    max_line_bytes: usize,
    stream: Stream,
    entry: Arc<ProcessEntry>,
) {
    let mut reader = BufReader::new(reader);
    while let Ok(Some(line)) = read_bounded_line(&mut reader, max_line_bytes).await {
        let replayed = match (stream, &line) {
            (Stream::Stdout, Line::Text(text)) => Some(text.as_str()),
            _ => None,
        };
        for (process_id, inbox) in entry.line_targets(replayed) {
            let message = match &line {
                Line::Text(line) => Incoming::Adapter(match stream {
                    Stream::Stdout => Input::Stdout {
                        process_id,
                        line: line.clone(),
                    },
                    Stream::Stderr => Input::Stderr {
                        process_id,
                        line: line.clone(),
                    },
                }),
                Line::TooLong { length, head } => Incoming::LineTooLong {
                    process_id,
                    stream,
                    length: *length,
                    head: head.clone(),
                },
            };
            entry.send_line(&inbox, message).await;
        }
    }
}

/// One line of output.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// A line within the limit (invalid UTF-8 replaced), without its line ending.
    Text(String),
    /// A line past the limit: its length (without the line ending) and its first bytes.
    TooLong { length: usize, head: String },
}

/// Reads one line of at most `max` bytes; `None` at end of input.
pub async fn read_bounded_line<R: AsyncBufReadExt + Unpin>(
    reader: &mut R,
    max: usize,
) -> std::io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let read = (&mut *reader)
        .take(max as u64 + 1)
        .read_until(b'\n', &mut buf)
        .await?;
    if read == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') || buf.len() <= max {
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        // Valid UTF-8 (the usual case) becomes the line without a copy.
        let text = String::from_utf8(buf)
            .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
        return Ok(Some(Line::Text(text)));
    }
    // Past the limit: skip to the end of the line, counting what is dropped.
    let head = String::from_utf8_lossy(&buf[..buf.len().min(256)]).into_owned();
    let mut length = buf.len();
    loop {
        buf.clear();
        let read = (&mut *reader)
            .take(64 << 10)
            .read_until(b'\n', &mut buf)
            .await?;
        length += buf.len();
        if read == 0 || buf.last() == Some(&b'\n') {
            let ending = buf
                .iter()
                .rev()
                .take_while(|b| matches!(b, b'\n' | b'\r'))
                .count();
            return Ok(Some(Line::TooLong {
                length: length - ending,
                head,
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_kept_for_replay_are_a_bounded_prefix() {
        let mut first = FirstLines::default();
        first.keep("banner");
        first.keep(&"x".repeat(REPLAYED_BYTES));
        first.keep("after a line too big to keep");
        assert_eq!(first.lines, ["banner"]);
        let mut first = FirstLines::default();
        for n in 0..=REPLAYED_LINES {
            first.keep(&n.to_string());
        }
        assert_eq!(first.lines.len(), REPLAYED_LINES);
        assert_eq!(
            first.lines.last().unwrap(),
            &(REPLAYED_LINES - 1).to_string()
        );
    }

    #[tokio::test]
    async fn lines_are_split_trimmed_and_bounded() {
        let input = b"one\r\ntwo\n0123456789abcdef\nshort\nlast-without-newline".to_vec();
        let mut reader = BufReader::new(&input[..]);
        let mut lines = Vec::new();
        while let Some(line) = read_bounded_line(&mut reader, 10).await.unwrap() {
            lines.push(line);
        }
        assert_eq!(
            lines,
            vec![
                Line::Text("one".into()),
                Line::Text("two".into()),
                Line::TooLong {
                    length: 16,
                    head: "0123456789a".into()
                },
                Line::Text("short".into()),
                Line::TooLong {
                    length: 20,
                    head: "last-withou".into()
                },
            ]
        );
    }
}
