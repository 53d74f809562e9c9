//! ACP's session configuration options (`configOptions`, which ACP prefers to
//! the older `modes` and `models`): the selects of the three categories the
//! session maps (the agent's mode, its model, and its thought level, which is
//! the model's variant), read from the answers and updates that carry them,
//! and the `session/set_config_option` that sets one.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::native::Choice;

/// The categories the session maps, each found by its `category` or, for an
/// option without one, by its `id`.
const MODE: &str = "mode";
/// See [`MODE`].
const MODEL: &str = "model";
/// See [`MODE`].
const THOUGHT_LEVEL: &str = "thought_level";

/// One select option the agent offers: its id, its current value and the
/// values it takes, with their names (a grouped select's values in order).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Select {
    /// The option's `id` (`configId` when it is set).
    pub id: String,
    /// `currentValue`.
    pub current: Option<String>,
    /// `options`, their groups flattened.
    pub choices: Vec<Choice>,
}

/// The selects of a `configOptions` list the session maps (those of other
/// categories, and boolean options, it leaves alone).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Selects {
    /// The agent's mode.
    pub mode: Option<Select>,
    /// Its model.
    pub model: Option<Select>,
    /// Its thought (reasoning) level: the model's variants.
    pub thought_level: Option<Select>,
}

impl Selects {
    /// Those of `list`, a `configOptions` value; `None` when it is not a list
    /// (the agent does not speak configuration options).
    pub fn of(list: &Value) -> Option<Selects> {
        let list = list.as_array()?;
        let find = |category: &str| list.iter().find_map(|option| select(option, category));
        Some(Selects {
            mode: find(MODE),
            model: find(MODEL),
            thought_level: find(THOUGHT_LEVEL),
        })
    }

    /// What the session keeps to set them later.
    pub fn setters(&self) -> Setters {
        let setter = |select: &Option<Select>| {
            select.as_ref().map(|select| Setter {
                id: select.id.clone(),
                values: select.choices.iter().map(|c| c.id.clone()).collect(),
            })
        };
        Setters {
            mode: setter(&self.mode),
            model: setter(&self.model),
            thought_level: setter(&self.thought_level),
        }
    }
}

/// `option` when it is a select of `category`.
fn select(option: &Value, category: &str) -> Option<Select> {
    let id = option["id"].as_str().filter(|id| !id.is_empty())?;
    let is_of = match option["category"].as_str() {
        Some(named) => named == category,
        None => id == category,
    };
    if !is_of || option["type"] != "select" {
        return None;
    }
    let values = option["options"].as_array()?.iter().flat_map(|entry| {
        // A group's values, or the value itself.
        match entry["options"].as_array() {
            Some(grouped) => grouped.iter().collect::<Vec<_>>(),
            None => vec![entry],
        }
    });
    Some(Select {
        id: id.to_owned(),
        current: option["currentValue"].as_str().map(str::to_owned),
        choices: values.filter_map(choice).collect(),
    })
}

/// A select's value as a choice.
fn choice(value: &Value) -> Option<Choice> {
    let text = |value: &Value| value.as_str().filter(|t| !t.is_empty()).map(str::to_owned);
    Some(Choice {
        id: text(&value["value"])?,
        name: text(&value["name"]),
        description: text(&value["description"]),
    })
}

/// What the session keeps of one select to set it: its id and the values it
/// takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Setter {
    /// The option's id.
    pub id: String,
    /// The values it takes.
    pub values: Vec<String>,
}

impl Setter {
    /// Whether it takes `value`.
    pub fn takes(&self, value: &str) -> bool {
        self.values.iter().any(|known| known == value)
    }

    /// The params of `session/set_config_option` setting it to `value`.
    pub fn params(&self, session_id: &str, value: &str) -> Value {
        json!({"sessionId": session_id, "configId": self.id, "value": value})
    }
}

/// The selects the agent offered for its mode, model and thought level, kept
/// to set them: a changed one is sent as `session/set_config_option` rather
/// than as `session/set_mode` or `session/set_model`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Setters {
    /// The mode's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Setter>,
    /// The model's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Setter>,
    /// The thought level's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_level: Option<Setter>,
}

impl Setters {
    /// Whether the agent offered none of them.
    pub fn is_empty(&self) -> bool {
        *self == Setters::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selects_of_the_mapped_categories_are_read_grouped_or_not() {
        let list = json!([
            {"id": "approval", "name": "Approval", "category": "mode", "type": "select",
             "currentValue": "ask", "options": [
                {"value": "ask", "name": "Ask", "description": "Asks first"},
                {"value": "code", "name": "Code"}]},
            {"id": "model", "name": "Model", "type": "select", "currentValue": "m1",
             "options": [
                {"group": "fast", "name": "Fast", "options": [{"value": "m1", "name": "M1"}]},
                {"group": "deep", "name": "Deep", "options": [{"value": "m2", "name": "M2"}, {"name": "no value"}]}]},
            {"id": "effort", "name": "Effort", "category": "thought_level", "type": "boolean",
             "currentValue": true},
            {"id": "mode", "name": "Other", "category": "_custom", "type": "select",
             "currentValue": "x", "options": [{"value": "x", "name": "X"}]}
        ]);
        let selects = Selects::of(&list).expect("a list");
        let mode = selects.mode.as_ref().expect("the mode");
        assert_eq!(
            (mode.id.as_str(), mode.current.as_deref()),
            ("approval", Some("ask"))
        );
        assert_eq!(mode.choices[0].description.as_deref(), Some("Asks first"));
        assert_eq!(mode.choices[1].id, "code");
        let model = selects.model.as_ref().expect("the model, by its id");
        let ids: Vec<&str> = model.choices.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["m1", "m2"]);
        assert_eq!(selects.thought_level, None, "a boolean is not a select");
        let setters = selects.setters();
        assert!(setters.model.as_ref().unwrap().takes("m2"));
        assert!(!setters.model.as_ref().unwrap().takes("m3"));
        assert_eq!(
            setters.mode.unwrap().params("s1", "code"),
            json!({"sessionId": "s1", "configId": "approval", "value": "code"})
        );
        assert_eq!(Selects::of(&Value::Null), None);
        assert!(Selects::of(&json!([])).unwrap().setters().is_empty());
    }
}
