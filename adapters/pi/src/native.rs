//! The lines Pi prints in RPC mode (`pi --mode rpc`), as types.
//!
//! Every field reads leniently (the kit's `native` helpers): a missing field or one of
//! another shape reads as its default, as the output was read before it had types. A
//! line of a kind not listed here, or not an object, is [`PiMessage::Other`]. Tool
//! arguments, unknown content parts and extension messages stay JSON values (they
//! are free-form).

use sandbox_agent_adapter_kit::native::{self, Lenient};
use serde::Deserialize;
use serde_json::Value;

/// One stdout line of Pi.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum PiMessage {
    /// The answer to a command the adapter wrote.
    Response(Response),
    /// Pi starts working on a prompt.
    AgentStart,
    /// A model call starts.
    TurnStart,
    /// A model call ends.
    TurnEnd,
    /// Pi's queue of prompts changed.
    QueueUpdate,
    /// A message starts.
    MessageStart {
        /// The message (its role).
        #[serde(default, deserialize_with = "native::lenient")]
        message: Role,
    },
    /// A piece of the assistant's message.
    MessageUpdate {
        /// What changed; `None` when the line has nothing.
        #[serde(
            default,
            rename = "assistantMessageEvent",
            deserialize_with = "native::present"
        )]
        event: Option<AssistantEvent>,
    },
    /// A message ends.
    MessageEnd {
        /// The whole message.
        #[serde(default)]
        message: EndedMessage,
    },
    /// A tool starts running.
    ToolExecutionStart(ToolStart),
    /// A running tool's output so far.
    ToolExecutionUpdate(ToolUpdate),
    /// A tool finished.
    ToolExecutionEnd(ToolEnd),
    /// Pi is done with the prompt.
    AgentEnd,
    /// Compaction starts.
    CompactionStart(Notice),
    /// Compaction ends.
    CompactionEnd(Notice),
    /// A failed model call is retried.
    AutoRetryStart(Notice),
    /// Retrying ends.
    AutoRetryEnd(Notice),
    /// An extension failed.
    ExtensionError(ExtensionError),
    /// An extension opens a dialog.
    ExtensionUiRequest(UiRequest),
    /// Any other line (its `type` names it).
    #[serde(untagged)]
    Other(Value),
}

/// A `response` line.
#[derive(Debug, Deserialize)]
pub(crate) struct Response {
    /// The command's id.
    #[serde(default, deserialize_with = "native::lenient")]
    pub id: String,
    /// The command (`prompt`, `get_state`...).
    #[serde(default, deserialize_with = "native::lenient")]
    pub command: String,
    /// True when it succeeded.
    #[serde(default, deserialize_with = "native::lenient")]
    pub success: bool,
    /// Why it failed.
    #[serde(default, deserialize_with = "native::lenient")]
    pub error: String,
    /// What it returned (`get_state`: the session).
    #[serde(default, deserialize_with = "native::lenient")]
    pub data: StateData,
}

/// The data of a `get_state` response.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct StateData {
    /// Pi's session id.
    #[serde(default, rename = "sessionId", deserialize_with = "native::lenient")]
    pub session_id: String,
}

/// A message's role.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Role {
    /// `assistant`, `user`, `toolResult`, or an extension's.
    #[serde(default, deserialize_with = "native::lenient")]
    pub role: String,
}

/// The `assistantMessageEvent` of a `message_update`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum AssistantEvent {
    /// A text block starts.
    TextStart(Indexed),
    /// A thinking block starts.
    ThinkingStart(Indexed),
    /// A tool call starts.
    ToolcallStart(CallStart),
    /// A piece of text.
    TextDelta(Piece),
    /// A piece of thinking.
    ThinkingDelta(Piece),
    /// A piece of a tool call's arguments.
    ToolcallDelta(Piece),
    /// A text block ends.
    TextEnd(BlockEnd),
    /// A thinking block ends.
    ThinkingEnd(BlockEnd),
    /// A tool call ends.
    ToolcallEnd(CallEnd),
    /// The message starts.
    Start,
    /// The message is done.
    Done,
    /// The message failed (`message_end` tells).
    Error,
    /// Any other event (its `type` names it).
    #[serde(untagged)]
    Other(Value),
}

impl Default for AssistantEvent {
    fn default() -> Self {
        Self::Other(Value::Null)
    }
}

/// An event of one content block.
#[derive(Debug, Deserialize)]
pub(crate) struct Indexed {
    /// The block's index in the message.
    #[serde(default, rename = "contentIndex", deserialize_with = "native::lenient")]
    pub index: u64,
}

/// `toolcall_start`.
#[derive(Debug, Deserialize)]
pub(crate) struct CallStart {
    /// The block's index in the message.
    #[serde(default, rename = "contentIndex", deserialize_with = "native::lenient")]
    pub index: u64,
    /// The message so far.
    #[serde(default, deserialize_with = "native::lenient")]
    pub partial: Partial,
}

impl CallStart {
    /// The call that starts: the block at its index of the message so far.
    pub fn call(&self) -> Option<&CallRef> {
        let block = self
            .partial
            .content
            .get(usize::try_from(self.index).ok()?)?;
        block.get()
    }
}

/// The message so far, in `toolcall_start`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Partial {
    /// Its content blocks.
    #[serde(default, deserialize_with = "native::lenient")]
    pub content: Vec<Lenient<CallRef>>,
}

/// A tool call block's id and name.
#[derive(Debug, Deserialize)]
pub(crate) struct CallRef {
    /// The call's id.
    #[serde(default, deserialize_with = "native::lenient")]
    pub id: String,
    /// The tool's name.
    #[serde(default, deserialize_with = "native::lenient")]
    pub name: String,
}

/// A `*_delta` event.
#[derive(Debug, Deserialize)]
pub(crate) struct Piece {
    /// The block's index in the message.
    #[serde(default, rename = "contentIndex", deserialize_with = "native::lenient")]
    pub index: u64,
    /// The piece.
    #[serde(default, deserialize_with = "native::lenient")]
    pub delta: String,
}

/// `text_end` or `thinking_end`.
#[derive(Debug, Deserialize)]
pub(crate) struct BlockEnd {
    /// The block's index in the message.
    #[serde(default, rename = "contentIndex", deserialize_with = "native::lenient")]
    pub index: u64,
    /// The block's whole text.
    #[serde(default, deserialize_with = "native::lenient")]
    pub content: String,
}

/// `toolcall_end`.
#[derive(Debug, Deserialize)]
pub(crate) struct CallEnd {
    /// The block's index in the message.
    #[serde(default, rename = "contentIndex", deserialize_with = "native::lenient")]
    pub index: u64,
    /// The whole call.
    #[serde(default, rename = "toolCall", deserialize_with = "native::lenient")]
    pub call: CallArguments,
}

/// A tool call's arguments.
#[derive(Debug, Deserialize)]
pub(crate) struct CallArguments {
    /// The arguments (free-form; `{}` when missing).
    #[serde(default = "native::empty_object")]
    pub arguments: Value,
}

impl Default for CallArguments {
    fn default() -> Self {
        Self {
            arguments: native::empty_object(),
        }
    }
}

/// The message of a `message_end`, by role.
#[derive(Debug, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase")]
pub(crate) enum EndedMessage {
    /// The model's message.
    Assistant(AssistantMessage),
    /// The user's message (the adapter emitted it).
    User,
    /// A tool's result (`tool_execution_*` carried it).
    ToolResult,
    /// An extension's message, kept as it is (its `role` names it).
    #[serde(untagged)]
    Other(Value),
}

impl Default for EndedMessage {
    fn default() -> Self {
        Self::Other(Value::Null)
    }
}

/// An assistant message, whole.
#[derive(Debug, Deserialize)]
pub(crate) struct AssistantMessage {
    /// Why it stopped (`error` and `aborted` fail it).
    #[serde(default, rename = "stopReason", deserialize_with = "native::lenient")]
    pub stop_reason: String,
    /// The error, when it stopped on one.
    #[serde(default, rename = "errorMessage", deserialize_with = "native::lenient")]
    pub error_message: String,
    /// Its content parts.
    #[serde(default, deserialize_with = "native::lenient")]
    pub content: Vec<AssistantPart>,
    /// Its model call's usage.
    #[serde(default, deserialize_with = "native::present")]
    pub usage: Option<PiUsage>,
}

/// A content part of an assistant message.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub(crate) enum AssistantPart {
    /// Text.
    Text {
        /// The text.
        #[serde(default, deserialize_with = "native::lenient")]
        text: String,
    },
    /// Thinking.
    Thinking {
        /// The thinking.
        #[serde(default, deserialize_with = "native::lenient")]
        thinking: String,
    },
    /// A tool call.
    ToolCall {
        /// The call's id.
        #[serde(default, deserialize_with = "native::lenient")]
        id: String,
        /// The tool's name.
        #[serde(default, deserialize_with = "native::lenient")]
        name: String,
        /// The arguments (free-form; `{}` when missing).
        #[serde(default = "native::empty_object")]
        arguments: Value,
    },
    /// Any other part, kept as it is.
    #[serde(untagged)]
    Other(Value),
}

/// A model call's usage, as Pi reports it.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PiUsage {
    /// Input tokens not in the prompt cache.
    #[serde(default, deserialize_with = "native::lenient")]
    pub input: u64,
    /// Output tokens.
    #[serde(default, deserialize_with = "native::lenient")]
    pub output: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default, deserialize_with = "native::lenient")]
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default, deserialize_with = "native::lenient")]
    pub cache_write: u64,
    /// What the call cost.
    #[serde(default, deserialize_with = "native::lenient")]
    pub cost: Cost,
}

/// The cost of a model call.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Cost {
    /// In US dollars.
    #[serde(default, deserialize_with = "native::lenient")]
    pub total: Option<f64>,
}

/// The `content` of a message or a tool's result: a text, or parts.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum Content {
    /// A text.
    Text(String),
    /// Parts: texts and images.
    Parts(Vec<Lenient<Part>>),
}

impl Content {
    /// The content as text: the text, or its parts' texts joined (images become
    /// `[image]`).
    pub fn text(&self) -> String {
        match self {
            Self::Text(text) => text.clone(),
            Self::Parts(parts) => parts
                .iter()
                .map(|part| match part.get() {
                    Some(part) if part.kind == "image" => "[image]",
                    Some(part) => part.text.as_str(),
                    None => "",
                })
                .collect(),
        }
    }
}

/// The text of an optional [`Content`]; empty without one.
pub(crate) fn content_text(content: Option<&Content>) -> String {
    content.map(Content::text).unwrap_or_default()
}

/// A part of a [`Content`].
#[derive(Debug, Deserialize)]
pub(crate) struct Part {
    /// `text`, `image`...
    #[serde(default, rename = "type", deserialize_with = "native::lenient")]
    pub kind: String,
    /// Its text.
    #[serde(default, deserialize_with = "native::lenient")]
    pub text: String,
}

/// `tool_execution_start`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolStart {
    /// The call's id.
    #[serde(default, deserialize_with = "native::lenient")]
    pub tool_call_id: String,
    /// The tool's name.
    #[serde(default, deserialize_with = "native::lenient")]
    pub tool_name: String,
    /// The arguments (free-form), when the line has them (`null` included).
    #[serde(default, deserialize_with = "native::present")]
    pub args: Option<Value>,
}

/// `tool_execution_update`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolUpdate {
    /// The call's id.
    #[serde(default, deserialize_with = "native::lenient")]
    pub tool_call_id: String,
    /// The output so far.
    #[serde(default, deserialize_with = "native::lenient")]
    pub partial_result: ToolOutput,
}

/// `tool_execution_end`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolEnd {
    /// The call's id.
    #[serde(default, deserialize_with = "native::lenient")]
    pub tool_call_id: String,
    /// The result.
    #[serde(default, deserialize_with = "native::lenient")]
    pub result: ToolOutput,
    /// True when the tool failed.
    #[serde(default, deserialize_with = "native::lenient")]
    pub is_error: bool,
}

/// A tool's output.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ToolOutput {
    /// The output.
    #[serde(default, deserialize_with = "native::lenient")]
    pub content: Option<Content>,
    /// Details (`edit`: its diff).
    #[serde(default, deserialize_with = "native::lenient")]
    pub details: Details,
}

/// The details of a tool's output.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Details {
    /// `edit`'s diff.
    #[serde(default, deserialize_with = "native::lenient")]
    pub diff: Option<String>,
}

/// A compaction or retry notice.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Notice {
    /// Why a retry failed.
    #[serde(default, deserialize_with = "native::lenient")]
    pub error_message: String,
    /// Why retrying ended.
    #[serde(default, deserialize_with = "native::lenient")]
    pub final_error: String,
    /// Why compaction ran.
    #[serde(default, deserialize_with = "native::lenient")]
    pub reason: String,
}

impl Notice {
    /// The first of its texts that is not empty.
    pub fn detail(self) -> Option<String> {
        [self.error_message, self.final_error, self.reason]
            .into_iter()
            .find(|text| !text.is_empty())
    }
}

/// `extension_error`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExtensionError {
    /// The extension.
    #[serde(default, deserialize_with = "native::lenient")]
    pub extension_path: String,
    /// The event it failed on.
    #[serde(default, deserialize_with = "native::lenient")]
    pub event: String,
    /// The error.
    #[serde(default, deserialize_with = "native::lenient")]
    pub error: String,
}

/// `extension_ui_request`.
#[derive(Debug, Deserialize)]
pub(crate) struct UiRequest {
    /// The id to answer it by.
    #[serde(default, deserialize_with = "native::lenient")]
    pub id: String,
    /// `select`, `confirm`, `input`, `notify`...
    #[serde(default, deserialize_with = "native::lenient")]
    pub method: String,
    /// The dialog's title.
    #[serde(default, deserialize_with = "native::lenient")]
    pub title: String,
    /// Its text (`confirm`, `notify`).
    #[serde(default, deserialize_with = "native::lenient")]
    pub message: String,
    /// Its options (`select`); those that are not strings are skipped.
    #[serde(default, deserialize_with = "native::lenient")]
    pub options: Vec<Lenient<String>>,
}
