//! A session whose events the store refused (a full disk, a database that cannot
//! be written): the events stay staged and unseen, the session stops taking in
//! its agent's output (the pipe fills and the agent waits on its writes), answers
//! new commands with a `storage_*` problem, and retries the commit with a growing
//! delay until the store takes it.

use std::time::Duration;

use tokio::time::Instant;

use agentplex_store::StoreError;

/// The first retry's delay.
const FIRST_RETRY: Duration = Duration::from_millis(100);
/// The longest delay between two retries.
const LONGEST_RETRY: Duration = Duration::from_secs(2);

/// Why a session holds staged events, and when it tries to store them again.
#[derive(Debug)]
pub struct StorageFault {
    /// The store's latest refusal (what commands are answered with).
    pub error: StoreError,
    delay: Duration,
    retry_at: Instant,
}

impl StorageFault {
    /// The fault after a failed commit: the first one, or the next of `previous`
    /// (the delay doubles up to [`LONGEST_RETRY`]).
    pub fn after(previous: Option<StorageFault>, error: StoreError) -> Self {
        let delay = previous.map_or(FIRST_RETRY, |fault| (fault.delay * 2).min(LONGEST_RETRY));
        Self {
            error,
            delay,
            retry_at: Instant::now() + delay,
        }
    }
}

/// Resolves when the commit `fault` holds back is due again; never without one.
pub async fn retry_due(fault: Option<&StorageFault>) {
    match fault {
        Some(fault) => tokio::time::sleep_until(fault.retry_at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_up_to_a_bound() {
        let error = || StoreError::Full(agentplex_store::cause("disk full"));
        let mut fault = StorageFault::after(None, error());
        assert_eq!(fault.delay, FIRST_RETRY);
        let mut delays = vec![fault.delay];
        for _ in 0..8 {
            fault = StorageFault::after(Some(fault), error());
            delays.push(fault.delay);
        }
        assert!(
            delays.windows(2).all(|pair| pair[0] <= pair[1]),
            "{delays:?}"
        );
        assert_eq!(delays[1], FIRST_RETRY * 2);
        assert_eq!(*delays.last().unwrap(), LONGEST_RETRY);
    }
}
