//! The host's vocabulary: what the daemon feeds a session and what it gets back.
//!
//! Records that cross the WIT boundary unchanged (spawn requests, install plans...)
//! are the generated binding types, re-exported here; events are converted to the
//! universal schema so the daemon never sees WIT event types.

use std::path::PathBuf;
use std::time::Duration;

use sandbox_agent_universal::{UniversalEventData, UniversalEventType};

pub use crate::bindings::actions::{
    ExitStatus, FileWrite, HttpRequest, HttpResponse, SpawnRequest, SseEvent, SseRequest,
    StdinWrite, TimerRequest,
};
pub use crate::bindings::guest::{
    AdapterInfo, AgentMode, Arch, ArchiveKind, Attachment, CredentialKind, CredentialRead,
    CredentialValue, CredentialVariable, FoundCredential, InstallRecipe, InstallSource, Libc,
    McpAuth, McpLocal, McpOauth, McpRemote, McpRemoteTransport, McpServer, McpTransport,
    MessagePart, Model, Os, PermissionReply, Platform, SessionConfig, Skill,
};

impl AdapterInfo {
    /// Whether the adapter names `capability` (`resume`, `mcp-servers`...) among its
    /// capabilities.
    pub fn has(&self, capability: &str) -> bool {
        self.capabilities.iter().any(|name| name == capability)
    }
}

/// Limits and caching for the adapter host.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Most linear memory one adapter instance may use.
    pub memory_limit_bytes: usize,
    /// Wall-clock budget of one call into a guest.
    pub call_timeout: Duration,
    /// An instance whose memory grew past this is rebuilt from its snapshot.
    pub recycle_threshold_bytes: usize,
    /// Where compiled components are cached; no cache when absent.
    pub cache_dir: Option<PathBuf>,
}

impl Default for HostConfig {
    fn default() -> Self {
        Self {
            memory_limit_bytes: 128 << 20,
            call_timeout: Duration::from_secs(2),
            recycle_threshold_bytes: 8 << 20,
            cache_dir: None,
        }
    }
}

/// Something that happened, for an adapter session to react to.
#[derive(Debug, Clone)]
pub enum Input {
    /// Right after the session is created.
    Start,
    /// A user message (starts a turn).
    SendMessage(Vec<MessagePart>),
    ReplyPermission {
        permission_id: String,
        reply: PermissionReply,
    },
    ReplyQuestion {
        question_id: String,
        answers: Vec<Vec<String>>,
    },
    RejectQuestion {
        question_id: String,
    },
    CancelTurn,
    Terminate,
    Stdout {
        process_id: String,
        line: String,
    },
    Stderr {
        process_id: String,
        line: String,
    },
    Exit {
        process_id: String,
        status: ExitStatus,
    },
    SpawnFailed {
        process_id: String,
        message: String,
    },
    HttpResponse(HttpResponse),
    HttpError {
        request_id: String,
        message: String,
    },
    SseEvent(SseEvent),
    SseClosed {
        stream_id: String,
        error: Option<String>,
    },
    Timer {
        timer_id: String,
    },
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
#[derive(Debug, Clone, PartialEq)]
pub struct EmittedEvent {
    pub event_type: UniversalEventType,
    pub data: UniversalEventData,
    pub synthetic: bool,
    /// The native payload, when the adapter passed one.
    pub raw: Option<serde_json::Value>,
}

/// One thing an adapter asked the daemon to do; checked by the host.
#[derive(Debug, Clone)]
pub enum Action {
    Emit(EmittedEvent),
    SetNativeSessionId(String),
    Spawn(SpawnRequest),
    WriteStdin(StdinWrite),
    CloseStdin(String),
    Kill(String),
    /// Only loopback URLs get here.
    HttpRequest(HttpRequest),
    /// Only loopback URLs get here.
    OpenSse(SseRequest),
    CloseSse(String),
    SetTimer(TimerRequest),
    CancelTimer(String),
    /// Its path is relative, without `..`: it stays inside the scratch folder.
    WriteFile(FileWrite),
}
