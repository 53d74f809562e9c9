//! The ACP registry: `GET /v1/registry` and `POST /v1/registry/{agent}`.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// `GET /v1/registry`: the agents of the ACP registry's index.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegistryListResponse {
    /// The URL or snapshot file the index came from (`--acp-registry`).
    pub source: String,
    /// When the index was fetched (RFC 3339), or the snapshot file last changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetched_at: Option<String>,
    /// Set when a fetch failed and an older cached copy is shown: why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stale: Option<String>,
    /// The agents, in the registry's order.
    pub agents: Vec<RegistryAgentInfo>,
}

/// One agent of the ACP registry.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegistryAgentInfo {
    /// Its id, the agent id it gets here once added.
    pub id: String,
    pub name: String,
    /// The version its entry installs.
    pub version: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// How the registry distributes it: `npx` (an npm package), `uvx` (a PyPI
    /// package), `binary` (release archives per platform).
    pub distributions: Vec<String>,
    /// Whether one of its distributions can be installed on this daemon's
    /// platform with its `--install-source`.
    pub installable: bool,
    /// Whether it was added to this daemon (it is then in `GET /v1/agents`).
    pub added: bool,
}

/// `GET /v1/registry` query.
#[derive(Debug, Clone, Default, Serialize, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct RegistryQuery {
    /// Fetch the index anew even when the cached copy is under an hour old.
    #[serde(default)]
    pub refresh: Option<bool>,
}

/// `POST /v1/registry/{agent}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RegistryAddRequest {
    /// Variables of the daemon's environment the agent's processes are given (its
    /// API key, its base URL), by name: the registry names none, and an agent is
    /// not given another agent's credentials otherwise. Kept with the agent;
    /// adding it again replaces them.
    #[serde(default)]
    #[schema(value_type = Option<Vec<VariableName>>)]
    pub env: Option<Vec<String>>,
    /// Install again even when the entry's version is installed.
    #[serde(default)]
    pub reinstall: Option<bool>,
}

/// The name of an environment variable (`ANTHROPIC_API_KEY`): a letter or `_`,
/// then letters, digits and `_`, at most 128 characters. Only its schema is used.
#[derive(ToSchema)]
#[schema(pattern = "^[A-Za-z_][A-Za-z0-9_]{0,127}$")]
pub struct VariableName(pub String);
