//! The OpenAPI 3.1 document of the API, generated from the handlers and types.

use sandbox_agent_api::*;
use sandbox_agent_universal::*;
use utoipa::OpenApi;

use super::{fs_routes, routes};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "sandbox-agent",
        description = "One HTTP API over every coding agent, run inside a sandbox.",
        license(name = "Apache-2.0"),
    ),
    paths(
        openapi,
        routes::health,
        routes::list_agents,
        routes::reload_adapters,
        routes::agent_modes,
        routes::agent_models,
        routes::install_agent,
        routes::list_sessions,
        routes::create_session,
        routes::post_message,
        routes::post_message_stream,
        routes::get_events,
        routes::get_events_sse,
        routes::reply_question,
        routes::reject_question,
        routes::reply_permission,
        routes::cancel,
        routes::terminate,
        routes::delete_session,
        fs_routes::entries,
        fs_routes::read_file,
        fs_routes::write_file,
        fs_routes::stat,
        fs_routes::mkdir,
        fs_routes::move_entry,
        fs_routes::delete_entry,
        fs_routes::upload_batch,
    ),
    components(schemas(
        UniversalEvent, UniversalEventData, UniversalEventType, EventSource, ContentPart, UniversalItem,
        ItemKind, ItemRole, ItemStatus, FileAction, ReasoningVisibility, SessionStartedData, SessionEndedData,
        SessionEndReason, TerminatedBy, StderrOutput, TurnEventData, TurnPhase, Usage, ItemEventData,
        ItemDeltaData, ErrorData, AgentUnparsedData, PermissionEventData, PermissionStatus, QuestionEventData,
        QuestionStatus, ErrorType, AgentError, EventsQuery, TurnStreamQuery, EventsSseQuery,
        FsEntryType, FsEntriesQuery, FsUploadBatchQuery, FsPathQuery, FsDeleteQuery, FsSessionQuery,
    )),
    tags(
        (name = "meta", description = "Health and API description"),
        (name = "agents", description = "The agents this daemon drives"),
        (name = "sessions", description = "Sessions, messages, transcripts and human-in-the-loop replies"),
        (name = "fs", description = "The sandbox's files: list, read, write, move, delete, upload archives"),
    )
)]
struct ApiDoc;

/// This API's OpenAPI document.
#[utoipa::path(get, path = "/v1/openapi.json", tag = "meta", responses((status = 200, description = "OpenAPI 3.1 document")))]
pub async fn openapi() -> axum::Json<utoipa::openapi::OpenApi> {
    axum::Json(document())
}

/// The document, with the daemon's version.
pub fn document() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.info.version = crate::VERSION.to_owned();
    doc
}

/// The document as pretty JSON with a final newline, as committed in `docs/openapi.json`.
pub fn document_json() -> String {
    let mut text =
        serde_json::to_string_pretty(&document()).expect("serializing the OpenAPI document");
    text.push('\n');
    text
}
