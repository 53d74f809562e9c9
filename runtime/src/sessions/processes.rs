//! Child processes adapters ask for: spawn with piped stdio in their own process
//! group, stream their output line by line, report their exit, kill the group.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use sandbox_agent_host::{ExitStatus, Input, SpawnRequest};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

use super::actor::Incoming;

/// How long output readers may run on after the process exits (a grandchild can
/// hold the pipes open) before the exit is reported anyway.
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);

/// What a session needs to start its processes.
pub struct SpawnContext {
    /// Session-wide variables (client env, credentials).
    pub env: Vec<(String, String)>,
    pub directory: PathBuf,
    /// Searched after PATH for bare program names.
    pub install_dir: PathBuf,
    pub max_line_bytes: usize,
}

/// A running child process.
pub struct ProcessEntry {
    pub pid: u32,
    /// Feeds the stdin writer; `None` once stdin is closed.
    pub stdin: Option<UnboundedSender<Vec<u8>>>,
}

impl ProcessEntry {
    /// Kills the process and everything in its process group.
    pub fn kill(&self) {
        // SAFETY: killpg only sends a signal; the group id is the child's pid because
        // it was started with `process_group(0)`.
        unsafe {
            libc::killpg(self.pid as libc::pid_t, libc::SIGKILL);
        }
    }
}

/// Resolves a program name: paths as given, bare names on PATH, then in the install dir.
pub fn resolve_program(program: &str, install_dir: &Path) -> PathBuf {
    if program.contains('/') {
        return PathBuf::from(program);
    }
    which::which(program).unwrap_or_else(|_| install_dir.join(program))
}

/// Starts a process; its output, overlong lines and exit arrive on `incoming`.
pub fn spawn(
    request: &SpawnRequest,
    context: &SpawnContext,
    incoming: UnboundedSender<Incoming>,
) -> std::io::Result<ProcessEntry> {
    let program = resolve_program(&request.argv[0], &context.install_dir);
    let mut command = Command::new(&program);
    command
        .args(&request.argv[1..])
        .envs(context.env.iter().cloned())
        .envs(request.env.iter().cloned())
        .current_dir(request.cwd.as_deref().map(Path::new).unwrap_or(&context.directory))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = command.spawn()?;
    let pid = child.id().unwrap_or_default();
    let process_id = request.process_id.clone();

    let (stdin_tx, mut stdin_rx) = unbounded_channel::<Vec<u8>>();
    if let Some(mut stdin) = child.stdin.take() {
        tokio::spawn(async move {
            while let Some(bytes) = stdin_rx.recv().await {
                if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
        });
    }

    let stdout = child.stdout.take().map(|out| {
        let (id, tx) = (process_id.clone(), incoming.clone());
        tokio::spawn(forward_lines(out, context.max_line_bytes, Stream::Stdout, id, tx))
    });
    let stderr = child.stderr.take().map(|err| {
        let (id, tx) = (process_id.clone(), incoming.clone());
        tokio::spawn(forward_lines(err, context.max_line_bytes, Stream::Stderr, id, tx))
    });

    tokio::spawn(async move {
        let status = child.wait().await;
        for reader in [stdout, stderr].into_iter().flatten() {
            let abort = reader.abort_handle();
            if tokio::time::timeout(DRAIN_AFTER_EXIT, reader).await.is_err() {
                abort.abort();
            }
        }
        let status = match status {
            Ok(status) => {
                use std::os::unix::process::ExitStatusExt;
                ExitStatus { code: status.code(), signal: status.signal() }
            }
            Err(_) => ExitStatus { code: None, signal: None },
        };
        let _ = incoming.send(Incoming::Adapter(Input::Exit { process_id, status }));
    });

    Ok(ProcessEntry { pid, stdin: Some(stdin_tx) })
}

/// Which output stream a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    /// `stdout` or `stderr`.
    pub fn name(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

async fn forward_lines(
    reader: impl AsyncRead + Unpin,
    max_line_bytes: usize,
    stream: Stream,
    process_id: String,
    incoming: UnboundedSender<Incoming>,
) {
    let mut reader = BufReader::new(reader);
    loop {
        let line = match read_bounded_line(&mut reader, max_line_bytes).await {
            Ok(Some(line)) => line,
            Ok(None) | Err(_) => return,
        };
        let message = match line {
            Line::Text(line) => Incoming::Adapter(match stream {
                Stream::Stdout => Input::Stdout { process_id: process_id.clone(), line },
                Stream::Stderr => Input::Stderr { process_id: process_id.clone(), line },
            }),
            Line::TooLong { length, head } => {
                Incoming::LineTooLong { process_id: process_id.clone(), stream, length, head }
            }
        };
        if incoming.send(message).is_err() {
            return;
        }
    }
}

/// One line of output.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// A line within the limit (invalid UTF-8 replaced), without its line ending.
    Text(String),
    /// A line past the limit: its full length and its first bytes.
    TooLong { length: usize, head: String },
}

/// Reads one line of at most `max` bytes; `None` at end of input.
pub async fn read_bounded_line<R: AsyncBufReadExt + Unpin>(reader: &mut R, max: usize) -> std::io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let read = (&mut *reader).take(max as u64 + 1).read_until(b'\n', &mut buf).await?;
    if read == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') || buf.len() <= max {
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        return Ok(Some(Line::Text(String::from_utf8_lossy(&buf).into_owned())));
    }
    // Past the limit: skip to the end of the line, counting what is dropped.
    let head = String::from_utf8_lossy(&buf[..buf.len().min(256)]).into_owned();
    let mut length = buf.len();
    loop {
        buf.clear();
        let read = (&mut *reader).take(64 << 10).read_until(b'\n', &mut buf).await?;
        length += buf.len();
        if read == 0 || buf.last() == Some(&b'\n') {
            return Ok(Some(Line::TooLong { length, head }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                Line::TooLong { length: 17, head: "0123456789a".into() },
                Line::Text("short".into()),
                Line::TooLong { length: 20, head: "last-without-newline".into() },
            ]
        );
    }
}
