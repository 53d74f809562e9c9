//! The daemon's one error type; every failure a client can see becomes an RFC 7807
//! problem document with a stable `urn:sandbox-agent:error:<code>` type.

use agentplex_desktop::DesktopError;
use agentplex_files::FsError;
use agentplex_processes::ProcessError;

use agentplex_api::{ErrorType, ProblemDetails, PROBLEM_TYPE_PREFIX};
use agentplex_sessions::SessionError;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

/// What a route answers: its body, or a problem document.
pub type Result<T> = std::result::Result<T, ApiError>;

/// Everything that can go wrong serving a request.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    InvalidRequest(String),
    #[error("unknown agent {agent:?}; GET /v1/agents lists the agents this daemon runs")]
    UnsupportedAgent { agent: String },
    /// An unknown agent named in the path (`/v1/agents/{agent}/...`): the resource is
    /// not there, so 404 (with the same `unsupported_agent` code).
    #[error("unknown agent {agent:?}; GET /v1/agents lists the agents this daemon runs")]
    AgentNotFound { agent: String },
    #[error("{0}")]
    NotConfigured(String),
    #[error("agent {agent:?} is not installed")]
    AgentNotInstalled { agent: String, detail: String },
    #[error("installing agent {agent:?} failed: {detail}")]
    InstallFailed { agent: String, detail: String },
    #[error("missing or invalid token; send `Authorization: Bearer <token>` or `x-sandbox-token`")]
    TokenInvalid,
    #[error("session {session_id:?} not found")]
    SessionNotFound { session_id: String },
    #[error("session {session_id:?} already exists")]
    SessionAlreadyExists { session_id: String },
    #[error("session {session_id:?} has ended")]
    SessionEnded { session_id: String },
    #[error("{what} {id:?} is not pending in session {session_id:?}")]
    RequestNotFound {
        session_id: String,
        what: &'static str,
        id: String,
    },
    #[error("{0}")]
    ModeNotSupported(String),
    #[error("the adapter rejected the request: {0}")]
    AdapterRejected(String),
    #[error("the agent's adapter failed: {detail}")]
    AdapterFailed { agent: String, detail: String },
    #[error("no route {0}")]
    NotFound(String),
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("timed out: {0}")]
    Timeout(String),
    #[error("internal error: {0}")]
    Internal(String),
    #[error("{0}")]
    PathNotFound(String),
    #[error("{0}")]
    PathConflict(String),
    #[error("{0}")]
    PermissionDenied(String),
    #[error("process {0:?} not found")]
    ProcessNotFound(String),
    #[error("{0}")]
    ProcessConflict(String),
    #[error("{0}")]
    ProcessLimitReached(String),
    #[error("{0}")]
    SpawnFailed(String),
    /// The `Host` of the request is not a name the daemon answers to.
    #[error("{0}")]
    HostNotAllowed(String),
    /// Without a token, a foreign web page tried to change state.
    #[error("{0}")]
    CrossOriginRefused(String),
    /// The body's content type is not one the route takes.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// The session store refused a write for where it lives: nothing was stored.
    #[error("{0}; nothing was stored, retry once it is fixed")]
    Storage(agentplex_store::StoreError),
    /// A session archive to import is not one this daemon can read.
    #[error("{0}")]
    InvalidArchive(String),
    /// Another daemon sharing the database drives the session: the message,
    /// and the session.
    #[error("{0}")]
    SessionElsewhere(String, String),
    /// An ACP server id already runs another agent (409).
    #[error("{0}")]
    AcpServerBound(String),
    /// The ACP registry's index cannot be had (502, `stream_error`).
    #[error("{0}")]
    RegistryUnavailable(String),
    /// The ACP registry lists no such agent (404, `unsupported_agent`).
    #[error("the ACP registry lists no agent {agent:?}; GET /v1/registry lists them")]
    NotInRegistry { agent: String },
    /// A registry agent would take the id of one of the daemon's own agents (409).
    #[error("agent {agent:?} is already one of this daemon's agents, by its own adapter; the registry's is not added over it")]
    AgentIdTaken { agent: String },
    /// A desktop route failed (`/v1/desktop/*`).
    #[error(transparent)]
    Desktop(#[from] DesktopError),
}

impl ApiError {
    /// The error of a route whose path names the agent: an unknown agent is a 404.
    pub fn in_agent_path(error: impl Into<Self>) -> Self {
        match error.into() {
            ApiError::UnsupportedAgent { agent } => ApiError::AgentNotFound { agent },
            other => other,
        }
    }

    /// The problem's code.
    pub fn error_type(&self) -> ErrorType {
        match self {
            ApiError::InvalidRequest(_)
            | ApiError::AdapterRejected(_)
            | ApiError::AcpServerBound(_)
            | ApiError::AgentIdTaken { .. } => ErrorType::InvalidRequest,
            ApiError::UnsupportedAgent { .. }
            | ApiError::AgentNotFound { .. }
            | ApiError::NotInRegistry { .. } => ErrorType::UnsupportedAgent,
            ApiError::RegistryUnavailable(_) => ErrorType::StreamError,
            ApiError::NotConfigured(_) => ErrorType::NotConfigured,
            ApiError::AgentNotInstalled { .. } => ErrorType::AgentNotInstalled,
            ApiError::InstallFailed { .. } => ErrorType::InstallFailed,
            ApiError::TokenInvalid => ErrorType::TokenInvalid,
            ApiError::SessionNotFound { .. } => ErrorType::SessionNotFound,
            ApiError::SessionAlreadyExists { .. } => ErrorType::SessionAlreadyExists,
            ApiError::SessionEnded { .. } => ErrorType::SessionEnded,
            ApiError::RequestNotFound { .. } => ErrorType::RequestNotFound,
            ApiError::ModeNotSupported(_) => ErrorType::ModeNotSupported,
            ApiError::AdapterFailed { .. } => ErrorType::AdapterFailed,
            ApiError::NotFound(_) => ErrorType::NotFound,
            ApiError::MethodNotAllowed => ErrorType::MethodNotAllowed,
            ApiError::PayloadTooLarge(_) => ErrorType::PayloadTooLarge,
            ApiError::Timeout(_) => ErrorType::Timeout,
            ApiError::Internal(_) => ErrorType::Internal,
            ApiError::PathNotFound(_) => ErrorType::PathNotFound,
            ApiError::PathConflict(_) => ErrorType::PathConflict,
            ApiError::PermissionDenied(_) => ErrorType::PermissionDenied,
            ApiError::ProcessNotFound(_) => ErrorType::ProcessNotFound,
            ApiError::ProcessConflict(_) => ErrorType::ProcessConflict,
            ApiError::ProcessLimitReached(_) => ErrorType::ProcessLimitReached,
            ApiError::SpawnFailed(_) => ErrorType::SpawnFailed,
            ApiError::HostNotAllowed(_) => ErrorType::HostNotAllowed,
            ApiError::CrossOriginRefused(_) => ErrorType::CrossOriginRefused,
            ApiError::UnsupportedMediaType(_) => ErrorType::UnsupportedMediaType,
            ApiError::InvalidArchive(_) => ErrorType::InvalidArchive,
            ApiError::SessionElsewhere(..) => ErrorType::SessionElsewhere,
            ApiError::Desktop(error) => match error {
                DesktopError::Invalid { .. } => ErrorType::InvalidRequest,
                DesktopError::Unavailable { .. } => ErrorType::DesktopUnavailable,
                DesktopError::NotRunning | DesktopError::Died(_) => ErrorType::DesktopNotRunning,
                DesktopError::Busy | DesktopError::Conflict(_) => ErrorType::DesktopConflict,
                DesktopError::WindowNotFound(_) => ErrorType::WindowNotFound,
                DesktopError::RecordingNotFound(_) => ErrorType::RecordingNotFound,
                DesktopError::StartFailed(_) | DesktopError::X11(_) | DesktopError::Io(_) => {
                    ErrorType::DesktopFailed
                }
            },
            ApiError::Storage(agentplex_store::StoreError::Full(_)) => ErrorType::StorageFull,
            ApiError::Storage(_) => ErrorType::StorageUnavailable,
        }
    }

    /// The HTTP status of the problem.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::AgentNotFound { .. } | ApiError::NotInRegistry { .. } => {
                return StatusCode::NOT_FOUND
            }
            ApiError::AcpServerBound(_) | ApiError::AgentIdTaken { .. } => {
                return StatusCode::CONFLICT
            }
            _ => {}
        }
        match self.error_type() {
            ErrorType::InvalidRequest
            | ErrorType::UnsupportedAgent
            | ErrorType::ModeNotSupported
            | ErrorType::SpawnFailed
            | ErrorType::InvalidArchive => StatusCode::BAD_REQUEST,
            ErrorType::TokenInvalid => StatusCode::UNAUTHORIZED,
            ErrorType::PermissionDenied
            | ErrorType::HostNotAllowed
            | ErrorType::CrossOriginRefused => StatusCode::FORBIDDEN,
            ErrorType::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorType::AgentNotInstalled
            | ErrorType::SessionNotFound
            | ErrorType::RequestNotFound
            | ErrorType::NotFound
            | ErrorType::PathNotFound
            | ErrorType::ProcessNotFound
            | ErrorType::WindowNotFound
            | ErrorType::RecordingNotFound => StatusCode::NOT_FOUND,
            ErrorType::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorType::SessionAlreadyExists
            | ErrorType::SessionEnded
            | ErrorType::PathConflict
            | ErrorType::NotConfigured
            | ErrorType::ProcessConflict
            | ErrorType::ProcessLimitReached
            | ErrorType::SessionElsewhere
            | ErrorType::DesktopNotRunning
            | ErrorType::DesktopConflict => StatusCode::CONFLICT,
            ErrorType::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorType::StreamError => StatusCode::BAD_GATEWAY,
            ErrorType::Timeout => StatusCode::GATEWAY_TIMEOUT,
            ErrorType::InstallFailed
            | ErrorType::AgentProcessExited
            | ErrorType::AdapterFailed
            | ErrorType::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorType::StorageFull => StatusCode::INSUFFICIENT_STORAGE,
            ErrorType::StorageUnavailable | ErrorType::DesktopFailed => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ErrorType::DesktopUnavailable => StatusCode::NOT_IMPLEMENTED,
        }
    }

    /// The problem document.
    pub fn problem(&self) -> ProblemDetails {
        let status = self.status();
        let mut problem = ProblemDetails {
            problem_type: format!("{PROBLEM_TYPE_PREFIX}{}", self.error_type().code()),
            title: status.canonical_reason().unwrap_or("Error").to_owned(),
            status: status.as_u16(),
            detail: Some(self.to_string()),
            instance: None,
            agent: None,
            session_id: None,
            exit_code: None,
            stderr: None,
        };
        match self {
            ApiError::UnsupportedAgent { agent }
            | ApiError::AgentNotFound { agent }
            | ApiError::NotInRegistry { agent }
            | ApiError::AgentIdTaken { agent }
            | ApiError::AdapterFailed { agent, .. } => problem.agent = Some(agent.clone()),
            ApiError::AgentNotInstalled { agent, detail } => {
                problem.agent = Some(agent.clone());
                problem.detail = Some(format!("{self}: {detail}"));
            }
            ApiError::InstallFailed { agent, .. } => problem.agent = Some(agent.clone()),
            ApiError::SessionNotFound { session_id }
            | ApiError::SessionAlreadyExists { session_id }
            | ApiError::SessionEnded { session_id }
            | ApiError::RequestNotFound { session_id, .. }
            | ApiError::SessionElsewhere(_, session_id) => {
                problem.session_id = Some(session_id.clone())
            }
            _ => {}
        }
        problem
    }
}

/// A folder that cannot be loaded again is the daemon's failure, not the client's.
impl From<agentplex_sessions::agents::folder::ReloadError> for ApiError {
    fn from(error: agentplex_sessions::agents::folder::ReloadError) -> Self {
        ApiError::Internal(error.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status().is_server_error() {
            tracing::error!(error = %self, "request failed");
        }
        let problem = self.problem();
        let body = serde_json::to_vec(&problem).unwrap_or_default();
        let mut response = (
            self.status(),
            [(header::CONTENT_TYPE, "application/problem+json")],
            body,
        )
            .into_response();
        if let ApiError::TokenInvalid = self {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer realm=\"sandbox-agent\""),
            );
        }
        response
    }
}

/// A store that cannot be written is a `storage_*` problem; any other store
/// failure is the daemon's own.
impl From<agentplex_store::StoreError> for ApiError {
    fn from(error: agentplex_store::StoreError) -> Self {
        if let agentplex_store::StoreError::LeaseLost { session_id } = &error {
            return ApiError::SessionElsewhere(error.to_string(), session_id.clone());
        }
        if error.is_storage_fault() {
            ApiError::Storage(error)
        } else {
            ApiError::Internal(error.to_string())
        }
    }
}

impl From<FsError> for ApiError {
    fn from(error: FsError) -> Self {
        let message = error.to_string();
        match error {
            FsError::BadPath(_) => ApiError::InvalidRequest(message),
            FsError::NotFound(_) => ApiError::PathNotFound(message),
            FsError::Conflict(_) => ApiError::PathConflict(message),
            FsError::PermissionDenied(_) => ApiError::PermissionDenied(message),
            FsError::TooLarge(_) => ApiError::PayloadTooLarge(message),
            FsError::Io { .. } => ApiError::Internal(message),
        }
    }
}

impl From<ProcessError> for ApiError {
    fn from(error: ProcessError) -> Self {
        let message = error.to_string();
        match error {
            ProcessError::InvalidRequest(_) => ApiError::InvalidRequest(message),
            ProcessError::NotFound(id) => ApiError::ProcessNotFound(id),
            ProcessError::Conflict(_)
            | ProcessError::InputFailed { .. }
            | ProcessError::ResizeFailed { .. } => ApiError::ProcessConflict(message),
            ProcessError::LimitReached(_) => ApiError::ProcessLimitReached(message),
            ProcessError::InputTooLarge { .. } => ApiError::PayloadTooLarge(message),
            ProcessError::SpawnFailed { .. } => ApiError::SpawnFailed(message),
            ProcessError::WorkingDirectory(error) => error.into(),
            ProcessError::Io { .. } => ApiError::Internal(message),
        }
    }
}

impl From<SessionError> for ApiError {
    fn from(error: SessionError) -> Self {
        match error {
            SessionError::InvalidRequest(message) => ApiError::InvalidRequest(message),
            SessionError::NotConfigured(message) => ApiError::NotConfigured(message),
            SessionError::Desktop(error) => ApiError::Desktop(error),
            SessionError::UnsupportedAgent { agent } => ApiError::UnsupportedAgent { agent },
            SessionError::RegistryUnavailable(message) => ApiError::RegistryUnavailable(message),
            SessionError::NotInRegistry { agent } => ApiError::NotInRegistry { agent },
            SessionError::AgentIdTaken { agent } => ApiError::AgentIdTaken { agent },
            SessionError::AgentNotInstalled { agent, detail } => {
                ApiError::AgentNotInstalled { agent, detail }
            }
            SessionError::InstallFailed { agent, source } => ApiError::InstallFailed {
                agent,
                detail: source.to_string(),
            },
            SessionError::SessionNotFound { session_id } => {
                ApiError::SessionNotFound { session_id }
            }
            SessionError::SessionAlreadyExists { session_id } => {
                ApiError::SessionAlreadyExists { session_id }
            }
            SessionError::SessionEnded { session_id } => ApiError::SessionEnded { session_id },
            SessionError::SessionElsewhere { session_id, owner } => ApiError::SessionElsewhere(
                SessionError::SessionElsewhere {
                    session_id: session_id.clone(),
                    owner,
                }
                .to_string(),
                session_id,
            ),
            error @ SessionError::InvalidArchive(_) => ApiError::InvalidArchive(error.to_string()),
            error @ SessionError::ImportConflict(_) => ApiError::PathConflict(error.to_string()),
            SessionError::RequestNotFound {
                session_id,
                what,
                id,
            } => ApiError::RequestNotFound {
                session_id,
                what,
                id,
            },
            SessionError::ModeNotSupported(message) => ApiError::ModeNotSupported(message),
            SessionError::AdapterRejected(reason) => ApiError::AdapterRejected(reason),
            SessionError::AdapterFailed { agent, detail } => {
                ApiError::AdapterFailed { agent, detail }
            }
            SessionError::Timeout(message) => ApiError::Timeout(message),
            SessionError::Io { what, source } => ApiError::Internal(format!("{what}: {source}")),
            SessionError::Internal(message) => ApiError::Internal(message),
            SessionError::WorkingDirectory(error) => error.into(),
            SessionError::Process(error) => error.into(),
            SessionError::Storage(error) => error.into(),
        }
    }
}
