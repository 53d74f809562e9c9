//! The shapes of OpenCode's event stream (`GET /event`), as far as the adapter reads
//! them. Every event is `{"id": "evt_…", "type": "…", "properties": {…}}`; the fields
//! here follow the server's own OpenAPI document (`GET /doc`) of OpenCode 1.18.
//! Unknown fields are ignored, so newer servers still parse.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// One event of the stream, its properties kept as the text they came as. Most
/// events are another session's, or of a kind the adapter passes over; a busy
/// server sends them by the hundred a second, and a session's permission requests
/// wait behind them. So the properties are not built into a tree of values: the
/// session they are about is read on its own, and an event the adapter reads is
/// parsed once, straight into its shape.
#[derive(Debug, Deserialize)]
pub(crate) struct Envelope<'a> {
    /// `message.part.updated`, `session.idle`, `permission.asked`...
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(borrow, default)]
    properties: Option<&'a RawValue>,
}

/// The field every session's event has in its properties.
#[derive(Deserialize)]
struct About<'a> {
    #[serde(rename = "sessionID", borrow)]
    session_id: Option<Cow<'a, str>>,
}

impl<'a> Envelope<'a> {
    /// The native session the event is about, when it is about one.
    pub fn session_id(&self) -> Option<Cow<'a, str>> {
        serde_json::from_str::<About>(self.properties())
            .ok()?
            .session_id
    }

    /// The properties as `T`.
    pub fn parse<T: for<'de> Deserialize<'de>>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.properties())
    }

    fn properties(&self) -> &'a str {
        self.properties.map_or("null", RawValue::get)
    }
}

/// `message.updated`: a message was created or changed.
#[derive(Debug, Deserialize)]
pub(crate) struct MessageUpdated {
    pub info: MessageInfo,
}

/// The fields of a message the adapter reads.
#[derive(Debug, Deserialize)]
pub(crate) struct MessageInfo {
    pub id: String,
    /// `user` or `assistant`.
    pub role: String,
}

/// `message.part.updated`: a part was created or changed (it carries the whole part).
#[derive(Debug, Deserialize)]
pub(crate) struct PartUpdated {
    /// The session it is about.
    #[serde(rename = "sessionID", default)]
    pub session_id: Option<String>,
    pub part: Part,
}

/// A message part: text, reasoning, tool, step-start, step-finish, patch, retry...
/// One struct with the fields of every kind the adapter reads.
#[derive(Debug, Deserialize)]
pub(crate) struct Part {
    pub id: String,
    #[serde(rename = "messageID")]
    pub message_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// Text and reasoning: the text so far.
    #[serde(default)]
    pub text: String,
    /// Text and reasoning: `end` is set once the part is complete.
    #[serde(default)]
    pub time: Option<PartTime>,
    /// Tool: the tool's name (`bash`, `write`, `edit`, `read`...).
    #[serde(default)]
    pub tool: String,
    /// Tool: the model's call id.
    #[serde(rename = "callID", default)]
    pub call_id: String,
    /// Tool: where the call is.
    #[serde(default)]
    pub state: Option<ToolState>,
    /// Step-finish: the step's token counts.
    #[serde(default)]
    pub tokens: Option<Tokens>,
    /// Step-finish: the step's cost in US dollars.
    #[serde(default)]
    pub cost: Option<f64>,
    /// Retry: the attempt number.
    #[serde(default)]
    pub attempt: Option<u64>,
    /// Retry: the error that caused it.
    #[serde(default)]
    pub error: Option<NativeError>,
}

/// When a text or reasoning part started and ended.
#[derive(Debug, Deserialize)]
pub(crate) struct PartTime {
    #[serde(default)]
    pub end: Option<f64>,
}

/// The state of a tool part: `pending` (input still streaming), `running`,
/// `completed` or `error`.
#[derive(Debug, Deserialize)]
pub(crate) struct ToolState {
    pub status: String,
    #[serde(default)]
    pub input: Value,
    /// Completed: the tool's output.
    #[serde(default)]
    pub output: Option<String>,
    /// Error: what went wrong.
    #[serde(default)]
    pub error: Option<String>,
    /// Tool-specific details: `output` so far for `bash`, `diff` for `edit`...
    #[serde(default)]
    pub metadata: Value,
    /// Completed: files the tool returned besides its text (an MCP tool's images,
    /// as `data:` URLs).
    #[serde(default)]
    pub attachments: Vec<Attachment>,
}

/// A file a tool returned.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Attachment {
    /// Its media type.
    #[serde(default)]
    pub mime: String,
    /// Where it is: a `data:` URL for an image a tool returned inline.
    #[serde(default)]
    pub url: String,
}

/// Token counts of a step.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Tokens {
    #[serde(default)]
    pub input: f64,
    #[serde(default)]
    pub output: f64,
    #[serde(default)]
    pub reasoning: f64,
    #[serde(default)]
    pub cache: Cache,
}

/// Prompt-cache token counts of a step.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Cache {
    #[serde(default)]
    pub read: f64,
}

/// `message.part.delta`: text appended to a part's field.
#[derive(Debug, Deserialize)]
pub(crate) struct PartDelta {
    /// The session it is about.
    #[serde(rename = "sessionID", default)]
    pub session_id: Option<String>,
    #[serde(rename = "messageID")]
    pub message_id: String,
    #[serde(rename = "partID")]
    pub part_id: String,
    /// `text` for text and reasoning parts.
    pub field: String,
    pub delta: String,
}

/// `session.status`: `busy`, `idle` or `retry`.
#[derive(Debug, Deserialize)]
pub(crate) struct SessionStatus {
    pub status: Status,
}

/// The status of a session.
#[derive(Debug, Deserialize)]
pub(crate) struct Status {
    #[serde(rename = "type")]
    pub kind: String,
}

/// `session.error`: the turn failed (provider error, abort...).
#[derive(Debug, Deserialize)]
pub(crate) struct SessionError {
    #[serde(default)]
    pub error: Option<NativeError>,
}

/// OpenCode's error shape: `{"name": "APIError", "data": {"message": …}}`.
#[derive(Debug, Deserialize)]
pub(crate) struct NativeError {
    pub name: String,
    #[serde(default)]
    pub data: Value,
}

impl NativeError {
    /// The error's message, or its name when it has none.
    pub fn message(&self) -> String {
        match self.data.get("message").and_then(Value::as_str) {
            Some(message) => message.to_owned(),
            None => self.name.clone(),
        }
    }

    /// True for the error a cancelled turn ends with.
    pub fn is_abort(&self) -> bool {
        self.name == "MessageAbortedError"
    }

    /// A short code for the universal `error` event: `api_error`, `auth`...
    pub fn code(&self) -> &'static str {
        match self.name.as_str() {
            "APIError" => "api_error",
            "ProviderAuthError" => "auth",
            "MessageOutputLengthError" => "output_length",
            "ContextOverflowError" => "context_overflow",
            "ContentFilterError" => "content_filter",
            "StructuredOutputError" => "structured_output",
            "MessageAbortedError" => "aborted",
            _ => "agent_error",
        }
    }
}

/// `permission.asked`: a tool waits for the user's permission.
#[derive(Debug, Deserialize)]
pub(crate) struct PermissionAsked {
    /// `per_…`, the id to reply to.
    pub id: String,
    /// `bash`, `edit`, `webfetch`...
    pub permission: String,
    /// What exactly (the command, the file).
    #[serde(default)]
    pub patterns: Vec<String>,
    #[serde(default)]
    pub metadata: Value,
    #[serde(default)]
    pub tool: Option<ToolRef>,
}

/// The tool call a permission or question belongs to.
#[derive(Debug, Deserialize)]
pub(crate) struct ToolRef {
    #[serde(rename = "callID")]
    pub call_id: String,
}

/// `permission.replied`: a permission request was answered (by anyone).
#[derive(Debug, Deserialize)]
pub(crate) struct PermissionReplied {
    #[serde(rename = "requestID")]
    pub request_id: String,
    /// `once`, `always` or `reject`.
    pub reply: String,
}

/// `question.asked`: the agent's question tool waits for answers.
#[derive(Debug, Deserialize)]
pub(crate) struct QuestionAsked {
    /// `que_…`, the id to reply to.
    pub id: String,
    pub questions: Vec<QuestionInfo>,
}

/// One question of a `question.asked`.
#[derive(Debug, Deserialize)]
pub(crate) struct QuestionInfo {
    pub question: String,
    #[serde(default)]
    pub options: Vec<QuestionOption>,
}

/// An offered answer.
#[derive(Debug, Deserialize)]
pub(crate) struct QuestionOption {
    pub label: String,
}

/// `question.replied` and `question.rejected`.
#[derive(Debug, Deserialize)]
pub(crate) struct QuestionSettled {
    #[serde(rename = "requestID")]
    pub request_id: String,
}

/// `POST /session`'s answer: the new session.
#[derive(Debug, Deserialize)]
pub(crate) struct CreatedSession {
    pub id: String,
}
