//! A new session's record on its way to the store.

use tokio::sync::oneshot;

use agentplex_store::{CommitDone, StoreError};

/// A new session's record on its way to the store, and who waits to hear that
/// it is stored: the session task takes no command before it is (a commit must
/// not reach the store ahead of the row it updates).
pub struct Recording {
    /// Answers once the record is durable (or cannot be stored).
    pub stored: CommitDone,
    /// Told the outcome: the creating request waits on it.
    pub answer: oneshot::Sender<Result<(), StoreError>>,
}

impl Recording {
    /// Waits until the record is stored and tells the waiting creator; whether it is.
    pub(super) async fn wait(self) -> bool {
        let outcome = self
            .stored
            .await
            .unwrap_or_else(|_| Err(StoreError::writer_stopped()));
        let stored = outcome.is_ok();
        let _ = self.answer.send(outcome);
        stored
    }
}
