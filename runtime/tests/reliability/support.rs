//! Helpers of the auth, hostile-HTTP and stop tests: raw HTTP over TCP (for what an
//! HTTP client library would refuse to send or would normalise), latency figures,
//! the daemon's memory and descendants read from `/proc`, and a lock that keeps
//! the heavy tests of this binary from running at the same time.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Whether the long versions were asked for (`RELIABILITY_LONG=1`).
pub fn long() -> bool {
    std::env::var("RELIABILITY_LONG").is_ok_and(|v| v == "1")
}

/// Taken by tests that open thousands of connections or measure latency, so that
/// they neither share the file descriptor limit nor disturb each other's timings.
pub fn heavy() -> MutexGuard<'static, ()> {
    static HEAVY: Mutex<()> = Mutex::new(());
    HEAVY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// How a raw request went.
#[derive(Debug)]
pub struct Outcome {
    /// The status of the response, if one came before the connection closed.
    pub status: Option<u16>,
    /// The whole response as text (lossy).
    pub response: String,
    /// How long until the server closed the connection or answered in full.
    pub elapsed: Duration,
}

/// Sends `request` as is on a new connection to `port` and reads until the server
/// closes (the request should say `Connection: close`) or `timeout` passes (then
/// the test fails: the server hung). A server that closes while the request is
/// still being written has answered too: what it wrote before is read.
#[track_caller]
pub fn raw(port: u16, request: &[u8], timeout: Duration) -> Outcome {
    let start = Instant::now();
    let mut tcp = TcpStream::connect(("127.0.0.1", port)).expect("connecting");
    tcp.set_read_timeout(Some(timeout)).unwrap();
    tcp.set_write_timeout(Some(timeout)).unwrap();
    if let Err(error) = tcp.write_all(request) {
        assert!(
            matches!(
                error.kind(),
                ErrorKind::BrokenPipe | ErrorKind::ConnectionReset
            ),
            "writing the request: {error}"
        );
    }
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    loop {
        match tcp.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(error) if error.kind() == ErrorKind::ConnectionReset => break,
            Err(error) => panic!(
                "no answer and no close within {timeout:?} ({error}); got {:?}",
                String::from_utf8_lossy(&bytes)
            ),
        }
    }
    let response = String::from_utf8_lossy(&bytes).into_owned();
    Outcome {
        status: status_of(&response),
        response,
        elapsed: start.elapsed(),
    }
}

/// The status code of an HTTP/1.1 response's first line.
pub fn status_of(response: &str) -> Option<u16> {
    let line = response.lines().next()?;
    line.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()
}

/// A `GET` of `path` with `Connection: close` and extra header lines.
pub fn get_request(path: &str, headers: &[String]) -> Vec<u8> {
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for header in headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    request.into_bytes()
}

/// The 50th and 99th percentiles and the largest of some durations.
#[derive(Debug, Clone, Copy)]
pub struct Latency {
    pub p50: Duration,
    pub p99: Duration,
    pub max: Duration,
}

impl Latency {
    /// The figures of `samples` (at least one).
    pub fn of(mut samples: Vec<Duration>) -> Latency {
        assert!(!samples.is_empty(), "no samples");
        samples.sort();
        let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
        Latency {
            p50: at(0.50),
            p99: at(0.99),
            max: at(1.0),
        }
    }
}

impl std::fmt::Display for Latency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            self.p50.as_secs_f64() * 1e3,
            self.p99.as_secs_f64() * 1e3,
            self.max.as_secs_f64() * 1e3
        )
    }
}

/// Times `n` runs of `f`.
pub fn time_each(n: usize, mut f: impl FnMut()) -> Latency {
    Latency::of(
        (0..n)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect(),
    )
}

/// Resident and proportional set size of a process, in KiB
/// (`/proc/PID/smaps_rollup`).
pub fn memory_kib(pid: u32) -> (u64, u64) {
    let rollup =
        std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).expect("reading smaps_rollup");
    let field = |name: &str| {
        rollup
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in smaps_rollup:\n{rollup}"))
    };
    (field("Rss:"), field("Pss:"))
}

/// A process: its pid and start time (`/proc/PID/stat` field 22), which together
/// name it even after its pid is reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Process {
    pub pid: u32,
    pub started: u64,
}

impl Process {
    /// Whether this very process still exists (a zombie counts as gone).
    pub fn alive(&self) -> bool {
        stat(self.pid).is_some_and(|s| s.started == self.started && s.state != 'Z')
    }
}

/// What this suite reads of `/proc/PID/stat`.
struct Stat {
    state: char,
    parent: u32,
    started: u64,
}

fn stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces; the fields after it do not.
    let fields: Vec<&str> = text[text.rfind(')')? + 2..].split_whitespace().collect();
    Some(Stat {
        state: fields.first()?.chars().next()?,
        parent: fields.get(1)?.parse().ok()?,
        started: fields.get(19)?.parse().ok()?,
    })
}

/// Every living descendant of `pid` (children, their children...).
pub fn descendants(pid: u32) -> Vec<Process> {
    let all: Vec<(u32, Stat)> = std::fs::read_dir("/proc")
        .expect("listing /proc")
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .collect();
    let mut found = Vec::new();
    let mut parents = vec![pid];
    while let Some(parent) = parents.pop() {
        for (child, stat) in &all {
            if stat.parent == parent && stat.state != 'Z' {
                found.push(Process {
                    pid: *child,
                    started: stat.started,
                });
                parents.push(*child);
            }
        }
    }
    found
}

/// Polls `done` every 20 ms until it holds or `timeout` passes; whether it held.
pub fn wait_until(timeout: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
