//! [`IdCounter`]: deterministic identifiers for items, calls and requests.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Hands out identifiers that are unique within a session: `itm_1`, `itm_2`, `call_1`...
///
/// One counter per prefix, starting at 1. Keep it in the session's state (it is
/// `Serialize`/`Deserialize`) so a restored session continues the sequence instead of
/// reusing ids. Deterministic by design: adapters have no randomness, and tests can
/// spell out the ids they expect.
///
/// ```
/// use sandbox_agent_adapter_kit::IdCounter;
///
/// let mut ids = IdCounter::default();
/// assert_eq!(ids.next("itm"), "itm_1");
/// assert_eq!(ids.next("itm"), "itm_2");
/// assert_eq!(ids.next("call"), "call_1");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct IdCounter {
    last: BTreeMap<String, u64>,
}

impl IdCounter {
    /// A counter that has handed out nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The next id with `prefix`: `{prefix}_{n}`.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self, prefix: &str) -> String {
        format!("{prefix}_{}", self.next_number(prefix))
    }

    /// The next number for `prefix` (1 for the first), for ids of another shape.
    pub fn next_number(&mut self, prefix: &str) -> u64 {
        let last = self.last.entry(prefix.to_owned()).or_insert(0);
        *last += 1;
        *last
    }

    /// The number handed out last for `prefix` (0 when none yet).
    pub fn last(&self, prefix: &str) -> u64 {
        self.last.get(prefix).copied().unwrap_or(0)
    }
}
