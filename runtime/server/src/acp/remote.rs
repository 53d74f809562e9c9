//! ACP's remote transport (the proposal the official client libraries ship as
//! their HTTP and WebSocket streams), at `/acp/{agent}`:
//!
//! - `POST` of `initialize` without a connection opens one: its answer in the
//!   body, its id in `Acp-Connection-Id`. Every later `POST` carries that header
//!   and gets 202; answers come in the streams.
//! - `GET` with `Acp-Connection-Id` streams the connection's own messages as
//!   SSE; with `Acp-Session-Id` too, one session's (its updates, the requests and
//!   answers about it).
//! - `DELETE` with `Acp-Connection-Id` closes the connection.
//! - A WebSocket upgrade of `GET` is a connection of its own: one JSON-RPC
//!   message per text frame, both ways.

use std::sync::Arc;

use agentplex_acp::rpc::{self, Message, RpcError};
use agentplex_api::ProblemDetails;
use axum::body::Bytes;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message as Frame, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::{SinkExt, StreamExt};

use super::outbox::Scope;
use super::{Answer, Connection, SessionOptions};
use crate::error::{ApiError, Result};
use crate::extract::{Path, Query};
use crate::AppState;

/// The header naming the connection.
const CONNECTION_ID: &str = "acp-connection-id";
/// The header naming the session a stream or a message is about.
const SESSION_ID: &str = "acp-session-id";

/// The connection a request names.
fn named(state: &AppState, headers: &HeaderMap) -> Result<Option<Arc<Connection>>> {
    let Some(id) = headers.get(CONNECTION_ID) else {
        return Ok(None);
    };
    let id = id
        .to_str()
        .map_err(|_| ApiError::InvalidRequest("Acp-Connection-Id is not text".into()))?;
    state.acp.get(id).map(Some)
}

/// Whether `message` is the `initialize` request.
fn is_initialize(message: &Message) -> bool {
    matches!(message, Message::Request { method, .. } if method == "initialize")
}

/// One client message over the remote transport.
#[utoipa::path(post, path = "/acp/{agent}", tag = "acp", operation_id = "acp_remote_post",
    params(("agent" = String, Path, description = "The agent the connection's sessions run"),
           ("Acp-Connection-Id" = Option<String>, Header, description = "The connection (absent on `initialize`)"),
           ("model" = Option<String>, Query, description = "The model of its new sessions"),
           ("agentMode" = Option<String>, Query, description = "The mode of its new sessions"),
           ("permissionMode" = Option<String>, Query, description = "The permission mode of its new sessions"),
           ("variant" = Option<String>, Query, description = "The model variant of its new sessions")),
    request_body(content = Object, description = "A JSON-RPC 2.0 message", content_type = "application/json"),
    responses((status = 200, description = "The answer to `initialize`, with `Acp-Connection-Id`; without a connection, the JSON-RPC error of any other message", body = Object),
              (status = 202, description = "Taken; the answer comes in a stream"),
              (status = 400, description = "The body is not a JSON object", body = ProblemDetails),
              (status = 404, description = "No such connection, or no such agent", body = ProblemDetails)))]
pub async fn post(
    State(state): State<AppState>,
    Path(agent): Path<String>,
    Query(mut options): Query<SessionOptions>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response> {
    let message = super::message_of(&body)?;
    if let Some(connection) = named(&state, &headers)? {
        super::take(&connection, message).await;
        return Ok(StatusCode::ACCEPTED.into_response());
    }
    // Without a connection only `initialize` opens one; anything else is
    // answered with the JSON-RPC error and opens nothing.
    let message = match message {
        Ok(message @ Message::Request { .. }) if is_initialize(&message) => message,
        Ok(other) => {
            let id = match &other {
                Message::Request { id, .. } | Message::Response { id, .. } => Some(id.clone()),
                Message::Notification { .. } => None,
            };
            let error = RpcError::invalid_request(
                "no connection: the first message is `initialize` (then send Acp-Connection-Id)",
            );
            return Ok(axum::Json(rpc::response(id.as_ref(), Err(error))).into_response());
        }
        Err(unreadable) => {
            let answer = Answer::unreadable(unreadable).message;
            return Ok(axum::Json(answer).into_response());
        }
    };
    options.agent = Some(agent);
    let connection = state.acp.open_new(options, &state)?;
    let answer = connection
        .receive(message)
        .await
        .expect("a request is answered");
    let mut response = axum::Json(answer.message).into_response();
    let id = HeaderValue::from_str(&connection.id).expect("a generated id is a header value");
    response.headers_mut().insert(CONNECTION_ID, id);
    Ok(response)
}

/// The connection's stream (with `Acp-Session-Id`, one session's), or a
/// WebSocket connection.
#[utoipa::path(get, path = "/acp/{agent}", tag = "acp", operation_id = "acp_remote_stream",
    params(("agent" = String, Path, description = "The agent the connection's sessions run"),
           ("Acp-Connection-Id" = String, Header, description = "The connection (a WebSocket upgrade, which opens one, sends none)"),
           ("Acp-Session-Id" = Option<String>, Header, description = "The session whose messages to stream"),
           ("access_token" = Option<String>, Query, description = "The daemon's token, for a WebSocket (a browser cannot set headers on one); taken only with the upgrade")),
    responses((status = 101, description = "A WebSocket connection: one JSON-RPC message per text frame"),
              (status = 200, description = "SSE stream of JSON-RPC messages", content_type = "text/event-stream"),
              (status = 400, body = ProblemDetails), (status = 404, description = "No such connection, or no such agent", body = ProblemDetails)))]
pub async fn get(
    State(state): State<AppState>,
    Path(agent): Path<String>,
    Query(mut options): Query<SessionOptions>,
    headers: HeaderMap,
    upgrade: std::result::Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response> {
    if let Ok(upgrade) = upgrade {
        crate::terminal_ws::check_origin(&headers, &state.allowed_origins)?;
        options.agent = Some(agent);
        let connection = state.acp.open_new(options, &state)?;
        let acp = state.acp.clone();
        return Ok(upgrade.on_upgrade(move |socket| async move {
            relay(socket, connection.clone()).await;
            acp.remove(&connection.id);
        }));
    }
    let connection = named(&state, &headers)?.ok_or_else(|| {
        ApiError::InvalidRequest(
            "name the connection with Acp-Connection-Id, or upgrade to a WebSocket".into(),
        )
    })?;
    let scope = match headers.get(SESSION_ID).map(HeaderValue::to_str) {
        Some(Ok(session)) => Scope::Session(session.to_owned()),
        Some(Err(_)) => {
            return Err(ApiError::InvalidRequest(
                "Acp-Session-Id is not text".into(),
            ))
        }
        None => Scope::Connection,
    };
    Ok(super::sse(&state, &connection, 0, scope))
}

/// Closes a connection of the remote transport.
#[utoipa::path(delete, path = "/acp/{agent}", tag = "acp", operation_id = "acp_remote_close",
    params(("agent" = String, Path, description = "The agent the connection's sessions run"),
           ("Acp-Connection-Id" = String, Header, description = "The connection")),
    responses((status = 204, description = "Closed"), (status = 404, body = ProblemDetails)))]
pub async fn delete(State(state): State<AppState>, headers: HeaderMap) -> Result<StatusCode> {
    let connection = named(&state, &headers)?.ok_or_else(|| {
        ApiError::InvalidRequest("name the connection with Acp-Connection-Id".into())
    })?;
    state.acp.remove(&connection.id);
    Ok(StatusCode::NO_CONTENT)
}

/// Carries a WebSocket connection both ways until either side ends it.
async fn relay(socket: WebSocket, connection: Arc<Connection>) {
    let (mut sink, mut frames) = socket.split();
    let _open = connection.stream_opened();
    let mut outgoing = Box::pin(connection.outbox.clone().follow(0, Scope::All));
    let writer = tokio::spawn(async move {
        while let Some((_, text)) = outgoing.next().await {
            if sink.send(Frame::Text((&*text).into())).await.is_err() {
                return;
            }
        }
        let _ = sink.close().await;
    });
    while let Some(Ok(frame)) = frames.next().await {
        let text = match frame {
            Frame::Text(text) => text.to_string(),
            Frame::Binary(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Frame::Close(_) => break,
            Frame::Ping(_) | Frame::Pong(_) => continue,
        };
        super::take(&connection, Message::parse(&text)).await;
    }
    connection.close();
    let _ = writer.await;
}
