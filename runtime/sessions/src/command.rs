//! What the HTTP layer asks of a session's task: the core's own [`Command`], and
//! for a message, who waits for its turn to start. The task gives that waiter a
//! [`Ticket`] the core tells back when the turn starts.

use std::collections::BTreeMap;

use tokio::sync::oneshot;

use crate::SessionError;
use agentplex_session::{Command, Ticket};

/// A command and where to report its outcome.
pub struct Request {
    /// What is asked.
    pub command: Asked,
    /// For a `Send`: told the last sequence before the message's turn starts.
    pub turn_started: Option<oneshot::Sender<u64>>,
    /// Where its outcome goes.
    pub done: oneshot::Sender<Result<(), SessionError>>,
}

/// What a request asks of a session's task.
pub enum Asked {
    /// A command of the core (a `Send` comes without a ticket: the task issues one).
    Core(Command),
    /// The state the task last stored, for an export; answered once what the
    /// task took in is stored.
    Capture(oneshot::Sender<Captured>),
}

/// A session's state as stored: the checkpoint, the adapter's state with it and
/// the last event it covers. A daemon started on them carries the session on.
#[derive(Debug, Clone)]
pub struct Captured {
    pub checkpoint: agentplex_store::Checkpoint,
    pub snapshot: Option<Vec<u8>>,
    pub last_sequence: u64,
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

    /// `command` as the core takes it: a `Send` whose turn someone waits for
    /// (`turn_started`) carries a fresh ticket for them.
    pub fn issue(
        &mut self,
        mut command: Command,
        turn_started: Option<oneshot::Sender<u64>>,
    ) -> Command {
        if let (Command::Send { ticket, .. }, Some(sender)) = (&mut command, turn_started) {
            self.last += 1;
            self.waiting.insert(self.last, sender);
            *ticket = Some(self.last);
        }
        command
    }
}
