//! The daemon as an ACP agent over HTTP, with the reference's transport:
//! `POST /v1/acp/{server_id}` takes one JSON-RPC message (a request is answered
//! in the response; the agent is named with `?agent=` on the first POST),
//! `GET` streams the agent's messages as SSE (resumable with `Last-Event-ID`),
//! `DELETE` closes the connection, `GET /v1/acp` lists the open ones.

mod connection;
mod errors;
mod modes;
mod outbox;
pub mod remote;

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentplex_acp::rpc::{Message, Unreadable};
use agentplex_api::ProblemDetails;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde::Serialize;
use utoipa::ToSchema;

pub use connection::{Answer, Connection, SessionOptions};
use outbox::Scope;

use super::extract::{Path, Query};
use super::AppState;
use crate::error::{ApiError, Result};

/// The open ACP connections, by server id.
pub struct AcpServers {
    servers: Mutex<HashMap<String, Arc<Connection>>>,
    /// How long a connection may go without its client (`--acp-idle-timeout-secs`).
    idle_timeout: Duration,
}

impl AcpServers {
    /// No connections yet; one idle for `idle_timeout` will be closed.
    pub fn new(idle_timeout: Duration) -> Self {
        Self {
            servers: Mutex::default(),
            idle_timeout,
        }
    }

    /// Closes, every so often, the connections whose client is gone: no message
    /// and no open stream for the idle timeout (a client that never sent
    /// `DELETE`). Their sessions go on.
    pub fn spawn_reaper(self: &Arc<Self>) {
        let servers = Arc::downgrade(self);
        let every =
            (self.idle_timeout / 2).clamp(Duration::from_millis(100), Duration::from_secs(30));
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            loop {
                ticks.tick().await;
                let Some(servers) = servers.upgrade() else {
                    return;
                };
                let idle: Vec<String> = servers
                    .servers
                    .lock()
                    .unwrap()
                    .values()
                    .filter(|c| {
                        c.idle_for()
                            .is_some_and(|idle| idle >= servers.idle_timeout)
                    })
                    .map(|c| c.id.clone())
                    .collect();
                for id in idle {
                    tracing::info!(server_id = %id, "closing an idle ACP connection");
                    servers.remove(&id);
                }
            }
        });
    }

    fn get(&self, server_id: &str) -> Result<Arc<Connection>> {
        self.servers
            .lock()
            .unwrap()
            .get(server_id)
            .cloned()
            .ok_or_else(|| ApiError::NotFound(format!("ACP server {server_id:?} is not open")))
    }

    /// The connection `server_id`, opened for the agent `options` names when new.
    fn open(
        &self,
        server_id: &str,
        options: SessionOptions,
        state: &AppState,
    ) -> Result<Arc<Connection>> {
        let mut servers = self.servers.lock().unwrap();
        if let Some(connection) = servers.get(server_id) {
            if let Some(agent) = options
                .agent
                .as_deref()
                .filter(|agent| *agent != connection.agent)
            {
                return Err(ApiError::AcpServerBound(format!(
                    "ACP server {server_id:?} runs {:?}, not {agent:?}; open another server id",
                    connection.agent
                )));
            }
            return Ok(connection.clone());
        }
        // No such server yet, and nothing to open it with: 404, as for an
        // unknown agent (both name what is not there).
        let Some(agent) = options.agent.clone() else {
            return Err(ApiError::NotFound(format!(
                "ACP server {server_id:?} is not open: name its agent with `?agent=` on the first POST"
            )));
        };
        state
            .catalog
            .adapter(&agent)
            .map_err(ApiError::in_agent_path)?;
        let connection = Connection::new(server_id.to_owned(), agent, options, state.clone());
        servers.insert(server_id.to_owned(), connection.clone());
        Ok(connection)
    }

    /// Opens a connection of a fresh id for the agent `options` names.
    fn open_new(&self, options: SessionOptions, state: &AppState) -> Result<Arc<Connection>> {
        let suffix = uuid::Uuid::new_v4().simple().to_string();
        self.open(&format!("acp-{suffix}"), options, state)
    }

    /// Closes and forgets connection `server_id`, if open.
    fn remove(&self, server_id: &str) -> Option<Arc<Connection>> {
        let connection = self.servers.lock().unwrap().remove(server_id)?;
        connection.close();
        Some(connection)
    }

    /// Closes every connection (the daemon stops).
    pub fn close_all(&self) {
        for (_, connection) in self.servers.lock().unwrap().drain() {
            connection.close();
        }
    }
}

/// One open ACP connection.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AcpServerInfo {
    /// Its id.
    pub server_id: String,
    /// The agent its new sessions run.
    pub agent: String,
    /// The sessions it follows.
    pub session_ids: Vec<String>,
}

/// The open ACP connections.
#[derive(Debug, Serialize, ToSchema)]
pub struct AcpServerList {
    /// Every open connection.
    pub servers: Vec<AcpServerInfo>,
}

/// The open ACP connections.
#[utoipa::path(get, path = "/v1/acp", tag = "acp", operation_id = "acp_list",
    responses((status = 200, body = AcpServerList)))]
pub async fn list(State(state): State<AppState>) -> axum::Json<AcpServerList> {
    let mut servers: Vec<AcpServerInfo> = state
        .acp
        .servers
        .lock()
        .unwrap()
        .values()
        .map(|connection| AcpServerInfo {
            server_id: connection.id.clone(),
            agent: connection.agent.clone(),
            session_ids: connection.session_ids(),
        })
        .collect();
    servers.sort_by(|a, b| a.server_id.cmp(&b.server_id));
    axum::Json(AcpServerList { servers })
}

/// Sends one JSON-RPC message to the daemon as an ACP agent. A request is
/// answered in the response (200) and in the stream, except `session/prompt`
/// and `session/load`, answered in the stream only (202), after the updates
/// they cause; a notification or an answer to one of the agent's requests gets
/// 202. A body that is not a JSON object is a 400; an object that is not
/// JSON-RPC is answered with the JSON-RPC error, in a 200.
#[utoipa::path(post, path = "/v1/acp/{server_id}", tag = "acp", operation_id = "acp_post",
    params(("server_id" = String, Path, description = "The client's connection id"),
           ("agent" = Option<String>, Query, description = "The agent (on the first POST)"),
           ("model" = Option<String>, Query, description = "The model of its new sessions"),
           ("agentMode" = Option<String>, Query, description = "The mode of its new sessions"),
           ("permissionMode" = Option<String>, Query, description = "The permission mode of its new sessions"),
           ("variant" = Option<String>, Query, description = "The model variant of its new sessions")),
    request_body(content = Object, description = "A JSON-RPC 2.0 message", content_type = "application/json"),
    responses((status = 200, description = "The JSON-RPC response", body = Object),
              (status = 202, description = "Taken (a notification or a response)"),
              (status = 400, description = "The body is not a JSON object", body = ProblemDetails),
              (status = 404, description = "The server is not open and no `agent` names one to open, or the agent is unknown", body = ProblemDetails),
              (status = 409, description = "The server id runs another agent", body = ProblemDetails)))]
pub async fn post(
    State(state): State<AppState>,
    Path(server_id): Path<String>,
    Query(options): Query<SessionOptions>,
    body: Bytes,
) -> Result<Response> {
    let connection = state.acp.open(&server_id, options, &state)?;
    Ok(match take(&connection, message_of(&body)?).await {
        Some(answer) => axum::Json(answer.message).into_response(),
        None => StatusCode::ACCEPTED.into_response(),
    })
}

/// Takes one message from the client (or the error of one that could not be
/// read) on `connection`. Its answer goes to the stream, after every message
/// sent before it, and is returned: a client reading only the stream
/// (`agentplex acp`) has everything in order, one reading both drops the copy
/// by its id. A call whose answer follows updates (a prompt's turn, a load's
/// replay) runs apart and is answered in the stream only: `None`, as for a
/// message that wants no answer.
async fn take(
    connection: &Arc<Connection>,
    message: std::result::Result<Message, Unreadable>,
) -> Option<Answer> {
    let answer = match message {
        Ok(message) if answers_after_updates(&message) => {
            let connection = connection.clone();
            tokio::spawn(async move {
                if let Some(answer) = connection.receive(message).await {
                    answer.send(&connection.outbox);
                }
            });
            return None;
        }
        Ok(message) => connection.receive(message).await?,
        Err(unreadable) => Answer::unreadable(unreadable),
    };
    answer.send(&connection.outbox);
    Some(answer)
}

/// The JSON-RPC message of a POST's body: a body that is not a JSON object is
/// refused before JSON-RPC (400, as the document's schema says); an object
/// that is not a JSON-RPC message is answered with JSON-RPC's error.
fn message_of(body: &[u8]) -> Result<std::result::Result<Message, Unreadable>> {
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(value @ serde_json::Value::Object(_)) => Ok(Message::from_value(value)),
        Ok(_) => Err(ApiError::InvalidRequest(
            "an ACP message is one JSON-RPC object".into(),
        )),
        Err(error) => Err(ApiError::InvalidRequest(format!(
            "an ACP message is one JSON-RPC object: not JSON ({error})"
        ))),
    }
}

/// Whether `message` is a call whose answer must come after the updates it
/// causes.
fn answers_after_updates(message: &Message) -> bool {
    matches!(message, Message::Request { method, .. } if method == "session/prompt" || method == "session/load")
}

/// The agent's messages to the client (notifications and requests), as SSE:
/// each event's `id` resumes the stream with `Last-Event-ID`.
#[utoipa::path(get, path = "/v1/acp/{server_id}", tag = "acp", operation_id = "acp_stream",
    params(("server_id" = String, Path, description = "The client's connection id"),
           ("Last-Event-ID" = Option<u64>, Header, nullable = false, description = "Resume after this message")),
    responses((status = 200, description = "SSE stream of JSON-RPC messages", content_type = "text/event-stream"),
              (status = 404, body = ProblemDetails)))]
pub async fn stream(
    State(state): State<AppState>,
    Path(server_id): Path<String>,
    headers: HeaderMap,
) -> Result<Response> {
    let connection = state.acp.get(&server_id)?;
    let after = match headers.get("last-event-id") {
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|value| value.trim().parse::<u64>().ok())
            .ok_or_else(|| {
                ApiError::InvalidRequest("Last-Event-ID must be a message number".into())
            })?,
        None => 0,
    };
    Ok(sse(&state, &connection, after, Scope::All))
}

/// The SSE stream of `connection`'s messages of `scope` after `after`: each
/// event's `id` is the message's number; the connection is not idle while it
/// is open.
fn sse(state: &AppState, connection: &Arc<Connection>, after: u64, scope: Scope) -> Response {
    let open = connection.stream_opened();
    let events = connection
        .outbox
        .clone()
        .follow(after, scope)
        .map(move |(number, text)| {
            let _open = &open;
            Ok::<_, Infallible>(Event::default().id(number.to_string()).data(&*text))
        });
    Sse::new(events.take_until(state.sessions.closing()))
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// Closes an ACP connection: its sessions go on (they are the daemon's), the
/// connection stops following them.
#[utoipa::path(delete, path = "/v1/acp/{server_id}", tag = "acp", operation_id = "acp_close",
    params(("server_id" = String, Path, description = "The client's connection id")),
    responses((status = 204, description = "Closed"), (status = 404, body = ProblemDetails)))]
pub async fn close(
    State(state): State<AppState>,
    Path(server_id): Path<String>,
) -> Result<StatusCode> {
    state
        .acp
        .remove(&server_id)
        .ok_or_else(|| ApiError::NotFound(format!("ACP server {server_id:?} is not open")))?;
    Ok(StatusCode::NO_CONTENT)
}
