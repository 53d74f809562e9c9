//! `GET /v1/desktop/stream/ws`: the desktop live, over a WebSocket. The screen goes
//! out as binary JPEG frames (only when it changed, at most `fps` a second) after a
//! `ready` text frame with its size; JSON input frames come in (pointer, wheel, keys,
//! text) and are carried out as the `/v1/desktop/mouse` and `keyboard` routes would.
//! The inspector's Desktop page is its viewer. Pages of other origins are refused as
//! for the terminal WebSocket.

use std::time::Duration;

use agentplex_api::{
    DesktopKeyRequest, DesktopKeyboardTypeRequest, DesktopMouseButtonRequest,
    DesktopMouseMoveRequest, DesktopMouseScrollRequest, DesktopScreenshotFormat,
    DesktopScreenshotQuery, DesktopStreamClientFrame, DesktopStreamQuery, DesktopStreamServerFrame,
    ProblemDetails,
};
use agentplex_desktop::DesktopError;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use futures::{SinkExt, StreamExt};

use super::extract::Query;
use super::terminal_ws::{
    check_origin, shortened, Handshake, GOING_AWAY, INVALID_PAYLOAD, NORMAL, UNSUPPORTED_DATA,
};
use super::AppState;
use crate::error::ApiError;

/// Upgrades to the live view of the desktop.
#[utoipa::path(get, path = "/v1/desktop/stream/ws", operation_id = "desktop_stream_ws", tag = "desktop",
    params(DesktopStreamQuery, Handshake),
    responses(
        (status = 101, description = "Switched to the WebSocket: a `ready` text frame (`DesktopStreamServerFrame`), then binary JPEG frames of the screen; JSON `DesktopStreamClientFrame`s in"),
        (status = 400, description = "Not a WebSocket handshake (checked first), or `fps`, `quality` or `scale` out of range", body = ProblemDetails),
        (status = 403, description = "A page of another origin than the daemon's, not allowed by `--cors-allow-origin`", body = ProblemDetails),
        (status = 409, description = "The desktop is not running (`desktop_not_running`)", body = ProblemDetails),
    ))]
pub async fn stream_ws(
    State(state): State<AppState>,
    // The token was checked by the auth layer (it accepts `access_token` here).
    Query(query): Query<DesktopStreamQuery>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = upgrade.map_err(|rejection| ApiError::InvalidRequest(rejection.body_text()))?;
    check_origin(&headers, &state.allowed_origins)?;
    let fps = query.fps.unwrap_or(10);
    if !(1..=30).contains(&fps) {
        return Err(ApiError::InvalidRequest(format!(
            "`fps`: {fps} is not between 1 and 30"
        )));
    }
    let frames = DesktopScreenshotQuery {
        format: Some(DesktopScreenshotFormat::Jpeg),
        quality: Some(query.quality.unwrap_or(70)),
        scale: query.scale,
        show_cursor: Some(true),
    };
    // The first frame checks the desktop runs and the query's fields.
    let first = state.desktop.screenshot(&frames).await?;
    let size = state.desktop.display_info().await?.resolution;
    let period = Duration::from_secs(1) / fps;
    Ok(upgrade.on_upgrade(move |socket| async move {
        let ready = DesktopStreamServerFrame::Ready {
            width: size.width,
            height: size.height,
        };
        view(socket, state, frames, period, ready, first.bytes).await
    }))
}

/// One viewer: frames out, input in, until either ends or the desktop stops.
async fn view(
    socket: WebSocket,
    state: AppState,
    frames: DesktopScreenshotQuery,
    period: Duration,
    ready: DesktopStreamServerFrame,
    first: Vec<u8>,
) {
    let (mut sink, mut incoming) = socket.split();
    if sink.send(text(&ready)).await.is_err()
        || sink
            .send(Message::Binary(first.clone().into()))
            .await
            .is_err()
    {
        return;
    }
    let mut last = first;
    let mut ticks = tokio::time::interval(period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let closing = state.sessions.closing();
    tokio::pin!(closing);
    let (code, reason) = loop {
        tokio::select! {
            _ = ticks.tick() => match state.desktop.screenshot(&frames).await {
                Ok(shot) if shot.bytes != last => {
                    if sink.send(Message::Binary(shot.bytes.clone().into())).await.is_err() {
                        return;
                    }
                    last = shot.bytes;
                }
                Ok(_) => {}
                Err(error @ (DesktopError::NotRunning | DesktopError::Died(_))) => {
                    break (NORMAL, error.to_string());
                }
                Err(error) => break (GOING_AWAY, error.to_string()),
            },
            message = incoming.next() => {
                let frame = match message {
                    Some(Ok(Message::Text(frame))) => frame,
                    Some(Ok(Message::Binary(_))) => break (
                        UNSUPPORTED_DATA,
                        "binary frames are not accepted; send JSON input frames".into(),
                    ),
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return,
                };
                let frame = match serde_json::from_str::<DesktopStreamClientFrame>(&frame) {
                    Ok(frame) => frame,
                    Err(error) => break (INVALID_PAYLOAD, format!("invalid input frame: {error}")),
                };
                if let Err(error) = input(&state, frame).await {
                    let reply = DesktopStreamServerFrame::Error { message: ApiError::from(error).to_string() };
                    if sink.send(text(&reply)).await.is_err() {
                        return;
                    }
                }
            },
            () = &mut closing => break (GOING_AWAY, "the daemon is shutting down".to_owned()),
        }
    };
    let _ = sink
        .send(Message::Close(Some(CloseFrame {
            code,
            reason: Utf8Bytes::from(shortened(&reason)),
        })))
        .await;
}

/// Carries out one input frame.
async fn input(state: &AppState, frame: DesktopStreamClientFrame) -> Result<(), DesktopError> {
    let desktop = &state.desktop;
    match frame {
        DesktopStreamClientFrame::MouseMove { x, y } => desktop
            .mouse_move(DesktopMouseMoveRequest { x, y })
            .await
            .map(drop),
        DesktopStreamClientFrame::MouseDown { x, y, button } => {
            let request = DesktopMouseButtonRequest {
                x: Some(x),
                y: Some(y),
                button,
            };
            desktop.mouse_button(request, true).await.map(drop)
        }
        DesktopStreamClientFrame::MouseUp { x, y, button } => {
            let request = DesktopMouseButtonRequest {
                x: Some(x),
                y: Some(y),
                button,
            };
            desktop.mouse_button(request, false).await.map(drop)
        }
        DesktopStreamClientFrame::Scroll {
            x,
            y,
            delta_x,
            delta_y,
        } => {
            let request = DesktopMouseScrollRequest {
                x,
                y,
                delta_x,
                delta_y,
            };
            desktop.mouse_scroll(request).await.map(drop)
        }
        DesktopStreamClientFrame::KeyDown { key } => {
            desktop.key(DesktopKeyRequest { key }, true).await
        }
        DesktopStreamClientFrame::KeyUp { key } => {
            desktop.key(DesktopKeyRequest { key }, false).await
        }
        DesktopStreamClientFrame::Type { text } => {
            desktop
                .type_text(DesktopKeyboardTypeRequest {
                    text,
                    delay_ms: None,
                })
                .await
        }
    }
}

/// A JSON text frame.
fn text(frame: &DesktopStreamServerFrame) -> Message {
    Message::Text(Utf8Bytes::from(
        serde_json::to_string(frame).expect("frames serialize"),
    ))
}
