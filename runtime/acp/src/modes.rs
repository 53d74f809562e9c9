//! A session's modes as ACP shows them: the session mode state (`modes`) and
//! the config options (`configOptions`: the agent mode, and the permission
//! mode) that the answers to `session/new`, `session/load` and
//! `session/resume` carry, and that `session/set_mode` and
//! `session/set_config_option` change.

use serde_json::{json, Value};

/// The config option holding the agent mode (category `mode`).
pub const MODE_OPTION: &str = "mode";
/// The config option holding the permission mode.
pub const PERMISSION_OPTION: &str = "permission_mode";

/// The permission modes, with their names and descriptions.
const PERMISSION_MODES: &[(&str, &str, &str)] = &[
    (
        "default",
        "Ask",
        "Asks before running tools the agent asks about",
    ),
    ("acceptEdits", "Accept edits", "Edits files without asking"),
    ("plan", "Plan", "Reads and plans; changes nothing"),
    ("bypass", "Bypass", "Runs every tool without asking"),
];

/// A mode the agent can run in.
#[derive(Debug, Clone)]
pub struct Mode {
    /// Its id (`build`, `plan`...).
    pub id: String,
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: String,
}

/// The modes a session runs with, and the agent modes it may take.
#[derive(Debug, Clone)]
pub struct SessionModes {
    /// The agent's modes.
    pub available: Vec<Mode>,
    /// The agent mode the session runs with.
    pub agent_mode: String,
    /// The permission mode the session runs with.
    pub permission_mode: String,
}

impl SessionModes {
    /// The session mode state (`modes` in a session's answers).
    pub fn mode_state(&self) -> Value {
        let available: Vec<Value> = self
            .available
            .iter()
            .map(|mode| json!({"id": mode.id, "name": mode.name, "description": mode.description}))
            .collect();
        json!({"currentModeId": self.agent_mode, "availableModes": available})
    }

    /// The session's config options (`configOptions`): its agent mode and its
    /// permission mode.
    pub fn config_options(&self) -> Value {
        let modes: Vec<Value> = self
            .available
            .iter()
            .map(|mode| json!({"value": mode.id, "name": mode.name, "description": mode.description}))
            .collect();
        let permissions: Vec<Value> = PERMISSION_MODES
            .iter()
            .map(|(value, name, description)| {
                json!({"value": value, "name": name, "description": description})
            })
            .collect();
        json!([
            {
                "id": MODE_OPTION,
                "name": "Mode",
                "category": "mode",
                "type": "select",
                "currentValue": self.agent_mode,
                "options": modes,
            },
            {
                "id": PERMISSION_OPTION,
                "name": "Permissions",
                "description": "When the agent asks before it runs a tool",
                "category": "_permissions",
                "type": "select",
                "currentValue": self.permission_mode,
                "options": permissions,
            },
        ])
    }

    /// The answers' fields about modes: `modes` and `configOptions`.
    pub fn answer_fields(&self) -> Value {
        json!({"modes": self.mode_state(), "configOptions": self.config_options()})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_and_the_options_name_the_current_modes() {
        let modes = SessionModes {
            available: vec![
                Mode {
                    id: "build".into(),
                    name: "Build".into(),
                    description: "Default mode".into(),
                },
                Mode {
                    id: "plan".into(),
                    name: "Plan".into(),
                    description: "Plans".into(),
                },
            ],
            agent_mode: "plan".into(),
            permission_mode: "bypass".into(),
        };
        let fields = modes.answer_fields();
        assert_eq!(fields["modes"]["currentModeId"], "plan");
        assert_eq!(fields["modes"]["availableModes"][0]["id"], "build");
        let options = fields["configOptions"].as_array().unwrap();
        assert_eq!(options[0]["id"], MODE_OPTION);
        assert_eq!(options[0]["currentValue"], "plan");
        assert_eq!(options[0]["options"][1]["value"], "plan");
        assert_eq!(options[1]["id"], PERMISSION_OPTION);
        assert_eq!(options[1]["currentValue"], "bypass");
        let values: Vec<&str> = options[1]["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|option| option["value"].as_str().unwrap())
            .collect();
        assert_eq!(values, ["default", "acceptEdits", "plan", "bypass"]);
    }
}
