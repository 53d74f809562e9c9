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
//! - [`MockSession`] is the session state machine.
//! - The `commands` module holds the script: what each command emits.

#![warn(missing_docs)]

use sandbox_agent_adapter_kit::prelude::*;

mod commands;
mod session;

#[cfg(test)]
mod tests;

pub use session::MockSession;

/// The mock adapter (agent id `mock`).
pub struct Mock;

impl Adapter for Mock {
    type Session = MockSession;

    /// Built in (always installed, no install plan, no version probe), modes `build`
    /// and `plan`, models `mock` and `mock-large`, and every capability the script
    /// exercises.
    fn info() -> AdapterInfo {
        AdapterInfo {
            modes: vec![
                AgentMode::new("build", "Build", "Mock agent for testing clients"),
                AgentMode::new(
                    "plan",
                    "Plan",
                    "Plan-only mock mode: `shell`, `file` and `edit` describe what they would do",
                ),
            ],
            models: vec![
                Model {
                    id: "mock".to_owned(),
                    name: Some("Mock".to_owned()),
                    variants: Vec::new(),
                    default_variant: None,
                },
                Model {
                    id: "mock-large".to_owned(),
                    name: Some("Mock Large".to_owned()),
                    variants: vec!["low".to_owned(), "medium".to_owned(), "high".to_owned()],
                    default_variant: Some("medium".to_owned()),
                },
            ],
            default_model: Some("mock".to_owned()),
            ..AdapterInfo::builtin("mock", "Mock", env!("CARGO_PKG_VERSION"), CAPABILITIES)
        }
    }
}

/// What the mock's script exercises. Not `mcp_tools` (it has no MCP servers) and not
/// `shared_process` (each `shell` command is its own process).
const CAPABILITIES: Capabilities = sandbox_agent_adapter_kit::capabilities![
    plan_mode,
    permissions,
    questions,
    tool_calls,
    tool_results,
    text_messages,
    images,
    file_attachments,
    session_lifecycle,
    error_events,
    reasoning,
    status,
    command_execution,
    file_changes,
    streaming_deltas,
    item_started,
    resume,
    cancel,
    usage,
    variants
];

sandbox_agent_adapter_kit::export!(Mock);
