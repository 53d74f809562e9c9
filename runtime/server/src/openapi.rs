//! The OpenAPI 3.1 document of the API, generated from the handlers and types.

use agentplex_api::*;
use agentplex_universal::*;
use serde_json::{json, Value};
use utoipa::OpenApi;

use super::{acp, desktop_routes, fs_routes, move_routes, process_routes, routes, terminal_ws};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "agentplex",
        description = "One HTTP API over every coding agent, run inside a sandbox.",
        license(name = "Apache-2.0"),
    ),
    paths(
        openapi,
        routes::health,
        super::metrics_routes::get_metrics,
        routes::list_agents,
        routes::reload_adapters,
        routes::agent_modes,
        routes::agent_models,
        routes::install_agent,
        crate::registry_routes::list_registry,
        crate::registry_routes::add_from_registry,
        routes::list_sessions,
        routes::get_session,
        routes::create_session,
        routes::post_message,
        routes::post_message_stream,
        routes::get_events,
        routes::get_events_sse,
        routes::reply_question,
        routes::reject_question,
        routes::reply_permission,
        routes::cancel,
        routes::set_budget,
        routes::set_policy,
        routes::session_modes,
        routes::set_modes,
        routes::terminate,
        routes::delete_session,
        move_routes::export_session,
        move_routes::import_session,
        fs_routes::entries,
        fs_routes::read_file,
        fs_routes::write_file,
        fs_routes::stat,
        fs_routes::mkdir,
        fs_routes::move_entry,
        fs_routes::delete_entry,
        fs_routes::upload_batch,
        process_routes::run,
        process_routes::config,
        process_routes::create,
        process_routes::list,
        process_routes::get_process,
        process_routes::delete,
        process_routes::input,
        process_routes::stop,
        process_routes::kill,
        process_routes::logs,
        process_routes::resize,
        terminal_ws::terminal_ws,
        desktop_routes::status,
        desktop_routes::start,
        desktop_routes::stop,
        desktop_routes::display_info,
        desktop_routes::screenshot,
        desktop_routes::region_screenshot,
        desktop_routes::mouse_position,
        desktop_routes::mouse_move,
        desktop_routes::mouse_click,
        desktop_routes::mouse_down,
        desktop_routes::mouse_up,
        desktop_routes::mouse_drag,
        desktop_routes::mouse_scroll,
        desktop_routes::keyboard_type,
        desktop_routes::keyboard_press,
        desktop_routes::keyboard_down,
        desktop_routes::keyboard_up,
        desktop_routes::clipboard,
        desktop_routes::set_clipboard,
        desktop_routes::windows,
        desktop_routes::focused_window,
        desktop_routes::focus_window,
        desktop_routes::move_window,
        desktop_routes::resize_window,
        desktop_routes::close_window,
        desktop_routes::launch,
        desktop_routes::open,
        desktop_routes::start_recording,
        desktop_routes::stop_recording,
        desktop_routes::recordings,
        desktop_routes::recording,
        desktop_routes::delete_recording,
        desktop_routes::download_recording,
        crate::desktop_stream::stream_ws,
        acp::list,
        acp::post,
        acp::stream,
        acp::close,
        acp::remote::post,
        acp::remote::get,
        acp::remote::delete,
    ),
    components(schemas(
        RegistryListResponse,
        RegistryAgentInfo,
        RegistryAddRequest,
        UniversalEvent, UniversalEventData, UniversalEventType, EventSource, ContentPart, UniversalItem,
        ItemKind, ItemRole, ItemStatus, FileAction, ReasoningVisibility, SessionStartedData, SessionEndedData,
        SessionEndReason, TerminatedBy, StderrOutput, TurnEventData, TurnPhase, Usage, ItemEventData,
        ItemDeltaData, ErrorData, AgentUnparsedData, PermissionEventData, PermissionStatus, QuestionEventData,
        QuestionStatus, ModelUsageData, SessionUsage, UsageTotals, BudgetLimits, BudgetReachedData,
        BudgetScope, BudgetLimit, BudgetAction, PermissionDecidedData, PermissionDecision, DecidedBy,
        DecidedInput, ApprovalPolicy, PolicyRule, PolicyDecision, PolicyToolKind,
        ErrorType, AgentError, EventsQuery,
        TurnStreamQuery, EventsSseQuery,
        FsEntryType, FsEntryKind, FsEntriesQuery, FsUploadBatchQuery, FsPathQuery, FsDeleteQuery, FsSessionQuery,
        ImportSessionQuery, ImportSessionResponse, SessionScope,
        ProcessDataEncoding, ProcessLogsMissed, ProcessLogEntry, ProcessState, ProcessLogsStream,
        TerminalClientFrame, TerminalServerFrame,
        DesktopScreenshotFormat, DesktopSelection, DesktopStreamClientFrame, DesktopStreamServerFrame,
    )),
    tags(
        (name = "meta", description = "Health and API description"),
        (name = "agents", description = "The agents this daemon drives"),
        (name = "sessions", description = "Sessions, messages, transcripts and human-in-the-loop replies"),
        (name = "fs", description = "The sandbox's files: list, read, write, move, delete, upload archives"),
        (name = "processes", description = "Commands run to completion, managed processes with buffered logs, PTY terminals over WebSocket"),
        (name = "desktop", description = "An X display in the sandbox: screenshots, mouse, keyboard, clipboard, windows, programs, recordings"),
        (name = "acp", description = "The daemon as an Agent Client Protocol agent for every agent it runs: JSON-RPC over HTTP"),
    )
)]
struct ApiDoc;

/// This API's OpenAPI document (served without a token: it holds no data).
#[utoipa::path(get, path = "/v1/openapi.json", tag = "meta", responses((status = 200, description = "OpenAPI 3.1 document")))]
pub async fn openapi() -> axum::Json<Value> {
    axum::Json(document())
}

/// The document, with the daemon's version and the answers every route shares.
pub fn document() -> Value {
    let mut doc = ApiDoc::openapi();
    doc.info.version = crate::VERSION.to_owned();
    let mut doc = serde_json::to_value(doc).expect("the OpenAPI document serializes");
    complete_errors(&mut doc);
    super::openapi_rules::apply(&mut doc);
    doc
}

/// The document as pretty JSON with a final newline, as committed in `docs/openapi.json`.
pub fn document_json() -> String {
    let mut text =
        serde_json::to_string_pretty(&document()).expect("serializing the OpenAPI document");
    text.push('\n');
    text
}

/// Open routes: no token needed, so no 401.
const OPEN_PATHS: [&str; 2] = ["/v1/health", "/v1/openapi.json"];

/// Routes that refuse input for a session that has ended (409 `session_ended`).
const SESSION_INPUT_SUFFIXES: [&str; 6] = [
    "/messages",
    "/messages/stream",
    "/reply",
    "/reject",
    "/cancel",
    "/terminate",
];

/// Documents what every route can answer besides its own statuses, from the shape of
/// its path: 400 for a bad parameter or body, 401 with `WWW-Authenticate` when the
/// daemon has a token, 404 for an unknown session or agent in the path, 409 for input
/// to an ended session, 500 for an internal failure; and gives every error answer the
/// media type it is served with, `application/problem+json`.
fn complete_errors(doc: &mut Value) {
    doc["components"]["securitySchemes"]["token"] = json!({
        "type": "http",
        "scheme": "bearer",
        "description": "The daemon's token (`--token`); `x-sandbox-token: <token>` is accepted too. Not needed when the daemon runs with `--no-token`.",
    });
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let Some(operations) = item.as_object_mut() else {
            continue;
        };
        for (method, operation) in operations.iter_mut() {
            let takes_input = operation
                .get("parameters")
                .is_some_and(|p| p.as_array().is_some_and(|a| !a.is_empty()))
                || operation.get("requestBody").is_some();
            let mut add = Vec::new();
            if takes_input {
                add.push(("400", "A bad parameter or body"));
            }
            if !OPEN_PATHS.contains(&path.as_str()) {
                add.push(("401", "Missing or wrong token (when the daemon has one)"));
                operation["security"] = json!([{ "token": [] }]);
            }
            if path.contains("{session_id}") {
                add.push(("404", "No session has that id"));
                if method == "post" && SESSION_INPUT_SUFFIXES.iter().any(|s| path.ends_with(s)) {
                    add.push(("409", "The session has ended"));
                }
            }
            if path.contains("{agent}") {
                add.push(("404", "No agent has that id"));
            }
            if !OPEN_PATHS.contains(&path.as_str()) {
                add.push(("500", "An internal failure"));
            }
            let responses = &mut operation["responses"];
            for (status, description) in add {
                if responses.get(status).is_none() {
                    responses[status] = json!({ "description": description });
                }
            }
            for (status, response) in responses.as_object_mut().into_iter().flatten() {
                if status.starts_with('4') || status.starts_with('5') {
                    response["content"] = json!({
                        "application/problem+json": {
                            "schema": { "$ref": "#/components/schemas/ProblemDetails" }
                        }
                    });
                }
                if status == "401" {
                    response["headers"]["WWW-Authenticate"] = json!({
                        "description": "`Bearer realm=\"sandbox-agent\"`",
                        "schema": { "type": "string" }
                    });
                }
            }
        }
    }
}
