//! The universal event schema: one transcript format for every coding agent.
//!
//! Adapters translate each agent's native output into these types (through the WIT
//! contract's `events` interface); the daemon wraps them in a [`UniversalEvent`]
//! envelope, stores them and serves them over HTTP. The JSON shape is the 0.1.x
//! wire format (snake_case inside events), so clients written against it keep working;
//! fields we added (`usage`, ...) are optional.

mod budget;
mod decision;
mod offer;
mod usage;

pub use budget::{BudgetAction, BudgetLimit, BudgetLimits, BudgetReachedData, BudgetScope};
pub use decision::{DecidedBy, DecidedInput, PermissionDecidedData, PermissionDecision};
pub use offer::{AgentOffer, OfferedChoice, AGENT_OFFERED};
pub use usage::UsageTotals;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// One event of a session's transcript, as clients receive it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UniversalEvent {
    /// Unique identifier of this event.
    pub event_id: String,
    /// Position in the session's transcript: starts at 1, no gaps.
    pub sequence: u64,
    /// RFC 3339 time the daemon recorded the event.
    pub time: String,
    /// The daemon's session id.
    pub session_id: String,
    /// The agent's own session or thread id, once known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_session_id: Option<String>,
    /// `agent` for native events, `daemon` for synthetic ones.
    pub source: EventSource,
    /// Whether the event fills a gap in the agent's native stream.
    pub synthetic: bool,
    /// What kind of event this is; selects the shape of `data`.
    #[serde(rename = "type")]
    pub event_type: UniversalEventType,
    /// The event's payload.
    pub data: UniversalEventData,
    /// The native payload, only with `include_raw=true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<Value>,
}

/// Who produced an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EventSource {
    /// Translated from the agent's native output.
    Agent,
    /// Made up by the daemon or the adapter to fill a gap.
    Daemon,
}

/// The event types of the universal transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
pub enum UniversalEventType {
    #[serde(rename = "session.started")]
    SessionStarted,
    #[serde(rename = "session.ended")]
    SessionEnded,
    #[serde(rename = "turn.started")]
    TurnStarted,
    #[serde(rename = "turn.ended")]
    TurnEnded,
    #[serde(rename = "item.started")]
    ItemStarted,
    #[serde(rename = "item.delta")]
    ItemDelta,
    #[serde(rename = "item.completed")]
    ItemCompleted,
    #[serde(rename = "error")]
    Error,
    #[serde(rename = "permission.requested")]
    PermissionRequested,
    #[serde(rename = "permission.resolved")]
    PermissionResolved,
    #[serde(rename = "question.requested")]
    QuestionRequested,
    #[serde(rename = "question.resolved")]
    QuestionResolved,
    #[serde(rename = "agent.unparsed")]
    AgentUnparsed,
    /// One model call of the agent, metered by the daemon (always `source: daemon`).
    #[serde(rename = "model.usage")]
    ModelUsage,
    /// A budget the session's model calls fall under was reached (always `source: daemon`).
    #[serde(rename = "budget.reached")]
    BudgetReached,
    /// A permission request was decided under the session's approval policy:
    /// by a rule, its default, the client or a timeout (always `source: daemon`).
    #[serde(rename = "permission.decided")]
    PermissionDecided,
}

impl UniversalEventType {
    /// The wire name (`item.delta`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SessionStarted => "session.started",
            Self::SessionEnded => "session.ended",
            Self::TurnStarted => "turn.started",
            Self::TurnEnded => "turn.ended",
            Self::ItemStarted => "item.started",
            Self::ItemDelta => "item.delta",
            Self::ItemCompleted => "item.completed",
            Self::Error => "error",
            Self::PermissionRequested => "permission.requested",
            Self::PermissionResolved => "permission.resolved",
            Self::QuestionRequested => "question.requested",
            Self::QuestionResolved => "question.resolved",
            Self::AgentUnparsed => "agent.unparsed",
            Self::ModelUsage => "model.usage",
            Self::BudgetReached => "budget.reached",
            Self::PermissionDecided => "permission.decided",
        }
    }

    /// Events after which a streaming turn needs the client (or is over).
    pub fn needs_client(self) -> bool {
        matches!(
            self,
            Self::TurnEnded
                | Self::SessionEnded
                | Self::Error
                | Self::PermissionRequested
                | Self::QuestionRequested
        )
    }
}

/// The payload of an event; which variant is given by the envelope's `type`.
///
/// Untagged on the wire. Variants with required fields come first so that
/// deserializing picks the right one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum UniversalEventData {
    Turn(TurnEventData),
    ModelUsage(ModelUsageData),
    BudgetReached(BudgetReachedData),
    PermissionDecided(PermissionDecidedData),
    SessionEnded(SessionEndedData),
    Item(ItemEventData),
    ItemDelta(ItemDeltaData),
    Permission(PermissionEventData),
    Question(QuestionEventData),
    AgentUnparsed(AgentUnparsedData),
    Error(ErrorData),
    SessionStarted(SessionStartedData),
}

/// Data of `session.started`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SessionStartedData {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// Data of `session.ended`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SessionEndedData {
    pub reason: SessionEndReason,
    pub terminated_by: TerminatedBy,
    /// Error message when the reason is `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Process exit code when the agent process ended the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Captured stderr of the agent's processes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<StderrOutput>,
}

/// Why a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionEndReason {
    Completed,
    Error,
    Terminated,
}

/// Who ended a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TerminatedBy {
    Agent,
    Daemon,
}

/// A bounded excerpt of stderr.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StderrOutput {
    /// First lines, or all of them when not truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// Last lines, only when truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<String>,
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_lines: Option<u64>,
}

/// Data of `turn.started` and `turn.ended`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TurnEventData {
    pub phase: TurnPhase,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Token usage of the turn (on `turn.ended`, when the agent reports it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// Whether a turn event opens or closes the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TurnPhase {
    Started,
    Ended,
}

/// Token and cost accounting of a turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Usage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
    /// Input tokens written to the prompt cache (part of `input_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// Data of `model.usage`: one model call of the agent, as the daemon metered it
/// on its way to the provider. Input counts every token of the prompt, the cache
/// reads and writes included; output counts the reasoning tokens too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ModelUsageData {
    /// The model that answered, as the provider names it.
    pub model: String,
    /// Prompt tokens, the cache reads and writes included.
    pub input_tokens: u64,
    /// Tokens generated, the reasoning tokens included.
    pub output_tokens: u64,
    /// Prompt tokens read from the provider's prompt cache.
    pub cache_read_tokens: u64,
    /// Prompt tokens written to the provider's prompt cache.
    pub cache_write_tokens: u64,
    /// Tokens the model spent reasoning.
    pub reasoning_tokens: u64,
    /// What the call cost in US dollars; absent when the model's price is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The call's wire format: `anthropic-messages`, `openai-responses`,
    /// `openai-chat-completions` or `gemini`.
    pub format: String,
    /// The HTTP status the provider answered with.
    pub status: u16,
    /// From the request to the last byte of the answer, in milliseconds.
    pub duration_ms: u64,
    /// Whether the answer arrived whole: `false` when it broke off, the counts then
    /// being what had arrived.
    pub complete: bool,
    /// Why the call failed though the provider answered it with a success: its
    /// answer broke off, fell silent, or ended without what ends a well-formed
    /// answer (an `error` event with code `model_call_failed` follows). Absent
    /// for a call that ended well, one the agent hung up on or a budget cut, and
    /// one answered with an error `status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Data of `item.started` and `item.completed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ItemEventData {
    pub item: UniversalItem,
}

/// Data of `item.delta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ItemDeltaData {
    pub item_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_item_id: Option<String>,
    pub delta: String,
}

/// Data of `error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ErrorData {
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// Data of `agent.unparsed`: native output the adapter did not understand. The
/// native text is kept in the event's `raw`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AgentUnparsedData {
    pub error: String,
    pub location: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_hash: Option<String>,
}

/// Data of `permission.requested` and `permission.resolved`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PermissionEventData {
    pub permission_id: String,
    /// What the agent wants to do.
    pub action: String,
    pub status: PermissionStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// State of a permission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PermissionStatus {
    Requested,
    Accept,
    AcceptForSession,
    Reject,
}

/// Data of `question.requested` and `question.resolved`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct QuestionEventData {
    pub question_id: String,
    pub prompt: String,
    pub options: Vec<String>,
    pub status: QuestionStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
}

/// State of a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum QuestionStatus {
    Requested,
    Answered,
    Rejected,
}

/// A discrete unit of a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UniversalItem {
    pub item_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_item_id: Option<String>,
    /// The item this one belongs to (a subagent's parent tool call...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    pub kind: ItemKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<ItemRole>,
    pub status: ItemStatus,
    pub content: Vec<ContentPart>,
}

/// What an item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    Message,
    ToolCall,
    ToolResult,
    System,
    Status,
    Unknown,
}

/// Who produced an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ItemRole {
    User,
    Assistant,
    System,
    Tool,
}

/// Lifecycle state of an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ItemStatus {
    InProgress,
    Completed,
    Failed,
}

/// One typed piece of an item's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    Text {
        text: String,
    },
    Json {
        json: Value,
    },
    ToolCall {
        name: String,
        arguments: String,
        call_id: String,
    },
    ToolResult {
        call_id: String,
        output: String,
    },
    FileRef {
        path: String,
        action: FileAction,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        diff: Option<String>,
    },
    Reasoning {
        text: String,
        visibility: ReasoningVisibility,
    },
    Image {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime: Option<String>,
    },
    Status {
        label: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
}

/// The [`ContentPart::Status`] label of the system item that records a change
/// of a session's modes or model (`PUT /v1/sessions/{id}/modes`, ACP's
/// `session/set_mode` and `session/set_model`); its detail is them from then
/// on as JSON: `{"agentMode": ..., "permissionMode": ..., "model": ...}` (the
/// model once one is named). Reserved to the daemon: an adapter's status item
/// with this label is relabelled.
pub const MODES_CHANGED: &str = "modes changed";

/// What happened to a referenced file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileAction {
    Read,
    Write,
    Patch,
}

/// Whether reasoning text is meant for end users.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningVisibility {
    Public,
    Private,
}

#[cfg(test)]
mod tests;
