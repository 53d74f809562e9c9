//! The generic ACP adapter: the session of every agent added from the ACP
//! registry (`agentplex agents add ID`), with no code of its own per agent.
//!
//! The daemon defines each added agent on top of this component: the agent's id,
//! name and version come from its registry entry, and its install places a
//! launcher at the agent's binary path that starts the registry's command with
//! the registry's arguments and variables. So the session only has to start the
//! installed binary and speak the Agent Client Protocol with it: the kit's
//! generic ACP session ([`AcpSession`]) does the rest.

#![warn(missing_docs)]

use sandbox_agent_adapter_kit::acp::{AcpAgent, AcpSession};
use sandbox_agent_adapter_kit::prelude::*;

#[cfg(test)]
mod tests;

/// The id the daemon knows this component by; it runs no session under it.
pub const AGENT_ID: &str = "acp-generic";

/// A registry agent's session: one process of its launcher, driven over ACP.
pub type GenericSession = AcpSession<Generic>;

/// The generic ACP adapter.
pub struct Generic;

impl AcpAgent for Generic {
    const NAME: &'static str = "the ACP agent";
    const PROCESS: &'static str = "acp";
    /// A registry agent's flags are the registry's: in `bypass` the session
    /// allows what the agent asks.
    const ALLOWS_IN_BYPASS: bool = true;

    /// The installed launcher, alone: it carries the registry's arguments and
    /// variables. Without one (a session the daemon could not find a binary
    /// for), the program named after this component, which fails to start with
    /// a clear error.
    fn spawn(config: &SessionConfig, process_id: &str) -> SpawnRequest {
        SpawnRequest::command(process_id, [config.program(AGENT_ID)])
    }

    /// For `bypass` and `acceptEdits`, the first of the modes the agent offered
    /// whose id is a usual name of it ([`MODE_NAMES`]); otherwise (and when it
    /// offered none of them) none: the session runs in the mode the agent
    /// opened it in. Not the agents' own plan modes: what they allow differs
    /// from agent to agent (Claude Code's ACP build runs commands unasked in
    /// its `plan`), so `plan` asks as `default` does.
    fn mode_id(config: &SessionConfig, offered: &[String]) -> Option<String> {
        let (_, names) = MODE_NAMES
            .iter()
            .find(|(mode, _)| *mode == config.permission_mode)?;
        let named = |id: &&String| names.contains(&id.as_str());
        offered.iter().find(named).cloned()
    }
}

/// The ids ACP agents give the modes that match a permission mode, in the
/// order they are tried: Claude Code's ACP build (`default`, `acceptEdits`,
/// `plan`, `bypassPermissions`), Codex's (`read-only`, `auto`, `full-access`),
/// Gemini CLI's and its forks' (`default`, `autoEdit`, `plan`, `yolo`).
const MODE_NAMES: &[(&str, &[&str])] = &[
    ("acceptEdits", &["acceptEdits", "autoEdit", "auto_edit"]),
    (
        "bypass",
        &["bypassPermissions", "yolo", "full-access", "bypass"],
    ),
];

impl Adapter for Generic {
    type Session = GenericSession;

    fn asks_for() -> Vec<ToolKind> {
        sandbox_agent_adapter_kit::acp::asks_for()
    }

    /// Facts the daemon replaces per registry agent (id, name, version): what any
    /// ACP agent offers through the generic session.
    fn info() -> AdapterInfo {
        AdapterInfo {
            builtin: false,
            ..AdapterInfo::builtin(
                AGENT_ID,
                "ACP registry agent",
                env!("CARGO_PKG_VERSION"),
                CAPABILITIES,
            )
        }
    }
}

/// What the generic ACP session maps for an agent it knows nothing else about:
/// streamed text and reasoning, tool calls and their results with file changes
/// and commands, permission prompts, MCP servers in `session/new`, cancel and
/// resume (`session/load`). The permission mode picks among the modes the agent
/// offers ([`Generic::mode_id`], before the first prompt and after a change:
/// `mode_change`), and the session's model reaches an agent that offers models
/// as `session/set_model` (`model_change`), its variant (at create or changed:
/// `variants`, `variant_change`) to one that offers thought levels as its
/// thought level; the modes and models the agent
/// offers are reported (`agent_offer`), so ACP clients list the agent's own
/// models. Not a plan mode of the daemon's (ACP
/// agents name their own modes), not questions, and not usage: an agent may
/// report it (the session then shows it) but ACP does not oblige it to.
const CAPABILITIES: Capabilities = Capabilities {
    plan_mode: false,
    usage: false,
    mode_change: true,
    model_change: true,
    variants: true,
    variant_change: true,
    ..sandbox_agent_adapter_kit::acp::CAPABILITIES
};

sandbox_agent_adapter_kit::export!(Generic);
