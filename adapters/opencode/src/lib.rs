//! The OpenCode adapter of sandbox-agent.
//!
//! OpenCode runs as a local HTTP server, `opencode serve --hostname 127.0.0.1 --port 0`,
//! shared by every sandbox-agent session of the same binary and environment (a
//! `spawn` with a share key). The server prints the URL it listens on; each session
//! then talks to it over loopback HTTP:
//!
//! - `GET /event?directory=DIR` (Server-Sent Events): everything that happens in that
//!   directory's OpenCode instance, for every session there; the adapter keeps the
//!   events of its own native session;
//! - `POST /session` creates the native session (permission rules per
//!   `permissionMode`), `POST /session/:id/prompt_async` starts a turn,
//!   `POST /session/:id/abort` cancels it, `POST /permission/:id/reply` and
//!   `POST /question/:id/reply|reject` answer the agent.
//!
//! Modules:
//! - [`install`]: where the binary comes from and how its version reads;
//! - `api`: the requests the adapter sends and the URL the server prints;
//! - `gateway`: how the session's model calls are pointed at the daemon's endpoints,
//!   and `providers`: where the user's configuration sends them;
//! - `native`: the shapes of the event stream;
//! - `turn`: one turn's bookkeeping, and OpenCode's message parts as universal items;
//! - `state` and `session`: the session state machine.
//!
//! `README.md` next to this crate has the launch recipe and the mapping table.
//!
//! OpenCode's own sessions move through its own commands (`moves`): OpenCode 1.18
//! keeps every session of a home in one SQLite database
//! (`$XDG_DATA_HOME/opencode/opencode.db`), with the session's directory and
//! project in its rows, so no file of it can be copied. `opencode export <id>` at
//! the old place prints the session as JSON, which the archive carries, and
//! `opencode import <file>`, run in the new working directory with the agent's
//! environment, takes it in with the same ids and that directory's project.

#![warn(missing_docs)]

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::{
    credentials::CredentialFiles,
    install::{Checksums, Installer, VersionProbe},
};

mod api;
mod credentials;
mod gateway;
pub mod install;
mod moves;
mod native;
mod policy;
mod providers;
mod session;
mod session_config;
mod state;
mod turn;

#[cfg(test)]
mod tests;

pub use session::OpenCodeSession;

/// The OpenCode adapter (agent id `opencode`).
pub struct OpenCode;

sandbox_agent_adapter_kit::export!(OpenCode);

impl Adapter for OpenCode {
    type Session = OpenCodeSession;
    const INSTALLER: Option<Installer> = Some(Installer {
        recipe: install::recipe,
        latest_version: install::parse_latest_version,
        checksums: Checksums::GithubRelease,
    });
    const VERSION: Option<VersionProbe> = Some(VersionProbe::flag(install::parse_version));
    const CREDENTIALS: Option<CredentialFiles> = Some(CredentialFiles {
        files: credentials::files,
        parse: credentials::parse,
    });
    const NATIVE_SESSIONS: Option<NativeSessions> = Some(moves::SESSIONS);

    /// Modes `build` (default) and `plan` (OpenCode's read-only planning agent); no
    /// static models (OpenCode's models come from its configuration, named
    /// `provider/model`).
    fn info() -> AdapterInfo {
        sandbox_agent_adapter_kit::agent_info!("opencode", "OpenCode", CAPABILITIES)
            .for_versions(">=1.18, <2")
            .with_build_and_plan(
                "OpenCode's default agent: edits files and runs commands",
                "OpenCode's read-only planning agent",
            )
            .with_credential_env(credentials::variables())
            .with_location_env(&credentials::LOCATION_ENV)
    }

    /// Anthropic Messages, OpenAI Responses, Chat Completions (OpenRouter) and
    /// Gemini, each pointed by the adapter in `OPENCODE_CONFIG_CONTENT` (`gateway`).
    fn asks_for() -> Vec<ToolKind> {
        policy::asks_for()
    }

    fn model_apis() -> Vec<ModelApi> {
        gateway::model_apis()
    }
}

/// What the adapter maps and its tests cover. Not `status` (retry and compaction
/// notices become status items, but no recording has one yet). The session's MCP
/// servers and skills reach the server in `OPENCODE_CONFIG_CONTENT`
/// (`mcp_servers`, `skills`; MCP calls are ordinary tool parts, `mcp_tools`), proven
/// against a real MCP server and a skill folder. A session's changed modes reach the
/// next prompt (its agent) and, before it, the native session's permission rules
/// (`mode_change`); its changed model and variant the next prompt
/// (`model_change`, `variant_change`: each prompt names the session's model and
/// variant).
const CAPABILITIES: Capabilities = sandbox_agent_adapter_kit::capabilities![
    images,
    mode_change,
    model_change,
    variant_change,
    file_attachments,
    session_lifecycle,
    shared_process,
    variants,
    skills,
    ..Capabilities::SUPERVISED_AGENT
];
