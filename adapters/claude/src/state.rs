//! The session's serializable state: what [`crate::ClaudeSession::snapshot`] keeps.

use std::collections::{BTreeMap, BTreeSet};

use sandbox_agent_adapter_kit::native_rules::NativeRules;
use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::process_state::{ProcessState, WithProcess};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The kit's output helper over this state: what the handlers of the CLI's lines
/// and of the client's replies emit and write through.
pub(crate) type Out<'a> = sandbox_agent_adapter_kit::process_state::Output<'a, State>;

/// Everything but the configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct State {
    /// Ids, the agent's session id, the live process, the running turn, the end.
    #[serde(flatten)]
    pub header: ProcessState<Process, TurnState>,
    /// Permission requests and questions the client has not answered, by universal id.
    pub pending: BTreeMap<String, Pending>,
    /// Answers collected so far for `AskUserQuestion` requests with several questions,
    /// by the CLI's request id: question text → answer.
    pub answers: BTreeMap<String, BTreeMap<String, String>>,
    /// Tools the client allowed for the rest of the session (`always`).
    pub always_allowed: BTreeSet<String>,
    /// The permission rules handed to the CLI for the session's approval policy,
    /// and the calls it decided by them (from the configuration, not kept).
    #[serde(skip)]
    pub native: NativeRules,
}

/// What the adapter keeps of the session's CLI process (a `LiveProcess`, whose id is
/// `claude_<n>`: a fresh one per launch, so output of a killed predecessor is never
/// mistaken for the live one's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Process {
    /// The `total_cost_usd` it last reported: the CLI sums the cost per process, turns
    /// get the difference.
    pub cost_usd: f64,
    /// The permission mode it runs with (`--permission-mode`, or the last
    /// `set_permission_mode`); unknown in the snapshots of older adapters.
    #[serde(default)]
    pub permission_mode: Option<String>,
    /// The model it runs with (`--model`, or the last `set_model`); none when
    /// it runs its own default, or in the snapshots of older adapters.
    #[serde(default)]
    pub model: Option<String>,
    /// The effort level it runs with (`--effort`, or the last
    /// `apply_flag_settings`); none when it runs its own default, or in the
    /// snapshots of older adapters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// What the adapter keeps of the running turn (a `RunningTurn`, which is cancelling once an
/// interrupt was sent: its `result` then ends the turn as cancelled).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct TurnState {
    /// An `error` event was emitted for this turn (the `result` repeats it).
    pub errored: bool,
    /// Content blocks streamed with `stream_event`s whose `assistant` line has not
    /// arrived yet.
    pub blocks: Vec<OpenBlock>,
    /// The message each stream (by `parent_tool_use_id`, empty for the main agent)
    /// is streaming.
    pub messages: BTreeMap<String, String>,
    /// The tool calls of the turn, by the CLI's `tool_use` id.
    pub tools: BTreeMap<String, ToolCall>,
    /// The tool calls the CLI asked permission for (`can_use_tool`), by `tool_use`
    /// id: the others of [`crate::launch::DECIDED_TOOLS`] it decided by its rules.
    #[serde(default)]
    pub asked: BTreeSet<String>,
}

/// A content block that is streaming.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct OpenBlock {
    /// The stream it belongs to (`parent_tool_use_id`, empty for the main agent).
    pub stream: String,
    /// The model's message id.
    pub message_id: String,
    /// Its index in the message.
    pub index: u64,
    /// The universal item it streams into.
    pub item_id: String,
    /// What it holds.
    pub kind: BlockKind,
    /// The text streamed so far (text, thinking, or tool input JSON).
    pub text: String,
}

/// The kind of a streamed content block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum BlockKind {
    /// Assistant text.
    Text,
    /// Extended thinking.
    Thinking,
    /// A tool call being written.
    ToolUse {
        /// The CLI's `tool_use` id.
        call_id: String,
        /// The tool's name.
        name: String,
    },
}

/// A tool call of the running turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ToolCall {
    /// Its `tool_call` item.
    pub item_id: String,
    /// The tool's name (`Bash`, `Write`...).
    pub name: String,
    /// Its input.
    pub input: Value,
}

/// A request the client has to answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Pending {
    /// The CLI's `control_request` id to answer.
    pub request_id: String,
    /// The tool input to allow.
    pub input: Value,
    /// What the client is asked.
    pub kind: PendingKind,
}

/// What a pending request asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum PendingKind {
    /// May the agent use a tool?
    Permission {
        /// The universal request.
        permission: Permission,
        /// The tool's name.
        tool: String,
        /// The CLI's suggested rules for "don't ask again".
        suggestions: Option<Value>,
    },
    /// One question of an `AskUserQuestion` call.
    Question {
        /// The universal question.
        question: Question,
    },
    /// Approve the plan of an `ExitPlanMode` call?
    Plan {
        /// The universal question (options `approve`, `reject`).
        question: Question,
    },
}

impl Pending {
    /// The universal id the client answers with.
    pub fn id(&self) -> &str {
        match &self.kind {
            PendingKind::Permission { permission, .. } => &permission.permission_id,
            PendingKind::Question { question } | PendingKind::Plan { question } => {
                &question.question_id
            }
        }
    }
}

impl WithProcess for State {
    type Process = Process;
    type Turn = TurnState;

    fn header(&self) -> &ProcessState<Process, TurnState> {
        &self.header
    }

    fn header_mut(&mut self) -> &mut ProcessState<Process, TurnState> {
        &mut self.header
    }
}
