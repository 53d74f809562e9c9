//! One managed process: started with pipes or a terminal, its output read into
//! its log, its exit kept, its stdin written, its group signalled.

use std::os::unix::process::CommandExt as _;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use agentplex_api::{ProcessCreateRequest, ProcessInfo, ProcessState};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt as _};
use tokio::net::unix::pipe;
use tokio::sync::watch;

use super::log::{now_ms, OutputLog, Stream};
use super::pty::{self, Master, Size};
use super::spawn::{exit_parts, CommandSpec};
use super::DRAIN_AFTER_EXIT;
use crate::group::{self, Leader, Pipes};
use crate::in_use::Hold;
use crate::ProcessError;

/// Bytes read from a pipe or terminal at once (one log entry at most).
const READ_CHUNK: usize = 16 << 10;

/// How long an input may wait for the process to read it (a full pipe or terminal
/// buffer) before the rest is given up.
pub const INPUT_STALL: Duration = Duration::from_secs(10);

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    /// Its exit status, when it exited on its own.
    pub code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// When (Unix milliseconds).
    pub at_ms: i64,
}

/// Where input for the process goes.
enum Input {
    Pipe(pipe::Sender),
    Terminal(Arc<Master>),
}

/// A process started through `POST /v1/processes`.
pub struct ManagedProcess {
    /// `proc_<n>`.
    pub id: String,
    request: ProcessCreateRequest,
    /// The process, leading its group; unreaped until the process is deleted.
    leader: Leader,
    /// The installed package folder it runs from, kept while the process is.
    _package: Option<Hold>,
    created_at_ms: i64,
    /// Its output (or its terminal's scrollback).
    pub log: OutputLog,
    terminal: Option<Arc<Master>>,
    input: tokio::sync::Mutex<Option<Input>>,
    exit: watch::Sender<Option<Exit>>,
}

/// Limits a new process gets.
pub struct Buffers {
    /// The log of a process without a terminal, in bytes.
    pub log_bytes: usize,
    /// The scrollback of a terminal, in bytes.
    pub scrollback_bytes: usize,
}

impl ManagedProcess {
    /// Starts the process and the tasks that read its output and wait for it.
    pub fn start(
        id: String,
        request: ProcessCreateRequest,
        buffers: &Buffers,
    ) -> Result<Arc<Self>, ProcessError> {
        let spec = CommandSpec {
            command: &request.command,
            args: &request.args,
            cwd: request.cwd.as_deref(),
            env: &request.env,
        };
        let (mut command, package) = spec.command()?;
        let (terminal, (leader, mut child), log) = if request.tty {
            let size = Size {
                cols: request.cols.unwrap_or(Size::DEFAULT.cols),
                rows: request.rows.unwrap_or(Size::DEFAULT.rows),
            };
            let (master, replica) =
                pty::open(size).map_err(ProcessError::io("cannot open a terminal"))?;
            if !request.env.contains_key("TERM") {
                command.env("TERM", "xterm-256color");
            }
            replica
                .attach(&mut command)
                .map_err(ProcessError::io("cannot open a terminal"))?;
            let child = spec.spawn(&mut command)?;
            // The child holds the replica now; ours closes so the end of its output is seen.
            drop(replica);
            let log = OutputLog::new(buffers.scrollback_bytes);
            (Some(Arc::new(master)), child, log)
        } else {
            command
                .process_group(0)
                .stdin(if request.interactive {
                    Stdio::piped()
                } else {
                    Stdio::null()
                })
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let child = spec.spawn(&mut command)?;
            (None, child, OutputLog::new(buffers.log_bytes))
        };
        let mut pipes = Pipes::take(&mut child)
            .map_err(ProcessError::io("cannot read the process's output"))?;
        let input = match (&terminal, pipes.stdin.take()) {
            (Some(master), _) => Some(Input::Terminal(master.clone())),
            (None, Some(stdin)) => Some(Input::Pipe(stdin)),
            (None, None) => None,
        };
        let process = Arc::new(ManagedProcess {
            id,
            leader,
            _package: package,
            created_at_ms: now_ms(),
            request,
            log,
            terminal,
            input: tokio::sync::Mutex::new(input),
            exit: watch::channel(None).0,
        });
        process.clone().watch(pipes);
        Ok(process)
    }

    /// Reads the output into the log until it ends, waits for the exit, and
    /// publishes it once the output is in (or [`DRAIN_AFTER_EXIT`] after the exit,
    /// when something the process started holds its output open).
    fn watch(self: Arc<Self>, pipes: Pipes) {
        let mut readers = Vec::new();
        if let Some(master) = self.terminal.clone() {
            let process = self.clone();
            readers.push(tokio::spawn(async move {
                let mut buf = vec![0; READ_CHUNK];
                while let Ok(n @ 1..) = master.read(&mut buf).await {
                    process.log.push(Stream::Pty, &buf[..n]);
                }
            }));
        }
        if let Some(stdout) = pipes.stdout {
            readers.push(tokio::spawn(read_into(
                self.clone(),
                stdout,
                Stream::Stdout,
            )));
        }
        if let Some(stderr) = pipes.stderr {
            readers.push(tokio::spawn(read_into(
                self.clone(),
                stderr,
                Stream::Stderr,
            )));
        }
        tokio::spawn(async move {
            let status = self.leader.exited().await;
            let drained = futures::future::join_all(readers);
            let _ = tokio::time::timeout(DRAIN_AFTER_EXIT, drained).await;
            self.log.close();
            let (code, signal) = match status {
                Ok(status) => exit_parts(status),
                Err(error) => {
                    tracing::error!(process = %self.id, %error, "waiting for a process");
                    (None, None)
                }
            };
            // Input to an exited process has nowhere to go.
            self.input.lock().await.take();
            self.exit.send_replace(Some(Exit {
                code,
                signal,
                at_ms: now_ms(),
            }));
        });
    }

    /// SIGKILL to its group while it runs.
    pub fn kill(&self) {
        if self.exit().is_none() {
            self.leader.kill_group();
        }
    }

    /// SIGTERM to its group, SIGKILL once it exited or after `grace`.
    pub async fn stop(&self, grace: Duration) {
        group::stop(&self.leader, grace).await;
    }

    /// Kills what it left running in its group, then reaps it: its group is
    /// never signalled again. False while it runs.
    pub fn reap(&self) -> bool {
        self.leader.try_exit().is_some() && {
            self.leader.kill_group();
            self.leader.reap()
        }
    }

    /// Whether it was started in a terminal.
    pub fn is_terminal(&self) -> bool {
        self.terminal.is_some()
    }

    /// Whether it is left running when the daemon stops.
    pub fn outlives_daemon(&self) -> bool {
        self.request.outlive_daemon
    }

    /// How it ended, once it did.
    pub fn exit(&self) -> Option<Exit> {
        *self.exit.borrow()
    }

    /// Resolves once the process exited (and its output is in).
    pub async fn exited(&self) {
        let mut exit = self.exit.subscribe();
        let _ = exit.wait_for(Option::is_some).await;
    }

    /// Waits up to `wait` for the exit.
    pub async fn wait(&self, wait: Duration) {
        let _ = tokio::time::timeout(wait, self.exited()).await;
    }

    /// Writes bytes to its stdin or terminal. A process that leaves them unread
    /// for [`INPUT_STALL`] gets the part it took only (and a 409 says how much).
    pub async fn write_input(&self, bytes: &[u8]) -> Result<(), ProcessError> {
        let mut input = self.input.lock().await;
        let Some(input) = input.as_mut() else {
            let why = if self.exit().is_some() {
                "has exited"
            } else {
                "has no open stdin: start it with `interactive` or `tty`"
            };
            return Err(ProcessError::Conflict(format!(
                "process {:?} {why}",
                self.id
            )));
        };
        let mut written = 0;
        let writing = async {
            while written < bytes.len() {
                let rest = &bytes[written..];
                let n = match input {
                    Input::Pipe(stdin) => stdin.write(rest).await?,
                    Input::Terminal(master) => master.write(rest).await?,
                };
                if n == 0 {
                    return Err(std::io::ErrorKind::WriteZero.into());
                }
                written += n;
            }
            Ok::<(), std::io::Error>(())
        };
        match tokio::time::timeout(INPUT_STALL, writing).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(source)) => Err(ProcessError::InputFailed {
                id: self.id.clone(),
                source,
            }),
            Err(_) => Err(ProcessError::Conflict(format!(
                "process {:?} took {written} of {} bytes in {} s without reading the rest; the rest was not written",
                self.id,
                bytes.len(),
                INPUT_STALL.as_secs()
            ))),
        }
    }

    /// Sets its terminal's size.
    pub fn resize(&self, cols: u16, rows: u16) -> Result<(), ProcessError> {
        let master = self
            .terminal
            .as_ref()
            .ok_or_else(|| self.not_a_terminal())?;
        if cols == 0 || rows == 0 {
            return Err(ProcessError::InvalidRequest(format!(
                "a terminal needs at least one column and one row, not {cols}x{rows}"
            )));
        }
        master
            .resize(Size { cols, rows })
            .map_err(|source| ProcessError::ResizeFailed {
                id: self.id.clone(),
                source,
            })
    }

    /// The 409 of a terminal operation on a process without one.
    pub fn not_a_terminal(&self) -> ProcessError {
        ProcessError::Conflict(format!(
            "process {:?} has no terminal: start it with `tty: true`",
            self.id
        ))
    }

    /// Its state on the wire.
    pub fn info(&self) -> ProcessInfo {
        let exit = self.exit();
        ProcessInfo {
            id: self.id.clone(),
            command: self.request.command.clone(),
            args: self.request.args.clone(),
            cwd: self.request.cwd.clone(),
            tty: self.request.tty,
            interactive: self.request.interactive || self.request.tty,
            status: if exit.is_some() {
                ProcessState::Exited
            } else {
                ProcessState::Running
            },
            pid: Some(self.leader.pid()),
            exit_code: exit.and_then(|e| e.code),
            signal: exit.and_then(|e| e.signal),
            created_at_ms: self.created_at_ms,
            exited_at_ms: exit.map(|e| e.at_ms),
            outlive_daemon: self.request.outlive_daemon,
        }
    }
}

/// Reads a pipe into the process's log until it ends.
async fn read_into(process: Arc<ManagedProcess>, mut pipe: impl AsyncRead + Unpin, stream: Stream) {
    let mut buf = vec![0; READ_CHUNK];
    while let Ok(n @ 1..) = pipe.read(&mut buf).await {
        process.log.push(stream, &buf[..n]);
    }
}
