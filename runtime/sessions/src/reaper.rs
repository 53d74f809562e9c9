//! How the daemon ends the agent processes it no longer needs. While it runs (a
//! session deleted or terminated, a process replaced or killed by its adapter), a
//! process group gets SIGKILL at once. Once the daemon stops, every group it
//! releases gets SIGTERM and, if its leader has not exited within the grace period,
//! SIGKILL: all groups at the same time, and the daemon's exit waits for them, so
//! no agent outlives it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::task::JoinSet;

use super::processes::ProcessEntry;
use agentplex_processes::group::{self, Stopped};

/// How long a killed leader is waited for, so that it is reaped before the daemon exits.
const REAPED_AFTER_KILL: Duration = Duration::from_secs(1);

/// Ends released processes: at once, or politely once the daemon stops.
pub struct Reaper {
    /// How long a group has between SIGTERM and SIGKILL at the daemon's stop.
    grace: Duration,
    /// Set when the daemon starts stopping.
    stopping: AtomicBool,
    /// The polite stops under way.
    stops: Mutex<JoinSet<()>>,
}

impl Reaper {
    /// A reaper that gives groups `grace` between SIGTERM and SIGKILL at the stop.
    pub fn new(grace: Duration) -> Self {
        Self {
            grace,
            stopping: AtomicBool::new(false),
            stops: Mutex::new(JoinSet::new()),
        }
    }

    /// The daemon stops: from now on every process released is stopped politely.
    pub fn begin_stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
    }

    /// Ends a process nothing uses any more (and everything in its group).
    pub fn release(&self, process: Arc<ProcessEntry>) {
        if !self.stopping.load(Ordering::SeqCst) {
            process.kill();
            return;
        }
        let grace = self.grace;
        self.stops.lock().unwrap().spawn(async move {
            let pid = process.pid;
            match group::stop(&process.leader, grace).await {
                Stopped::Exited => tracing::debug!(pid, "agent process exited on SIGTERM"),
                Stopped::Killed => {
                    tracing::info!(
                        pid,
                        grace_ms = grace.as_millis() as u64,
                        "agent process still ran after the grace period: killed"
                    );
                    let _ = tokio::time::timeout(REAPED_AFTER_KILL, process.wait_gone()).await;
                }
            }
        });
    }

    /// Waits until every polite stop begun so far is over (each within the grace).
    pub async fn stopped(&self) {
        let mut stops = std::mem::take(&mut *self.stops.lock().unwrap());
        while stops.join_next().await.is_some() {}
    }
}
