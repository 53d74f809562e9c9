//! The adapter contract's session vocabulary (`wit/v0.2.0`) as plain Rust types:
//! the [`Input`]s a session feeds its adapter, the [`Action`]s the adapter asks
//! for, and the records they carry.
//!
//! The adapter host (`agentplex-host`) converts them to and from the types
//! wasmtime generates for each contract version; the session core and its driver
//! use only these, so neither needs wasmtime to be built or tested.

use agentplex_universal::{UniversalEventData, UniversalEventType};

/// A start of a child process with piped stdin, stdout and stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnRequest {
    /// The adapter's name for this process (`agent`, `tool-1`...).
    pub process_id: String,
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Variables added to the daemon's environment for this process.
    pub env: Vec<(String, String)>,
    /// Working directory; the session's directory when absent.
    pub cwd: Option<String>,
    /// One process shared by every session of the adapter that asks for this key.
    pub share_key: Option<String>,
}

/// Bytes for a process's stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdinWrite {
    /// The process.
    pub process_id: String,
    /// What to write.
    pub data: Vec<u8>,
}

/// An HTTP request to a server on the loopback interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// The adapter's name for this request; the response comes back with it.
    pub request_id: String,
    /// The method.
    pub method: String,
    /// The URL (a loopback one: the host refuses any other).
    pub url: String,
    /// The headers.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// Give up after this long.
    pub timeout_ms: Option<u32>,
}

/// A Server-Sent-Events stream from a loopback server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseRequest {
    /// The adapter's name for this stream.
    pub stream_id: String,
    /// The URL (a loopback one).
    pub url: String,
    /// The headers.
    pub headers: Vec<(String, String)>,
}

/// A timer (adapters have no clock).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimerRequest {
    /// The adapter's name for this timer.
    pub timer_id: String,
    /// How long until it fires.
    pub delay_ms: u32,
}

/// A file for the host to write in the session's scratch folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWrite {
    /// Path relative to the scratch folder, without `..`.
    pub path: String,
    /// The file's bytes.
    pub contents: Vec<u8>,
    /// Whether the file may be run.
    pub executable: bool,
}

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitStatus {
    /// Exit code, when it exited normally.
    pub code: Option<i32>,
    /// Signal number, when a signal killed it.
    pub signal: Option<i32>,
}

/// The answer to an [`HttpRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    /// The request's id.
    pub request_id: String,
    /// The status code.
    pub status: u16,
    /// The headers.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

/// One event of an SSE stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The stream's id.
    pub stream_id: String,
    /// The `event:` field; `message` when absent.
    pub event: String,
    /// The `data:` field.
    pub data: String,
    /// The `id:` field, when present.
    pub id: Option<String>,
}

/// A file given with a user message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// Where the file is.
    pub path: String,
    /// Its media type, when known.
    pub mime: Option<String>,
    /// Its name as the user gave it.
    pub filename: Option<String>,
}

/// One part of a user message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessagePart {
    /// Text.
    Text(String),
    /// An image.
    Image(Attachment),
    /// Another file.
    File(Attachment),
}

/// A client's answer to a permission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionReply {
    /// Allowed this once.
    Once,
    /// Allowed from now on.
    Always,
    /// Refused.
    Reject,
}

/// Something that happened, for an adapter session to react to.
#[derive(Debug, Clone)]
pub enum Input {
    /// Right after the session is created.
    Start,
    /// A user message (starts a turn).
    SendMessage(Vec<MessagePart>),
    /// The client answered a permission request.
    ReplyPermission {
        /// The request's id.
        permission_id: String,
        /// Once, always, or reject.
        reply: PermissionReply,
    },
    /// The client answered a question.
    ReplyQuestion {
        /// The question's id.
        question_id: String,
        /// The options chosen, per prompt.
        answers: Vec<Vec<String>>,
    },
    /// The client declined a question.
    RejectQuestion {
        /// The question's id.
        question_id: String,
    },
    /// Interrupt the running turn.
    CancelTurn,
    /// End the session.
    Terminate,
    /// A line a process wrote to stdout.
    Stdout {
        /// The process.
        process_id: String,
        /// The line, without its ending.
        line: String,
    },
    /// A line a process wrote to stderr.
    Stderr {
        /// The process.
        process_id: String,
        /// The line, without its ending.
        line: String,
    },
    /// A process ended.
    Exit {
        /// The process.
        process_id: String,
        /// How.
        status: ExitStatus,
    },
    /// A process could not be started.
    SpawnFailed {
        /// The process.
        process_id: String,
        /// Why.
        message: String,
    },
    /// The answer to an HTTP request.
    HttpResponse(HttpResponse),
    /// An HTTP request failed.
    HttpError {
        /// The request.
        request_id: String,
        /// Why.
        message: String,
    },
    /// One event of an SSE stream.
    SseEvent(SseEvent),
    /// An SSE stream ended.
    SseClosed {
        /// The stream.
        stream_id: String,
        /// Why, when it failed.
        error: Option<String>,
    },
    /// A timer fired.
    Timer {
        /// The timer.
        timer_id: String,
    },
    /// The session's approval policy was replaced: its checked document (`None`:
    /// removed), for an adapter that hands its agent native rules.
    SetPolicy(Option<serde_json::Value>),
}

impl Input {
    /// Short name for logs and error messages.
    pub fn name(&self) -> &'static str {
        match self {
            Input::Start => "start",
            Input::SendMessage(_) => "send-message",
            Input::ReplyPermission { .. } => "reply-permission",
            Input::ReplyQuestion { .. } => "reply-question",
            Input::RejectQuestion { .. } => "reject-question",
            Input::CancelTurn => "cancel-turn",
            Input::Terminate => "terminate",
            Input::Stdout { .. } => "on-stdout",
            Input::Stderr { .. } => "on-stderr",
            Input::Exit { .. } => "on-exit",
            Input::SpawnFailed { .. } => "on-spawn-failed",
            Input::HttpResponse(_) => "on-http-response",
            Input::HttpError { .. } => "on-http-error",
            Input::SseEvent(_) => "on-sse-event",
            Input::SseClosed { .. } => "on-sse-closed",
            Input::Timer { .. } => "on-timer",
            Input::SetPolicy(_) => "set-policy",
        }
    }

    /// Bytes of content the input carries (a line, a body, a message's text):
    /// what can make a call into the adapter long.
    pub fn payload_bytes(&self) -> usize {
        match self {
            Input::SendMessage(parts) => parts
                .iter()
                .map(|part| match part {
                    MessagePart::Text(text) => text.len(),
                    MessagePart::Image(file) | MessagePart::File(file) => file.path.len(),
                })
                .sum(),
            Input::Stdout { line, .. } | Input::Stderr { line, .. } => line.len(),
            Input::HttpResponse(response) => response.body.len(),
            Input::SseEvent(event) => event.data.len(),
            _ => 0,
        }
    }
}

/// A universal event as an adapter emitted it, before the daemon adds the envelope.
#[derive(Debug, Clone)]
pub struct EmittedEvent {
    /// The event's type.
    pub event_type: UniversalEventType,
    /// Its data.
    pub data: UniversalEventData,
    /// Whether the daemon or the adapter made it up (not the agent's own).
    pub synthetic: bool,
    /// The native payload, when the adapter passed one: JSON checked once by the
    /// host and kept as text (never parsed again).
    pub raw: Option<Box<serde_json::value::RawValue>>,
}

/// One thing an adapter asked the daemon to do; checked by the host.
#[derive(Debug, Clone)]
pub enum Action {
    /// Publish an event in the session's transcript.
    Emit(EmittedEvent),
    /// The agent's own session id.
    SetNativeSessionId(String),
    /// Start a process.
    Spawn(SpawnRequest),
    /// Write to a process's stdin.
    WriteStdin(StdinWrite),
    /// Close a process's stdin (by process id).
    CloseStdin(String),
    /// Kill a process and its group (by process id).
    Kill(String),
    /// Only loopback URLs get here.
    HttpRequest(HttpRequest),
    /// Only loopback URLs get here.
    OpenSse(SseRequest),
    /// Close an SSE stream (by stream id).
    CloseSse(String),
    /// Start a timer.
    SetTimer(TimerRequest),
    /// Cancel a timer (by timer id).
    CancelTimer(String),
    /// Its path is relative, without `..`: it stays inside the scratch folder.
    WriteFile(FileWrite),
}
