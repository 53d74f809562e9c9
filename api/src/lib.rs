//! Request and response bodies of the sandbox-agent HTTP API (`/v1`).
//!
//! Shared by the daemon (which serves them and documents them in OpenAPI) and by
//! Rust clients such as the CLI. Field names are the 0.1.x wire names (camelCase);
//! everything beyond 0.1.x is optional so old clients keep working.

use std::collections::BTreeMap;

use agentplex_universal::UniversalEvent;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

mod desktop;
mod fs;
mod mcp;
mod moves;
mod policy;
mod processes;
mod redact;
mod registry;
mod usage;
pub use agentplex_universal::UsageTotals;
pub use desktop::*;
pub use fs::*;
pub use mcp::*;
pub use moves::*;
pub use policy::*;
pub use processes::*;
pub use redact::{redact_url, scrub_url, REDACTED};
pub use registry::*;
pub use usage::SessionUsage;

/// `GET /v1/health`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct HealthResponse {
    /// Always `ok` when the daemon answers.
    pub status: String,
    /// The daemon's version.
    #[serde(default)]
    pub version: Option<String>,
}

/// What an agent can report through the universal API.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    pub plan_mode: bool,
    pub permissions: bool,
    pub questions: bool,
    pub tool_calls: bool,
    pub tool_results: bool,
    pub text_messages: bool,
    pub images: bool,
    pub file_attachments: bool,
    pub session_lifecycle: bool,
    pub error_events: bool,
    pub reasoning: bool,
    pub status: bool,
    pub command_execution: bool,
    pub file_changes: bool,
    pub mcp_tools: bool,
    pub streaming_deltas: bool,
    pub item_started: bool,
    /// The agent uses a shared long-running process or server.
    pub shared_process: bool,
    /// A session continues after its agent process exits (native resume).
    #[serde(default)]
    pub resume: bool,
    /// A running turn can be cancelled and the session kept.
    #[serde(default)]
    pub cancel: bool,
    /// Turns report token usage.
    #[serde(default)]
    pub usage: bool,
    /// Models have variants (reasoning effort...).
    #[serde(default)]
    pub variants: bool,
    /// The session's `mcp` servers reach the agent (else a create request with them is refused).
    #[serde(default)]
    pub mcp_servers: bool,
    /// The session's `skills` reach the agent (else a create request with them is refused).
    #[serde(default)]
    pub skills: bool,
    /// The agent's own session moves with the daemon's (`GET /v1/sessions/{id}/export`
    /// carries its files): after an import the agent resumes its own session. Without
    /// it an imported session keeps its transcript and starts a new agent session.
    #[serde(default, rename = "move")]
    pub moves: bool,
    /// A running session's agent mode and permission mode can change (`PUT
    /// /v1/sessions/{id}/modes`).
    #[serde(default)]
    pub mode_change: bool,
    /// A running session's model can change (`PUT /v1/sessions/{id}/modes`).
    #[serde(default)]
    pub model_change: bool,
    /// A running session's model variant can change (`PUT /v1/sessions/{id}/modes`).
    #[serde(default)]
    pub variant_change: bool,
    /// The kinds of request (`shell`, `read`, `write`, `fetch`, `mcp`, `other`) the
    /// agent asks permission for in the `default` permission mode when its session
    /// has an approval policy: what the policy can decide. What the agent does
    /// without asking, no policy can stop (docs/policies.md).
    #[serde(default)]
    pub asks_for: Vec<PolicyToolKind>,
}

/// State of an agent's shared server process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ServerStatus {
    Running,
    Stopped,
    Error,
}

/// Details of an agent's shared server process.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatusInfo {
    pub status: ServerStatus,
    pub restart_count: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uptime_ms: Option<u64>,
}

/// An adapter component loaded from the adapters folder.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoadedAdapterInfo {
    /// The agent id it registers.
    pub id: String,
    /// The adapter's own version.
    pub adapter_version: String,
    /// The component file.
    pub origin: String,
    /// The contract it was built against (`sandbox-agent:adapter@0.5.0`).
    pub contract: String,
}

/// `POST /v1/adapters/reload`: what the adapters folder holds now.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdaptersReloadResponse {
    /// The folder's components that loaded, in file-name order; each overrides a
    /// builtin with the same id.
    pub adapters: Vec<LoadedAdapterInfo>,
    /// Why each other component of the folder was skipped.
    pub skipped: Vec<String>,
}

/// One agent the daemon can drive (one loaded adapter).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentInfo {
    pub id: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub installed: bool,
    /// Whether the credentials the agent needs are available.
    pub credentials_available: bool,
    /// Installed agent version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Path of the installed binary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub capabilities: AgentCapabilities,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_status: Option<ServerStatusInfo>,
    /// Version of the adapter component driving the agent.
    #[serde(default)]
    pub adapter_version: String,
}

/// `GET /v1/agents`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AgentListResponse {
    pub agents: Vec<AgentInfo>,
}

/// One agent mode.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AgentModeInfo {
    pub id: String,
    pub name: String,
    pub description: String,
}

/// `GET /v1/agents/{agent}/modes`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AgentModesResponse {
    pub modes: Vec<AgentModeInfo>,
}

/// One model.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentModelInfo {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variants: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_variant: Option<String>,
}

/// `GET /v1/agents/{agent}/models`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentModelsResponse {
    pub models: Vec<AgentModelInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_model: Option<String>,
}

/// `POST /v1/agents/{agent}/install`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentInstallRequest {
    /// Install again even when installed.
    #[serde(default)]
    pub reinstall: Option<bool>,
    /// Version to install; the latest when absent. Letters, digits, `.`, `-`, `_`
    /// and `+`, at most 64 (else `400`).
    #[serde(default)]
    pub version: Option<String>,
}

/// `POST /v1/sessions/{id}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct CreateSessionRequest {
    /// Agent id (`GET /v1/agents`).
    #[schema(min_length = 1)]
    pub agent: String,
    /// Agent mode; the agent's default (`build`) when absent.
    #[serde(default)]
    pub agent_mode: Option<String>,
    /// `default`, `plan`, `bypass` or `acceptEdits`; `default` when absent.
    #[serde(default)]
    pub permission_mode: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub variant: Option<String>,
    /// The agent version the session needs, installed when missing (unless the
    /// daemon runs with `--no-install`); written as an install's `version`.
    #[serde(default)]
    pub agent_version: Option<String>,
    /// Working directory of the agent; the daemon's when absent or empty.
    #[serde(default)]
    #[schema(pattern = "^[^\\x00]*$")]
    pub directory: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    /// Extra environment variables for the agent's processes.
    #[serde(default)]
    pub env: Option<BTreeMap<String, String>>,
    /// MCP servers for the agent, by name. Refused (400) for an agent without the
    /// `mcpServers` capability.
    #[serde(default)]
    pub mcp: Option<BTreeMap<String, McpServerConfig>>,
    /// Skills for the agent. Refused (400) for an agent without the `skills` capability.
    #[serde(default)]
    pub skills: Option<SkillsConfig>,
    /// Caps on what the session's model calls may spend, enforced by the model
    /// gateway (`--gateway`); refused (400) without it, or for an agent whose
    /// calls it cannot carry. Replaced with `PUT /v1/sessions/{id}/budget`.
    #[serde(default)]
    pub budget: Option<agentplex_universal::BudgetLimits>,
    /// `true` gives the agent the sandbox's desktop as MCP tools (a server named
    /// `desktop`: screenshot, click, type, key, scroll, open, windows) that the daemon
    /// serves on 127.0.0.1 with a token of the session's own; the desktop starts at
    /// the first tool call if it does not run. Refused for an agent without the
    /// `mcpServers` capability (400), or where the desktop cannot run (501).
    #[serde(default)]
    pub desktop: Option<bool>,
    /// The approval policy that decides the agent's permission requests before
    /// the client sees them (only `ask` reaches it; every decision is a
    /// `permission.decided` event); the daemon's `--policy` when absent. A policy
    /// that cannot be used is refused (400) naming the rule and field. Replaced
    /// with `PUT /v1/sessions/{id}/policy`.
    #[serde(default)]
    #[schema(value_type = Option<ApprovalPolicy>)]
    pub policy: Option<serde_json::Value>,
}

/// Error kinds of the API (also the codes of `urn:sandbox-agent:error:<code>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorType {
    InvalidRequest,
    UnsupportedAgent,
    AgentNotInstalled,
    InstallFailed,
    AgentProcessExited,
    TokenInvalid,
    PermissionDenied,
    SessionNotFound,
    SessionAlreadyExists,
    ModeNotSupported,
    StreamError,
    Timeout,
    /// The session has ended and accepts no more input.
    SessionEnded,
    /// No pending permission request or question has that id.
    RequestNotFound,
    /// The route does not exist.
    NotFound,
    /// The route exists but not with that method.
    MethodNotAllowed,
    /// The body is larger than the daemon accepts.
    PayloadTooLarge,
    /// The agent's adapter component failed (trap, limit, invalid action).
    AdapterFailed,
    /// An unexpected failure inside the daemon.
    Internal,
    /// A filesystem route's path, or the working directory of a session or a process,
    /// does not exist (404).
    PathNotFound,
    /// A filesystem route's target exists already, a directory to remove is not empty,
    /// or a path names another kind of entry than the request needs: a directory
    /// where a file is read or written, a file where a directory is listed or used
    /// as a working directory, a FIFO, a socket or a device (409).
    PathConflict,
    /// The daemon runs without what the request needs (`POST /v1/adapters/reload`
    /// without an adapters folder).
    NotConfigured,
    /// The disk holding the daemon's data dir is full: nothing that would have to
    /// be stored is accepted until space is freed (507).
    StorageFull,
    /// The session database cannot be written (made read-only, removed, failing
    /// I/O): nothing that would have to be stored is accepted (503).
    StorageUnavailable,
    /// No managed process has that id (404).
    ProcessNotFound,
    /// The process is not in a state for the request: a terminal operation on a
    /// process without a terminal, input to a closed stdin, deleting a running
    /// process (409).
    ProcessConflict,
    /// The daemon holds `--max-processes` processes already (409).
    ProcessLimitReached,
    /// The program could not be started (missing or not executable); the detail
    /// carries the system's reason (400).
    SpawnFailed,
    /// The request named the daemon by a `Host` it does not answer to: without a
    /// token only loopback names and those `--allowed-host` adds (403).
    HostNotAllowed,
    /// Without a token, a request that changes state came from a web page other
    /// than the daemon's own and the origins `--cors-allow-origin` names (403).
    CrossOriginRefused,
    /// The body's `Content-Type` is not one the route takes (415).
    UnsupportedMediaType,
    /// A session archive to import is damaged, truncated, not a session archive,
    /// or of a newer version than the daemon reads; nothing was imported (400).
    InvalidArchive,
    /// Another daemon sharing the database drives the session (its lease runs);
    /// `detail` names it (409).
    SessionElsewhere,
    /// The desktop cannot run here: `detail` names the programs missing and the
    /// command that installs them (501).
    DesktopUnavailable,
    /// The desktop is not started, or its X server died (`detail` says which; the
    /// next `POST /v1/desktop/start` starts it again) (409).
    DesktopNotRunning,
    /// The desktop is starting or stopping, or a recording is (or is not) running (409).
    DesktopConflict,
    /// The desktop's X server or its programs failed the request (503).
    DesktopFailed,
    /// No window on the desktop has that id, or none has the focus (404).
    WindowNotFound,
    /// No desktop recording has that id (404).
    RecordingNotFound,
}

impl ErrorType {
    /// The snake_case code used in problem `type` URNs.
    pub fn code(self) -> &'static str {
        match self {
            Self::InvalidRequest => "invalid_request",
            Self::UnsupportedAgent => "unsupported_agent",
            Self::AgentNotInstalled => "agent_not_installed",
            Self::InstallFailed => "install_failed",
            Self::AgentProcessExited => "agent_process_exited",
            Self::TokenInvalid => "token_invalid",
            Self::PermissionDenied => "permission_denied",
            Self::SessionNotFound => "session_not_found",
            Self::SessionAlreadyExists => "session_already_exists",
            Self::ModeNotSupported => "mode_not_supported",
            Self::StreamError => "stream_error",
            Self::Timeout => "timeout",
            Self::SessionEnded => "session_ended",
            Self::RequestNotFound => "request_not_found",
            Self::NotFound => "not_found",
            Self::MethodNotAllowed => "method_not_allowed",
            Self::PayloadTooLarge => "payload_too_large",
            Self::AdapterFailed => "adapter_failed",
            Self::Internal => "internal",
            Self::PathNotFound => "path_not_found",
            Self::PathConflict => "path_conflict",
            Self::NotConfigured => "not_configured",
            Self::StorageFull => "storage_full",
            Self::StorageUnavailable => "storage_unavailable",
            Self::ProcessNotFound => "process_not_found",
            Self::ProcessConflict => "process_conflict",
            Self::ProcessLimitReached => "process_limit_reached",
            Self::SpawnFailed => "spawn_failed",
            Self::HostNotAllowed => "host_not_allowed",
            Self::CrossOriginRefused => "cross_origin_refused",
            Self::UnsupportedMediaType => "unsupported_media_type",
            Self::InvalidArchive => "invalid_archive",
            Self::SessionElsewhere => "session_elsewhere",
            Self::DesktopUnavailable => "desktop_unavailable",
            Self::DesktopNotRunning => "desktop_not_running",
            Self::DesktopConflict => "desktop_conflict",
            Self::DesktopFailed => "desktop_failed",
            Self::WindowNotFound => "window_not_found",
            Self::RecordingNotFound => "recording_not_found",
        }
    }
}

/// An error reported in a body that otherwise succeeded (`CreateSessionResponse`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AgentError {
    #[serde(rename = "type")]
    pub error_type: ErrorType,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<serde_json::Value>,
}

/// `POST /v1/sessions/{id}` response.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateSessionResponse {
    /// Whether the agent started.
    pub healthy: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<AgentError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_session_id: Option<String>,
}

/// What a session is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    /// Waiting for a message.
    Idle,
    /// A turn is running.
    Running,
    /// A turn waits for a permission reply or a question answer.
    AwaitingInput,
    /// The session has ended.
    Ended,
}

/// A session's agent mode, permission mode, model and variant, as `PUT
/// /v1/sessions/{id}/modes` changes them (a field left out keeps its value) and
/// answers them (both modes given; the model and the variant when the session
/// names them). They apply from the next message on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct SessionModes {
    /// One of the agent's modes (`GET /v1/agents/{agent}/modes`), or one the
    /// running agent offered (the session's `agent offered` item).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_mode: Option<String>,
    /// `default`, `plan`, `bypass` or `acceptEdits`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
    /// The model, as at create (`GET /v1/agents/{agent}/models` lists the
    /// agent's known ones); for agents whose adapter declares `model-change`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The model's variant (reasoning effort...), as at create (the agent's
    /// models list theirs); for agents whose adapter declares `variant-change`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// A session's modes and model, and what its running agent offers to change
/// them to: `GET /v1/sessions/{id}/modes`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionChoices {
    /// The agent mode it runs in.
    pub agent_mode: String,
    /// `default`, `plan`, `bypass` or `acceptEdits`.
    pub permission_mode: String,
    /// The model it names, when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The model's variant it names, when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// What the running agent offers, as it last said (its own modes, which
    /// are agent modes of the session too, and its models with their
    /// variants); absent until an agent that says so has run. The adapter's
    /// own modes and models are `GET /v1/agents/{agent}/modes` and `.../models`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered: Option<agentplex_universal::AgentOffer>,
}

/// One session, as listed.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub session_id: String,
    pub agent: String,
    pub agent_mode: String,
    pub permission_mode: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_session_id: Option<String>,
    pub ended: bool,
    pub event_count: u64,
    /// Unix time in milliseconds.
    pub created_at: i64,
    /// Unix time in milliseconds of the latest event.
    pub updated_at: i64,
    pub status: SessionStatus,
    /// Messages waiting for the running turn to end.
    pub queued_messages: u64,
    /// The session's MCP servers as created, with header and environment values
    /// redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<BTreeMap<String, McpServerConfig>>,
    /// The session's skill sources as created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<SkillsConfig>,
    /// With a database daemons share (`--store postgres://...`): the daemon that
    /// drives the session, or drove it last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// With a database daemons share: whether that daemon's lease on the session
    /// runs (it renews it while it lives). A session whose owner is not alive is
    /// taken over by the next daemon asked for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_alive: Option<bool>,
    /// The usage the daemon metered of the session's model calls; absent when
    /// none was metered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<SessionUsage>,
    /// The caps on what the session's model calls may spend, once set (what
    /// they spent is `usage.total`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<agentplex_universal::BudgetLimits>,
    /// `true` when the agent has the desktop's MCP tools (`desktop` at create).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desktop: Option<bool>,
    /// The approval policy the session decides permission requests with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<ApprovalPolicy>)]
    pub policy: Option<serde_json::Value>,
}

/// Which sessions `GET /v1/sessions` lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SessionScope {
    /// The sessions this daemon drives (the default).
    #[default]
    Daemon,
    /// Every session of the database this daemon shares with others (with
    /// `--store postgres://...`; the same as `daemon` otherwise).
    Fleet,
}

/// `GET /v1/sessions` query.
#[derive(Debug, Clone, Default, Serialize, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SessionListQuery {
    /// `daemon` (the default) or `fleet`.
    #[serde(default)]
    pub scope: SessionScope,
}

/// `GET /v1/sessions`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SessionListResponse {
    pub sessions: Vec<SessionInfo>,
}

/// A file attached to a 0.1.x message.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageAttachment {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
}

/// One part of a message sent as `parts`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum MessagePart {
    Text {
        text: String,
    },
    Image {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime: Option<String>,
    },
    File {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filename: Option<String>,
    },
}

/// `POST /v1/sessions/{id}/messages`: either `message` (+ `attachments`), the 0.1.x
/// form, or `parts`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<MessageAttachment>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<MessagePart>>,
}

/// Query of `GET /v1/sessions/{id}/events`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Last sequence already seen (exclusive).
    #[serde(default)]
    pub offset: Option<u64>,
    /// Most events to return.
    #[serde(default)]
    pub limit: Option<u64>,
    /// Include native payloads (`raw`); `include_raw` is accepted too.
    #[serde(default, alias = "include_raw")]
    pub include_raw: Option<bool>,
}

/// Query of `POST /v1/sessions/{id}/messages/stream`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct TurnStreamQuery {
    /// Include native payloads (`raw`); `include_raw` is accepted too.
    #[serde(default, alias = "include_raw")]
    pub include_raw: Option<bool>,
}

/// Query of `GET /v1/sessions/{id}/events/sse`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct EventsSseQuery {
    /// Last sequence already seen (exclusive); the `Last-Event-ID` header takes precedence.
    #[serde(default)]
    pub offset: Option<u64>,
    /// Include native payloads (`raw`); `include_raw` is accepted too.
    #[serde(default, alias = "include_raw")]
    pub include_raw: Option<bool>,
}

/// `GET /v1/sessions/{id}/events`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventsResponse {
    pub events: Vec<UniversalEvent>,
    pub has_more: bool,
}

/// `POST /v1/sessions/{id}/questions/{qid}/reply`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QuestionReplyRequest {
    /// One list of chosen answers per prompt.
    pub answers: Vec<Vec<String>>,
}

/// A reply to a permission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PermissionReply {
    Once,
    Always,
    Reject,
}

/// `POST /v1/sessions/{id}/permissions/{pid}/reply`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PermissionReplyRequest {
    pub reply: PermissionReply,
}

/// An RFC 7807 problem document: every error response of the API.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProblemDetails {
    /// `urn:sandbox-agent:error:<code>`.
    #[serde(rename = "type")]
    pub problem_type: String,
    pub title: String,
    pub status: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
}

/// Prefix of every problem `type`.
pub const PROBLEM_TYPE_PREFIX: &str = "urn:sandbox-agent:error:";

impl ProblemDetails {
    /// The error code (`session_not_found`) of this problem's `type`.
    pub fn code(&self) -> &str {
        self.problem_type
            .strip_prefix(PROBLEM_TYPE_PREFIX)
            .unwrap_or(&self.problem_type)
    }
}
