//! What reaches a session's core from the session's own I/O.

use agentplex_adapter_types::Input;
use agentplex_universal::{BudgetReachedData, ModelUsageData};

/// What reaches a session task from its own I/O.
pub enum Incoming {
    /// Something for the adapter.
    Adapter(Input),
    /// A process the driver started for an `Io(Spawn)`: its pid and start time
    /// (clock ticks since boot) go into checkpoints. It replaces any process of
    /// the same id.
    ProcessStarted {
        /// The adapter's name for it.
        process_id: String,
        /// Its pid.
        pid: u32,
        /// When the kernel started it, to recognise it after a restart.
        started: Option<u64>,
    },
    /// A process is gone (it exited) but its exit is not reported yet: its last
    /// output is still being read, and an [`Input::Exit`] follows.
    ProcessGone {
        /// The adapter's name for it.
        process_id: String,
    },
    /// A process printed a line longer than the limit; it is not given to the adapter.
    LineTooLong {
        /// The process.
        process_id: String,
        /// Which of its streams.
        stream: Stream,
        /// The line's length, in bytes.
        length: usize,
        /// Its first bytes.
        head: String,
    },
    /// One model call of the agent, metered by the daemon on its way to the
    /// provider: it becomes a `model.usage` event and adds to the totals.
    ModelUsage(ModelUsageData),
    /// A budget the session's model calls fall under was reached: it becomes a
    /// `budget.reached` event, and the running turn is cancelled.
    BudgetReached(BudgetReachedData),
    /// The policy left permission request `permission_id` to the client, and it
    /// waited past the policy's `askTimeoutSecs`: it is denied (unless answered
    /// meanwhile).
    AskExpired {
        /// The request.
        permission_id: String,
    },
}

impl Incoming {
    /// Bytes of agent output the message carries, as the budget counts them.
    pub fn size(&self) -> usize {
        match self {
            Incoming::Adapter(Input::Stdout { line, .. } | Input::Stderr { line, .. }) => {
                line.len()
            }
            Incoming::Adapter(Input::SseEvent(event)) => event.data.len() + event.event.len(),
            Incoming::Adapter(_)
            | Incoming::ProcessStarted { .. }
            | Incoming::ProcessGone { .. }
            | Incoming::ModelUsage(_)
            | Incoming::BudgetReached(_)
            | Incoming::AskExpired { .. } => 0,
            Incoming::LineTooLong { head, .. } => head.len(),
        }
    }
}

/// Which output stream a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

impl Stream {
    /// `stdout` or `stderr`.
    pub fn name(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}
