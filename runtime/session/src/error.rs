//! Why the core refuses a command.

/// A command the core answered with a refusal; the session goes on unless it ended.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoreError {
    /// The session ended: it takes no more commands.
    #[error("session {session_id:?} has ended")]
    SessionEnded {
        /// The session.
        session_id: String,
    },
    /// The permission or question answered is not pending.
    #[error("{what} {id:?} is not pending in session {session_id:?}")]
    RequestNotFound {
        /// The session.
        session_id: String,
        /// `permission` or `question`.
        what: &'static str,
        /// The id answered.
        id: String,
    },
    /// The adapter refused the request.
    #[error("the adapter rejected the request: {0}")]
    AdapterRejected(String),
    /// The adapter failed: the session ended.
    #[error("the agent's adapter failed: {detail}")]
    AdapterFailed {
        /// The agent.
        agent: String,
        /// What failed.
        detail: String,
    },
}

/// Why an adapter call gave no actions, as the driver reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdapterFailure {
    /// The adapter refused the input (a reply to something it did not ask):
    /// the caller is told, the session goes on.
    Rejected(String),
    /// The adapter failed (it trapped, ran out of time or memory, or asked for
    /// something invalid): the session ends.
    Failed(String),
}
