//! What the tests read of a process in `/proc` (Linux): resident memory, open
//! descriptors, threads, the state of a process and its zombie children, and a
//! sampler of resident memory over time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// A numeric field of `/proc/<pid>/status` (`VmRSS` in KiB, `Threads`...); `None`
/// when the process is gone.
pub fn status_field(pid: u32, name: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|line| {
        let value = line.strip_prefix(name)?.strip_prefix(':')?;
        value.split_whitespace().next()?.parse().ok()
    })
}

/// Whether a process ignores `signal` (its `SigIgn` mask in `/proc/<pid>/status`).
pub fn ignores_signal(pid: u32, signal: i32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return false;
    };
    status
        .lines()
        .find_map(|line| line.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (signal - 1)) != 0)
}

/// Resident memory of a live process, in KiB.
#[track_caller]
pub fn rss_kib(pid: u32) -> u64 {
    status_field(pid, "VmRSS").expect("a live process has a VmRSS")
}

/// Threads of a live process.
#[track_caller]
pub fn threads(pid: u32) -> u64 {
    status_field(pid, "Threads").expect("a live process has threads")
}

/// Open file descriptors of a live process.
#[track_caller]
pub fn fd_count(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("reading the process's fd folder")
        .count()
}

/// The state letter (`R`, `S`, `Z`...) and parent pid of a process, from
/// `/proc/<pid>/stat`; `None` when it is gone.
pub fn state_and_parent(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses; the fields after
    // its last `)` do not.
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    Some((state, parent))
}

/// Whether a process runs (exists and is not a zombie waiting to be reaped).
pub fn is_running(pid: u32) -> bool {
    state_and_parent(pid).is_some_and(|(state, _)| state != 'Z')
}

/// The zombie children of `parent`: processes that exited and were never reaped.
pub fn zombie_children(parent: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .expect("reading /proc")
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| state_and_parent(pid) == Some(('Z', parent)))
        .collect()
}

/// Samples a process's resident memory every few milliseconds until stopped.
pub struct RssSampler {
    stop: Arc<AtomicBool>,
    thread: thread::JoinHandle<Vec<u64>>,
}

impl RssSampler {
    /// Starts sampling `pid` every `every`.
    pub fn start(pid: u32, every: Duration) -> RssSampler {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = thread::spawn(move || {
            let mut samples = Vec::new();
            while !stopping.load(Ordering::Relaxed) {
                match status_field(pid, "VmRSS") {
                    Some(kib) => samples.push(kib),
                    None => break,
                }
                thread::sleep(every);
            }
            samples
        });
        RssSampler { stop, thread }
    }

    /// Stops and returns the samples, in KiB, oldest first.
    pub fn finish(self) -> Vec<u64> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().expect("the sampler thread")
    }
}
