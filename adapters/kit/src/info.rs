//! Shorthands for [`AdapterInfo`], and [`Capabilities`] as a struct of booleans.

use crate::types::{AdapterInfo, AgentMode, CredentialKind, CredentialVariable, Model};

/// What the agent can do through the universal API. The contract carries
/// capabilities as a list of names (`AdapterInfo::capabilities`);
/// [`Capabilities::names`] makes that list, so a typo is a compile error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capabilities {
    /// The 0.1.x API capability `plan_mode`.
    pub plan_mode: bool,
    /// The 0.1.x API capability `permissions`.
    pub permissions: bool,
    /// The 0.1.x API capability `questions`.
    pub questions: bool,
    /// The 0.1.x API capability `tool_calls`.
    pub tool_calls: bool,
    /// The 0.1.x API capability `tool_results`.
    pub tool_results: bool,
    /// The 0.1.x API capability `text_messages`.
    pub text_messages: bool,
    /// The 0.1.x API capability `images`.
    pub images: bool,
    /// The 0.1.x API capability `file_attachments`.
    pub file_attachments: bool,
    /// The 0.1.x API capability `session_lifecycle`.
    pub session_lifecycle: bool,
    /// The 0.1.x API capability `error_events`.
    pub error_events: bool,
    /// The 0.1.x API capability `reasoning`.
    pub reasoning: bool,
    /// The 0.1.x API capability `status`.
    pub status: bool,
    /// The 0.1.x API capability `command_execution`.
    pub command_execution: bool,
    /// The 0.1.x API capability `file_changes`.
    pub file_changes: bool,
    /// The 0.1.x API capability `mcp_tools`.
    pub mcp_tools: bool,
    /// The 0.1.x API capability `streaming_deltas`.
    pub streaming_deltas: bool,
    /// The 0.1.x API capability `item_started`.
    pub item_started: bool,
    /// One long-lived process or server serves every session.
    pub shared_process: bool,
    /// A session can continue after its agent process exits (native resume).
    pub resume: bool,
    /// A running turn can be interrupted and the session kept.
    pub cancel: bool,
    /// Turns report token usage.
    pub usage: bool,
    /// Models have variants (reasoning effort...).
    pub variants: bool,
    /// The session's MCP servers reach the agent.
    pub mcp_servers: bool,
    /// The session's skills reach the agent.
    pub skills: bool,
    /// A session's agent mode and permission mode can change while it runs:
    /// the host rebuilds the session from its snapshot with the new modes in
    /// its configuration, and the adapter applies them from the next message
    /// on (telling a running agent, or starting it again with them).
    pub mode_change: bool,
    /// A session's model can change while it runs, the same way: the adapter
    /// applies the configuration's changed `model` from the next message on.
    pub model_change: bool,
    /// A session's model variant (reasoning effort...) can change while it
    /// runs, the same way: the adapter applies the configuration's changed
    /// `variant` from the next message on.
    pub variant_change: bool,
    /// The session reports the modes and models its agent offers once it runs
    /// ([`crate::SessionMachine::agent_offer`]; WIT `agent-offer`).
    pub agent_offer: bool,
}

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
        mcp_servers: false,
        skills: false,
        mode_change: false,
        model_change: false,
        variant_change: false,
        agent_offer: false,
    };

    /// An agent that exchanges text messages and reports its session and item lifecycle.
    pub const TEXT: Capabilities = Capabilities {
        text_messages: true,
        session_lifecycle: true,
        item_started: true,
        ..Capabilities::NONE
    };

    /// What a coding agent's adapter maps at the least: assistant messages announced
    /// by `item.started`, reasoning, tool calls with their results and shell commands,
    /// `error` events, resuming the native session, cancelling a turn and the turn's
    /// token usage. The starting point for
    /// `capabilities![plan_mode, permissions, ..Capabilities::CODING_AGENT]`.
    pub const CODING_AGENT: Capabilities = Capabilities {
        text_messages: true,
        item_started: true,
        reasoning: true,
        tool_calls: true,
        tool_results: true,
        command_execution: true,
        error_events: true,
        resume: true,
        cancel: true,
        usage: true,
        ..Capabilities::NONE
    };

    /// [`Capabilities::CODING_AGENT`] plus what an agent that works under the client's
    /// supervision maps: a plan mode, permission prompts, file changes with their
    /// diffs, streamed deltas, and the session's MCP servers with their tools.
    pub const SUPERVISED_AGENT: Capabilities = Capabilities {
        plan_mode: true,
        permissions: true,
        file_changes: true,
        streaming_deltas: true,
        mcp_servers: true,
        mcp_tools: true,
        ..Capabilities::CODING_AGENT
    };

    /// Everything supported: the starting point for an adapter that lacks only a few,
    /// `Capabilities { skills: false, ..Capabilities::ALL }`.
    pub const ALL: Capabilities = Capabilities {
        plan_mode: true,
        permissions: true,
        questions: true,
        tool_calls: true,
        tool_results: true,
        text_messages: true,
        images: true,
        file_attachments: true,
        session_lifecycle: true,
        error_events: true,
        reasoning: true,
        status: true,
        command_execution: true,
        file_changes: true,
        mcp_tools: true,
        streaming_deltas: true,
        item_started: true,
        shared_process: true,
        resume: true,
        cancel: true,
        usage: true,
        variants: true,
        mcp_servers: true,
        skills: true,
        mode_change: true,
        model_change: true,
        variant_change: true,
        agent_offer: true,
    };

    /// The contract's names of the capabilities that are set (`plan-mode`...).
    pub fn names(&self) -> Vec<String> {
        [
            ("plan-mode", self.plan_mode),
            ("permissions", self.permissions),
            ("questions", self.questions),
            ("tool-calls", self.tool_calls),
            ("tool-results", self.tool_results),
            ("text-messages", self.text_messages),
            ("images", self.images),
            ("file-attachments", self.file_attachments),
            ("session-lifecycle", self.session_lifecycle),
            ("error-events", self.error_events),
            ("reasoning", self.reasoning),
            ("status", self.status),
            ("command-execution", self.command_execution),
            ("file-changes", self.file_changes),
            ("mcp-tools", self.mcp_tools),
            ("streaming-deltas", self.streaming_deltas),
            ("item-started", self.item_started),
            ("shared-process", self.shared_process),
            ("resume", self.resume),
            ("cancel", self.cancel),
            ("usage", self.usage),
            ("variants", self.variants),
            ("mcp-servers", self.mcp_servers),
            ("skills", self.skills),
            ("mode-change", self.mode_change),
            ("model-change", self.model_change),
            ("variant-change", self.variant_change),
            ("agent-offer", self.agent_offer),
        ]
        .into_iter()
        .filter(|(_, set)| *set)
        .map(|(name, _)| name.to_owned())
        .collect()
    }

    /// The capabilities named in `names` (unknown names are ignored).
    pub fn from_names(names: &[String]) -> Self {
        let mut all = Self::NONE;
        for (name, flag) in all.flags_mut() {
            *flag = names.iter().any(|n| n == name);
        }
        all
    }

    fn flags_mut(&mut self) -> [(&'static str, &mut bool); 28] {
        [
            ("plan-mode", &mut self.plan_mode),
            ("permissions", &mut self.permissions),
            ("questions", &mut self.questions),
            ("tool-calls", &mut self.tool_calls),
            ("tool-results", &mut self.tool_results),
            ("text-messages", &mut self.text_messages),
            ("images", &mut self.images),
            ("file-attachments", &mut self.file_attachments),
            ("session-lifecycle", &mut self.session_lifecycle),
            ("error-events", &mut self.error_events),
            ("reasoning", &mut self.reasoning),
            ("status", &mut self.status),
            ("command-execution", &mut self.command_execution),
            ("file-changes", &mut self.file_changes),
            ("mcp-tools", &mut self.mcp_tools),
            ("streaming-deltas", &mut self.streaming_deltas),
            ("item-started", &mut self.item_started),
            ("shared-process", &mut self.shared_process),
            ("resume", &mut self.resume),
            ("cancel", &mut self.cancel),
            ("usage", &mut self.usage),
            ("variants", &mut self.variants),
            ("mcp-servers", &mut self.mcp_servers),
            ("skills", &mut self.skills),
            ("mode-change", &mut self.mode_change),
            ("model-change", &mut self.model_change),
            ("variant-change", &mut self.variant_change),
            ("agent-offer", &mut self.agent_offer),
        ]
    }
}

impl CredentialVariable {
    /// An environment variable carrying `provider`'s credential of `kind`.
    pub fn new(name: &str, provider: &str, kind: CredentialKind) -> Self {
        Self {
            name: name.to_owned(),
            provider: provider.to_owned(),
            kind,
        }
    }
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

    /// The usual default mode, `build` ("Build"): the agent with its tools.
    pub fn build(description: &str) -> Self {
        Self::new("build", "Build", description)
    }

    /// The usual read-only mode, `plan` ("Plan").
    pub fn plan(description: &str) -> Self {
        Self::new("plan", "Plan", description)
    }
}

impl Model {
    /// A model by its id, with the name clients show (none: the id) and its variants
    /// (none is the default; see [`Model::with_default_variant`]).
    pub fn new(id: &str, name: Option<&str>, variants: &[&str]) -> Self {
        Self {
            id: id.to_owned(),
            name: name.map(str::to_owned),
            variants: variants.iter().map(|v| (*v).to_owned()).collect(),
            default_variant: None,
        }
    }

    /// The same model with `variant` as its default variant.
    pub fn with_default_variant(self, variant: &str) -> Self {
        Self {
            default_variant: Some(variant.to_owned()),
            ..self
        }
    }
}

impl AdapterInfo {
    /// The same facts for agent versions in `range` (semver, `">=2.1, <3"`).
    pub fn for_versions(self, range: &str) -> Self {
        Self {
            agent_versions: range.to_owned(),
            ..self
        }
    }

    /// The same facts with the two usual modes: `build` (the default) and `plan`,
    /// with their descriptions.
    pub fn with_build_and_plan(self, build: &str, plan: &str) -> Self {
        self.with_modes([AgentMode::build(build), AgentMode::plan(plan)])
    }

    /// The same facts with these modes (the first one stays `build`, the default).
    pub fn with_modes(self, modes: impl IntoIterator<Item = AgentMode>) -> Self {
        Self {
            modes: modes.into_iter().collect(),
            ..self
        }
    }

    /// The same facts with these models, and the one a session gets when it names
    /// none (`None`: the agent's own default).
    pub fn with_models(self, models: Vec<Model>, default: Option<&str>) -> Self {
        Self {
            models,
            default_model: default.map(str::to_owned),
            ..self
        }
    }

    /// The same facts with the variables the agent reads credentials from, and the
    /// variable that moves its credential files (see [`crate::credentials`]).
    pub fn with_credentials(self, variables: Vec<CredentialVariable>, location_env: &str) -> Self {
        self.with_credential_env(variables)
            .with_location_env(&[location_env])
    }

    /// The same facts with the variables the agent reads credentials from.
    pub fn with_credential_env(self, variables: Vec<CredentialVariable>) -> Self {
        Self {
            credential_env: variables,
            ..self
        }
    }

    /// The same facts with these variables as the ones that move the agent's files.
    pub fn with_location_env(self, names: &[&str]) -> Self {
        Self {
            location_env: names.iter().map(|name| (*name).to_owned()).collect(),
            ..self
        }
    }

    /// Facts for an agent the daemon runs as a program it must find or install:
    /// [`AdapterInfo::builtin`] with `builtin: false`. Set its modes, models,
    /// credentials and agent versions with struct update syntax.
    pub fn agent(id: &str, name: &str, version: &str, capabilities: Capabilities) -> Self {
        Self {
            builtin: false,
            ..Self::builtin(id, name, version, capabilities)
        }
    }

    /// Facts for a built-in agent (one that needs no binary): one `build` mode, no
    /// models, no credentials, any agent version. Adjust the fields for more.
    pub fn builtin(id: &str, name: &str, version: &str, capabilities: Capabilities) -> Self {
        Self {
            id: id.to_owned(),
            name: name.to_owned(),
            version: version.to_owned(),
            agent_versions: "*".to_owned(),
            capabilities: capabilities.names(),
            modes: vec![AgentMode::new("build", "Build", "Default mode")],
            default_mode: "build".to_owned(),
            models: Vec::new(),
            default_model: None,
            credential_env: Vec::new(),
            location_env: Vec::new(),
            builtin: true,
        }
    }
}
