//! The Agent Client Protocol messages the ACP session reads, as types.
//!
//! The kit's JSON-RPC parser hands over a message's params and results as JSON values;
//! these are their typed views ([`crate::native::read`]), read leniently: a missing
//! field or one of another shape reads as its default, as they were read before they
//! had types. What the session passes on as it is stays a JSON value: a tool call's
//! title, kind and locations (the `tool_call` item's arguments), the plan's entries,
//! a permission request's tool call and options (its metadata).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::options::Selects;
use crate::native::{self, Lenient};
use crate::types::{AgentMode, AgentOffer, Model};

/// A `session/update` (`params.update`), by its `sessionUpdate`.
#[derive(Debug, Default, Deserialize)]
#[serde(tag = "sessionUpdate", rename_all = "snake_case")]
pub(crate) enum SessionUpdate {
    /// A piece of the assistant's message.
    AgentMessageChunk(Chunk),
    /// A piece of the agent's reasoning.
    AgentThoughtChunk(Chunk),
    /// A tool call starts.
    ToolCall(ToolCall),
    /// A tool call's progress or result.
    ToolCallUpdate(ToolCallUpdate),
    /// The agent's plan.
    Plan {
        /// Its entries (shown as JSON).
        #[serde(default)]
        entries: Value,
    },
    /// The agent's slash commands (not shown).
    AvailableCommandsUpdate,
    /// The agent's mode (not shown).
    CurrentModeUpdate,
    /// The client's own message, echoed (not shown).
    UserMessageChunk,
    /// The session's title or other details (not shown).
    SessionInfoUpdate,
    /// The agent's configuration options (not shown).
    ConfigOptionUpdate,
    /// An update of another kind (or not an update).
    #[default]
    #[serde(other)]
    Other,
}

impl SessionUpdate {
    /// The update in `value`.
    pub fn of(value: &Value) -> Self {
        Self::deserialize(value).unwrap_or_default()
    }

    /// True for the kinds the session knows and shows nothing for.
    pub fn is_silent(&self) -> bool {
        matches!(
            self,
            Self::AvailableCommandsUpdate
                | Self::CurrentModeUpdate
                | Self::UserMessageChunk
                | Self::SessionInfoUpdate
                | Self::ConfigOptionUpdate
        )
    }
}

/// The `_meta` of a `session/update`, where some agents report the turn's tokens.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct UpdateMeta {
    /// The metadata.
    #[serde(default, rename = "_meta", deserialize_with = "native::lenient")]
    pub meta: Meta,
}

/// An update's metadata.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Meta {
    /// The turn's tokens so far.
    #[serde(default, deserialize_with = "native::lenient")]
    pub usage: MetaUsage,
}

/// The tokens of `_meta.usage`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MetaUsage {
    /// Input tokens.
    #[serde(default, deserialize_with = "native::lenient")]
    pub input_tokens: Option<u64>,
    /// Output tokens.
    #[serde(default, deserialize_with = "native::lenient")]
    pub output_tokens: Option<u64>,
}

/// A message or thought chunk.
#[derive(Debug, Deserialize)]
pub(crate) struct Chunk {
    /// Its content.
    #[serde(default, deserialize_with = "native::lenient")]
    pub content: ChunkContent,
}

/// The content of a chunk.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ChunkContent {
    /// Its text, when it is text.
    #[serde(default, deserialize_with = "native::lenient")]
    pub text: Option<String>,
}

/// A tool call as ACP describes it (`tool_call`, `tool_call_update`, the `toolCall` of
/// a permission request).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolCall {
    /// Its id.
    #[serde(default, deserialize_with = "native::lenient")]
    pub tool_call_id: String,
    /// What it does, in words (passed on as it is).
    #[serde(default)]
    pub title: Value,
    /// `execute`, `edit`, `read`... (passed on as it is).
    #[serde(default)]
    pub kind: Value,
    /// The files it is about (passed on as they are).
    #[serde(default)]
    pub locations: Value,
    /// Its input as the agent's tool took it (passed on as it is).
    #[serde(default)]
    pub raw_input: Value,
}

impl ToolCall {
    /// The paths of its locations.
    pub fn location_paths(&self) -> Vec<String> {
        let locations = Vec::<Lenient<Location>>::deserialize(&self.locations);
        let locations = locations.unwrap_or_default().into_iter();
        locations.filter_map(|l| l.0.and_then(|l| l.path)).collect()
    }
}

/// A location of a tool call.
#[derive(Debug, Deserialize)]
pub(crate) struct Location {
    /// Its path, when it is a string.
    #[serde(default, deserialize_with = "native::lenient")]
    pub path: Option<String>,
}

/// A `tool_call_update`.
#[derive(Debug, Deserialize)]
pub(crate) struct ToolCallUpdate {
    /// The call.
    #[serde(flatten)]
    pub call: ToolCall,
    /// `pending`, `in_progress`, `completed`, `failed`.
    #[serde(default, deserialize_with = "native::lenient")]
    pub status: String,
    /// What it produced.
    #[serde(default, deserialize_with = "native::lenient")]
    pub content: Vec<Lenient<ToolContent>>,
    /// Its output as the agent's tool gave it: what the result shows when the
    /// update has no text content (some agents put the output only there).
    #[serde(default, rename = "rawOutput")]
    pub raw_output: Value,
}

/// A piece of what a tool call produced.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ToolContent {
    /// A file change.
    Diff {
        /// The file.
        #[serde(default, deserialize_with = "native::lenient")]
        path: String,
        /// Its old text (empty for a new file).
        #[serde(default, rename = "oldText", deserialize_with = "native::lenient")]
        old_text: String,
        /// Its new text.
        #[serde(default, rename = "newText", deserialize_with = "native::lenient")]
        new_text: String,
    },
    /// Anything else: its text, when it has one.
    #[serde(untagged)]
    Content {
        /// The content.
        #[serde(default, deserialize_with = "native::lenient")]
        content: ChunkContent,
    },
}

/// The params of `session/request_permission`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PermissionRequest {
    /// The tool call it is about (passed on as it is in the permission's metadata).
    #[serde(default)]
    pub tool_call: Value,
    /// The options to answer with (passed on as they are in the metadata).
    #[serde(default)]
    pub options: Value,
}

impl PermissionRequest {
    /// The options' ids by kind (`allow_once`, `reject_always`...), the first of each.
    pub fn option_ids(&self) -> Vec<(String, String)> {
        let options = Vec::<Lenient<PermissionOption>>::deserialize(&self.options);
        let options = options.unwrap_or_default().into_iter();
        let options = options.filter_map(|o| o.0);
        options
            .filter_map(|o| Some((o.kind?, o.option_id?)))
            .collect()
    }
}

/// An option of a permission request.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PermissionOption {
    /// Its kind, when it is a string.
    #[serde(default, deserialize_with = "native::lenient")]
    pub kind: Option<String>,
    /// Its id, when it is a string.
    #[serde(default, deserialize_with = "native::lenient")]
    pub option_id: Option<String>,
}

/// The result of `session/new`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NewSession {
    /// The agent's session id.
    #[serde(default, deserialize_with = "native::lenient")]
    pub session_id: Option<String>,
}

/// What an agent offers in its answer to `session/new` or `session/load`: its
/// modes and the current one, its models (when it offers a choice) and the
/// current one, and its thought levels, from its configuration options where
/// it gives them (which ACP prefers), else from `modes` and `models`.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Offered {
    /// `modes.availableModes`.
    pub modes: Vec<Choice>,
    /// `modes.currentModeId`.
    pub current_mode: Option<String>,
    /// `models.availableModels`, when it is there: the agent then takes
    /// `session/set_model`.
    pub models: Option<Vec<Choice>>,
    /// `models.currentModelId`.
    pub current_model: Option<String>,
    /// The thought levels of the current model (a `configOptions` select of
    /// category `thought_level`): its variants.
    #[serde(default)]
    pub variants: Vec<Choice>,
    /// The thought level the agent said it runs.
    #[serde(default)]
    pub current_variant: Option<String>,
}

/// One of the modes or models an agent offers.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Choice {
    /// `id` of a mode, `modelId` of a model.
    pub id: String,
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
}

impl Offered {
    /// What `result` offers (nothing of what is missing or not as ACP says),
    /// `selects` its configuration options' when it has them.
    pub fn of(result: &Value, selects: Option<&Selects>) -> Offered {
        let choices = |list: &Value, id: &str| -> Vec<Choice> {
            let list = list.as_array().into_iter().flatten();
            let choice = |entry: &Value| {
                Some(Choice {
                    id: text(&entry[id])?,
                    name: text(&entry["name"]),
                    description: text(&entry["description"]),
                })
            };
            list.filter_map(choice).collect()
        };
        let models = &result["models"]["availableModels"];
        let mut offered = Offered {
            modes: choices(&result["modes"]["availableModes"], "id"),
            current_mode: text(&result["modes"]["currentModeId"]),
            models: models.is_array().then(|| choices(models, "modelId")),
            current_model: text(&result["models"]["currentModelId"]),
            ..Offered::default()
        };
        if let Some(selects) = selects {
            offered.adopt(selects);
        }
        offered
    }

    /// Takes what `selects` offer (the agent's whole `configOptions`) over
    /// what it had: a select of the mode or the model replaces the `modes` or
    /// `models` it offered, its thought levels are the select's or none.
    pub fn adopt(&mut self, selects: &Selects) {
        if let Some(mode) = &selects.mode {
            self.modes.clone_from(&mode.choices);
            self.current_mode.clone_from(&mode.current);
        }
        if let Some(model) = &selects.model {
            self.models = Some(model.choices.clone());
            self.current_model.clone_from(&model.current);
        }
        let level = selects.thought_level.as_ref();
        self.variants = level.map(|level| level.choices.clone()).unwrap_or_default();
        self.current_variant = level.and_then(|level| level.current.clone());
    }

    /// The ids of the modes.
    pub fn mode_ids(&self) -> Vec<String> {
        self.modes.iter().map(|mode| mode.id.clone()).collect()
    }

    /// As the contract reports it (WIT `agent-offer`).
    pub fn to_offer(&self) -> AgentOffer {
        let modes = self.modes.iter().map(|mode| AgentMode {
            id: mode.id.clone(),
            name: mode.name.clone().unwrap_or_else(|| mode.id.clone()),
            description: mode.description.clone().unwrap_or_default(),
        });
        // The thought levels are the current model's variants.
        let models = self.models.iter().flatten().map(|model| {
            let current = self.current_model.as_ref() == Some(&model.id);
            let variants = self.variants.iter().filter(|_| current);
            Model {
                id: model.id.clone(),
                name: model.name.clone(),
                variants: variants.map(|variant| variant.id.clone()).collect(),
                default_variant: self.current_variant.clone().filter(|_| current),
            }
        });
        AgentOffer {
            modes: modes.collect(),
            current_mode: self.current_mode.clone(),
            models: models.collect(),
            current_model: self.current_model.clone(),
        }
    }
}

/// A JSON string's text.
fn text(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

/// The result of `session/prompt`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PromptResult {
    /// Why the turn stopped.
    #[serde(default, deserialize_with = "native::lenient")]
    pub stop_reason: Option<String>,
}
