//! Shorthands for reading a [`SessionConfig`]: the program to run, the model and
//! variant the session chose, the agent's own name for its permission mode, the
//! launch settings `session.started` reports, and paths in the scratch folder.

use serde_json::{json, Value};

use crate::types::SessionConfig;

impl SessionConfig {
    /// The program to run: the installed binary's path, else `default` (looked up by
    /// the host on its `PATH`).
    pub fn program<'a>(&'a self, default: &'a str) -> &'a str {
        self.agent_binary.as_deref().unwrap_or(default)
    }

    /// The absolute path of `file` (relative) in the session's scratch folder, where
    /// [`crate::Actions::write_file`] writes it.
    pub fn scratch_path(&self, file: &str) -> String {
        format!("{}/{file}", self.scratch_dir.trim_end_matches('/'))
    }

    /// The value of the session's variable `name` (the last one set, when set and
    /// not empty).
    pub fn variable(&self, name: &str) -> Option<&str> {
        self.env
            .iter()
            .rev()
            .find(|(set, value)| set == name && !value.is_empty())
            .map(|(_, value)| value.as_str())
    }

    /// The model the session chose, when it named one.
    pub fn chosen_model(&self) -> Option<&str> {
        self.model.as_deref().filter(|model| !model.is_empty())
    }

    /// The session's model when an agent that runs `running` is to be told it
    /// (the session names another); `running` is then it. For adapters that
    /// declare `model_change`: they keep what their agent runs in their state.
    pub fn model_to_tell(&self, running: &mut Option<String>) -> Option<&str> {
        to_tell(self.chosen_model(), running)
    }

    /// The session's model variant when an agent that runs `running` is to be
    /// told it, as [`Self::model_to_tell`] the model. For adapters that declare
    /// `variant_change`.
    pub fn variant_to_tell(&self, running: &mut Option<String>) -> Option<&str> {
        to_tell(self.chosen_variant(), running)
    }

    /// The model variant (reasoning effort...) the session chose, when it named one.
    pub fn chosen_variant(&self) -> Option<&str> {
        self.variant
            .as_deref()
            .filter(|variant| !variant.is_empty())
    }

    /// The session's agent mode and permission mode, to tell whether they changed
    /// since an agent was given them (a `mode-change` adapter keeps the pair).
    pub fn modes(&self) -> (String, String) {
        (self.agent_mode.clone(), self.permission_mode.clone())
    }

    /// How the agent asks before it runs tools, in the words most CLIs use: `plan` when
    /// the agent mode or the permission mode is `plan`; for permission modes `bypass`
    /// and `acceptEdits`, the agent's own names for them; else `default`.
    pub fn cli_permission_mode(
        &self,
        bypass: &'static str,
        accept_edits: &'static str,
    ) -> &'static str {
        if self.agent_mode == "plan" {
            return "plan";
        }
        match self.permission_mode.as_str() {
            "plan" => "plan",
            "bypass" => bypass,
            "acceptEdits" => accept_edits,
            _ => "default",
        }
    }

    /// The launch settings `session.started` reports for `agent`: its id, the agent
    /// and permission modes, the model and the variant. Adapters add or replace
    /// fields with what they launch with.
    pub fn launch_metadata(&self, agent: &str) -> Value {
        json!({
            "agent": agent,
            "agentMode": self.agent_mode,
            "permissionMode": self.permission_mode,
            "model": self.model,
            "variant": self.variant,
        })
    }
}

/// `wanted` when an agent that runs `running` is to be told it (it runs
/// another, or its own); `running` is then it.
fn to_tell<'a>(wanted: Option<&'a str>, running: &mut Option<String>) -> Option<&'a str> {
    let wanted = wanted?;
    if running.as_deref() == Some(wanted) {
        return None;
    }
    *running = Some(wanted.to_owned());
    Some(wanted)
}
