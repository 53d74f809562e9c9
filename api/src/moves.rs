//! Moving a session between daemons: `GET /v1/sessions/{id}/export` and
//! `POST /v1/sessions/{id}/import`.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::SessionInfo;

/// The header an import takes secret variables in (the export leaves those out
/// and names them): `NAME=value` pairs, form-encoded (`A=1&B=x%26y`); it may
/// repeat.
pub const IMPORT_ENV_HEADER: &str = "x-agentplex-env";

/// Query of `POST /v1/sessions/{id}/import`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ImportSessionQuery {
    /// The session's working directory in this sandbox (absolute, or relative to
    /// the daemon's); by default the one it had, when it exists here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory: Option<String>,
}

/// The answer of `POST /v1/sessions/{id}/import`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportSessionResponse {
    /// The session as it now is here.
    pub session: SessionInfo,
    /// Secret variables the session had that the import was not given (header
    /// `x-agentplex-env`): its agent goes without them, or with the daemon's own.
    pub missing_secrets: Vec<String>,
    /// How many of the agent's own session files were written.
    pub native_files: u64,
    /// Why the agent's own session did not come along, when it did not: the next
    /// message then starts a new session of the agent (the transcript stays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<String>,
}
