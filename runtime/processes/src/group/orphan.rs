//! Ending the process group of an agent a previous daemon started (a daemon
//! killed with SIGKILL leaves its agents behind), without ever signalling a
//! stranger.
//!
//! The leader is not this daemon's child, so it cannot be kept unreaped; instead
//! every signal goes through a pidfd, which names one process for good, to a
//! process proven to be in the leader's group:
//! - the leader is recognised by its pid and start time, read while its pidfd
//!   shows it alive (so the reading was its own);
//! - it is stopped (SIGSTOP through its pidfd): it neither exits nor forks from
//!   then on, so its pid, and with it its group id, stays its own, and the group
//!   with that id is the one it made;
//! - each member is found in `/proc` with that group id, its pidfd opened first
//!   and its group read again while the pidfd shows it alive, then killed through
//!   its pidfd; rounds go on until no member is left (one may have forked);
//! - last the leader is killed through its pidfd.

use std::os::fd::OwnedFd;

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::process::{pidfd_open, pidfd_send_signal, Pid, PidfdFlags, Signal};

/// Most rounds of killing members (each round kills every member found; only a
/// member that forked in between leaves one for the next round).
const MAX_ROUNDS: usize = 64;

/// What `/proc/<pid>/stat` says of a process that matters here.
struct Stat {
    /// Its process group.
    pgid: u32,
    /// When it started, in clock ticks since boot.
    started: u64,
}

/// Kills the group led by `pid` if that process still runs and started at
/// `started` (ticks since boot, as [`start_time`] reads it); true when it did.
pub fn kill_orphan(pid: u32, started: u64) -> bool {
    let Some(leader) = open(pid) else {
        return false;
    };
    let same = stat(pid).is_some_and(|stat| stat.started == started);
    if !same || !alive(&leader) || pidfd_send_signal(&leader, Signal::STOP).is_err() {
        return false;
    }
    for _ in 0..MAX_ROUNDS {
        let members = members(pid);
        if members.is_empty() {
            break;
        }
        for member in &members {
            let _ = pidfd_send_signal(member, Signal::KILL);
        }
    }
    pidfd_send_signal(&leader, Signal::KILL).is_ok()
}

/// The start time of a process in clock ticks since boot (`/proc/<pid>/stat`
/// field 22): with the pid, it names one process even after pids are reused.
pub fn start_time(pid: u32) -> Option<u64> {
    stat(pid).map(|stat| stat.started)
}

/// Pidfds of the live processes other than `pgid` itself in group `pgid`.
fn members(pgid: u32) -> Vec<OwnedFd> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != pgid && stat(pid).is_some_and(|s| s.pgid == pgid))
        .filter_map(|pid| {
            let pidfd = open(pid)?;
            // Read again with the pidfd open: if it is still alive after the
            // reading, the reading was of the process the pidfd names.
            let member = stat(pid).is_some_and(|s| s.pgid == pgid) && alive(&pidfd);
            member.then_some(pidfd)
        })
        .collect()
}

/// A pidfd for `pid`, if such a process exists.
fn open(pid: u32) -> Option<OwnedFd> {
    let pid = i32::try_from(pid).ok().and_then(Pid::from_raw)?;
    pidfd_open(pid, PidfdFlags::empty()).ok()
}

/// Whether the process a pidfd names has not exited (its pidfd is not readable).
fn alive(pidfd: &OwnedFd) -> bool {
    let mut fds = [PollFd::new(pidfd, PollFlags::IN)];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    matches!(poll(&mut fds, Some(&now)), Ok(0))
}

/// The group and start time of a process, from `/proc/<pid>/stat`.
fn stat(pid: u32) -> Option<Stat> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces; the fields after it do not.
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    Some(Stat {
        pgid: fields.get(2)?.parse().ok()?,
        started: fields.get(19)?.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::time::{Duration, Instant};

    #[test]
    fn orphans_are_killed_only_when_they_are_the_same_process() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & sleep 30 & wait"])
            .process_group(0)
            .spawn()
            .unwrap();
        let pid = child.id();
        let started = start_time(pid).unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while members(pid).len() < 2 {
            assert!(Instant::now() < deadline, "the shell started no children");
            std::thread::sleep(Duration::from_millis(10));
        }
        // Another process that happens to have the same pid: left alone.
        assert!(!kill_orphan(pid, started + 1));
        assert!(child.try_wait().unwrap().is_none(), "a stranger was killed");
        assert!(kill_orphan(pid, started));
        let status = child.wait().unwrap();
        assert!(!status.success());
        assert_eq!(start_time(pid), None);
        // Its children went with it.
        let deadline = Instant::now() + Duration::from_secs(5);
        while !members(pid).is_empty() {
            assert!(Instant::now() < deadline, "members outlived the leader");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
