//! A session's modes, model and variant as ACP shows them: the session mode
//! state (`modes`), the session model state (`models`) and the config options
//! (`configOptions`: the agent mode, the permission mode, the model and its
//! thought level) that the answers to `session/new`, `session/load` and
//! `session/resume` carry, and that `session/set_mode`, `session/set_model` and
//! `session/set_config_option` change.

use serde_json::{json, Value};

/// The config option holding the agent mode (category `mode`).
pub const MODE_OPTION: &str = "mode";
/// The config option holding the permission mode.
pub const PERMISSION_OPTION: &str = "permission_mode";
/// The config option holding the model (category `model`).
pub const MODEL_OPTION: &str = "model";
/// The config option holding the model's variant (category `thought_level`).
pub const THOUGHT_LEVEL_OPTION: &str = "thought_level";
/// The value of the model or its variant while the session names none: the
/// agent's own choice, which a session cannot go back to once it named one.
pub const DEFAULT: &str = "default";

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

/// A value a client may pick: a model, or a model's variant.
#[derive(Debug, Clone)]
pub struct Choice {
    /// Its id, as sessions name it.
    pub id: String,
    /// Its name.
    pub name: String,
}

/// What a session runs of something a client picks (its model, or the
/// model's variant), and what the agent is known to take.
#[derive(Debug, Clone)]
pub struct Choices {
    /// What the agent lists.
    pub available: Vec<Choice>,
    /// What the session names (`None`: the agent's own choice).
    pub current: Option<String>,
    /// The name of the agent's own choice, when it said which it runs
    /// (shown as [`DEFAULT`]'s name while the session names none).
    pub agents_choice: Option<String>,
}

impl Choices {
    /// The id of the current choice ([`DEFAULT`] while the session names
    /// none).
    pub fn current_id(&self) -> &str {
        self.current.as_deref().unwrap_or(DEFAULT)
    }

    /// Whether the agent lists a choice named [`DEFAULT`] itself (a thought
    /// level may be): it is then that one, not the agent's own choice.
    fn lists_default(&self) -> bool {
        self.available.iter().any(|choice| choice.id == DEFAULT)
    }

    /// What a client may pick, the current one among them: the agent's
    /// choices, after [`DEFAULT`] while the session names none, and after
    /// them the session's when the agent does not list it.
    fn choices(&self) -> Vec<Choice> {
        let mut choices = Vec::new();
        let current = self.current_id();
        if self.current.is_none() && !self.lists_default() {
            let name = match &self.agents_choice {
                Some(choice) => format!("Default ({choice})"),
                None => "Default".into(),
            };
            choices.push(Choice {
                id: DEFAULT.into(),
                name,
            });
        }
        choices.extend(self.available.iter().cloned());
        if !choices.iter().any(|choice| choice.id == current) {
            choices.push(Choice {
                id: current.into(),
                name: current.into(),
            });
        }
        choices
    }

    /// What choosing `value` changes: what to run (`None`: nothing, for
    /// [`DEFAULT`] while the session names none). Going back to [`DEFAULT`]
    /// once a `what` (`model`...) is named is refused (the message says why),
    /// unless the agent lists a choice of that name.
    pub fn change_to(&self, value: String, what: &str) -> Result<Option<String>, String> {
        if value != DEFAULT || self.lists_default() {
            return Ok(Some(value));
        }
        match &self.current {
            None => Ok(None),
            Some(current) => Err(format!(
                "the session runs {what} {current:?}: once a {what} is named, name another \
                 instead of {DEFAULT:?}"
            )),
        }
    }

    /// The session model state (`models` in a session's answers), of the
    /// models.
    pub fn model_state(&self) -> Value {
        let available: Vec<Value> = self
            .choices()
            .iter()
            .map(|model| json!({"modelId": model.id, "name": model.name}))
            .collect();
        json!({"currentModelId": self.current_id(), "availableModels": available})
    }

    /// The config option `id` of category `category`, named `name`, holding
    /// these choices.
    fn config_option(&self, id: &str, name: &str, category: &str) -> Value {
        let options: Vec<Value> = self
            .choices()
            .iter()
            .map(|choice| json!({"value": choice.id, "name": choice.name}))
            .collect();
        json!({
            "id": id,
            "name": name,
            "category": category,
            "type": "select",
            "currentValue": self.current_id(),
            "options": options,
        })
    }
}

/// The agent mode and permission mode a session runs with, and the agent
/// modes it may take.
#[derive(Debug, Clone)]
pub struct Modes {
    /// The agent's modes.
    pub available: Vec<Mode>,
    /// The agent mode the session runs with.
    pub agent_mode: String,
    /// The permission mode the session runs with.
    pub permission_mode: String,
}

impl Modes {
    /// The session mode state (`modes` in a session's answers).
    pub fn mode_state(&self) -> Value {
        let available: Vec<Value> = self
            .available
            .iter()
            .map(|mode| json!({"id": mode.id, "name": mode.name, "description": mode.description}))
            .collect();
        json!({"currentModeId": self.agent_mode, "availableModes": available})
    }

    /// The config options of the agent mode and the permission mode.
    fn config_options(&self) -> [Value; 2] {
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
        [
            json!({
                "id": MODE_OPTION,
                "name": "Mode",
                "category": "mode",
                "type": "select",
                "currentValue": self.agent_mode,
                "options": modes,
            }),
            json!({
                "id": PERMISSION_OPTION,
                "name": "Permissions",
                "description": "When the agent asks before it runs a tool",
                "category": "_permissions",
                "type": "select",
                "currentValue": self.permission_mode,
                "options": permissions,
            }),
        ]
    }
}

/// What of a session a client may change: its modes, its model, its
/// model's variant, or some of them.
#[derive(Debug, Clone)]
pub struct SessionModes {
    /// The session's modes, for an agent whose running sessions take others.
    pub modes: Option<Modes>,
    /// The session's model, for an agent whose running sessions take another.
    pub models: Option<Choices>,
    /// The variants (thought levels) of the session's model, for an agent
    /// whose running sessions take another and a model that has some.
    pub variants: Option<Choices>,
}

impl SessionModes {
    /// The session's config options (`configOptions`): its agent mode and
    /// permission mode, its model and the model's thought level, as far as
    /// they can change.
    pub fn config_options(&self) -> Value {
        let modes = self.modes.iter().flat_map(Modes::config_options);
        let models = self
            .models
            .iter()
            .map(|models| models.config_option(MODEL_OPTION, "Model", "model"));
        let variants = self.variants.iter().map(|variants| {
            variants.config_option(THOUGHT_LEVEL_OPTION, "Thinking", "thought_level")
        });
        Value::Array(modes.chain(models).chain(variants).collect())
    }

    /// The answers' fields about modes and model: `configOptions`, and
    /// `modes` and `models` as far as they can change.
    pub fn answer_fields(&self) -> Value {
        let mut fields = json!({"configOptions": self.config_options()});
        if let Some(modes) = &self.modes {
            fields["modes"] = modes.mode_state();
        }
        if let Some(models) = &self.models {
            fields["models"] = models.model_state();
        }
        fields
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_and_the_options_name_the_current_modes() {
        let modes = SessionModes {
            modes: Some(Modes {
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
            }),
            models: None,
            variants: None,
        };
        let fields = modes.answer_fields();
        assert!(fields.get("models").is_none(), "{fields}");
        assert_eq!(fields["configOptions"].as_array().unwrap().len(), 2);
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

    fn choices(ids: &[&str], current: Option<&str>) -> Choices {
        let choice = |id: &&str| Choice {
            id: (*id).into(),
            name: id.to_uppercase(),
        };
        Choices {
            available: ids.iter().map(choice).collect(),
            current: current.map(str::to_owned),
            agents_choice: None,
        }
    }

    fn models(current: Option<&str>) -> Choices {
        choices(&["sonnet", "opus"], current)
    }

    #[test]
    fn the_default_is_named_after_the_agents_choice_when_it_said() {
        let said = Choices {
            agents_choice: Some("Sonnet".into()),
            ..models(None)
        };
        let state = said.model_state();
        assert_eq!(state["availableModels"][0]["modelId"], DEFAULT);
        assert_eq!(state["availableModels"][0]["name"], "Default (Sonnet)");
        assert_eq!(
            models(None).model_state()["availableModels"][0]["name"],
            "Default"
        );
    }

    #[test]
    fn the_model_is_the_default_until_the_session_names_one() {
        let ids = |state: &Value| -> Vec<String> {
            let models = state["availableModels"].as_array().unwrap();
            let id = |model: &Value| model["modelId"].as_str().unwrap().to_owned();
            models.iter().map(id).collect()
        };
        let state = models(None).model_state();
        assert_eq!(state["currentModelId"], DEFAULT);
        assert_eq!(ids(&state), [DEFAULT, "sonnet", "opus"]);
        let state = models(Some("opus")).model_state();
        assert_eq!(state["currentModelId"], "opus");
        assert_eq!(ids(&state), ["sonnet", "opus"]);
        // A model the agent does not list is still the current one's choice.
        let state = models(Some("scripted")).model_state();
        assert_eq!(ids(&state), ["sonnet", "opus", "scripted"]);
    }

    #[test]
    fn the_default_is_no_change_until_a_model_is_named() {
        assert_eq!(models(None).change_to(DEFAULT.into(), "model"), Ok(None));
        assert_eq!(
            models(None).change_to("opus".into(), "model"),
            Ok(Some("opus".to_owned()))
        );
        let named = models(Some("opus"));
        assert_eq!(
            named.change_to("sonnet".into(), "model"),
            Ok(Some("sonnet".to_owned()))
        );
        let refused = named.change_to(DEFAULT.into(), "model").unwrap_err();
        assert!(refused.contains(r#"runs model "opus""#), "{refused}");
    }

    #[test]
    fn the_model_is_a_config_option_when_it_can_change() {
        let modes = SessionModes {
            modes: Some(Modes {
                available: Vec::new(),
                agent_mode: "build".into(),
                permission_mode: "default".into(),
            }),
            models: Some(models(Some("sonnet"))),
            variants: None,
        };
        let fields = modes.answer_fields();
        assert_eq!(fields["models"]["currentModelId"], "sonnet");
        let option = &fields["configOptions"][2];
        assert_eq!(option["id"], MODEL_OPTION);
        assert_eq!(option["category"], "model");
        assert_eq!(option["currentValue"], "sonnet");
        assert_eq!(option["options"][1]["value"], "opus");
        // An agent that takes another model but not other modes: the model alone.
        let model_only = SessionModes {
            modes: None,
            models: Some(models(None)),
            variants: None,
        };
        let fields = model_only.answer_fields();
        assert!(fields.get("modes").is_none(), "{fields}");
        let options = fields["configOptions"].as_array().unwrap();
        assert_eq!(options.len(), 1);
        assert_eq!(options[0]["id"], MODEL_OPTION);
    }

    #[test]
    fn the_variant_is_a_thought_level_option_after_the_model() {
        let modes = SessionModes {
            modes: None,
            models: Some(models(Some("opus"))),
            variants: Some(choices(&["low", "high"], None)),
        };
        let options = modes.config_options();
        let option = &options[1];
        assert_eq!(option["id"], THOUGHT_LEVEL_OPTION);
        assert_eq!(option["category"], "thought_level");
        assert_eq!(option["currentValue"], DEFAULT);
        let values: Vec<&str> = option["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|option| option["value"].as_str().unwrap())
            .collect();
        assert_eq!(values, [DEFAULT, "low", "high"]);
    }

    #[test]
    fn a_level_the_agent_calls_default_is_its_own() {
        // Qwen Code lists a level named `default` beside its tiers.
        let levels = choices(&["none", DEFAULT, "high"], None);
        let option = levels.config_option(THOUGHT_LEVEL_OPTION, "Thinking", "thought_level");
        assert_eq!(option["options"].as_array().unwrap().len(), 3, "{option}");
        let named = choices(&["none", DEFAULT, "high"], Some("high"));
        assert_eq!(
            named.change_to(DEFAULT.into(), "variant"),
            Ok(Some(DEFAULT.to_owned()))
        );
        let refused = choices(&["low"], Some("low")).change_to(DEFAULT.into(), "variant");
        assert!(refused.unwrap_err().contains(r#"runs variant "low""#));
    }
}
