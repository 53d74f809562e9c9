//! One small handler per route of `/v1`. Each is the happy path; failures are
//! [`ApiError`]s that become problem documents.

use agentplex_api::*;
use agentplex_host::{Attachment, MessagePart as AdapterPart};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;

use super::extract::{Json, OptionalJson, Path, Query};
use super::sse;
use super::AppState;
use crate::error::{ApiError, Result};
use agentplex_sessions::Command;
use agentplex_sessions::SessionError;
use agentplex_sessions::Until;
use agentplex_universal::BudgetLimits;

/// Liveness and version.
#[utoipa::path(get, path = "/v1/health", tag = "meta", responses((status = 200, body = HealthResponse)))]
pub async fn health() -> impl IntoResponse {
    // The answer never changes, so it is encoded once.
    static BODY: std::sync::LazyLock<axum::body::Bytes> = std::sync::LazyLock::new(|| {
        serde_json::to_vec(&HealthResponse {
            status: "ok".into(),
            version: Some(crate::VERSION.into()),
        })
        .expect("the health answer serializes")
        .into()
    });
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        BODY.clone(),
    )
}

/// Every agent this daemon can drive, with install state and capabilities.
#[utoipa::path(get, path = "/v1/agents", tag = "agents", responses((status = 200, body = AgentListResponse)))]
pub async fn list_agents(State(state): State<AppState>) -> axum::Json<AgentListResponse> {
    // Version probes start agent binaries (a Node CLI takes seconds): all at once.
    let adapters = state.catalog.adapters();
    let agents = futures::future::join_all(adapters.iter().map(|adapter| {
        let server_status = state.sessions.server_status(adapter.id());
        state.catalog.describe(adapter, server_status)
    }))
    .await;
    axum::Json(AgentListResponse { agents })
}

/// Loads the `--adapters-dir` folder again: new and changed components serve new
/// sessions at once (the daemon also does this by itself when a file in the folder
/// changes). Running sessions keep the adapter they started with.
#[utoipa::path(post, path = "/v1/adapters/reload", tag = "agents",
    responses(
        (status = 200, body = AdaptersReloadResponse),
        (status = 409, description = "The daemon runs without an adapters folder", body = ProblemDetails, content_type = "application/problem+json"),
    ))]
pub async fn reload_adapters(
    State(state): State<AppState>,
) -> Result<axum::Json<AdaptersReloadResponse>> {
    let folder = state.adapters_folder.as_ref().ok_or_else(|| {
        ApiError::NotConfigured(
            "the daemon runs without an adapters folder (--adapters-dir): nothing to reload".into(),
        )
    })?;
    Ok(axum::Json(folder.reload().await?))
}

/// The agent's modes.
#[utoipa::path(get, path = "/v1/agents/{agent}/modes", tag = "agents",
    params(("agent" = String, Path, description = "Agent id")),
    responses((status = 200, body = AgentModesResponse), (status = 400, body = ProblemDetails)))]
pub async fn agent_modes(
    State(state): State<AppState>,
    Path(agent): Path<String>,
) -> Result<axum::Json<AgentModesResponse>> {
    Ok(axum::Json(AgentModesResponse {
        modes: state
            .catalog
            .modes(&agent)
            .map_err(ApiError::in_agent_path)?,
    }))
}

/// The agent's models and variants.
#[utoipa::path(get, path = "/v1/agents/{agent}/models", tag = "agents",
    params(("agent" = String, Path, description = "Agent id")),
    responses((status = 200, body = AgentModelsResponse), (status = 400, body = ProblemDetails)))]
pub async fn agent_models(
    State(state): State<AppState>,
    Path(agent): Path<String>,
) -> Result<axum::Json<AgentModelsResponse>> {
    let (models, default_model) = state
        .catalog
        .models(&agent)
        .map_err(ApiError::in_agent_path)?;
    Ok(axum::Json(AgentModelsResponse {
        models,
        default_model,
    }))
}

/// Installs the agent's binary: the latest version (or `version`), a no-op when
/// that version is already installed unless `reinstall`. With
/// `Accept: text/event-stream` the answer is a stream of `progress` events, then one
/// `result` or `error` event.
#[utoipa::path(post, path = "/v1/agents/{agent}/install", tag = "agents",
    params(("agent" = String, Path, description = "Agent id")),
    request_body(content = Option<AgentInstallRequest>, description = "Optional; an empty body is accepted"),
    responses((status = 204, description = "Installed"),
              (status = 200, description = "With `Accept: text/event-stream`: `progress` events, then a `result` or `error` event", content_type = "text/event-stream"),
              (status = 400, body = ProblemDetails),
              (status = 500, body = ProblemDetails)))]
pub async fn install_agent(
    State(state): State<AppState>,
    Path(agent): Path<String>,
    headers: HeaderMap,
    OptionalJson(request): OptionalJson<AgentInstallRequest>,
) -> Result<axum::response::Response> {
    let request = agentplex_install::InstallRequest {
        version: request.version,
        reinstall: request.reinstall.unwrap_or(false),
    };
    let follow = state
        .catalog
        .install(&agent, request)
        .await
        .map_err(ApiError::in_agent_path)?;
    match super::install_events::answer(&agent, follow, &headers).await? {
        Some(events) => Ok(events),
        None => Ok(StatusCode::NO_CONTENT.into_response()),
    }
}

/// The sessions this daemon drives, or (`scope=fleet`) every session of the
/// database it shares with other daemons, with their owner and whether it lives.
#[utoipa::path(get, path = "/v1/sessions", tag = "sessions", params(SessionListQuery),
    responses((status = 200, body = SessionListResponse),
              (status = 503, description = "The shared session database cannot be read (`scope=fleet`)", body = ProblemDetails)))]
pub async fn list_sessions(
    State(state): State<AppState>,
    Query(query): Query<SessionListQuery>,
) -> Result<axum::Json<SessionListResponse>> {
    Ok(axum::Json(SessionListResponse {
        sessions: state.sessions.listing(query.scope).await?,
    }))
}

/// One session, as `GET /v1/sessions` lists it (not in 0.1.x: a client needs not
/// fetch the whole list to read one).
#[utoipa::path(get, path = "/v1/sessions/{session_id}", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id")),
    responses((status = 200, body = SessionInfo), (status = 404, body = ProblemDetails)))]
pub async fn get_session(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
) -> Result<axum::Json<SessionInfo>> {
    Ok(axum::Json(
        state.sessions.info(&*state.sessions.get(&session_id)?),
    ))
}

/// Creates a session and starts its agent.
#[utoipa::path(post, path = "/v1/sessions/{session_id}", tag = "sessions",
    params(("session_id" = String, Path, description = "Client-chosen session id: 1-128 of [A-Za-z0-9._-]")),
    request_body = CreateSessionRequest,
    responses((status = 200, body = CreateSessionResponse), (status = 400, body = ProblemDetails),
              (status = 403, description = "`directory` is outside the daemon's `--fs-root`", body = ProblemDetails),
              (status = 404, description = "The agent is not installed (`agent_not_installed`), or `directory` does not exist (`path_not_found`)", body = ProblemDetails),
              (status = 409, description = "The session exists (`session_already_exists`), `directory` is not a directory (`path_conflict`), or a `budget` needs the model gateway the daemon runs without (`not_configured`)", body = ProblemDetails),
              (status = 503, description = "The session database cannot be written", body = ProblemDetails),
              (status = 507, description = "The data dir's disk is full", body = ProblemDetails)))]
pub async fn create_session(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    Json(mut request): Json<CreateSessionRequest>,
) -> Result<axum::Json<CreateSessionResponse>> {
    request.directory = state.fs.working_directory(request.directory.as_deref())?;
    let agent = request.agent.clone();
    let session = state.sessions.create(&session_id, request).await?;
    let started = session.command(Command::Start).await;
    let native_session_id = session.native_session_id();
    let message = started
        .as_ref()
        .err()
        .map(ToString::to_string)
        .unwrap_or_default();
    Ok(axum::Json(match started {
        Ok(()) => CreateSessionResponse {
            healthy: true,
            error: None,
            native_session_id,
        },
        Err(error) => CreateSessionResponse {
            healthy: false,
            error: Some(AgentError {
                error_type: ApiError::from(error).error_type(),
                message,
                agent: Some(agent),
                session_id: Some(session_id),
                details: None,
            }),
            native_session_id,
        },
    }))
}

/// Sends a message; queued when a turn is running.
#[utoipa::path(post, path = "/v1/sessions/{session_id}/messages", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id")),
    request_body = MessageRequest,
    responses((status = 204, description = "Accepted"), (status = 400, body = ProblemDetails),
              (status = 404, body = ProblemDetails), (status = 409, body = ProblemDetails),
              (status = 503, description = "The session database cannot be written", body = ProblemDetails),
              (status = 507, description = "The data dir's disk is full", body = ProblemDetails)))]
pub async fn post_message(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    Json(request): Json<MessageRequest>,
) -> Result<StatusCode> {
    let session = state.sessions.get(&session_id)?;
    session.send(message_parts(request)?).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Sends a message and streams the events of its turn, ending with the event
/// that needs the client (`turn.ended`, `permission.requested`...).
#[utoipa::path(post, path = "/v1/sessions/{session_id}/messages/stream", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id"), TurnStreamQuery),
    request_body = MessageRequest,
    responses((status = 200, description = "SSE stream of UniversalEvent", content_type = "text/event-stream"),
              (status = 404, body = ProblemDetails)))]
pub async fn post_message_stream(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    Query(query): Query<TurnStreamQuery>,
    Json(request): Json<MessageRequest>,
) -> Result<impl IntoResponse> {
    let session = state.sessions.get(&session_id)?;
    let turn_started = session.send(message_parts(request)?).await?;
    let include_raw = query.include_raw.unwrap_or(false);
    let events = futures::stream::once(turn_started).flat_map(move |after| {
        // A turn that never started (session ended first) streams nothing.
        let after = after.unwrap_or(u64::MAX);
        session.clone().follow(after, Until::ClientNeeded)
    });
    Ok(sse::response(
        events.take_until(state.sessions.closing()),
        include_raw,
    ))
}

/// A page of the transcript.
#[utoipa::path(get, path = "/v1/sessions/{session_id}/events", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id"), EventsQuery),
    responses((status = 200, body = EventsResponse), (status = 404, body = ProblemDetails)))]
pub async fn get_events(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    Query(query): Query<EventsQuery>,
) -> Result<Response> {
    let session = state.sessions.get(&session_id)?;
    let limit = query.limit.map_or(usize::MAX, |limit| limit as usize);
    let body = super::events_page::body(
        session,
        query.offset.unwrap_or(0),
        limit,
        query.include_raw.unwrap_or(false),
    )
    .await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// The transcript from an offset (or `Last-Event-ID`), then live.
#[utoipa::path(get, path = "/v1/sessions/{session_id}/events/sse", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id"), EventsSseQuery,
           ("Last-Event-ID" = Option<u64>, Header, nullable = false, description = "Resume after this sequence")),
    responses((status = 200, description = "SSE stream of UniversalEvent", content_type = "text/event-stream"),
              (status = 404, body = ProblemDetails)))]
pub async fn get_events_sse(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    Query(query): Query<EventsSseQuery>,
    headers: HeaderMap,
) -> Result<impl IntoResponse> {
    let session = state.sessions.get(&session_id)?;
    let last_event_id = match headers.get("last-event-id") {
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .ok_or_else(|| {
                    ApiError::InvalidRequest(
                        "Last-Event-ID must be an event sequence number".into(),
                    )
                })?,
        ),
        None => None,
    };
    let after = last_event_id.or(query.offset).unwrap_or(0);
    let events = session.follow(after, Until::SessionEnd);
    Ok(sse::response(
        events.take_until(state.sessions.closing()),
        query.include_raw.unwrap_or(false),
    ))
}

/// Answers a question.
#[utoipa::path(post, path = "/v1/sessions/{session_id}/questions/{question_id}/reply", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id"), ("question_id" = String, Path, description = "Question id")),
    request_body = QuestionReplyRequest,
    responses((status = 204, description = "Answered"), (status = 400, body = ProblemDetails), (status = 404, body = ProblemDetails)))]
pub async fn reply_question(
    State(state): State<AppState>,
    Path((session_id, question_id)): Path<(String, String)>,
    Json(request): Json<QuestionReplyRequest>,
) -> Result<StatusCode> {
    let session = state.sessions.get(&session_id)?;
    session
        .command(Command::ReplyQuestion {
            question_id,
            answers: request.answers,
        })
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Declines a question.
#[utoipa::path(post, path = "/v1/sessions/{session_id}/questions/{question_id}/reject", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id"), ("question_id" = String, Path, description = "Question id")),
    responses((status = 204, description = "Rejected"), (status = 404, body = ProblemDetails)))]
pub async fn reject_question(
    State(state): State<AppState>,
    Path((session_id, question_id)): Path<(String, String)>,
) -> Result<StatusCode> {
    let session = state.sessions.get(&session_id)?;
    session
        .command(Command::RejectQuestion { question_id })
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Answers a permission request.
#[utoipa::path(post, path = "/v1/sessions/{session_id}/permissions/{permission_id}/reply", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id"), ("permission_id" = String, Path, description = "Permission id")),
    request_body = PermissionReplyRequest,
    responses((status = 204, description = "Answered"), (status = 400, body = ProblemDetails), (status = 404, body = ProblemDetails)))]
pub async fn reply_permission(
    State(state): State<AppState>,
    Path((session_id, permission_id)): Path<(String, String)>,
    Json(request): Json<PermissionReplyRequest>,
) -> Result<StatusCode> {
    let session = state.sessions.get(&session_id)?;
    let reply = match request.reply {
        PermissionReply::Once => agentplex_host::PermissionReply::Once,
        PermissionReply::Always => agentplex_host::PermissionReply::Always,
        PermissionReply::Reject => agentplex_host::PermissionReply::Reject,
    };
    session
        .command(Command::ReplyPermission {
            permission_id,
            reply,
        })
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Interrupts the running turn; the session stays open. A no-op when idle.
#[utoipa::path(post, path = "/v1/sessions/{session_id}/cancel", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id")),
    responses((status = 204, description = "Cancelled"), (status = 404, body = ProblemDetails), (status = 409, body = ProblemDetails)))]
pub async fn cancel(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
) -> Result<StatusCode> {
    state
        .sessions
        .get(&session_id)?
        .command(Command::Cancel)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Replaces the caps on what the session's model calls may spend (needs the
/// model gateway, `--gateway`). In force at once: raising a reached cap lets the
/// session's calls through again. Answers the caps as stored.
#[utoipa::path(put, path = "/v1/sessions/{session_id}/budget", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id")),
    request_body = BudgetLimits,
    responses((status = 200, body = BudgetLimits), (status = 400, body = ProblemDetails),
        (status = 404, body = ProblemDetails),
        (status = 409, description = "The daemon runs without the model gateway, or does not meter the session's agent (`not_configured`); the session ended", body = ProblemDetails)))]
pub async fn set_budget(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    Json(limits): Json<BudgetLimits>,
) -> Result<axum::Json<BudgetLimits>> {
    Ok(axum::Json(
        state.sessions.set_budget(&session_id, limits).await?,
    ))
}

/// Replaces the session's approval policy: permission requests asked from now on
/// are decided with it (those already waiting for the client stay as they are).
/// A policy that cannot be used is refused naming the rule and field. Answers
/// the policy as kept.
#[utoipa::path(put, path = "/v1/sessions/{session_id}/policy", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id")),
    request_body = ApprovalPolicy,
    responses((status = 200, body = ApprovalPolicy), (status = 400, body = ProblemDetails),
        (status = 404, body = ProblemDetails),
        (status = 409, description = "The session ended", body = ProblemDetails)))]
pub async fn set_policy(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    Json(policy): Json<serde_json::Value>,
) -> Result<axum::Json<serde_json::Value>> {
    Ok(axum::Json(
        state.sessions.set_policy(&session_id, policy).await?,
    ))
}

/// The session's agent mode, permission mode, model and variant, and what its
/// running agent offers to change them to (its own modes and models, once it
/// said: an ACP agent's answer to `session/new`).
#[utoipa::path(get, path = "/v1/sessions/{session_id}/modes", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id")),
    responses((status = 200, body = SessionChoices), (status = 404, body = ProblemDetails)))]
pub async fn session_modes(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
) -> Result<axum::Json<SessionChoices>> {
    Ok(axum::Json(state.sessions.choices(&session_id)?))
}

/// Changes the session's agent mode, permission mode or model (a field left
/// out keeps its value). They apply from the next message on: the running turn
/// finishes as it began, and the transcript records the change. Refused (400)
/// for a mode the agent does not have, and for an agent whose adapter cannot
/// change modes (`mode-change`) or its model (`model-change`) in a running
/// session. Answers both modes and the model.
#[utoipa::path(put, path = "/v1/sessions/{session_id}/modes", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id")),
    request_body = SessionModes,
    responses((status = 200, body = SessionModes), (status = 400, body = ProblemDetails),
        (status = 404, body = ProblemDetails),
        (status = 409, description = "The session ended", body = ProblemDetails)))]
pub async fn set_modes(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    Json(change): Json<SessionModes>,
) -> Result<axum::Json<SessionModes>> {
    Ok(axum::Json(
        state.sessions.set_modes(&session_id, change).await?,
    ))
}

/// Ends the session and kills its processes. Terminating an ended session is a no-op.
#[utoipa::path(post, path = "/v1/sessions/{session_id}/terminate", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id")),
    responses((status = 204, description = "Terminated"), (status = 404, body = ProblemDetails)))]
pub async fn terminate(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
) -> Result<StatusCode> {
    match state
        .sessions
        .get(&session_id)?
        .command(Command::Terminate)
        .await
    {
        Ok(()) | Err(SessionError::SessionEnded { .. }) => Ok(StatusCode::NO_CONTENT),
        Err(error) => Err(error.into()),
    }
}

/// A message request as the adapter's message parts.
fn message_parts(request: MessageRequest) -> Result<Vec<AdapterPart>> {
    let mut parts = Vec::new();
    if let Some(text) = request.message {
        parts.push(AdapterPart::Text(text));
    }
    for attachment in request.attachments {
        let image = attachment
            .mime
            .as_deref()
            .is_some_and(|mime| mime.starts_with("image/"));
        let attachment = Attachment {
            path: attachment.path,
            mime: attachment.mime,
            filename: attachment.filename,
        };
        parts.push(if image {
            AdapterPart::Image(attachment)
        } else {
            AdapterPart::File(attachment)
        });
    }
    parts.extend(adapter_parts(request.parts.unwrap_or_default()));
    if parts.is_empty() {
        return Err(ApiError::InvalidRequest(
            "a message needs `message` or `parts`".into(),
        ));
    }
    Ok(parts)
}

/// Message parts as the adapter's.
pub(crate) fn adapter_parts(parts: Vec<MessagePart>) -> Vec<AdapterPart> {
    parts
        .into_iter()
        .map(|part| match part {
            MessagePart::Text { text } => AdapterPart::Text(text),
            MessagePart::Image { path, mime } => AdapterPart::Image(Attachment {
                path,
                mime,
                filename: None,
            }),
            MessagePart::File {
                path,
                mime,
                filename,
            } => AdapterPart::File(Attachment {
                path,
                mime,
                filename,
            }),
        })
        .collect()
}

/// Removes a session and its transcript for good, ending it first if it runs.
#[utoipa::path(delete, path = "/v1/sessions/{session_id}", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id")),
    responses((status = 204, description = "Deleted"), (status = 404, body = ProblemDetails)))]
pub async fn delete_session(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
) -> Result<StatusCode> {
    state.sessions.delete(&session_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
