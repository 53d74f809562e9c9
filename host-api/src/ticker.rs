//! The engine's epoch clock, which bounds the time of each guest call.
//!
//! Every call gets a deadline a number of epoch ticks ahead; a thread advances the
//! epoch. The thread ticks while guest calls run and for [`LINGER`] after the last
//! one (so that a busy session's calls, a few microseconds each, do not each wake
//! it), then sleeps until the next call: an idle daemon has no timer wake-ups. It
//! ends when the engine or the last handle is gone.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use wasmtime::Engine;

/// How often the engine's epoch advances; the unit of the per-call time budget.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);
/// How long the clock keeps ticking after the last call before it sleeps.
const LINGER: Duration = Duration::from_secs(1);

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
    /// Whether the clock's thread sleeps until a call starts.
    asleep: bool,
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
        Self::with_tick(LINGER, move || match engine.upgrade() {
            Some(engine) => {
                engine.increment_epoch();
                true
            }
            None => false,
        })
    }

    /// Starts a clock thread that calls `tick` every [`EPOCH_TICK`] while a call
    /// runs and for `linger` after, until `tick` returns false or the last handle
    /// is dropped.
    fn with_tick(linger: Duration, tick: impl Fn() -> bool + Send + 'static) -> Self {
        let shared = Arc::new(Shared::default());
        let clock = shared.clone();
        let linger_ticks = linger.as_millis() / EPOCH_TICK.as_millis();
        // Starts asleep: no call has run yet.
        let mut idle_ticks = linger_ticks;
        std::thread::Builder::new()
            .name("adapter-epoch".into())
            .spawn(move || loop {
                {
                    let mut state = clock.state();
                    if state.running > 0 {
                        idle_ticks = 0;
                    }
                    while state.running == 0 && idle_ticks >= linger_ticks && !state.stopped {
                        state.asleep = true;
                        state = clock
                            .wake
                            .wait(state)
                            .unwrap_or_else(|poisoned| poisoned.into_inner());
                        state.asleep = false;
                        idle_ticks = 0;
                    }
                    if state.stopped {
                        break;
                    }
                    if state.running == 0 {
                        idle_ticks += 1;
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
        if state.asleep {
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

    /// The clock stands still before any call, ticks while one runs and for the
    /// linger after it, then stands still again; its thread ends with the last
    /// handle.
    #[test]
    fn ticks_only_while_a_call_runs_and_shortly_after() {
        let ticks = Arc::new(AtomicUsize::new(0));
        let counter = ticks.clone();
        let ticker = EpochTicker::with_tick(EPOCH_TICK * 4, move || {
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
        let ended = ticks.load(Ordering::SeqCst);
        // Without the linger it would tick once more at most (the tick it slept for).
        let lingered = (0..100).any(|_| {
            std::thread::sleep(EPOCH_TICK);
            ticks.load(Ordering::SeqCst) >= ended + 3
        });
        assert!(lingered, "the clock stopped at once after the call");
        // Past the linger (4 ticks), with room for a slow machine.
        std::thread::sleep(EPOCH_TICK * 10);
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
