//! The lines `amp --execute --stream-json` prints, as types.
//!
//! Every field reads leniently (the kit's `native` helpers): a missing field or one of
//! another shape reads as its default, as the output was read before it had types. A
//! line of a kind not listed here, or not an object, is [`AmpMessage::Other`]; a
//! content block of another kind is `None` in its list. Tool inputs and results
//! stay JSON values (free-form).

use sandbox_agent_adapter_kit::native::{self, AnthropicUsage, Lenient};
use serde::Deserialize;
use serde_json::Value;

/// One stdout line of a turn's process.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum AmpMessage {
    /// `system`: `init` and other notices.
    System(System),
    /// `assistant`: one model message.
    Assistant(Message<AssistantBlock>),
    /// `user`: the prompt's echo, tool results, a subagent's prompt.
    User(Message<UserBlock>),
    /// `result`: the turn is over.
    Result(TurnResult),
    /// Any other line.
    #[serde(untagged)]
    Other(Value),
}

impl AmpMessage {
    /// The line's `session_id` (Amp's thread id), when it is a string.
    pub fn session_id(&self) -> Option<&str> {
        match self {
            Self::System(System { session_id, .. })
            | Self::Assistant(Message { session_id, .. })
            | Self::User(Message { session_id, .. })
            | Self::Result(TurnResult { session_id, .. }) => session_id.as_deref(),
            Self::Other(other) => other.get("session_id").and_then(Value::as_str),
        }
    }
}

/// A `system` line.
#[derive(Debug, Deserialize)]
pub(crate) struct System {
    /// Amp's thread id.
    #[serde(default, deserialize_with = "native::lenient")]
    pub session_id: Option<String>,
    /// `init`, or a notice's kind.
    #[serde(default, deserialize_with = "native::lenient")]
    pub subtype: String,
}

/// An `assistant` or `user` line, with its kind of content blocks.
#[derive(Debug, Deserialize)]
#[serde(bound = "B: Deserialize<'de>")]
pub(crate) struct Message<B> {
    /// Amp's thread id.
    #[serde(default, deserialize_with = "native::lenient")]
    pub session_id: Option<String>,
    /// The subagent's `Task` call, when a subagent wrote it: `Some` whenever the field
    /// is there and not `null`, its id when it is a string.
    #[serde(default)]
    pub parent_tool_use_id: Option<Lenient<String>>,
    /// The message.
    #[serde(default, deserialize_with = "native::lenient")]
    pub message: Body<B>,
}

impl<B> Message<B> {
    /// The subagent's `Task` call id, when a subagent wrote the line.
    pub fn parent_call(&self) -> Option<&str> {
        let parent = self.parent_tool_use_id.as_ref()?;
        parent.get().map(String::as_str)
    }
}

/// The message of an `assistant` or `user` line.
#[derive(Debug, Deserialize)]
#[serde(bound = "B: Deserialize<'de>")]
pub(crate) struct Body<B> {
    /// The model call's token counts (`assistant`).
    #[serde(default, deserialize_with = "native::present")]
    pub usage: Option<AnthropicUsage>,
    /// Its content blocks; `None` for a block of another kind.
    #[serde(default, deserialize_with = "native::lenient")]
    pub content: Vec<Lenient<B>>,
}

impl<B> Default for Body<B> {
    fn default() -> Self {
        Self {
            usage: None,
            content: Vec::new(),
        }
    }
}

/// A content block of an `assistant` message.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum AssistantBlock {
    /// Text (`None` when not a string).
    Text {
        /// The text.
        #[serde(default, deserialize_with = "native::lenient")]
        text: Option<String>,
    },
    /// Thinking.
    Thinking {
        /// The thinking.
        #[serde(default, deserialize_with = "native::lenient")]
        thinking: String,
    },
    /// A tool call.
    ToolUse {
        /// The call's id.
        #[serde(default, deserialize_with = "native::lenient")]
        id: String,
        /// The tool's name.
        #[serde(default, deserialize_with = "native::lenient")]
        name: String,
        /// The tool's input (free-form; `{}` when missing).
        #[serde(default = "native::empty_object")]
        input: Value,
    },
    /// A block of another kind.
    #[serde(other)]
    Other,
}

/// A content block of a `user` message.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum UserBlock {
    /// Text.
    Text {
        /// The text.
        #[serde(default, deserialize_with = "native::lenient")]
        text: String,
    },
    /// A tool's result.
    ToolResult {
        /// The call it answers.
        #[serde(default, deserialize_with = "native::lenient")]
        tool_use_id: String,
        /// The output (free-form: a text, text blocks, or other JSON).
        #[serde(default)]
        content: Value,
        /// True when the call failed.
        #[serde(default, deserialize_with = "native::lenient")]
        is_error: bool,
    },
    /// A block of another kind.
    #[serde(other)]
    Other,
}

/// A `result` line.
#[derive(Debug, Deserialize)]
pub(crate) struct TurnResult {
    /// Amp's thread id.
    #[serde(default, deserialize_with = "native::lenient")]
    pub session_id: Option<String>,
    /// `success`, or the kind of error.
    #[serde(default, deserialize_with = "native::lenient")]
    pub subtype: String,
    /// True when the turn failed.
    #[serde(default, deserialize_with = "native::lenient")]
    pub is_error: bool,
    /// The error's text: when the field is there, it is the message (if a string).
    #[serde(default, deserialize_with = "native::present")]
    pub error: Option<Lenient<String>>,
    /// The final text, the message when there is no `error`.
    #[serde(default, deserialize_with = "native::lenient")]
    pub result: Option<String>,
}

impl TurnResult {
    /// The error's message, when the line has one.
    pub fn message(&self) -> Option<&str> {
        match &self.error {
            Some(error) => error.get().map(String::as_str),
            None => self.result.as_deref(),
        }
    }
}
