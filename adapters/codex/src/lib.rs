//! The Codex adapter: drives OpenAI's `codex` CLI through `codex app-server`.
//!
//! One `codex app-server` process (JSON-RPC over stdio, one JSON object per line) serves
//! every Codex session of the daemon: each session spawns it with the share key
//! [`session::SHARE_KEY`], so the host starts it once and attaches later sessions to the
//! running process. Every attached session receives every line the server prints, so a
//! session
//!
//! - namespaces its JSON-RPC request ids (`<session id>:<n>`, strings) and ignores
//!   responses to ids it did not send;
//! - opens one Codex thread (`thread/start`, or `thread/resume` after the server was
//!   restarted) and ignores notifications and server requests of other threads.
//!
//! Each message is a `turn/start` on that thread; approvals arrive as server requests
//! and become `permission.requested`; `request_user_input` (plan mode) becomes a
//! question. A session with the daemon's model endpoint opens its thread with a model
//! provider pointed there (`gateway`); where that endpoint forwards the calls comes
//! from `config.toml` (`config`, read with `toml`). The README of this crate has the launch recipe
//! and the mapping table.
//!
//! - [`Codex`] holds the static facts and registers the component.
//! - [`CodexSession`] is the session state machine.

#![warn(missing_docs)]

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::{
    credentials::CredentialFiles,
    install::{Checksums, Installer, VersionProbe},
};

mod config;
mod convert;
mod credentials;
mod gateway;
mod input;
mod install;
mod native;
mod requests;
mod rollout;
mod session;
mod settings;
mod state;
mod toml;
mod turn;

#[cfg(test)]
mod tests;

pub use session::CodexSession;

/// `codex app-server` speaks JSON-RPC without the `jsonrpc` member.
const RPC: sandbox_agent_adapter_kit::jsonrpc::Framing =
    sandbox_agent_adapter_kit::jsonrpc::Framing::UNTAGGED;

/// The Codex adapter (agent id `codex`).
pub struct Codex;

impl Adapter for Codex {
    type Session = CodexSession;
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
    /// A thread is one rollout file under `$CODEX_HOME/sessions`; it moves to the
    /// same place under the new `CODEX_HOME` with its paths rewritten (`rollout`).
    const NATIVE_SESSIONS: Option<NativeSessions> = Some(rollout::SESSIONS);

    /// Not built in; modes `build` and `plan` (Codex's plan collaboration mode); the
    /// GPT-5 models with their reasoning efforts as variants; credentials
    /// `OPENAI_API_KEY` and `CODEX_API_KEY`, and the variables `config.toml`'s
    /// provider is reported in (`config`).
    fn info() -> AdapterInfo {
        sandbox_agent_adapter_kit::agent_info!("codex", "Codex", CAPABILITIES)
            .for_versions(">=0.169.0, <0.170")
            .with_build_and_plan(
                "Codex's default collaboration mode",
                "Codex's plan collaboration mode: it explores, asks and proposes a plan",
            )
            .with_models(settings::models(), Some("gpt-6.1-sol"))
            .with_credentials(credentials::variables(), credentials::LOCATION_ENV)
    }

    /// Codex asks before commands and patches (approval policy `on-request` in the
    /// sandbox) and for more sandbox access (`other`); its MCP tools, web searches
    /// and reads run unasked.
    fn asks_for() -> Vec<ToolKind> {
        vec![ToolKind::Shell, ToolKind::Write, ToolKind::Other]
    }

    /// OpenAI Responses, which the adapter points per thread at the daemon's
    /// endpoint (`gateway`).
    fn model_apis() -> Vec<ModelApi> {
        gateway::model_apis()
    }
}

/// What the adapter reports. Images are sent as `localImage` inputs; attached files as
/// a line naming the path (Codex has no file input); questions exist in plan mode only
/// (`request_user_input`). The session's MCP servers go in the thread's `config`
/// (`mcp_servers`), so each thread on the shared app-server has its own. A
/// session's changed modes and model reach its thread with the next turn
/// (`mode_change`, `model_change`, `variant_change`: `turn/start` names the
/// session's model and its effort).
const CAPABILITIES: Capabilities = sandbox_agent_adapter_kit::capabilities![
    mode_change,
    model_change,
    variant_change,
    questions,
    images,
    file_attachments,
    session_lifecycle,
    status,
    shared_process,
    variants,
    ..Capabilities::SUPERVISED_AGENT
];

sandbox_agent_adapter_kit::export!(Codex);
