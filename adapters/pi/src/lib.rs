//! The Pi adapter: drives the `pi` coding agent (`@mariozechner/pi-coding-agent`)
//! for sandbox-agent.
//!
//! Each session runs one long-lived `pi --mode rpc` process that reads JSON commands
//! on stdin and prints responses and agent events on stdout. The adapter writes the
//! user's prompts (with images), aborts and dialog answers, and turns every line Pi
//! prints into universal events. `README.md` next to this crate has the launch recipe
//! and the mapping table.
//!
//! - [`Pi`] holds the static facts (info, install plan, version probe) and registers
//!   the component.
//! - [`PiSession`] is the session state machine (`session` module); it hands Pi's
//!   output to `output` (messages), `tools` (tool executions) and `dialogs`
//!   (extension UI requests), builds the lines it writes with `protocol`, and reads
//!   image attachments with `images`; `launch` builds the argv, with the extension
//!   `gateway` writes when the session has the daemon's model endpoints.

#![warn(missing_docs)]

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::{
    credentials::CredentialFiles,
    install::{Checksums, Installer, VersionProbe},
};

mod credentials;
mod dialogs;
mod gateway;
mod images;
mod install;
mod launch;
mod native;
mod output;
mod protocol;
mod providers;
mod session;
mod session_file;
mod state;
mod tools;

#[cfg(test)]
mod tests;

pub use session::PiSession;

/// The Pi adapter (agent id `pi`).
pub struct Pi;

impl Adapter for Pi {
    type Session = PiSession;
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
    /// A session is one file in the folder Pi names after the working directory; it
    /// moves into the new directory's folder with its header's `cwd` set to it
    /// (`session_file`).
    const NATIVE_SESSIONS: Option<NativeSessions> = Some(session_file::SESSIONS);

    /// One mode (`build`); Pi's models come from its own registry and
    /// `~/.pi/agent/models.json`, so none are listed.
    fn info() -> AdapterInfo {
        sandbox_agent_adapter_kit::agent_info!("pi", "Pi", CAPABILITIES)
            .for_versions(">=0.73, <0.74")
            .with_modes([AgentMode::build(
                "Pi with its default tools (read, bash, edit, write)",
            )])
            .with_credentials(credentials::variables(), credentials::LOCATION_ENV)
    }

    /// Anthropic Messages, OpenAI Responses, Chat Completions (OpenRouter) and
    /// Gemini, each pointed by the adapter with an extension of the session's
    /// (`gateway`).
    fn model_apis() -> Vec<ModelApi> {
        gateway::model_apis()
    }
}

/// What the adapter maps and its tests cover. Not `permissions` (Pi never asks before
/// a tool runs, by design) nor `plan_mode` (Pi has none; permission mode `plan` only
/// restricts it to read-only tools). Not `questions` (only extensions ask, through
/// dialogs the adapter maps to questions, untested with a real extension), not
/// `file_attachments` (files are listed by path in the prompt), not
/// `session_lifecycle` (Pi reports no session start or end), not `mcp_tools` (Pi has
/// no MCP), not `status` (compaction and retry notices become status items, but no
/// recording has one), not `shared_process` (one process per session). `variants` are Pi's
/// thinking levels (`--thinking`). The session's skills go in `--skill` (Pi lists them
/// to the model, which reads a skill's `SKILL.md` with its `read` tool). A session's
/// changed model reaches a running Pi as `set_model` (`model_change`), its changed
/// variant as `set_thinking_level` (`variant_change`); a permission
/// mode changed to or from `plan` starts Pi again on its session with the other tool
/// set before the next prompt (`mode_change`: Pi takes its tools only at launch).
const CAPABILITIES: Capabilities = sandbox_agent_adapter_kit::capabilities![
    images,
    file_changes,
    streaming_deltas,
    variants,
    skills,
    mode_change,
    model_change,
    variant_change,
    ..Capabilities::CODING_AGENT
];

sandbox_agent_adapter_kit::export!(Pi);
