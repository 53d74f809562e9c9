//! What the HTTP layer asks of a session's task, and how the task hands it to
//! the session core: the same requests, with a ticket in place of the channel
//! that waits for a queued message's turn to start.

use std::collections::BTreeMap;

use sandbox_agent_host::{MessagePart, PermissionReply};
use tokio::sync::oneshot;

use crate::SessionError;
use agentplex_session::{self as session_core, Ticket};

/// A request from the HTTP layer.
pub enum Command {
    /// Start the adapter (a new session's first request).
    Start,
    /// A user message; `turn_started` hears the last sequence before its turn.
    Send {
        /// The message.
        parts: Vec<MessagePart>,
        /// Told when the message's turn starts.
        turn_started: Option<oneshot::Sender<u64>>,
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
    /// Stop the running turn.
    Cancel,
    /// End the session.
    Terminate,
    /// Daemon shutdown with a durable store: stop without ending the session,
    /// leaving the last checkpoint for the next daemon to resume from.
    Suspend,
}

/// A command and where to report its outcome.
pub struct Request {
    /// What is asked.
    pub command: Command,
    /// Where its outcome goes.
    pub done: oneshot::Sender<Result<(), SessionError>>,
}

/// Who waits for the turn of a queued message to start, by the ticket the core
/// knows the message by.
#[derive(Default)]
pub struct Tickets {
    waiting: BTreeMap<Ticket, oneshot::Sender<u64>>,
    last: Ticket,
}

impl Tickets {
    /// The message with `ticket` starts its turn after sequence `after`.
    pub fn turn_started(&mut self, ticket: Ticket, after: u64) {
        if let Some(sender) = self.waiting.remove(&ticket) {
            let _ = sender.send(after);
        }
    }

    /// A ticket for whoever waits on `sender`.
    fn issue(&mut self, sender: oneshot::Sender<u64>) -> Ticket {
        self.last += 1;
        self.waiting.insert(self.last, sender);
        self.last
    }
}

impl Command {
    /// The command as the core takes it (a waiting sender becomes a ticket).
    pub fn into_core(self, tickets: &mut Tickets) -> session_core::Command {
        match self {
            Command::Start => session_core::Command::Start,
            Command::Send {
                parts,
                turn_started,
            } => session_core::Command::Send {
                parts,
                ticket: turn_started.map(|sender| tickets.issue(sender)),
            },
            Command::ReplyPermission {
                permission_id,
                reply,
            } => session_core::Command::ReplyPermission {
                permission_id,
                reply,
            },
            Command::ReplyQuestion {
                question_id,
                answers,
            } => session_core::Command::ReplyQuestion {
                question_id,
                answers,
            },
            Command::RejectQuestion { question_id } => {
                session_core::Command::RejectQuestion { question_id }
            }
            Command::Cancel => session_core::Command::Cancel,
            Command::Terminate => session_core::Command::Terminate,
            Command::Suspend => session_core::Command::Suspend,
        }
    }
}
