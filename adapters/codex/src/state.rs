//! The session's serializable state: everything [`crate::CodexSession::snapshot`]
//! keeps, so a restored session continues where it was (mid-turn included).

use std::collections::{BTreeMap, BTreeSet};

use sandbox_agent_adapter_kit::native_rules::NativeRules;
use sandbox_agent_adapter_kit::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Format version of the snapshot; bump it when [`State`] changes shape.
pub(crate) const STATE_VERSION: u32 = 1;

/// The whole state of one session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct State {
    /// Item, permission, question and request numbers.
    pub ids: IdCounter,
    /// How far this session's connection to the shared app-server is.
    pub link: Link,
    /// The Codex thread of this session, once opened (kept across server restarts so
    /// the next connection resumes it).
    pub thread: Option<String>,
    /// The model the thread runs, as the server reported it.
    pub model: Option<String>,
    /// This session's requests that wait for a response, by JSON-RPC id.
    pub calls: BTreeMap<String, Call>,
    /// The running turn.
    pub turn: Option<TurnState>,
    /// Server requests (approvals, questions) waiting for the client, by our id.
    pub requests: BTreeMap<String, Pending>,
    /// Warnings Codex printed while no turn could show them (before the user's
    /// message), as `(message, native line)`; shown in the next turn.
    pub notices: Vec<(String, String)>,
    /// True once `session.ended` was emitted.
    pub ended: bool,
    /// The agent mode and permission mode the thread was last given (at its
    /// start or resume, or with a turn): a turn after the session's modes
    /// changed gives it the new ones. Unknown in older snapshots.
    #[serde(default)]
    pub given_modes: Option<(String, String)>,
    /// The session's approval policy as Codex is handed it, and the calls it
    /// decided by it (from the configuration, not kept).
    #[serde(skip)]
    pub native: NativeRules,
}

/// The connection to the app-server, as this session sees it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Link {
    /// No process (never spawned, or it exited).
    #[default]
    Down,
    /// Spawned (or attached); `initialize` sent.
    Initializing,
    /// Initialized, no thread loaded (Codex closed it).
    Connected,
    /// Initialized; `thread/start` or `thread/resume` sent.
    Opening,
    /// The thread is loaded: turns can start.
    Ready,
}

/// What one of this session's requests was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Call {
    Initialize,
    /// `thread/start` (`resume: false`) or `thread/resume`.
    OpenThread {
        resume: bool,
    },
    StartTurn,
    Interrupt,
    Unsubscribe,
}

/// The running turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct TurnState {
    /// The user's message, kept until `turn/start` is sent and for the user item.
    pub parts: Vec<MessagePart>,
    /// Codex's turn id, from the `turn/start` response.
    pub native_id: Option<String>,
    /// True once `turn/start` was written.
    pub sent: bool,
    /// True once `turn.started` was emitted.
    pub started: bool,
    /// Our id of the user item once emitted, and whether it completed.
    pub user_item: Option<(String, bool)>,
    /// Items that started and have not completed, by Codex's item id.
    pub items: BTreeMap<String, OpenItem>,
    /// Tokens reported for this turn so far.
    pub usage: Option<Usage>,
    /// True once the client cancelled the turn.
    pub cancelling: bool,
    /// True once an `error` event reported why the turn failed.
    pub error_reported: bool,
    /// The turn runs with approval policy `never`: the session's approval policy
    /// allows every command and every patch, and Codex was told so.
    #[serde(default)]
    pub never_asks: bool,
    /// The items Codex asked approval for, by its item id.
    #[serde(default)]
    pub asked: BTreeSet<String>,
}

impl TurnState {
    /// A turn for `parts`, not sent yet.
    pub(crate) fn new(parts: Vec<MessagePart>) -> Self {
        Self {
            parts,
            native_id: None,
            sent: false,
            started: false,
            user_item: None,
            items: BTreeMap::new(),
            usage: None,
            cancelling: false,
            error_reported: false,
            never_asks: false,
            asked: BTreeSet::new(),
        }
    }
}

/// An item that started and waits for its deltas and completion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct OpenItem {
    /// The universal item that receives deltas and completes: the message, or a tool's
    /// `tool_result`.
    pub item_id: String,
    /// What the item is.
    pub shape: Shape,
    /// The text streamed so far (kept for an item that never completes).
    pub text: String,
}

/// The universal shape of an open item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Shape {
    /// An assistant text message (`agentMessage`, `plan`).
    Message,
    /// Reasoning (summary and raw text).
    Reasoning,
    /// A tool: its `tool_call` item (completed at start) and `call_id`; the open item
    /// is the `tool_result`. `action` says what it does, for permission requests.
    Tool {
        call_item: String,
        call_id: String,
        action: String,
        /// What an approval of it asks for, for an approval policy (kept since
        /// contract 0.5.0; absent in older snapshots).
        #[serde(default)]
        request: Option<ToolRequest>,
    },
    /// A status notice (review mode, compaction...) with its label; `None` for an
    /// item type the adapter does not know (shown as JSON).
    Status(Option<String>),
}

/// A server request this session answers once the client replies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Pending {
    /// The server's JSON-RPC id, echoed in the answer.
    pub rpc_id: Value,
    /// What is asked.
    pub ask: Ask,
    /// What an approval asks for, for an approval policy (absent for questions,
    /// and in snapshots from before contract 0.5.0).
    #[serde(default)]
    pub request: Option<ToolRequest>,
}

/// What a pending server request asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Ask {
    /// A command or patch approval (`decision` answer).
    Approval(Permission),
    /// Extra sandbox permissions (`item/permissions/requestApproval`): what was asked.
    Permissions {
        permission: Permission,
        requested: Value,
    },
    /// `request_user_input`: the universal question and Codex's question ids, in order.
    Question {
        question: Question,
        ids: Vec<String>,
    },
}
