//! A session's MCP servers and skills (`CreateSessionRequest.mcp` and `.skills`), with
//! the 0.1.x wire shapes. Each agent's adapter turns them into that agent's own
//! configuration; an agent that cannot take them refuses the session with a 400.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How an MCP server is reached, by its `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum McpServerConfig {
    /// A server the agent starts as a local process speaking MCP on stdio.
    #[serde(rename_all = "camelCase")]
    Local {
        /// The program, or the program and its arguments.
        command: McpCommand,
        /// Arguments after those in `command`.
        #[serde(default)]
        args: Vec<String>,
        /// Variables added to the server's environment.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        env: Option<BTreeMap<String, String>>,
        /// Working directory; the session's directory when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
        /// `false` leaves the server out.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        enabled: Option<bool>,
        /// How long the agent may wait for the server.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
    },
    /// A server reached over HTTP.
    #[serde(rename_all = "camelCase")]
    Remote {
        /// The server's URL.
        url: String,
        /// `http` (streamable HTTP, the default) or `sse`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        transport: Option<McpRemoteTransport>,
        /// Request headers.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        headers: Option<BTreeMap<String, String>>,
        /// Request headers whose values the daemon reads from its environment:
        /// header name → variable name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        env_headers: Option<BTreeMap<String, String>>,
        /// A variable of the daemon's environment holding a bearer token, sent as
        /// `Authorization: Bearer <value>`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bearer_token_env_var: Option<String>,
        /// OAuth settings, or `false` to turn OAuth off.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        oauth: Option<McpOAuthConfigOrDisabled>,
        /// `false` leaves the server out.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        enabled: Option<bool>,
        /// How long the agent may wait for the server.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
    },
}

/// A local server's command: one string (the program) or a list (program and arguments).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum McpCommand {
    /// The program alone.
    Program(String),
    /// The program and its first arguments.
    Argv(Vec<String>),
}

/// The protocol of a remote MCP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum McpRemoteTransport {
    /// Streamable HTTP.
    Http,
    /// Server-Sent Events (the older transport).
    Sse,
}

/// OAuth settings of a remote MCP server.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpOAuthConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// OAuth settings, or a boolean (`false` turns OAuth off, `true` keeps the agent's default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum McpOAuthConfigOrDisabled {
    /// Turned on (`true`) or off (`false`).
    Enabled(bool),
    /// These settings.
    Config(McpOAuthConfig),
}

/// Where a session's skills come from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillsConfig {
    /// The sources, in order; a later skill of the same name replaces an earlier one.
    pub sources: Vec<SkillSource>,
}

/// One source of skills: folders holding a `SKILL.md`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillSource {
    /// `local` (a directory on the sandbox's disk) or `git` (a repository the daemon clones).
    #[serde(rename = "type")]
    pub source_type: String,
    /// The directory (absolute, or relative to the session's directory), or the
    /// repository URL.
    pub source: String,
    /// A git branch, tag or commit.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<String>,
    /// The folder inside the source that holds the skills.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subpath: Option<String>,
    /// Only these skills (by folder name); all the source has when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
}
