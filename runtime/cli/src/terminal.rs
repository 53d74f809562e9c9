//! `agentplex terminal ID`: this terminal attached to a process's terminal on
//! the daemon over its WebSocket. Keystrokes go out raw, its output comes back raw,
//! a resize of this window resizes it; Ctrl-] detaches. Our terminal is put back as
//! it was however this ends, and we exit with the process's status when it exits.

use std::io::{IsTerminal, Write};
use std::os::fd::AsFd;

use agentplex_client::tungstenite::Message;
use agentplex_client::{
    ProcessDataEncoding, TerminalClientFrame, TerminalServerFrame, TerminalSocket,
};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use clap::Args;
use futures::{SinkExt, StreamExt};
use rustix::termios::{self, OptionalActions, Termios};
use tokio::io::AsyncReadExt;
use tokio::signal::unix::{signal, SignalKind};

use super::error::CliError;
use super::remote::{call, Connection};
use super::Failure;

/// The key that detaches (Ctrl-], as telnet's).
const DETACH: u8 = 0x1d;

/// `agentplex terminal` arguments.
#[derive(Debug, Args)]
pub struct TerminalArgs {
    /// Id of a process started with a terminal (`proc_1`).
    id: String,
    #[command(flatten)]
    connection: Connection,
}

/// Our terminal in raw mode until dropped (nothing when stdin is not a terminal).
struct RawMode {
    saved: Option<Termios>,
}

impl RawMode {
    fn enter() -> Result<Self, CliError> {
        let stdin = std::io::stdin();
        if !stdin.is_terminal() {
            return Ok(RawMode { saved: None });
        }
        let failed =
            |e: rustix::io::Errno| CliError::invalid(format!("cannot set up this terminal: {e}"));
        let saved = termios::tcgetattr(stdin.as_fd()).map_err(failed)?;
        let mut raw = saved.clone();
        raw.make_raw();
        termios::tcsetattr(stdin.as_fd(), OptionalActions::Now, &raw).map_err(failed)?;
        Ok(RawMode { saved: Some(saved) })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            let _ = termios::tcsetattr(std::io::stdin().as_fd(), OptionalActions::Now, saved);
        }
    }
}

/// How an attachment ended.
enum Ended {
    Exited(TerminalServerFrame),
    Detached,
    /// The daemon closed the socket, with its reason.
    Closed(String),
}

/// `agentplex terminal ID`.
pub async fn attach(args: TerminalArgs) -> Result<(), Failure> {
    let c = &args.connection;
    let mut socket = call(c, c.client()?.terminal(&args.id)).await?;
    let ended = {
        let _raw = RawMode::enter()?;
        relay(&mut socket).await?
    };
    match ended {
        Ended::Exited(TerminalServerFrame::Exit { exit_code, signal }) => {
            let code = match (exit_code, signal) {
                (Some(code), _) => u8::try_from(code).unwrap_or(1),
                (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(1),
                (None, None) => 0,
            };
            match code {
                0 => Ok(()),
                code => Err(Failure::silent(code)),
            }
        }
        Ended::Detached => {
            eprintln!("detached from {} (it goes on running)", args.id);
            Ok(())
        }
        Ended::Closed(reason) if reason.is_empty() => Err(Failure::from(CliError::invalid(
            "the terminal connection was closed",
        ))),
        Ended::Closed(reason) => Err(Failure::from(CliError::invalid(format!(
            "the daemon closed the terminal connection: {reason}"
        )))),
        Ended::Exited(_) => Ok(()),
    }
}

/// Carries keystrokes, output and resizes until the process exits, the socket
/// closes or the user detaches.
async fn relay(socket: &mut TerminalSocket) -> Result<Ended, CliError> {
    let lost = |e| CliError::invalid(format!("the terminal connection failed: {e}"));
    if let Some(size) = local_size() {
        send(socket, size).await.map_err(lost)?;
    }
    let mut resized = signal(SignalKind::window_change())
        .map_err(|e| CliError::invalid(format!("cannot watch this window's size: {e}")))?;
    let mut stdin = tokio::io::stdin();
    let mut stdin_open = true;
    let mut keys = vec![0; 4096];
    let mut stdout = std::io::stdout();
    let mut exit = None;
    loop {
        tokio::select! {
            message = socket.next() => match message {
                Some(Ok(Message::Binary(bytes))) => {
                    stdout
                        .write_all(&bytes)
                        .and_then(|()| stdout.flush())
                        .map_err(|e| CliError::invalid(format!("writing to this terminal: {e}")))?;
                }
                Some(Ok(Message::Text(text))) => match serde_json::from_str(&text) {
                    Ok(frame @ TerminalServerFrame::Exit { .. }) => exit = Some(frame),
                    Ok(TerminalServerFrame::Error { message }) => {
                        eprint!("\r\n[agentplex: {message}]\r\n");
                    }
                    Ok(TerminalServerFrame::Ready { .. }) | Err(_) => {}
                },
                Some(Ok(Message::Close(frame))) => {
                    let reason = frame.map_or_else(String::new, |f| f.reason.to_string());
                    return Ok(exit.map_or(Ended::Closed(reason), Ended::Exited));
                }
                None => return Ok(exit.map_or(Ended::Closed(String::new()), Ended::Exited)),
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(lost(e)),
            },
            read = stdin.read(&mut keys), if stdin_open => {
                let n = read.map_err(|e| CliError::invalid(format!("reading this terminal: {e}")))?;
                if n == 0 {
                    stdin_open = false;
                    continue;
                }
                let typed = &keys[..n];
                let detach = typed.iter().position(|&b| b == DETACH);
                let before = &typed[..detach.unwrap_or(n)];
                if !before.is_empty() {
                    let input = TerminalClientFrame::Input {
                        data: STANDARD.encode(before),
                        encoding: Some(ProcessDataEncoding::Base64),
                    };
                    send(socket, input).await.map_err(lost)?;
                }
                if detach.is_some() {
                    let _ = send(socket, TerminalClientFrame::Close {}).await;
                    return Ok(Ended::Detached);
                }
            },
            _ = resized.recv() => {
                if let Some(size) = local_size() {
                    send(socket, size).await.map_err(lost)?;
                }
            },
        }
    }
}

/// This window's size as a resize frame, when stdout is a terminal.
fn local_size() -> Option<TerminalClientFrame> {
    let size = termios::tcgetwinsize(std::io::stdout().as_fd()).ok()?;
    (size.ws_col > 0 && size.ws_row > 0).then_some(TerminalClientFrame::Resize {
        cols: size.ws_col,
        rows: size.ws_row,
    })
}

async fn send(
    socket: &mut TerminalSocket,
    frame: TerminalClientFrame,
) -> Result<(), agentplex_client::tungstenite::Error> {
    let text = serde_json::to_string(&frame).expect("frames serialize");
    socket.send(Message::text(text)).await
}
