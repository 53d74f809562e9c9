//! Signals to whole process groups.
//!
//! Every child the daemon starts (an agent's process) leads its own process group
//! (`process_group(0)`), whose id is the child's pid: one signal to the group
//! reaches the child and everything it started in turn.

use std::future::Future;
use std::time::Duration;

use rustix::process::{kill_process_group, Pid, Signal};

/// How long a group has between SIGTERM and SIGKILL when the daemon stops it,
/// unless told otherwise: less than the 5 s the SDKs give the daemon itself
/// before they kill it.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(3);

/// How a [`stop`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// The leader exited within the grace period (anything left of its group
    /// was then killed).
    Exited,
    /// The grace period passed: the group was killed.
    Killed,
}

/// Sends `signal` to the process group `pgid`. False when no such group is left
/// (or it is not ours to signal). Group 0 would be the daemon's own: never sent.
pub fn signal(pgid: u32, signal: Signal) -> bool {
    let Some(pid) = i32::try_from(pgid).ok().and_then(Pid::from_raw) else {
        return false;
    };
    kill_process_group(pid, signal).is_ok()
}

/// SIGKILL to the group `pgid`.
pub fn kill(pgid: u32) -> bool {
    signal(pgid, Signal::KILL)
}

/// Stops the group `pgid` politely: SIGTERM, then SIGKILL once the leader has
/// exited (`exited` resolves; its children must not linger) or `grace` has passed.
pub async fn stop(pgid: u32, grace: Duration, exited: impl Future<Output = ()>) -> Stopped {
    if !signal(pgid, Signal::TERM) {
        return Stopped::Exited;
    }
    let outcome = match tokio::time::timeout(grace, exited).await {
        Ok(()) => Stopped::Exited,
        Err(_) => Stopped::Killed,
    };
    kill(pgid);
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    fn spawn_group(script: &str) -> std::process::Child {
        Command::new("sh")
            .args(["-c", script])
            .process_group(0)
            .spawn()
            .expect("sh runs")
    }

    async fn wait_exit(child: &mut std::process::Child) {
        while child.try_wait().expect("wait").is_none() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    #[tokio::test]
    async fn a_group_that_heeds_sigterm_exits_within_the_grace() {
        let mut child = spawn_group("sleep 30");
        let pgid = child.id();
        let started = std::time::Instant::now();
        let outcome = stop(pgid, Duration::from_secs(10), wait_exit(&mut child)).await;
        assert_eq!(outcome, Stopped::Exited);
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn a_group_that_ignores_sigterm_is_killed_after_the_grace() {
        // The shell ignores TERM and so does the sleep it starts (ignored signals are inherited).
        let mut child = spawn_group("trap '' TERM; sleep 30 & wait");
        let pgid = child.id();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let started = std::time::Instant::now();
        let outcome = stop(pgid, Duration::from_millis(300), wait_exit(&mut child)).await;
        assert_eq!(outcome, Stopped::Killed);
        assert!(started.elapsed() >= Duration::from_millis(300));
        wait_exit(&mut child).await;
        // The shell's own child went with it.
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!group_alive(pgid));
    }

    #[test]
    fn group_zero_is_never_signalled() {
        assert!(!signal(0, Signal::TERM));
    }

    /// Whether any process of the group still runs (zombies aside).
    fn group_alive(pgid: u32) -> bool {
        std::fs::read_dir("/proc")
            .expect("procfs")
            .flatten()
            .any(|entry| {
                let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
                let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                    return false;
                };
                let fields: Vec<&str> = rest.split_whitespace().collect();
                fields.first() != Some(&"Z") && fields.get(2) == Some(&pgid.to_string().as_str())
            })
    }
}
