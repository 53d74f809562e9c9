//! Signals to whole process groups, sent only while the daemon owns the group.
//!
//! Every child the daemon starts (an agent's process, a client's process or run)
//! leads its own process group (`process_group(0)`, or `setsid` for a terminal),
//! whose id is the child's pid: one signal to the group reaches the child and
//! everything it started in turn.
//!
//! # Why a signal never reaches a stranger
//!
//! A group id is a pid, and Linux never hands out a pid that is still in use as a
//! process's id, a process group's id or a session's id. A group with id `P` can
//! only be made by the process whose pid is `P` (`setpgid(0, 0)`, `setsid`, or its
//! parent's `setpgid(P, P)` before it runs). So while the daemon's child `P`
//! exists, running or as a zombie, no other process can have pid `P` and the only
//! group with id `P` is the one the child leads: a signal to group `P` reaches the
//! child's group or nothing.
//!
//! The daemon keeps that true by never reaping a child while it may still signal
//! its group ([`Leader`]):
//! - children are spawned with `std::process::Command`, which reaps nothing on its
//!   own (tokio's reaps its children as soon as they exit), and the daemon never
//!   waits for "any child" nor sets SIGCHLD to be ignored (the kernel would reap);
//! - the exit is learned without reaping: the child's pidfd becomes readable, then
//!   `waitid(P_PID, WEXITED | WNOWAIT)` reads the status and leaves the zombie;
//! - signalling and reaping take the same lock, and a reaped leader's group is
//!   never signalled again: a managed process is reaped when it is deleted, a run
//!   when it ends, an agent's process when the session lets go of it.
//!
//! Processes a previous daemon left behind are not the daemon's children; they
//! are ended through pidfds, one process at a time ([`kill_orphan`]).

mod leader;
mod orphan;

use std::time::Duration;

use rustix::process::{kill_process_group, Pid, Signal};

pub use leader::{Leader, Pipes};
pub use orphan::{kill_orphan, start_time};

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

/// Sends `signal` to the process group `pgid`. False when no such group is left.
/// Only [`Leader`] calls it, while its group is provably its own.
fn signal(pgid: Pid, signal: Signal) -> bool {
    kill_process_group(pgid, signal).is_ok()
}

/// Stops a leader's group politely: SIGTERM, then SIGKILL once the leader has
/// exited (its children must not linger) or `grace` has passed.
pub async fn stop(leader: &Leader, grace: Duration) -> Stopped {
    if !leader.signal_group(Signal::TERM) {
        return Stopped::Exited;
    }
    let outcome = match tokio::time::timeout(grace, leader.exited()).await {
        Ok(_) => Stopped::Exited,
        Err(_) => Stopped::Killed,
    };
    leader.kill_group();
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    fn spawn_group(script: &str) -> Leader {
        let mut command = Command::new("sh");
        command.args(["-c", script]).process_group(0);
        Leader::spawn(&mut command).expect("sh runs").0
    }

    #[tokio::test]
    async fn a_group_that_heeds_sigterm_exits_within_the_grace() {
        let leader = spawn_group("sleep 30");
        let started = std::time::Instant::now();
        let outcome = stop(&leader, Duration::from_secs(10)).await;
        assert_eq!(outcome, Stopped::Exited);
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn a_group_that_ignores_sigterm_is_killed_after_the_grace() {
        // The shell ignores TERM and so does the sleep it starts (ignored signals are inherited).
        let leader = spawn_group("trap '' TERM; sleep 30 & wait");
        tokio::time::sleep(Duration::from_millis(100)).await;
        let started = std::time::Instant::now();
        let outcome = stop(&leader, Duration::from_millis(300)).await;
        assert_eq!(outcome, Stopped::Killed);
        assert!(started.elapsed() >= Duration::from_millis(300));
        leader.exited().await.unwrap();
        // The shell's own child went with it.
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!group_alive(leader.pid()));
    }

    #[tokio::test]
    async fn an_exited_leader_stays_a_zombie_until_reaped_and_is_never_signalled_after() {
        let leader = spawn_group("exit 3");
        let status = leader.exited().await.unwrap();
        assert_eq!(status.code(), Some(3));
        // Learning the exit did not reap it: the pid, so the group id, is still its.
        assert_eq!(state(leader.pid()), Some('Z'));
        assert!(leader.try_exit().is_some());
        assert!(leader.reap());
        assert_eq!(state(leader.pid()), None);
        assert!(
            !leader.kill_group(),
            "a reaped leader's group was signalled"
        );
        assert_eq!(leader.exited().await.unwrap().code(), Some(3));
    }

    #[tokio::test]
    async fn a_leader_dropped_while_running_is_reaped_once_it_exits() {
        let leader = spawn_group("sleep 0.2");
        let pid = leader.pid();
        drop(leader);
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(state(pid), None, "left a zombie");
    }

    /// The state letter of a process, `None` once it is gone.
    fn state(pid: u32) -> Option<char> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat[stat.rfind(')')? + 1..].trim_start().chars().next()
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
