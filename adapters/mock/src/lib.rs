//! The built-in `mock` agent: a scripted agent for testing clients of sandbox-agent.
//!
//! The mock needs no binary and no credentials. It reads the first word of each message
//! as a command (`help`, `demo`, `shell ls`, `permission`, `slow 20`...) and answers
//! with a fixed, documented sequence of universal events, so users can test their
//! client, UI or SDK code against every event type deterministically. A message that
//! is no command is echoed back as a streamed assistant message. The script is user
//! documentation: `docs/mock-agent.md`.
//!
//! It is also the reference adapter: a pure state machine built with
//! `sandbox-agent-adapter-kit`, compiled to a WebAssembly component like every other
//! adapter, which exercises every kind of action (spawning a real process for `shell`,
//! timers for `slow`, waiting for permission and question replies, cancellation,
//! snapshot and restore).
//!
//! - [`Mock`] holds the static facts ([`Mock::info`]) and registers the component.
//! - [`MockSession`] is the session state machine; the `state` module holds what it
//!   snapshots.
//! - The `commands` module holds the script: what each command emits.

#![warn(missing_docs)]

use sandbox_agent_adapter_kit::prelude::*;

mod commands;
mod session;
mod state;

#[cfg(test)]
mod tests;

pub use session::MockSession;

/// The mock adapter (agent id `mock`).
pub struct Mock;

impl Adapter for Mock {
    type Session = MockSession;

    /// The mock keeps its whole session in its snapshot: it moves with no file.
    const NATIVE_SESSIONS: Option<NativeSessions> =
        Some(NativeSessions::in_files(|_, _| Vec::new()));

    /// The mock asks before its `shell` commands and file changes.
    fn asks_for() -> Vec<ToolKind> {
        vec![ToolKind::Shell, ToolKind::Write]
    }

    /// The mock makes no model call of its own; its `shell` turns can, through
    /// `ANTHROPIC_BASE_URL` and `ANTHROPIC_API_KEY`, which is how a client tests
    /// what the daemon carries and meters.
    fn model_apis() -> Vec<ModelApi> {
        vec![ModelApi::through_environment(
            ModelApiFormat::AnthropicMessages,
            "anthropic",
            "https://api.anthropic.com",
            &["ANTHROPIC_BASE_URL"],
            &["ANTHROPIC_API_KEY"],
        )]
    }

    /// Built in (always installed, no install plan, no version probe), modes `build`
    /// and `plan`, models `mock` and `mock-large`, and every capability the script
    /// exercises.
    fn info() -> AdapterInfo {
        let large = Model::new("mock-large", Some("Mock Large"), &["low", "medium", "high"]);
        AdapterInfo::builtin("mock", "Mock", env!("CARGO_PKG_VERSION"), CAPABILITIES)
            .with_build_and_plan(
                "Mock agent for testing clients",
                "Plan-only mock mode: `shell`, `file` and `edit` describe what they would do",
            )
            .with_models(
                vec![
                    Model::new("mock", Some("Mock"), &[]),
                    large.with_default_variant("medium"),
                ],
                Some("mock"),
            )
    }
}

/// What the mock's script exercises: everything but `mcp_tools` and `mcp_servers`
/// (it has no MCP servers), `shared_process` (each `shell` command is its own
/// process), `skills` and `agent_offer` (its modes and models are its info's).
const CAPABILITIES: Capabilities = Capabilities {
    mcp_tools: false,
    shared_process: false,
    mcp_servers: false,
    skills: false,
    agent_offer: false,
    ..Capabilities::ALL
};

sandbox_agent_adapter_kit::export!(Mock);
