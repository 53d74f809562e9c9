//! One call into a guest under the host's limits: a fresh time budget, and its
//! failure classified (trap, timeout, memory limit).

use wasmtime::{Store, Trap};

use crate::limits::{InstanceData, MemoryLimitHit};
use crate::ticker::EPOCH_TICK;
use crate::{HostConfig, HostError};

/// The per-call time budget in epoch ticks.
pub(crate) fn call_budget_ticks(config: &HostConfig) -> u64 {
    (config.call_timeout.as_millis() / EPOCH_TICK.as_millis()).max(1) as u64
}

/// Runs one guest call with a fresh time budget and classifies its failure.
pub(crate) fn call_guest<R>(
    store: &mut Store<InstanceData>,
    adapter: &str,
    call: &str,
    config: &HostConfig,
    f: impl FnOnce(&mut Store<InstanceData>) -> wasmtime::Result<R>,
) -> Result<R, HostError> {
    let _running = store.data().ticker.running();
    store.set_epoch_deadline(call_budget_ticks(config));
    f(store).map_err(|error| {
        let (adapter, call) = (adapter.to_owned(), call.to_owned());
        if error.downcast_ref::<MemoryLimitHit>().is_some() {
            HostError::MemoryLimit {
                adapter,
                call,
                limit_bytes: config.memory_limit_bytes,
            }
        } else if error.downcast_ref::<Trap>() == Some(&Trap::Interrupt) {
            HostError::Timeout {
                adapter,
                call,
                timeout_ms: config.call_timeout.as_millis(),
            }
        } else {
            HostError::Trap {
                adapter,
                call,
                reason: format!("{error:#}"),
            }
        }
    })
}
