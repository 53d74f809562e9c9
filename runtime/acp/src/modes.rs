//! A session's modes and model as ACP shows them: the session mode state
//! (`modes`), the session model state (`models`) and the config options
//! (`configOptions`: the agent mode, the permission mode and the model) that
//! the answers to `session/new`, `session/load` and `session/resume` carry,
//! and that `session/set_mode`, `session/set_model` and
//! `session/set_config_option` change.

use serde_json::{json, Value};

/// The config option holding the agent mode (category `mode`).
pub const MODE_OPTION: &str = "mode";
/// The config option holding the permission mode.
pub const PERMISSION_OPTION: &str = "permission_mode";
/// The config option holding the model (category `model`).
pub const MODEL_OPTION: &str = "model";
/// The model's value while the session names none: the agent's own choice,
/// which a session cannot go back to once it named a model.
pub const DEFAULT_MODEL: &str = "default";

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

/// A model the agent is known to run.
#[derive(Debug, Clone)]
pub struct Model {
    /// Its id, as sessions name it.
    pub id: String,
    /// Its name.
    pub name: String,
}

/// The model a session runs with, and the models the agent is known to run.
#[derive(Debug, Clone)]
pub struct Models {
    /// The models the agent lists.
    pub available: Vec<Model>,
    /// The model the session names (`None`: the agent's own choice).
    pub current: Option<String>,
    /// The name of the agent's own choice, when it said which model it runs
    /// (shown as [`DEFAULT_MODEL`]'s name while the session names none).
    pub agents_choice: Option<String>,
}

impl Models {
    /// The id of the current model ([`DEFAULT_MODEL`] while the session names
    /// none).
    pub fn current_id(&self) -> &str {
        self.current.as_deref().unwrap_or(DEFAULT_MODEL)
    }

    /// The models a client may pick, the current one among them: the agent's,
    /// after [`DEFAULT_MODEL`] while the session names no model, and after
    /// them the session's when the agent does not list it.
    fn choices(&self) -> Vec<Model> {
        let mut choices = Vec::new();
        let current = self.current_id();
        if self.current.is_none() {
            let name = match &self.agents_choice {
                Some(model) => format!("Default ({model})"),
                None => "Default".into(),
            };
            choices.push(Model {
                id: DEFAULT_MODEL.into(),
                name,
            });
        }
        choices.extend(self.available.iter().cloned());
        if !choices.iter().any(|model| model.id == current) {
            choices.push(Model {
                id: current.into(),
                name: current.into(),
            });
        }
        choices
    }

    /// What choosing `model` changes: the model to run (`None`: nothing, for
    /// [`DEFAULT_MODEL`] while the session names none). Going back to
    /// [`DEFAULT_MODEL`] once a model is named is refused (the message says why).
    pub fn change_to(&self, model: String) -> Result<Option<String>, String> {
        if model != DEFAULT_MODEL {
            return Ok(Some(model));
        }
        match &self.current {
            None => Ok(None),
            Some(current) => Err(format!(
                "the session runs {current:?}: once a model is named, name another instead of \
                 {DEFAULT_MODEL:?}"
            )),
        }
    }

    /// The session model state (`models` in a session's answers).
    pub fn model_state(&self) -> Value {
        let available: Vec<Value> = self
            .choices()
            .iter()
            .map(|model| json!({"modelId": model.id, "name": model.name}))
            .collect();
        json!({"currentModelId": self.current_id(), "availableModels": available})
    }

    /// The model's config option.
    fn config_option(&self) -> Value {
        let options: Vec<Value> = self
            .choices()
            .iter()
            .map(|model| json!({"value": model.id, "name": model.name}))
            .collect();
        json!({
            "id": MODEL_OPTION,
            "name": "Model",
            "category": "model",
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

/// What of a session a client may change: its modes, its model, or both.
#[derive(Debug, Clone)]
pub struct SessionModes {
    /// The session's modes, for an agent whose running sessions take others.
    pub modes: Option<Modes>,
    /// The session's model, for an agent whose running sessions take another.
    pub models: Option<Models>,
}

impl SessionModes {
    /// The session's config options (`configOptions`): its agent mode and
    /// permission mode, and its model, as far as they can change.
    pub fn config_options(&self) -> Value {
        let modes = self.modes.iter().flat_map(Modes::config_options);
        let models = self.models.iter().map(Models::config_option);
        Value::Array(modes.chain(models).collect())
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

    fn models(current: Option<&str>) -> Models {
        let model = |id: &str| Model {
            id: id.into(),
            name: id.to_uppercase(),
        };
        Models {
            available: vec![model("sonnet"), model("opus")],
            current: current.map(str::to_owned),
            agents_choice: None,
        }
    }

    #[test]
    fn the_default_is_named_after_the_agents_choice_when_it_said() {
        let said = Models {
            agents_choice: Some("Sonnet".into()),
            ..models(None)
        };
        let state = said.model_state();
        assert_eq!(state["availableModels"][0]["modelId"], DEFAULT_MODEL);
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
        assert_eq!(state["currentModelId"], DEFAULT_MODEL);
        assert_eq!(ids(&state), [DEFAULT_MODEL, "sonnet", "opus"]);
        let state = models(Some("opus")).model_state();
        assert_eq!(state["currentModelId"], "opus");
        assert_eq!(ids(&state), ["sonnet", "opus"]);
        // A model the agent does not list is still the current one's choice.
        let state = models(Some("scripted")).model_state();
        assert_eq!(ids(&state), ["sonnet", "opus", "scripted"]);
    }

    #[test]
    fn the_default_is_no_change_until_a_model_is_named() {
        assert_eq!(models(None).change_to(DEFAULT_MODEL.into()), Ok(None));
        assert_eq!(
            models(None).change_to("opus".into()),
            Ok(Some("opus".to_owned()))
        );
        let named = models(Some("opus"));
        assert_eq!(
            named.change_to("sonnet".into()),
            Ok(Some("sonnet".to_owned()))
        );
        let refused = named.change_to(DEFAULT_MODEL.into()).unwrap_err();
        assert!(refused.contains(r#"runs "opus""#), "{refused}");
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
        };
        let fields = model_only.answer_fields();
        assert!(fields.get("modes").is_none(), "{fields}");
        let options = fields["configOptions"].as_array().unwrap();
        assert_eq!(options.len(), 1);
        assert_eq!(options[0]["id"], MODEL_OPTION);
    }
}
