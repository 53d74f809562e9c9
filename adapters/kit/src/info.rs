//! Shorthands for [`AdapterInfo`] and [`Capabilities`].

use crate::types::{AdapterInfo, AgentMode, Capabilities};

impl Capabilities {
    /// Nothing supported: the starting point for `Capabilities { tool_calls: true, ..Capabilities::NONE }`.
    pub const NONE: Capabilities = Capabilities {
        plan_mode: false,
        permissions: false,
        questions: false,
        tool_calls: false,
        tool_results: false,
        text_messages: false,
        images: false,
        file_attachments: false,
        session_lifecycle: false,
        error_events: false,
        reasoning: false,
        status: false,
        command_execution: false,
        file_changes: false,
        mcp_tools: false,
        streaming_deltas: false,
        item_started: false,
        shared_process: false,
        resume: false,
        cancel: false,
        usage: false,
        variants: false,
    };

    /// An agent that exchanges text messages and reports its session and item lifecycle.
    pub const TEXT: Capabilities = Capabilities {
        text_messages: true,
        session_lifecycle: true,
        item_started: true,
        ..Capabilities::NONE
    };
}

impl AgentMode {
    /// A mode from its id, display name and description.
    pub fn new(id: &str, name: &str, description: &str) -> Self {
        Self {
            id: id.to_owned(),
            name: name.to_owned(),
            description: description.to_owned(),
        }
    }
}

impl AdapterInfo {
    /// Facts for a built-in agent (one that needs no binary): one `build` mode, no
    /// models, no credentials, any agent version. Adjust the fields for more.
    pub fn builtin(id: &str, name: &str, version: &str, capabilities: Capabilities) -> Self {
        Self {
            id: id.to_owned(),
            name: name.to_owned(),
            version: version.to_owned(),
            agent_versions: "*".to_owned(),
            capabilities,
            modes: vec![AgentMode::new("build", "Build", "Default mode")],
            default_mode: "build".to_owned(),
            models: Vec::new(),
            default_model: None,
            credential_env: Vec::new(),
            builtin: true,
        }
    }
}
