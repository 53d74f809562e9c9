//! The lines the CLI prints on stdout (stream-json), as types.
//!
//! Every field reads leniently (the kit's `native` helpers): a missing field or one of
//! another shape reads as its default, as the CLI's output was read before it had
//! types. A line of a kind not listed here, or not an object, is
//! [`ClaudeMessage::Other`]; free-form payloads (tool inputs, the CLI's permission
//! metadata, unknown content blocks) stay JSON values.

use sandbox_agent_adapter_kit::native::{self, AnthropicUsage, Lenient};
use sandbox_agent_adapter_kit::prelude::{item, ContentPart};
use serde::Deserialize;
use serde_json::Value;

/// One stdout line of the CLI.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ClaudeMessage {
    /// `system`: the session's init and the CLI's notices.
    System(System),
    /// `stream_event`: a raw Messages API streaming event.
    StreamEvent(StreamEvent),
    /// `assistant`: one content block of the model's message, whole.
    Assistant(Assistant),
    /// `user`: tool results, and the CLI's own notices.
    User(User),
    /// `result`: the turn is over.
    Result(TurnResult),
    /// `control_request`: the CLI asks the adapter (`can_use_tool`).
    ControlRequest(ControlRequest),
    /// `control_cancel_request`: the CLI withdraws a request.
    ControlCancelRequest {
        /// The withdrawn request.
        #[serde(default, deserialize_with = "native::lenient")]
        request_id: String,
    },
    /// `control_response`: the CLI answers one of the adapter's requests.
    ControlResponse {
        /// The answer.
        #[serde(default, deserialize_with = "native::lenient")]
        response: ControlResponse,
    },
    /// `keep_alive`.
    KeepAlive,
    /// Any other line (its `type` names it).
    #[serde(untagged)]
    Other(Value),
}

/// A `system` line.
#[derive(Debug, Deserialize)]
pub(crate) struct System {
    /// `init`, `status`, or a notice's kind.
    #[serde(default, deserialize_with = "native::lenient")]
    pub subtype: String,
    /// The CLI's session id (`init`).
    #[serde(default, deserialize_with = "native::lenient")]
    pub session_id: String,
    /// A notice's text, in the first of these that is a string.
    #[serde(default, deserialize_with = "native::lenient")]
    pub message: Option<String>,
    /// See `message`.
    #[serde(default, deserialize_with = "native::lenient")]
    pub content: Option<String>,
    /// See `message`.
    #[serde(default, deserialize_with = "native::lenient")]
    pub text: Option<String>,
}

impl System {
    /// A notice's text.
    pub fn detail(self) -> Option<String> {
        self.message.or(self.content).or(self.text)
    }
}

/// A `stream_event` line.
#[derive(Debug, Deserialize)]
pub(crate) struct StreamEvent {
    /// The stream (`parent_tool_use_id`: the `Task` call of a subagent).
    #[serde(default, deserialize_with = "native::lenient")]
    pub parent_tool_use_id: String,
    /// The event; `None` when the line has none.
    #[serde(default, deserialize_with = "native::present")]
    pub event: Option<ApiEvent>,
}

/// A Messages API streaming event.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ApiEvent {
    /// A message starts.
    MessageStart {
        /// The message.
        #[serde(default, deserialize_with = "native::lenient")]
        message: MessageRef,
    },
    /// A content block starts.
    ContentBlockStart {
        /// Its index in the message.
        #[serde(default, deserialize_with = "native::lenient")]
        index: u64,
        /// The block (its kind and, for a tool call, id and name).
        #[serde(default, deserialize_with = "native::lenient")]
        content_block: StartedBlock,
    },
    /// A piece of a content block.
    ContentBlockDelta {
        /// The block's index in the message.
        #[serde(default, deserialize_with = "native::lenient")]
        index: u64,
        /// The piece.
        #[serde(default)]
        delta: Delta,
    },
    /// A content block ends.
    ContentBlockStop,
    /// The message's stop reason and usage.
    MessageDelta,
    /// The message ends.
    MessageStop,
    /// Keeps the stream alive.
    Ping,
    /// Any other event (its `type` names it).
    #[serde(untagged)]
    Other(Value),
}

impl Default for ApiEvent {
    fn default() -> Self {
        Self::Other(Value::Null)
    }
}

/// The message of `message_start`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct MessageRef {
    /// The model's message id.
    #[serde(default, deserialize_with = "native::lenient")]
    pub id: String,
}

/// The block of `content_block_start`.
#[derive(Debug, Default, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum StartedBlock {
    /// Text.
    Text,
    /// Extended thinking.
    Thinking,
    /// A tool call (also a server or MCP tool's).
    #[serde(alias = "server_tool_use", alias = "mcp_tool_use")]
    ToolUse {
        /// The call's id.
        #[serde(default, deserialize_with = "native::lenient")]
        id: String,
        /// The tool's name.
        #[serde(default, deserialize_with = "native::lenient")]
        name: String,
    },
    /// Any other block (left to its `assistant` line).
    #[default]
    #[serde(other)]
    Other,
}

/// The `delta` of `content_block_delta`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Delta {
    /// Text.
    #[serde(rename = "text_delta")]
    Text {
        /// The piece.
        #[serde(default, deserialize_with = "native::lenient")]
        text: String,
    },
    /// Thinking.
    #[serde(rename = "thinking_delta")]
    Thinking {
        /// The piece.
        #[serde(default, deserialize_with = "native::lenient")]
        thinking: String,
    },
    /// A tool call's input JSON.
    #[serde(rename = "input_json_delta")]
    InputJson {
        /// The piece.
        #[serde(default, deserialize_with = "native::lenient")]
        partial_json: String,
    },
    /// The thinking's signature.
    #[serde(rename = "signature_delta")]
    Signature,
    /// Any other delta (its `type` names it).
    #[serde(untagged)]
    Other(Value),
}

impl Default for Delta {
    fn default() -> Self {
        Self::Other(Value::Null)
    }
}

/// An `assistant` line.
#[derive(Debug, Deserialize)]
pub(crate) struct Assistant {
    /// The stream (see [`StreamEvent::parent_tool_use_id`]).
    #[serde(default, deserialize_with = "native::lenient")]
    pub parent_tool_use_id: String,
    /// The API error's class (`rate_limit`...) when the message is one.
    #[serde(default, deserialize_with = "native::lenient")]
    pub error: Option<String>,
    /// The message.
    #[serde(default, deserialize_with = "native::lenient")]
    pub message: AssistantBody,
}

/// The message of an `assistant` line.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct AssistantBody {
    /// The model's message id.
    #[serde(default, deserialize_with = "native::lenient")]
    pub id: String,
    /// Its content blocks (usually one a line); `None` when not a list.
    #[serde(default, deserialize_with = "native::lenient")]
    pub content: Option<Vec<AssistantBlock>>,
}

/// A content block of the model's message.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum AssistantBlock {
    /// Text.
    Text {
        /// The text; `None` when not a string.
        #[serde(default, deserialize_with = "native::lenient")]
        text: Option<String>,
    },
    /// Extended thinking.
    Thinking {
        /// The thinking.
        #[serde(default, deserialize_with = "native::lenient")]
        thinking: String,
    },
    /// Thinking the API does not show.
    RedactedThinking,
    /// A tool call (also a server or MCP tool's).
    #[serde(alias = "server_tool_use", alias = "mcp_tool_use")]
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
    /// Any other block, kept as it is.
    #[serde(untagged)]
    Other(Value),
}

impl AssistantBlock {
    /// The block's `text`, when it has one.
    pub fn text(&self) -> Option<&str> {
        match self {
            Self::Text { text } => text.as_deref(),
            Self::Other(block) => block.get("text").and_then(Value::as_str),
            _ => None,
        }
    }
}

/// A `user` line.
#[derive(Debug, Deserialize)]
pub(crate) struct User {
    /// The stream (see [`StreamEvent::parent_tool_use_id`]).
    #[serde(default, deserialize_with = "native::lenient")]
    pub parent_tool_use_id: String,
    /// The message.
    #[serde(default, deserialize_with = "native::lenient")]
    pub message: UserBody,
    /// The CLI's structured result of the tool call, when it is an object.
    #[serde(default, deserialize_with = "native::object")]
    pub tool_use_result: Option<StructuredResult>,
}

/// The message of a `user` line.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct UserBody {
    /// Its content.
    #[serde(default, deserialize_with = "native::lenient")]
    pub content: UserContent,
}

/// The content of a `user` message: a text, or blocks.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum UserContent {
    /// One text.
    Text(String),
    /// Content blocks.
    Blocks(Vec<UserBlock>),
}

impl Default for UserContent {
    fn default() -> Self {
        Self::Blocks(Vec::new())
    }
}

/// A content block of a `user` message.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum UserBlock {
    /// A tool's result.
    ToolResult(ToolResult),
    /// Text (a subagent's prompt, or the CLI's own notice).
    Text {
        /// The text.
        #[serde(default, deserialize_with = "native::lenient")]
        text: String,
    },
    /// Any other block, kept as it is.
    #[serde(untagged)]
    Other(Value),
}

/// A `tool_result` block.
#[derive(Debug, Deserialize)]
pub(crate) struct ToolResult {
    /// The call it answers.
    #[serde(default, deserialize_with = "native::lenient")]
    pub tool_use_id: String,
    /// True when the call failed.
    #[serde(default, deserialize_with = "native::lenient")]
    pub is_error: bool,
    /// The output.
    #[serde(default)]
    pub content: Option<ToolOutput>,
}

/// A tool's output: a text, blocks with text, or anything else.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum ToolOutput {
    /// A text.
    Text(String),
    /// Blocks; those with a `text` make the output.
    Blocks(Vec<Lenient<TextBlock>>),
    /// Anything else, shown as JSON.
    Other(Value),
}

impl ToolOutput {
    /// The output's text: the text, the blocks' texts a line each, or the JSON.
    pub fn text(&self) -> String {
        match self {
            Self::Text(text) => text.clone(),
            Self::Blocks(blocks) => blocks
                .iter()
                .filter_map(|block| block.get().and_then(|b| b.text.as_deref()))
                .collect::<Vec<_>>()
                .join("\n"),
            Self::Other(other) => other.to_string(),
        }
    }

    /// The output's images (an MCP tool's screenshot), as inline image parts.
    pub fn images(&self) -> Vec<ContentPart> {
        let Self::Blocks(blocks) = self else {
            return Vec::new();
        };
        blocks
            .iter()
            .filter_map(|block| block.get()?.source.as_ref())
            .filter_map(|source| {
                let mime = source.media_type.as_deref().unwrap_or("image/png");
                Some(item::inline_image(mime, source.data.as_deref()?))
            })
            .collect()
    }
}

/// A block of a tool's output: a text or an image.
#[derive(Debug, Deserialize)]
pub(crate) struct TextBlock {
    /// Its text, when it is one.
    #[serde(default, deserialize_with = "native::lenient")]
    pub text: Option<String>,
    /// Its bytes, when it is an image.
    #[serde(default, deserialize_with = "native::lenient")]
    pub source: Option<ImageSource>,
}

/// The bytes of an image block (`{"type": "base64", "media_type", "data"}`).
#[derive(Debug, Deserialize)]
pub(crate) struct ImageSource {
    /// `image/png`...
    #[serde(default, deserialize_with = "native::lenient")]
    pub media_type: Option<String>,
    /// The bytes, base64.
    #[serde(default, deserialize_with = "native::lenient")]
    pub data: Option<String>,
}

/// The CLI's structured result of a `Read`, `Write` or `Edit` call.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StructuredResult {
    /// `create` when `Write` created the file.
    #[serde(default, rename = "type", deserialize_with = "native::lenient")]
    pub kind: Option<String>,
    /// The content `Write` wrote.
    #[serde(default, deserialize_with = "native::lenient")]
    pub content: Option<String>,
    /// The change, as hunks.
    #[serde(default, deserialize_with = "native::lenient")]
    pub structured_patch: Vec<Lenient<Hunk>>,
    /// The file's path.
    #[serde(default, deserialize_with = "native::lenient")]
    pub file_path: Option<String>,
    /// The file `Read` read.
    #[serde(default, deserialize_with = "native::lenient")]
    pub file: FileInfo,
}

/// The file of a `Read` result.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FileInfo {
    /// Its path.
    #[serde(default, deserialize_with = "native::lenient")]
    pub file_path: Option<String>,
}

/// One hunk of a `structuredPatch`; its lines start with ` `, `-` or `+`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Hunk {
    /// First line in the old file.
    #[serde(default, deserialize_with = "native::lenient")]
    pub old_start: u64,
    /// Lines in the old file.
    #[serde(default, deserialize_with = "native::lenient")]
    pub old_lines: u64,
    /// First line in the new file.
    #[serde(default, deserialize_with = "native::lenient")]
    pub new_start: u64,
    /// Lines in the new file.
    #[serde(default, deserialize_with = "native::lenient")]
    pub new_lines: u64,
    /// The lines.
    #[serde(default, deserialize_with = "native::lenient")]
    pub lines: Vec<Lenient<String>>,
}

/// A `result` line.
#[derive(Debug, Deserialize)]
pub(crate) struct TurnResult {
    /// `success`, or the kind of error.
    #[serde(default, deserialize_with = "native::lenient")]
    pub subtype: String,
    /// True when the turn failed.
    #[serde(default, deserialize_with = "native::lenient")]
    pub is_error: bool,
    /// The final text (or the error's).
    #[serde(default, deserialize_with = "native::lenient")]
    pub result: Option<String>,
    /// The errors, when it failed.
    #[serde(default, deserialize_with = "native::lenient")]
    pub errors: Vec<Lenient<String>>,
    /// What the process has cost so far.
    #[serde(default, deserialize_with = "native::lenient")]
    pub total_cost_usd: Option<f64>,
    /// The turn's token counts.
    #[serde(default, deserialize_with = "native::present")]
    pub usage: Option<AnthropicUsage>,
}

impl TurnResult {
    /// The errors that are strings.
    pub fn errors(&self) -> impl Iterator<Item = &str> {
        self.errors
            .iter()
            .filter_map(|e| e.get().map(String::as_str))
    }
}

/// A `control_request` line.
#[derive(Debug, Deserialize)]
pub(crate) struct ControlRequest {
    /// The id to answer it by.
    #[serde(default, deserialize_with = "native::lenient")]
    pub request_id: String,
    /// What is asked.
    #[serde(default, deserialize_with = "native::lenient")]
    pub request: ToolRequest,
}

/// The `request` of a `control_request`: `can_use_tool` (the only one the adapter
/// serves) and its fields.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ToolRequest {
    /// `can_use_tool`, or another request.
    #[serde(default, deserialize_with = "native::lenient")]
    pub subtype: String,
    /// The tool.
    #[serde(default, deserialize_with = "native::lenient")]
    pub tool_name: String,
    /// The tool's input (free-form; `{}` when missing).
    #[serde(default = "native::empty_object")]
    pub input: Value,
    /// The CLI's suggested rules for "don't ask again" (passed back as they are).
    #[serde(default, deserialize_with = "native::present")]
    pub permission_suggestions: Option<Value>,
    /// The call's id (metadata for the client).
    #[serde(default)]
    pub tool_use_id: Option<Value>,
    /// Why it asks (metadata for the client).
    #[serde(default)]
    pub description: Option<Value>,
    /// The path outside the allowed folders (metadata for the client).
    #[serde(default)]
    pub blocked_path: Option<Value>,
    /// The CLI's reason to ask (metadata for the client).
    #[serde(default)]
    pub decision_reason: Option<Value>,
}

/// The `response` of a `control_response`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ControlResponse {
    /// `success` or `error`.
    #[serde(default, deserialize_with = "native::lenient")]
    pub subtype: String,
    /// The error's text.
    #[serde(default, deserialize_with = "native::lenient")]
    pub error: String,
}

/// The input of an `AskUserQuestion` call (the part the adapter reads).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct AskUserQuestion {
    /// The questions; those without a text are skipped.
    #[serde(default, deserialize_with = "native::lenient")]
    pub questions: Vec<Lenient<AskedQuestion>>,
}

/// One question of an `AskUserQuestion` call.
#[derive(Debug, Deserialize)]
pub(crate) struct AskedQuestion {
    /// Its text.
    pub question: String,
    /// Its options; those without a label are skipped.
    #[serde(default, deserialize_with = "native::lenient")]
    pub options: Vec<Lenient<AnswerOption>>,
}

/// An option of an `AskUserQuestion` question.
#[derive(Debug, Deserialize)]
pub(crate) struct AnswerOption {
    /// What the client shows and answers with.
    pub label: String,
}
