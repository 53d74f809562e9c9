//! `GET /v1/processes/{id}/terminal/ws`: a terminal over a WebSocket. The
//! terminal's output goes out in binary frames (its scrollback first), JSON
//! control frames come in (input, resize, close); any number of viewers share one
//! terminal. A frame that is not a control frame closes the socket with a reason.
//!
//! Browsers let any page open a WebSocket to any address (CORS does not apply), so
//! a handshake from a page (it carries `Origin`) is refused unless the page is the
//! daemon's own or one `--cors-allow-origin` names: with `--no-token`, a web page
//! visited on the same machine could otherwise type into a terminal.

use std::sync::Arc;

use agentplex_api::{
    ProblemDetails, ProcessDataEncoding, ProcessLogsStream, ProcessWsQuery, TerminalClientFrame,
    TerminalServerFrame,
};
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::header::{HOST, ORIGIN};
use axum::http::HeaderMap;
use axum::response::Response;
use futures::{SinkExt, StreamExt};

use super::extract::{Path, Query};
use super::AppState;
use crate::error::ApiError;
use agentplex_processes::follow::{follow, LogEvent};
use agentplex_processes::log::Position;
use agentplex_processes::ManagedProcess;

/// Close codes (RFC 6455 §7.4.1).
pub(crate) const NORMAL: u16 = 1000;
pub(crate) const GOING_AWAY: u16 = 1001;
pub(crate) const UNSUPPORTED_DATA: u16 = 1003;
pub(crate) const INVALID_PAYLOAD: u16 = 1007;

/// The request headers of a WebSocket handshake (RFC 6455), as the OpenAPI document
/// lists them for each WebSocket route; axum's `WebSocketUpgrade` checks them.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(
    dead_code,
    reason = "read by axum's WebSocketUpgrade; here for the document"
)]
pub(crate) struct Handshake {
    /// Holds `upgrade` (the WebSocket handshake)
    #[param(rename = "Connection", pattern = "[Uu][Pp][Gg][Rr][Aa][Dd][Ee]")]
    connection: String,
    /// `websocket`
    #[param(rename = "Upgrade", pattern = "^[Ww][Ee][Bb][Ss][Oo][Cc][Kk][Ee][Tt]$")]
    upgrade: String,
    /// `13`
    #[param(rename = "Sec-WebSocket-Version", pattern = "^13$")]
    version: String,
    /// The handshake's key (RFC 6455)
    #[param(rename = "Sec-WebSocket-Key")]
    key: String,
}

/// The longest close reason a frame can carry, in bytes.
const MAX_REASON: usize = 123;

/// Upgrades to the terminal WebSocket of a process started with `tty`.
#[utoipa::path(get, path = "/v1/processes/{id}/terminal/ws", tag = "processes",
    params(("id" = String, Path, description = "Process id"), ProcessWsQuery, Handshake),
    responses(
        (status = 101, description = "Switched to the WebSocket: binary frames of terminal output out (the scrollback first, after a `ready` text frame), JSON `TerminalClientFrame`s in, `TerminalServerFrame`s as text"),
        (status = 400, description = "Not a WebSocket handshake (checked first)", body = ProblemDetails),
        (status = 403, description = "A page of another origin than the daemon's, not allowed by `--cors-allow-origin`", body = ProblemDetails),
        (status = 404, description = "No process has that id", body = ProblemDetails),
        (status = 409, description = "It has no terminal", body = ProblemDetails),
    ))]
pub async fn terminal_ws(
    State(state): State<AppState>,
    Path(id): Path<String>,
    // The token was checked by the auth layer (it accepts `access_token` here).
    Query(_query): Query<ProcessWsQuery>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = upgrade.map_err(|rejection| ApiError::InvalidRequest(rejection.body_text()))?;
    check_origin(&headers, &state.allowed_origins)?;
    let process = state.processes.get(&id)?;
    if !process.is_terminal() {
        return Err(process.not_a_terminal().into());
    }
    Ok(upgrade.on_upgrade(move |socket| view(socket, state, process)))
}

/// Refuses a handshake from a page of another origin than the daemon's, unless
/// `--cors-allow-origin` allows it. Programs send no `Origin`: they pass. (Without a
/// token the front door has refused such a page already, and has checked that
/// `Host` is a name the daemon answers to, so a rebound name cannot pass as its own.)
pub(crate) fn check_origin(headers: &HeaderMap, allowed: &[String]) -> Result<(), ApiError> {
    let Some(origin) = headers.get(ORIGIN) else {
        return Ok(());
    };
    let origin = origin.to_str().unwrap_or_default();
    let host = headers.get(HOST).and_then(|h| h.to_str().ok());
    if super::guard::is_own_or_allowed(origin, host, allowed) {
        return Ok(());
    }
    Err(ApiError::PermissionDenied(format!(
        "a WebSocket from the page {origin:?} is refused: the daemon's own pages, and those --cors-allow-origin names, may open one"
    )))
}

/// What a viewer's loop does next.
enum Next {
    Continue,
    /// Answer with this frame and go on.
    Reply(TerminalServerFrame),
    Close(u16, String),
}

/// One viewer: the terminal's output out, control frames in, until either ends.
async fn view(socket: WebSocket, state: AppState, process: Arc<ManagedProcess>) {
    let (mut sink, mut incoming) = socket.split();
    let ready = TerminalServerFrame::Ready {
        process_id: process.id.clone(),
    };
    if sink.send(text(&ready)).await.is_err() {
        return;
    }
    // From the oldest byte held: the scrollback, then live output.
    let mut output = Box::pin(follow(
        process.clone(),
        Position::Offset(0),
        ProcessLogsStream::Pty,
    ));
    let closing = state.sessions.closing();
    tokio::pin!(closing);
    let close = loop {
        tokio::select! {
            event = output.next() => match event {
                Some(LogEvent::Chunk(chunk)) => {
                    if sink.send(Message::Binary(chunk.data)).await.is_err() {
                        return;
                    }
                }
                // A viewer too slow for the ring buffer skips what it dropped.
                Some(LogEvent::Missed { .. }) => {}
                None => {
                    let exit = process.exit();
                    let frame = TerminalServerFrame::Exit {
                        exit_code: exit.and_then(|e| e.code),
                        signal: exit.and_then(|e| e.signal),
                    };
                    if sink.send(text(&frame)).await.is_err() {
                        return;
                    }
                    break (NORMAL, "the process exited".to_owned());
                }
            },
            message = incoming.next() => {
                let next = match message {
                    Some(Ok(Message::Text(frame))) => control(&state, &process, &frame).await,
                    Some(Ok(Message::Binary(_))) => Next::Close(
                        UNSUPPORTED_DATA,
                        "binary frames are not accepted; send JSON control frames".into(),
                    ),
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => Next::Continue,
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return,
                };
                match next {
                    Next::Continue => {}
                    Next::Reply(frame) => {
                        if sink.send(text(&frame)).await.is_err() {
                            return;
                        }
                    }
                    Next::Close(code, reason) => break (code, reason),
                }
            },
            () = &mut closing => break (GOING_AWAY, "the daemon is shutting down".to_owned()),
        }
    };
    let (code, reason) = close;
    let _ = sink
        .send(Message::Close(Some(CloseFrame {
            code,
            reason: Utf8Bytes::from(shortened(&reason)),
        })))
        .await;
}

/// Carries out one control frame; an error that leaves the socket usable is
/// answered with an `error` frame.
async fn control(state: &AppState, process: &ManagedProcess, frame: &str) -> Next {
    let frame = match serde_json::from_str::<TerminalClientFrame>(frame) {
        Ok(frame) => frame,
        Err(error) => {
            return Next::Close(INVALID_PAYLOAD, format!("invalid control frame: {error}"))
        }
    };
    let outcome = match frame {
        TerminalClientFrame::Input { data, encoding } => {
            let encoding = encoding.unwrap_or(ProcessDataEncoding::Utf8);
            match state.processes.decode_input(&data, encoding) {
                Ok(bytes) => process.write_input(&bytes).await,
                Err(error) => Err(error),
            }
        }
        TerminalClientFrame::Resize { cols, rows } => process.resize(cols, rows),
        TerminalClientFrame::Close {} => return Next::Close(NORMAL, "closed by the client".into()),
    };
    match outcome {
        Ok(()) => Next::Continue,
        Err(error) => Next::Reply(TerminalServerFrame::Error {
            message: ApiError::from(error).to_string(),
        }),
    }
}

/// A JSON text frame.
fn text(frame: &TerminalServerFrame) -> Message {
    Message::Text(Utf8Bytes::from(
        serde_json::to_string(frame).expect("frames serialize"),
    ))
}

/// A close reason cut to what a close frame holds, at a character boundary.
pub(crate) fn shortened(reason: &str) -> String {
    let mut end = reason.len().min(MAX_REASON);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    reason[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(origin: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(HOST, "127.0.0.1:2468".parse().unwrap());
        if let Some(origin) = origin {
            headers.insert(ORIGIN, origin.parse().unwrap());
        }
        headers
    }

    #[test]
    fn only_the_daemons_pages_and_allowed_origins_open_a_terminal() {
        let allowed = ["https://app.example".to_owned()];
        assert!(check_origin(&headers(None), &[]).is_ok());
        assert!(check_origin(&headers(Some("http://127.0.0.1:2468")), &[]).is_ok());
        assert!(check_origin(&headers(Some("https://app.example")), &allowed).is_ok());
        assert!(check_origin(&headers(Some("http://127.0.0.1:9999")), &allowed).is_err());
        assert!(check_origin(&headers(Some("https://evil.example")), &allowed).is_err());
        assert!(check_origin(&headers(Some("https://evil.example")), &["*".to_owned()]).is_ok());
        assert!(check_origin(&headers(Some("null")), &[]).is_err());
    }

    #[test]
    fn a_close_reason_is_cut_to_what_a_frame_holds() {
        let long = "é".repeat(100);
        let cut = shortened(&long);
        assert!(cut.len() <= MAX_REASON && long.starts_with(&cut));
    }
}
