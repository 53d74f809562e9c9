//! Soak: mock sessions at a steady rate (create, a few messages each read back over
//! SSE, terminate, delete) for `RELIABILITY_SOAK_SECS` seconds (60 by default, to
//! keep CI short; the documented long form is 3600), sampling the daemon's
//! resident memory, open descriptors, threads and the latency from a message's
//! POST to its first event, printed as a table.
//!
//! Proves: nothing grows with the number of sessions served: the last third's
//! peak memory stays within 1.3 times the first third's plus 8 MiB, descriptors
//! and threads within a small margin of the first third's, and the median latency
//! within a generous bound of the first third's; and every session of the run
//! behaved (every request answered, every turn streamed, every stream ended).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use crate::common::api::{assistant_texts, expect_no_content, Api};
use crate::common::procfs;
use crate::common::sse::{streaming_client, SseStream};
use crate::common::Daemon;

const WORKERS: usize = 4;
const MESSAGES_PER_SESSION: usize = 3;
/// Each worker starts a session this often (when the previous one is done).
const SESSION_PERIOD: Duration = Duration::from_millis(500);

fn soak_secs() -> u64 {
    std::env::var("RELIABILITY_SOAK_SECS")
        .ok()
        .and_then(|secs| secs.parse().ok())
        .unwrap_or(60)
}

/// One row of the table.
struct Sample {
    at: Duration,
    rss_kib: u64,
    fds: usize,
    threads: u64,
    sessions: usize,
    p50: Duration,
    p99: Duration,
}

/// The `q`-quantile of some latencies (`ZERO` when there are none).
fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// One session's life; pushes the latency of each message's first event.
fn one_session(daemon: &Daemon, id: &str, latencies: &Mutex<Vec<Duration>>) {
    let api = Api::new(daemon);
    api.create(id, "mock");
    let mut stream = SseStream::open(
        streaming_client().get(daemon.url(&format!("/v1/sessions/{id}/events/sse?offset=0"))),
    );
    let mut last = stream.until_type("session.started").len() as u64;
    for n in 1..=MESSAGES_PER_SESSION {
        let text = format!("soak {id} message {n}");
        let sent = Instant::now();
        api.send(id, &format!("echo {text}"));
        let first = stream.next_event().expect("the turn's first event");
        latencies.lock().unwrap().push(sent.elapsed());
        assert_eq!(first["sequence"], last + 1, "{first}");
        let mut turn = vec![first];
        turn.extend(stream.until_type("turn.ended"));
        assert_eq!(assistant_texts(&turn), [text]);
        last += turn.len() as u64;
    }
    expect_no_content(
        api.post_empty(&format!("/v1/sessions/{id}/terminate")),
        "terminate",
    );
    let rest = stream.read_to_end();
    assert_eq!(
        rest.last().map(|e| e["type"].clone()),
        Some("session.ended".into())
    );
    expect_no_content(api.delete(&format!("/v1/sessions/{id}")), "delete");
}

/// Fails unless the last third of `values` stays within `bound(max of the first third)`.
#[track_caller]
fn assert_flat<T: Ord + Copy + std::fmt::Debug>(what: &str, values: &[T], bound: impl Fn(T) -> T) {
    let third = values.len() / 3;
    let first = *values[..third].iter().max().unwrap();
    let last = *values[values.len() - third..].iter().max().unwrap();
    assert!(
        last <= bound(first),
        "{what} grows: {first:?} at most in the first third, {last:?} in the last ({values:?})"
    );
}

#[test]
fn a_long_run_of_sessions_leaves_memory_descriptors_and_threads_flat() {
    let secs = soak_secs();
    let interval = Duration::from_secs((secs / 12).max(5));
    let daemon = Daemon::start();
    let pid = daemon.pid();
    let stop = AtomicBool::new(false);
    let served = AtomicUsize::new(0);
    let latencies = Mutex::new(Vec::new());
    let mut samples = Vec::new();
    let started = Instant::now();
    thread::scope(|scope| {
        for worker in 0..WORKERS {
            let (daemon, stop, served, latencies) = (&daemon, &stop, &served, &latencies);
            scope.spawn(move || {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    let began = Instant::now();
                    n += 1;
                    one_session(daemon, &format!("soak-{worker}-{n}"), latencies);
                    served.fetch_add(1, Ordering::Relaxed);
                    thread::sleep(SESSION_PERIOD.saturating_sub(began.elapsed()));
                }
            });
        }
        let stopping = scopeguard(&stop);
        eprintln!("soak: {secs} s, a row every {} s", interval.as_secs());
        eprintln!("soak:   time  RSS MiB  fds  threads  sessions  p50 ms  p99 ms");
        while started.elapsed() < Duration::from_secs(secs) {
            thread::sleep(interval);
            let mut window = std::mem::take(&mut *latencies.lock().unwrap());
            window.sort();
            let sample = Sample {
                at: started.elapsed(),
                rss_kib: procfs::rss_kib(pid),
                fds: procfs::fd_count(pid),
                threads: procfs::threads(pid),
                sessions: served.load(Ordering::Relaxed),
                p50: quantile(&window, 0.5),
                p99: quantile(&window, 0.99),
            };
            eprintln!(
                "soak: {:>5}s  {:>7.1}  {:>3}  {:>7}  {:>8}  {:>6.1}  {:>6.1}",
                sample.at.as_secs(),
                sample.rss_kib as f64 / 1024.0,
                sample.fds,
                sample.threads,
                sample.sessions,
                sample.p50.as_secs_f64() * 1e3,
                sample.p99.as_secs_f64() * 1e3,
            );
            samples.push(sample);
        }
        drop(stopping);
    });
    assert!(samples.len() >= 6, "too short a run to judge: {secs} s");
    let rss: Vec<u64> = samples.iter().map(|s| s.rss_kib).collect();
    assert_flat("resident memory (KiB)", &rss, |first| {
        first * 13 / 10 + 8 * 1024
    });
    let fds: Vec<usize> = samples.iter().map(|s| s.fds).collect();
    assert_flat("descriptors", &fds, |first| first + 8);
    let threads: Vec<u64> = samples.iter().map(|s| s.threads).collect();
    assert_flat("threads", &threads, |first| first + 8);
    let p50: Vec<Duration> = samples.iter().map(|s| s.p50).collect();
    assert_flat("median latency", &p50, |first| {
        first * 5 + Duration::from_millis(200)
    });
    let sessions = samples.last().unwrap().sessions;
    eprintln!(
        "soak: {sessions} sessions ({} messages) in {:.0} s",
        sessions * MESSAGES_PER_SESSION,
        started.elapsed().as_secs_f64()
    );
    assert!(sessions >= WORKERS, "the run served sessions");
}

/// Sets `stop` when dropped: the workers stop even when the sampling panics.
fn scopeguard(stop: &AtomicBool) -> impl Drop + '_ {
    struct Guard<'a>(&'a AtomicBool);
    impl Drop for Guard<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    Guard(stop)
}
