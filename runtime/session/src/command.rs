//! A client's request, as the core takes it.

use agentplex_adapter_types::{MessagePart, PermissionReply};

use crate::queue::Ticket;

/// A client's request, as the core sees it.
#[derive(Debug)]
pub enum Command {
    /// Start the adapter (a new session's first input).
    Start,
    /// A user message: it starts a turn now, or waits for the running one.
    Send {
        /// The message.
        parts: Vec<MessagePart>,
        /// Told back in [`Effect::TurnStarted`] when the message's turn starts.
        ticket: Option<Ticket>,
    },
    /// Answer a pending permission request.
    ReplyPermission {
        /// The request's id.
        permission_id: String,
        /// Once, always, or reject.
        reply: PermissionReply,
    },
    /// Answer a pending question.
    ReplyQuestion {
        /// The question's id.
        question_id: String,
        /// The options chosen, per question asked.
        answers: Vec<Vec<String>>,
    },
    /// Decline a pending question.
    RejectQuestion {
        /// The question's id.
        question_id: String,
    },
    /// Stop the running turn (nothing when none runs).
    Cancel,
    /// Replace the caps on what the session's model calls may spend.
    SetBudget(agentplex_universal::BudgetLimits),
    /// Replace the session's approval policy (`None`: none; requests already
    /// pending stay as they were). The adapter is told too, so an agent it
    /// handed native rules gets the new policy's.
    SetPolicy(Option<serde_json::Value>),
    /// Run with these modes from the next message on (the transcript says so;
    /// the adapter gets them with [`crate::Effect::Modes`]).
    SetModes(crate::Modes),
    /// End the session.
    Terminate,
    /// Daemon shutdown with a durable store: stop without ending the session,
    /// leaving the last checkpoint for the next daemon to resume from.
    Suspend,
}
