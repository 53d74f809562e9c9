//! The engine's epoch clock, which bounds the time of each guest call.
//!
//! Every call gets a deadline a number of epoch ticks ahead; a thread advances the
//! epoch. The thread ticks only while at least one guest call runs, so an idle
//! daemon has no timer wake-ups, and it ends when the engine or the last handle
//! is gone.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use wasmtime::Engine;

/// How often the engine's epoch advances; the unit of the per-call time budget.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// A handle on an engine's epoch clock; clones share the clock.
#[derive(Clone)]
pub(crate) struct EpochTicker {
    handle: Arc<Handle>,
}

/// Stops the clock's thread when the last [`EpochTicker`] clone is dropped.
struct Handle {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    /// Guest calls running now.
    running: usize,
    /// No handle is left: the thread ends.
    stopped: bool,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        // The state is two counters that stay consistent even if a holder panicked.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl EpochTicker {
    /// Starts the (parked) clock thread of `engine`.
    pub(crate) fn start(engine: &Engine) -> Self {
        let engine = engine.weak();
        Self::with_tick(move || match engine.upgrade() {
            Some(engine) => {
                engine.increment_epoch();
                true
            }
            None => false,
        })
    }

    /// Starts a clock thread that calls `tick` every [`EPOCH_TICK`] while a call
    /// runs, until `tick` returns false or the last handle is dropped.
    fn with_tick(tick: impl Fn() -> bool + Send + 'static) -> Self {
        let shared = Arc::new(Shared::default());
        let clock = shared.clone();
        std::thread::Builder::new()
            .name("adapter-epoch".into())
            .spawn(move || loop {
                {
                    let mut state = clock.state();
                    while state.running == 0 && !state.stopped {
                        state = clock
                            .wake
                            .wait(state)
                            .unwrap_or_else(|poisoned| poisoned.into_inner());
                    }
                    if state.stopped {
                        break;
                    }
                }
                std::thread::sleep(EPOCH_TICK);
                if !tick() {
                    break;
                }
            })
            .expect("spawning the epoch ticker thread");
        Self {
            handle: Arc::new(Handle { shared }),
        }
    }

    /// Marks a guest call as running until the returned guard is dropped; the
    /// clock ticks while any such guard lives.
    pub(crate) fn running(&self) -> RunningCall {
        let shared = self.handle.shared.clone();
        let mut state = shared.state();
        state.running += 1;
        if state.running == 1 {
            shared.wake.notify_one();
        }
        drop(state);
        RunningCall { shared }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.shared.state().stopped = true;
        self.shared.wake.notify_one();
    }
}

/// A guest call in progress (see [`EpochTicker::running`]).
pub(crate) struct RunningCall {
    shared: Arc<Shared>,
}

impl Drop for RunningCall {
    fn drop(&mut self) {
        self.shared.state().running -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The clock stands still while no call runs, ticks while one does, and its
    /// thread ends with the last handle.
    #[test]
    fn ticks_only_while_a_call_runs() {
        let ticks = Arc::new(AtomicUsize::new(0));
        let counter = ticks.clone();
        let ticker = EpochTicker::with_tick(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            true
        });
        std::thread::sleep(EPOCH_TICK * 5);
        assert_eq!(ticks.load(Ordering::SeqCst), 0, "idle clock ticked");
        let call = ticker.clone().running();
        std::thread::sleep(EPOCH_TICK * 5);
        assert!(
            ticks.load(Ordering::SeqCst) > 0,
            "running clock stood still"
        );
        drop(call);
        std::thread::sleep(EPOCH_TICK * 3);
        let parked = ticks.load(Ordering::SeqCst);
        std::thread::sleep(EPOCH_TICK * 5);
        assert_eq!(
            ticks.load(Ordering::SeqCst),
            parked,
            "clock ticked after the call"
        );
        // The thread holds the only other reference to `ticks`; it lets go when it ends.
        drop(ticker);
        for _ in 0..100 {
            if Arc::strong_count(&ticks) == 1 {
                return;
            }
            std::thread::sleep(EPOCH_TICK);
        }
        panic!("the clock thread outlived its last handle");
    }
}
