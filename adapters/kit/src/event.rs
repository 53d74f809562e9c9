//! Constructors for the universal events adapters emit.
//!
//! Each function returns an [`EmittedEvent`] that is *native* (`synthetic: false`, no
//! `raw`); chain [`EmittedEvent::synthetic`] for an event the adapter made up to fill a
//! gap in the agent's stream, and [`EmittedEvent::with_raw`] to keep the native payload
//! it came from:
//!
//! ```
//! use sandbox_agent_adapter_kit::prelude::*;
//!
//! let started = event::turn_started(Turn::default()).synthetic();
//! let line = r#"{"type":"result","usage":{}}"#;
//! let ended = event::turn_ended(Turn::default().with_usage(Usage::tokens(12, 40))).with_raw(line);
//! assert!(started.synthetic && ended.raw.is_some());
//! ```
//!
//! A few functions return the whole lifecycle of an item at once
//! ([`user_message`], [`assistant_message`]).

use serde::Deserialize;

use crate::item;
use crate::types::{
    EmittedEvent, ErrorInfo, Event, Item, ItemDelta, MessagePart, Permission, PermissionReply,
    PermissionStatus, Question, QuestionStatus, SessionEndReason, SessionEnded, TerminatedBy, Turn,
    Unparsed, Usage,
};

impl EmittedEvent {
    /// A native event: reported by the agent, no raw payload.
    pub fn native(event: Event) -> Self {
        Self {
            event,
            synthetic: false,
            raw: None,
        }
    }

    /// Marks the event as made up by the adapter (`source: daemon` in the envelope).
    pub fn synthetic(mut self) -> Self {
        self.synthetic = true;
        self
    }

    /// Keeps the native payload (JSON text; see [`crate::text::raw_json`] for a
    /// non-JSON line).
    pub fn with_raw(mut self, raw: impl Into<String>) -> Self {
        self.raw = Some(raw.into());
        self
    }
}

/// `session.started`, with optional metadata as JSON text.
pub fn session_started(metadata: Option<String>) -> EmittedEvent {
    EmittedEvent::native(Event::SessionStarted(metadata))
}

/// `session.ended`. After it the host ends the session and kills its processes.
pub fn session_ended(
    reason: SessionEndReason,
    terminated_by: TerminatedBy,
    message: Option<String>,
) -> EmittedEvent {
    EmittedEvent::native(Event::SessionEnded(SessionEnded {
        reason,
        terminated_by,
        message,
        exit_code: None,
        stderr: None,
    }))
}

impl Turn {
    /// A turn with the given id and nothing else.
    pub fn with_id(turn_id: impl Into<String>) -> Self {
        Self {
            turn_id: Some(turn_id.into()),
            ..Self::default()
        }
    }

    /// Adds the turn's token usage (for `turn.ended`).
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = Some(usage);
        self
    }

    /// Adds free-form metadata (JSON text).
    pub fn with_metadata(mut self, metadata: impl Into<String>) -> Self {
        self.metadata = Some(metadata.into());
        self
    }
}

#[allow(clippy::derivable_impls)]
impl Default for Turn {
    /// A turn with no id, metadata or usage.
    fn default() -> Self {
        Self {
            turn_id: None,
            metadata: None,
            usage: None,
        }
    }
}

impl Usage {
    /// Input and output token counts, nothing else reported.
    pub fn tokens(input: u64, output: u64) -> Self {
        Self {
            input_tokens: Some(input),
            output_tokens: Some(output),
            cached_tokens: None,
            reasoning_tokens: None,
            cost_usd: None,
        }
    }

    /// The token counts of an Anthropic Messages API `usage` object, as Claude Code and
    /// Amp print them in stream-json: input includes the tokens written to and read
    /// from the prompt cache, `cached` is the part read from it. Missing counts are 0.
    ///
    /// ```
    /// use sandbox_agent_adapter_kit::prelude::*;
    ///
    /// let usage = Usage::from_anthropic(&serde_json::json!({
    ///     "input_tokens": 10, "cache_creation_input_tokens": 5,
    ///     "cache_read_input_tokens": 100, "output_tokens": 7,
    /// }));
    /// assert_eq!(usage.input_tokens, Some(115));
    /// assert_eq!(usage.cached_tokens, Some(100));
    /// assert_eq!(usage.output_tokens, Some(7));
    ///
    /// let absurd = Usage::from_anthropic(&serde_json::json!({
    ///     "input_tokens": u64::MAX, "cache_read_input_tokens": 1,
    /// }));
    /// assert_eq!(absurd.input_tokens, Some(u64::MAX));
    /// ```
    pub fn from_anthropic(usage: &serde_json::Value) -> Self {
        let usage = match usage {
            serde_json::Value::Object(_) => {
                crate::native::AnthropicUsage::deserialize(usage).unwrap_or_default()
            }
            _ => crate::native::AnthropicUsage::default(),
        };
        Self::from(&usage)
    }
}

impl From<&crate::native::AnthropicUsage> for Usage {
    /// Input includes the tokens written to and read from the prompt cache, `cached`
    /// is the part read from it; absurd counts saturate rather than overflow.
    fn from(usage: &crate::native::AnthropicUsage) -> Self {
        let cached = usage.cache_read_input_tokens;
        Self {
            input_tokens: Some(
                usage
                    .input_tokens
                    .saturating_add(usage.cache_creation_input_tokens)
                    .saturating_add(cached),
            ),
            output_tokens: Some(usage.output_tokens),
            cached_tokens: Some(cached),
            reasoning_tokens: None,
            cost_usd: None,
        }
    }
}

/// `turn.started`.
pub fn turn_started(turn: Turn) -> EmittedEvent {
    EmittedEvent::native(Event::TurnStarted(turn))
}

/// `turn.ended`; the host starts the next queued message after it.
pub fn turn_ended(turn: Turn) -> EmittedEvent {
    EmittedEvent::native(Event::TurnEnded(turn))
}

/// `item.started` with the item as it is when it starts (usually in progress).
pub fn item_started(item: Item) -> EmittedEvent {
    EmittedEvent::native(Event::ItemStarted(item))
}

/// `item.delta`: a streamed piece of an item's text or of a tool's output.
pub fn item_delta(item_id: impl Into<String>, delta: impl Into<String>) -> EmittedEvent {
    EmittedEvent::native(Event::ItemDelta(ItemDelta {
        item_id: item_id.into(),
        native_item_id: None,
        delta: delta.into(),
    }))
}

/// `item.delta` that also names the agent's own id of the item.
///
/// ```
/// use sandbox_agent_adapter_kit::prelude::*;
///
/// let delta = event::native_item_delta("itm_2", "msg_abc", "Hel");
/// let Event::ItemDelta(data) = &delta.event else { unreachable!() };
/// assert_eq!(data.native_item_id.as_deref(), Some("msg_abc"));
/// assert_eq!((data.item_id.as_str(), data.delta.as_str()), ("itm_2", "Hel"));
/// ```
pub fn native_item_delta(
    item_id: impl Into<String>,
    native_item_id: impl Into<String>,
    delta: impl Into<String>,
) -> EmittedEvent {
    EmittedEvent::native(Event::ItemDelta(ItemDelta {
        item_id: item_id.into(),
        native_item_id: Some(native_item_id.into()),
        delta: delta.into(),
    }))
}

/// `item.completed` with the item's final content and status.
pub fn item_completed(item: Item) -> EmittedEvent {
    EmittedEvent::native(Event::ItemCompleted(item))
}

/// The user's message as a completed `user` item: `item.started` then `item.completed`,
/// both synthetic (for agents that do not echo the prompt, which is most of them).
pub fn user_message(item_id: impl Into<String>, parts: &[MessagePart]) -> [EmittedEvent; 2] {
    let item = item::user_message(item_id, parts);
    [
        item_started(
            item.clone()
                .with_status(crate::types::ItemStatus::InProgress),
        )
        .synthetic(),
        item_completed(item).synthetic(),
    ]
}

/// The `item.started` of an assistant text message that will be streamed: in progress,
/// no content yet. Follow it with [`item_delta`]s and [`assistant_text_completed`].
pub fn assistant_text_started(item_id: impl Into<String>) -> EmittedEvent {
    item_started(
        item::assistant_text(item_id, "")
            .in_progress()
            .without_content(),
    )
}

/// The `item.completed` of an assistant text message with its full text.
pub fn assistant_text_completed(
    item_id: impl Into<String>,
    text: impl Into<String>,
) -> EmittedEvent {
    item_completed(item::assistant_text(item_id, text))
}

/// A whole assistant text message: `item.started`, one `item.delta` per chunk, and
/// `item.completed` with the chunks joined. Pass one chunk for an agent that does not
/// stream (the seed's "single synthetic delta"), several to simulate streaming.
pub fn assistant_message<S: AsRef<str>>(
    item_id: impl Into<String>,
    chunks: impl IntoIterator<Item = S>,
) -> Vec<EmittedEvent> {
    let item_id = item_id.into();
    let mut events = vec![assistant_text_started(item_id.clone())];
    let mut text = String::new();
    for chunk in chunks {
        text.push_str(chunk.as_ref());
        events.push(item_delta(item_id.clone(), chunk.as_ref()));
    }
    events.push(assistant_text_completed(item_id, text));
    events
}

impl Permission {
    /// A pending request (`status: requested`).
    pub fn requested(
        permission_id: impl Into<String>,
        action: impl Into<String>,
        metadata: Option<String>,
    ) -> Self {
        Self {
            permission_id: permission_id.into(),
            action: action.into(),
            status: PermissionStatus::Requested,
            metadata,
        }
    }

    /// The same request with the client's decision.
    pub fn resolved(&self, reply: PermissionReply) -> Self {
        Self {
            status: reply.status(),
            ..self.clone()
        }
    }
}

impl PermissionReply {
    /// The status a reply resolves a request with: `once` → `accept`, `always` →
    /// `accept_for_session`, `reject` → `reject`.
    pub fn status(self) -> PermissionStatus {
        match self {
            PermissionReply::Once => PermissionStatus::Accept,
            PermissionReply::Always => PermissionStatus::AcceptForSession,
            PermissionReply::Reject => PermissionStatus::Reject,
        }
    }
}

/// `permission.requested`; the client answers with `reply-permission`.
pub fn permission_requested(permission: Permission) -> EmittedEvent {
    EmittedEvent::native(Event::PermissionRequested(permission))
}

/// `permission.resolved`.
pub fn permission_resolved(permission: Permission) -> EmittedEvent {
    EmittedEvent::native(Event::PermissionResolved(permission))
}

impl Question {
    /// A pending question (`status: requested`, no response).
    pub fn requested<S: Into<String>>(
        question_id: impl Into<String>,
        prompt: impl Into<String>,
        options: impl IntoIterator<Item = S>,
    ) -> Self {
        Self {
            question_id: question_id.into(),
            prompt: prompt.into(),
            options: options.into_iter().map(Into::into).collect(),
            status: QuestionStatus::Requested,
            response: None,
        }
    }

    /// The same question, answered. The response is every chosen option, in order,
    /// joined with `", "` (`None` when nothing was chosen).
    pub fn answered(&self, answers: &[Vec<String>]) -> Self {
        let chosen: Vec<&str> = answers.iter().flatten().map(String::as_str).collect();
        let response = (!chosen.is_empty()).then(|| chosen.join(", "));
        Self {
            status: QuestionStatus::Answered,
            response,
            ..self.clone()
        }
    }

    /// The same question, declined by the client.
    pub fn rejected(&self) -> Self {
        Self {
            status: QuestionStatus::Rejected,
            response: None,
            ..self.clone()
        }
    }
}

/// `question.requested`; the client answers with `reply-question` or `reject-question`.
pub fn question_requested(question: Question) -> EmittedEvent {
    EmittedEvent::native(Event::QuestionRequested(question))
}

/// `session.ended` for a session the daemon ended (`terminate`): reason
/// `terminated`, by the daemon.
pub fn session_terminated() -> EmittedEvent {
    session_ended(SessionEndReason::Terminated, TerminatedBy::Daemon, None)
}

/// `session.ended` for a session that failed: reason `error`, ended by the agent,
/// with `message` and the agent process's exit code when it exited. Adapters emit
/// it (synthetic) after an [`error`] event and the end of the running turn.
///
/// ```
/// use sandbox_agent_adapter_kit::prelude::*;
///
/// let ended = event::session_failed("claude exited with code 1", Some(1));
/// let Event::SessionEnded(data) = &ended.event else { unreachable!() };
/// assert_eq!((data.reason, data.terminated_by), (SessionEndReason::Error, TerminatedBy::Agent));
/// assert_eq!(data.exit_code, Some(1));
/// assert_eq!(data.message.as_deref(), Some("claude exited with code 1"));
/// ```
pub fn session_failed(message: impl Into<String>, exit_code: Option<i32>) -> EmittedEvent {
    let mut ended = session_ended(
        SessionEndReason::Error,
        TerminatedBy::Agent,
        Some(message.into()),
    );
    if let Event::SessionEnded(data) = &mut ended.event {
        data.exit_code = exit_code;
    }
    ended
}

/// `question.resolved`.
pub fn question_resolved(question: Question) -> EmittedEvent {
    EmittedEvent::native(Event::QuestionResolved(question))
}

/// `error`: a runtime error the client should see; the session goes on.
pub fn error(message: impl Into<String>, code: Option<&str>) -> EmittedEvent {
    error_with_details(message, code, None)
}

/// The `error` for a message that arrived while a turn runs (code `turn_running`): the
/// host queues messages until `turn.ended`, so this is a host bug.
pub fn turn_running() -> EmittedEvent {
    error("a turn is already running", Some("turn_running"))
}

/// `error` with free-form details (JSON text).
pub fn error_with_details(
    message: impl Into<String>,
    code: Option<&str>,
    details: Option<String>,
) -> EmittedEvent {
    EmittedEvent::native(Event::Error(ErrorInfo {
        message: message.into(),
        code: code.map(str::to_owned),
        details,
    }))
}

/// `agent.unparsed` for native output the adapter did not understand, with the payload
/// kept as the event's `raw` (JSON text: use [`crate::text::raw_json`] for a line that
/// may not be JSON). `location` says where it came from (`stdout`, `sse:message`...).
pub fn unparsed(
    error: impl Into<String>,
    location: impl Into<String>,
    raw: impl Into<String>,
) -> EmittedEvent {
    EmittedEvent::native(Event::AgentUnparsed(Unparsed {
        error: error.into(),
        location: location.into(),
        raw_hash: None,
    }))
    .with_raw(raw)
}
