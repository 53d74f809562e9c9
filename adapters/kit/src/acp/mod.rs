//! A complete session for any agent that speaks the Agent Client Protocol (ACP:
//! JSON-RPC 2.0 over the agent's stdin and stdout, one message per line).
//!
//! The adapter describes its agent with [`AcpAgent`] (how to start it, what to call
//! it) and uses [`AcpSession`] as its session: one agent process per session, opened
//! with `initialize` and `session/new` (or `session/load` to resume), each message
//! sent as `session/prompt`, the agent's `session/update` notifications turned into
//! universal events (text and thought chunks stream into assistant messages and
//! reasoning; tool calls and their results, with diffs; plans as status items), its
//! `session/request_permission` requests answered with the client's replies, and
//! `session/cancel` for a cancelled turn.
//!
//! ```
//! use sandbox_agent_adapter_kit::acp::{AcpAgent, AcpSession};
//! use sandbox_agent_adapter_kit::prelude::*;
//!
//! /// An ACP agent started as `my-agent --acp`.
//! pub struct MyAgent;
//!
//! impl AcpAgent for MyAgent {
//!     const NAME: &'static str = "My Agent";
//!     const PROCESS: &'static str = "my_agent";
//!     fn spawn(config: &SessionConfig, process_id: &str) -> SpawnRequest {
//!         let program = config.agent_binary.as_deref().unwrap_or("my-agent");
//!         SpawnRequest::command(process_id, [program, "--acp"])
//!     }
//! }
//!
//! impl Adapter for MyAgent {
//!     type Session = AcpSession<MyAgent>;
//!     fn info() -> AdapterInfo {
//!         AdapterInfo::builtin("my-agent", "My Agent", "0.1.0", Capabilities::TEXT)
//!     }
//! }
//! ```

mod choices;
mod diff;
mod native;
mod options;
mod policy;
mod session;
mod state;
mod updates;

use serde_json::{json, Value};

use crate::types::{
    McpRemoteTransport, McpServer, McpTransport, SessionConfig, SpawnRequest, Usage,
};
use crate::Capabilities;

pub use session::AcpSession;

/// What [`AcpSession`] maps, for an agent with a plan mode that reports its token
/// usage ([`AcpAgent::usage`]): streamed text and reasoning, tool calls and their
/// results with file changes and commands, permission prompts, the session's MCP
/// servers in `session/new`, `error` events, cancel (`session/cancel`) and resume
/// (`session/load`), and what the agent offers for its session (its modes and
/// models, [`crate::Capabilities::agent_offer`]).
pub const CAPABILITIES: Capabilities = Capabilities {
    agent_offer: true,
    ..Capabilities::SUPERVISED_AGENT
};

/// What an ACP agent may ask permission for (`session/request_permission`, for
/// a tool call of any kind): commands, edits, fetches, MCP tools and the rest.
/// Gemini CLI and Qwen Code read and search unasked.
pub fn asks_for() -> Vec<crate::types::ToolKind> {
    use crate::types::ToolKind;
    vec![
        ToolKind::Shell,
        ToolKind::Write,
        ToolKind::Fetch,
        ToolKind::Mcp,
        ToolKind::Other,
    ]
}

/// The ACP version the session speaks.
const PROTOCOL_VERSION: u64 = 1;

/// What [`AcpSession`] needs to know of one ACP agent.
pub trait AcpAgent: 'static {
    /// The agent's name in messages (`Gemini CLI could not open a session`).
    const NAME: &'static str;
    /// The prefix of its process ids (`gemini` makes `gemini_1`, `gemini_2`...: a
    /// fresh id per launch, so output of a killed predecessor is never mistaken for
    /// the live one's). Part of the session snapshot: keep it stable.
    const PROCESS: &'static str;
    /// Requests of the agent's own (outside ACP) that the session answers with
    /// "method not found" without showing them: housekeeping the agent sends every
    /// turn and does without. Any other unknown request gets the same answer and
    /// is shown as `agent.unparsed`.
    const QUIET_REQUESTS: &'static [&'static str] = &[];
    /// In the `bypass` permission mode the session allows every permission request
    /// itself (its "always" option, else its "once"), without asking the client:
    /// for agents that have no flag of their own to stop asking. Agents started
    /// with such a flag (`--yolo`) never ask and leave this off.
    const ALLOWS_IN_BYPASS: bool = false;

    /// The spawn of the session's agent process `process_id`: the program (the
    /// installed binary, `config.agent_binary`, when there is one), the flag that
    /// makes it speak ACP on stdio, and what the session's config asks for
    /// (model, approval mode).
    fn spawn(config: &SessionConfig, process_id: &str) -> SpawnRequest;

    /// The ACP session mode (`session/set_mode`'s `modeId`) the session's agent
    /// mode and permission mode ask for, for an agent whose running session takes
    /// changed modes (its adapter declares `mode_change`): sent before the next
    /// prompt when it is not the mode the process runs with. `offered`: the ids
    /// of the modes the agent offered for its session (none before it answered).
    /// `None`: the mode the agent opened its session in (if it said), else the
    /// modes are fixed when the process starts.
    fn mode_id(config: &SessionConfig, offered: &[String]) -> Option<String> {
        let _ = (config, offered);
        None
    }

    /// Whether the process starts with the session's model (a flag of
    /// [`Self::spawn`]), and a changed model reaches the running agent as
    /// `session/set_model` before the next prompt (its adapter declares
    /// `model_change`). Otherwise the agent starts with its own model, and the
    /// session's reaches it as `session/set_model` when the agent offered
    /// models for its session (`models` in its answer).
    const MODEL_CHANGE: bool = false;

    /// Metadata of the `session.started` event (the approval mode and model the
    /// agent runs with, as JSON), if any.
    fn session_metadata(config: &SessionConfig) -> Option<Value> {
        let _ = config;
        None
    }

    /// The turn's token usage, from the `session/prompt` answer, for agents that
    /// put it there (in `_meta`). Without it, the usage an update reported in
    /// `_meta.usage` (`inputTokens`, `outputTokens`) counts.
    fn usage(result: &Value) -> Option<Usage> {
        let _ = result;
        None
    }
}

/// `initialize` params: no file system or terminal offered to the agent (it uses its
/// own tools on the sandbox's disk).
fn initialize_params() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
    })
}

/// `session/new` params: the session's folder and MCP servers.
fn new_session_params(config: &SessionConfig) -> Value {
    json!({"cwd": config.directory, "mcpServers": mcp_servers(&config.mcp_servers)})
}

/// `session/load` params.
fn load_session_params(session_id: &str, config: &SessionConfig) -> Value {
    json!({
        "sessionId": session_id,
        "cwd": config.directory,
        "mcpServers": mcp_servers(&config.mcp_servers),
    })
}

/// The session's MCP servers as ACP's `McpServer` list: a local command with its
/// arguments and environment, or a remote URL (`http` or `sse`) with its headers.
fn mcp_servers(servers: &[McpServer]) -> Value {
    let pairs = |pairs: &[(String, String)]| -> Vec<Value> {
        pairs
            .iter()
            .map(|(name, value)| json!({"name": name, "value": value}))
            .collect()
    };
    servers
        .iter()
        .map(|server| match &server.transport {
            McpTransport::Local(local) => json!({
                "name": server.name,
                "command": local.command.first().cloned().unwrap_or_default(),
                "args": local.command.iter().skip(1).collect::<Vec<_>>(),
                "env": pairs(&local.env),
            }),
            McpTransport::Remote(remote) => json!({
                "type": match remote.transport {
                    McpRemoteTransport::Http => "http",
                    McpRemoteTransport::Sse => "sse",
                },
                "name": server.name,
                "url": remote.url,
                "headers": pairs(&remote.headers),
            }),
        })
        .collect()
}

/// `session/prompt` params with one text block.
fn prompt_params(session_id: &str, text: &str) -> Value {
    json!({"sessionId": session_id, "prompt": [{"type": "text", "text": text}]})
}

/// The answer to `session/request_permission`: the chosen option, or `cancelled`.
fn permission_outcome(option_id: Option<&str>) -> Value {
    match option_id {
        Some(option_id) => json!({"outcome": {"outcome": "selected", "optionId": option_id}}),
        None => json!({"outcome": {"outcome": "cancelled"}}),
    }
}
