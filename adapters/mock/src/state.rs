//! The mock's serializable state: what [`crate::MockSession::snapshot`] keeps, the
//! turn that runs and what it waits for.

use std::collections::{BTreeMap, BTreeSet};

use sandbox_agent_adapter_kit::prelude::*;
use serde::{Deserialize, Serialize};

/// The mock's serializable state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct State {
    /// Item, call, process and timer ids, and turn numbers.
    pub ids: IdCounter,
    /// The turn that waits for something (a reply, a process, a timer); `None` when
    /// no turn is running (turns that finish within one call are never stored).
    pub turn: Option<RunningTurn>,
    /// Requests `demo` left pending without holding its turn open, by id.
    pub detached_permissions: BTreeMap<String, Permission>,
    /// Questions `demo` left pending without holding its turn open, by id.
    pub detached_questions: BTreeMap<String, Question>,
    /// Permission actions the client allowed for the rest of the session (`always`).
    pub allowed_for_session: BTreeSet<String>,
    /// Usage of the finished turns.
    pub totals: Totals,
    /// True once `session.ended` was emitted.
    pub ended: bool,
}

/// Token usage summed over the session's finished turns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Totals {
    pub turns: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// The bookkeeping of one turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct TurnInfo {
    /// `turn_<number>`.
    pub id: String,
    /// The turn's number in the session, from 1. Names fixture paths and request ids.
    pub number: u64,
    /// Words in the user's message.
    pub input_tokens: u64,
    /// Words of assistant text emitted so far.
    pub output_tokens: u64,
    /// Words of reasoning text emitted so far.
    pub reasoning_tokens: u64,
    /// Report every usage field on `turn.ended` (the `usage` command).
    pub full_usage: bool,
}

/// A turn that waits for an input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunningTurn {
    pub info: TurnInfo,
    pub waiting: Waiting,
}

/// What a running turn waits for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Waiting {
    /// A reply to `permission`; then the turn continues with `then`.
    Permission {
        permission: Permission,
        then: AfterPermission,
    },
    /// A reply to `question`, or its rejection.
    Question { question: Question },
    /// The exit of a `shell` command's process, streaming its output meanwhile.
    Shell {
        process_id: String,
        command: String,
        call_id: String,
        /// The in-progress `tool_result` item that receives the output.
        item_id: String,
        stdout: String,
        stderr: String,
    },
    /// The next tick of a `slow` stream.
    Slow {
        timer_id: String,
        /// The in-progress assistant message.
        item_id: String,
        done: u32,
        total: u32,
        text: String,
    },
}

/// What a turn does once its permission request is answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum AfterPermission {
    /// Say what was decided about `command`.
    Report { command: String },
    /// Run the `tool` sequence (when allowed), as the 0.1.x tool test prompt did.
    ToolSequence { command: String },
}

impl TurnInfo {
    pub(crate) fn new(number: u64, input_tokens: u64) -> Self {
        Self {
            id: format!("turn_{number}"),
            number,
            input_tokens,
            output_tokens: 0,
            reasoning_tokens: 0,
            full_usage: false,
        }
    }
}
