//! `/v1/processes/*`: one-shot runs, managed processes and their logs (the
//! terminal WebSocket is in [`super::terminal_ws`]). Shaped like the reference's
//! 0.4+ process API; see docs/processes.md.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use agentplex_api::*;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json as JsonResponse, Router};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use futures::StreamExt;

use super::extract::{Json, Path, Query};
use super::AppState;
use crate::error::{ApiError, Result};
use agentplex_processes::follow::{follow, LogEvent};
use agentplex_processes::log::{Chunk, Position};
use agentplex_processes::ManagedProcess;

/// The routes of the process group (the terminal WebSocket's included).
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/processes", get(list).post(create))
        .route("/v1/processes/run", post(run))
        .route("/v1/processes/config", get(config))
        .route("/v1/processes/{id}", get(get_process).delete(delete))
        .route("/v1/processes/{id}/input", post(input))
        .route("/v1/processes/{id}/stop", post(stop))
        .route("/v1/processes/{id}/kill", post(kill))
        .route("/v1/processes/{id}/logs", get(logs))
        .route("/v1/processes/{id}/terminal/resize", post(resize))
        .route(
            "/v1/processes/{id}/terminal/ws",
            get(super::terminal_ws::terminal_ws),
        )
}

/// Runs a command to completion and answers its exit status and output.
#[utoipa::path(post, path = "/v1/processes/run", operation_id = "run_process", tag = "processes", request_body = ProcessRunRequest,
    responses(
        (status = 200, body = ProcessRunResponse),
        (status = 400, description = "A bad body, or the program cannot start (`spawn_failed`, with the system's reason)", body = ProblemDetails),
        (status = 403, description = "`cwd` is outside the daemon's `--fs-root` (`permission_denied`)", body = ProblemDetails),
        (status = 404, description = "`cwd` does not exist (`path_not_found`)", body = ProblemDetails),
        (status = 409, description = "`--max-processes` processes are held already (`process_limit_reached`), or `cwd` is not a directory (`path_conflict`)", body = ProblemDetails),
    ))]
pub async fn run(
    State(state): State<AppState>,
    Json(mut request): Json<ProcessRunRequest>,
) -> Result<JsonResponse<ProcessRunResponse>> {
    request.cwd = state.fs.working_directory(request.cwd.as_deref())?;
    Ok(JsonResponse(state.processes.run(request).await?))
}

/// The limits of the process API.
#[utoipa::path(get, path = "/v1/processes/config", operation_id = "process_config", tag = "processes",
    responses((status = 200, body = ProcessConfig)))]
pub async fn config(State(state): State<AppState>) -> JsonResponse<ProcessConfig> {
    JsonResponse(state.processes.config())
}

/// Starts a managed process, with pipes or in a terminal (`tty`).
#[utoipa::path(post, path = "/v1/processes", operation_id = "create_process", tag = "processes", request_body = ProcessCreateRequest,
    responses(
        (status = 200, body = ProcessInfo),
        (status = 400, description = "A bad body, or the program cannot start (`spawn_failed`, with the system's reason)", body = ProblemDetails),
        (status = 403, description = "`cwd` is outside the daemon's `--fs-root` (`permission_denied`)", body = ProblemDetails),
        (status = 404, description = "`cwd` does not exist (`path_not_found`)", body = ProblemDetails),
        (status = 409, description = "`--max-processes` processes are held already (`process_limit_reached`), or `cwd` is not a directory (`path_conflict`)", body = ProblemDetails),
    ))]
pub async fn create(
    State(state): State<AppState>,
    Json(mut request): Json<ProcessCreateRequest>,
) -> Result<JsonResponse<ProcessInfo>> {
    request.cwd = state.fs.working_directory(request.cwd.as_deref())?;
    Ok(JsonResponse(state.processes.start(request)?))
}

/// Every managed process not deleted, oldest first.
#[utoipa::path(get, path = "/v1/processes", operation_id = "list_processes", tag = "processes",
    responses((status = 200, body = ProcessListResponse)))]
pub async fn list(State(state): State<AppState>) -> JsonResponse<ProcessListResponse> {
    JsonResponse(ProcessListResponse {
        processes: state.processes.list(),
    })
}

/// One managed process.
#[utoipa::path(get, path = "/v1/processes/{id}", operation_id = "get_process", tag = "processes",
    params(("id" = String, Path, description = "Process id")),
    responses((status = 200, body = ProcessInfo), (status = 404, description = "No process has that id", body = ProblemDetails)))]
pub async fn get_process(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<JsonResponse<ProcessInfo>> {
    Ok(JsonResponse(state.processes.get(&id)?.info()))
}

/// Forgets an exited process, its exit status and its logs.
#[utoipa::path(delete, path = "/v1/processes/{id}", operation_id = "delete_process", tag = "processes",
    params(("id" = String, Path, description = "Process id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No process has that id", body = ProblemDetails),
        (status = 409, description = "It is running: stop or kill it first", body = ProblemDetails),
    ))]
pub async fn delete(State(state): State<AppState>, Path(id): Path<String>) -> Result<StatusCode> {
    state.processes.delete(&id)?;
    Ok(StatusCode::NO_CONTENT)
}

/// Writes to the process's stdin (or its terminal).
#[utoipa::path(post, path = "/v1/processes/{id}/input", operation_id = "process_input", tag = "processes",
    params(("id" = String, Path, description = "Process id")),
    request_body = ProcessInputRequest,
    responses(
        (status = 200, body = ProcessInputResponse),
        (status = 404, description = "No process has that id", body = ProblemDetails),
        (status = 409, description = "Its stdin is not open (started without `interactive` or `tty`), or it exited", body = ProblemDetails),
        (status = 413, description = "More than `--process-input-bytes` decoded bytes", body = ProblemDetails),
    ))]
pub async fn input(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(request): Json<ProcessInputRequest>,
) -> Result<JsonResponse<ProcessInputResponse>> {
    let process = state.processes.get(&id)?;
    let encoding = request.encoding.unwrap_or(ProcessDataEncoding::Base64);
    let bytes = state.processes.decode_input(&request.data, encoding)?;
    process.write_input(&bytes).await?;
    Ok(JsonResponse(ProcessInputResponse {
        bytes_written: bytes.len(),
    }))
}

/// Stops the process: SIGTERM to its group, SIGKILL after `--process-stop-grace-ms`.
#[utoipa::path(post, path = "/v1/processes/{id}/stop", operation_id = "stop_process", tag = "processes",
    params(("id" = String, Path, description = "Process id"), ProcessSignalQuery),
    responses((status = 200, body = ProcessInfo), (status = 404, description = "No process has that id", body = ProblemDetails)))]
pub async fn stop(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<ProcessSignalQuery>,
) -> Result<JsonResponse<ProcessInfo>> {
    let process = state.processes.get(&id)?;
    state.processes.stop(&process);
    Ok(JsonResponse(waited(&process, query).await))
}

/// Kills the process: SIGKILL to its group.
#[utoipa::path(post, path = "/v1/processes/{id}/kill", operation_id = "kill_process", tag = "processes",
    params(("id" = String, Path, description = "Process id"), ProcessSignalQuery),
    responses((status = 200, body = ProcessInfo), (status = 404, description = "No process has that id", body = ProblemDetails)))]
pub async fn kill(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<ProcessSignalQuery>,
) -> Result<JsonResponse<ProcessInfo>> {
    let process = state.processes.get(&id)?;
    process.kill();
    Ok(JsonResponse(waited(&process, query).await))
}

/// The process's state once it exited or `waitMs` passed.
async fn waited(process: &ManagedProcess, query: ProcessSignalQuery) -> ProcessInfo {
    if let Some(wait) = query.wait_ms {
        process.wait(Duration::from_millis(wait)).await;
    }
    process.info()
}

/// Sets the size of the process's terminal.
#[utoipa::path(post, path = "/v1/processes/{id}/terminal/resize", operation_id = "resize_terminal", tag = "processes",
    params(("id" = String, Path, description = "Process id")),
    request_body = ProcessTerminalResizeRequest,
    responses(
        (status = 200, body = ProcessTerminalResizeRequest),
        (status = 404, description = "No process has that id", body = ProblemDetails),
        (status = 409, description = "It has no terminal", body = ProblemDetails),
    ))]
pub async fn resize(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(size): Json<ProcessTerminalResizeRequest>,
) -> Result<JsonResponse<ProcessTerminalResizeRequest>> {
    state.processes.get(&id)?.resize(size.cols, size.rows)?;
    Ok(JsonResponse(size))
}

/// The process's buffered output; with `follow=true`, an SSE stream of it
/// (`log`, `missed` and, once it exited, `exit` events).
#[utoipa::path(get, path = "/v1/processes/{id}/logs", operation_id = "process_logs", tag = "processes",
    params(("id" = String, Path, description = "Process id"), ProcessLogsQuery,
           ("Last-Event-ID" = Option<u64>, Header, nullable = false, description = "With `follow`: resume after this sequence")),
    responses(
        (status = 200, description = "The entries held; with `follow=true` a `text/event-stream` instead",
            content((ProcessLogsResponse = "application/json"), ("text/event-stream"))),
        (status = 404, description = "No process has that id", body = ProblemDetails),
    ))]
pub async fn logs(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<ProcessLogsQuery>,
    headers: HeaderMap,
) -> Result<Response> {
    let process = state.processes.get(&id)?;
    let stream = query.stream.unwrap_or(if process.is_terminal() {
        ProcessLogsStream::Pty
    } else {
        ProcessLogsStream::Combined
    });
    let last_event_id = match headers.get("last-event-id") {
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .ok_or_else(|| {
                    ApiError::InvalidRequest(
                        "Last-Event-ID must be an entry sequence number".into(),
                    )
                })?,
        ),
        None => None,
    };
    let from = match (query.offset, last_event_id.or(query.since)) {
        (Some(offset), _) => Position::Offset(offset),
        (None, Some(since)) => Position::AfterSequence(since),
        (None, None) => Position::Offset(0),
    };
    if query.follow.unwrap_or(false) {
        return Ok(follow_response(&state, process, from, stream).into_response());
    }
    let page = process.log.read(from, stream, query.tail, None);
    Ok(JsonResponse(ProcessLogsResponse {
        process_id: id,
        stream,
        entries: page.chunks.iter().map(entry).collect(),
        first_offset: page.first_offset,
        next_offset: page.next_offset,
        missed_bytes: page.missed_bytes,
        missed_entries: page.missed_entries,
    })
    .into_response())
}

/// A chunk on the wire.
fn entry(chunk: &Chunk) -> ProcessLogEntry {
    ProcessLogEntry {
        sequence: chunk.sequence,
        offset: chunk.offset,
        stream: chunk.stream.wire(),
        timestamp_ms: chunk.timestamp_ms,
        data: STANDARD.encode(&chunk.data),
        encoding: "base64".into(),
    }
}

/// The SSE stream of a followed log: `log` and `missed` events, then `exit`.
fn follow_response(
    state: &AppState,
    process: Arc<ManagedProcess>,
    from: Position,
    stream: ProcessLogsStream,
) -> impl IntoResponse {
    let events = follow(process.clone(), from, stream).map(|event| match event {
        LogEvent::Chunk(chunk) => Event::default()
            .event("log")
            .id(chunk.sequence.to_string())
            .data(json(&entry(&chunk))),
        LogEvent::Missed {
            entries,
            bytes,
            first_offset,
        } => Event::default()
            .event("missed")
            .data(json(&ProcessLogsMissed {
                missed_entries: entries,
                missed_bytes: bytes,
                first_offset,
            })),
    });
    let exit =
        futures::stream::once(
            async move { Event::default().event("exit").data(json(&process.info())) },
        );
    let frames = events
        .chain(exit)
        .map(Ok::<_, Infallible>)
        .take_until(state.sessions.closing());
    Sse::new(frames).keep_alive(KeepAlive::default())
}

fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).expect("API types serialize")
}
