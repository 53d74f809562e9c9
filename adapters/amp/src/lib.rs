//! The Amp adapter: drives Sourcegraph's `amp` CLI for sandbox-agent.
//!
//! Amp runs one turn per process: `amp --execute --stream-json` reads the prompt on
//! stdin, prints Claude Code-compatible stream-json (`system/init`, `user`,
//! `assistant`, `result`) and exits; later turns continue the Amp thread by id. Flag
//! names differ between Amp releases, so each session first reads `amp --help` and
//! builds its launches from the flags listed there. `README.md` next to this crate
//! has the launch recipe, the flag table and the mapping.
//!
//! Amp names no `model-apis`: the daemon's model gateway cannot carry its model calls.
//! The current CLI (`@ampcode/cli` 0.0.1790142911) runs its agent loop on Amp's
//! servers (a thread actor created at `$AMP_URL/api/thread-actors`, driven over a
//! WebSocket), so the process in the sandbox makes no model call at all. The older
//! CLI (`@sourcegraph/amp` 0.0.1767830505) made them, but to Amp's own billing proxy
//! (`$AMP_URL/api/provider/anthropic/v1/messages`, with the Amp key), and `AMP_URL`
//! moves the whole client (threads, internal RPCs), not only its model calls: no
//! provider's endpoint or key is involved for the gateway to stand in for. Amp's
//! stream-json still reports each message's usage, summed into `turn.ended`.
//!
//! - [`Amp`] holds the static facts (info, install plan, version probe) and registers
//!   the component.
//! - [`AmpSession`] is the session state machine (`session` module); `flags` reads
//!   the probe, `launch` builds the argv, `output` maps the stream-json lines.

#![warn(missing_docs)]

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::{
    credentials::CredentialFiles,
    install::{Checksums, Installer, VersionProbe},
};

mod credentials;
mod flags;
mod install;
mod launch;
mod native;
mod output;
mod session;
mod state;
mod tools;

#[cfg(test)]
mod tests;

pub use session::AmpSession;

/// The Amp adapter (agent id `amp`).
pub struct Amp;

impl Adapter for Amp {
    type Session = AmpSession;
    const INSTALLER: Option<Installer> = Some(Installer {
        recipe: install::recipe,
        latest_version: install::parse_latest_version,
        checksums: Checksums::Sha256Sum,
    });
    const VERSION: Option<VersionProbe> = Some(VersionProbe::flag(install::parse_version));
    const CREDENTIALS: Option<CredentialFiles> = Some(CredentialFiles {
        files: credentials::files,
        parse: credentials::parse,
    });
    const STAYS_BEHIND: &'static str = "Amp keeps its threads on Amp's servers, not in the \
        sandbox, and this adapter cannot yet check that a thread resumes from another \
        sandbox: the moved session starts a new thread";

    /// One `build` mode (Amp has no plan mode), no static models (the session's
    /// model is passed as Amp's `--mode`, whose names change between releases), and
    /// the capabilities the adapter maps.
    fn info() -> AdapterInfo {
        sandbox_agent_adapter_kit::agent_info!("amp", "Amp", CAPABILITIES)
            .with_modes([AgentMode::build(
                "Amp in execute mode with its full tool set",
            )])
            .with_credentials(credentials::variables(), credentials::LOCATION_ENV)
    }
}

/// What the adapter maps. Not `permissions`/`questions`/`plan_mode` (execute mode
/// has no prompts: Amp runs what its allowlist allows, or everything with
/// `--dangerously-allow-all`), not `streaming_deltas` (stream-json has whole
/// messages), not `file_changes` (file tools get `file_ref`s without diffs), not
/// `images`/`file_attachments` (the prompt is text; attachments are listed by path),
/// not `session_lifecycle` (Amp reports no session start or end), not `status` and
/// not `mcp_tools` (no recording has them). The session's MCP servers go in
/// `--mcp-config` (`mcp_servers`; unit-tested only: Amp's agent loop runs on Amp's
/// service, so the suite cannot run it offline). Each turn is a process of its own,
/// launched from the session's configuration as it is then, so a changed permission
/// mode (`--dangerously-allow-all` or not) and model (`--mode`) reach the next turn
/// (`mode_change`, `model_change`; unit-tested only, as above).
const CAPABILITIES: Capabilities = sandbox_agent_adapter_kit::capabilities![
    mcp_servers,
    mode_change,
    model_change,
    ..Capabilities::CODING_AGENT
];

sandbox_agent_adapter_kit::export!(Amp);
