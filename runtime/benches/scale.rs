//! Sessions at scale, ours side by side with reference binaries:
//! `cargo bench -p agentplex --bench scale`.
//!
//! Not a timed test: it measures and prints, it asserts no threshold. For each binary
//! (ours, then every `AGENTPLEX_REFERENCES` entry, as in the `ship` bench), one
//! daemon in a fresh home, with its default store and logging:
//!
//! 1. the POST message -> events latency over an open SSE stream, with one session;
//! 2. `SCALE_SESSIONS` (1,000 by default) `mock` sessions created, `SCALE_CONCURRENCY`
//!    (16 by default) at a time, each given one turn that is followed on its own SSE
//!    stream until `turn.ended`; then the daemon's PSS at once and, a second later,
//!    its PSS and RSS, memory maps, open files and threads with all of them live;
//! 3. after `SCALE_REST_SECS` (11 by default, past our default park delay; 0 skips
//!    it) without input, the daemon's memory again, the sessions at rest, and the
//!    latency of a first message to 20 of them (ours rebuilds their instances);
//! 4. `GET /v1/health` latency over one kept-alive connection while they are held;
//! 5. the SSE latency of 1. again, with them held.
//!
//! Failures are counted and reported with their text, not hidden: a daemon that cannot
//! hold the sessions shows it in the figures. What each number means is described in
//! `docs/benchmarks.md`.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use agentplex_client::{Client, CreateSessionRequest, MessageRequest};
use common::daemons::{Binary, Daemon};
use common::latency::{turn_latency, Posting, TurnLatency};
use common::{percentile, us};
use futures::StreamExt;

/// Sequential `GET /v1/health` requests timed (after the warm-up ones).
const HEALTH_REQUESTS: usize = 2_000;
const HEALTH_WARMUP: usize = 100;
/// Messages timed for the SSE latency (after the warm-up ones).
const LATENCY_MESSAGES: usize = 50;
const LATENCY_WARMUP: usize = 5;
/// Sessions at rest sent one message each, to time what waking one costs.
const WOKEN: usize = 20;
/// How long one session's turn may take before it counts as failed.
const TURN_TIMEOUT: Duration = Duration::from_secs(120);

fn main() {
    let sessions = env_usize("SCALE_SESSIONS", 1_000);
    let in_flight = env_usize("SCALE_CONCURRENCY", 16).max(1);
    let scratch = tempfile::tempdir().expect("scratch folder");
    let binaries = Binary::all();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!(
        "{sessions} mock sessions, {in_flight} created at a time; {} CPUs; bench's open-files \
         limit {}, vm.max_map_count {}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        open_files_limit(),
        std::fs::read_to_string("/proc/sys/vm/max_map_count")
            .map_or("?".into(), |s| s.trim().to_owned()),
    );
    let mut reports = Vec::new();
    for binary in &binaries {
        println!("{:<8} {}", binary.name, binary.path.display());
        reports.push(measure(
            &runtime,
            binary,
            scratch.path(),
            sessions,
            in_flight,
        ));
    }
    print(&reports, sessions);
}

/// One daemon of `binary`, through every figure.
fn measure(
    runtime: &tokio::runtime::Runtime,
    binary: &Binary,
    scratch: &Path,
    sessions: usize,
    in_flight: usize,
) -> Report {
    let mut report = Report::new(&binary.name);
    let (mut daemon, _) = Daemon::start_logged(binary, scratch);
    let pid = daemon.pid();
    let client = daemon.client();
    std::thread::sleep(Duration::from_millis(300));
    let (pss_idle, rss_idle) = (common::pss_kib(pid), common::rss_kib(pid));
    report.row("PSS, no session", mib(pss_idle));
    report.row("RSS, no session", mib(rss_idle));

    eprintln!("[{}] SSE latency, one session", binary.name);
    let latency = runtime.block_on(session_latency(&client, "latency-alone"));
    report.latency("1 session", latency);

    eprintln!("[{}] {sessions} sessions, one turn each", binary.name);
    let begin = Instant::now();
    let (live, errors) = runtime.block_on(create_sessions(&client, sessions, in_flight));
    let took = begin.elapsed();
    report.row(
        "sessions live (one turn each)",
        format!("{live} of {sessions}"),
    );
    report.row(
        "time to create them + their turn",
        format!(
            "{:.1} s ({:.0}/s)",
            took.as_secs_f64(),
            sessions as f64 / took.as_secs_f64()
        ),
    );
    for (error, count) in &errors {
        report.note(format!("{count} session(s) failed: {error}"));
    }
    if let Some(status) = daemon.exited() {
        report.note(format!("the daemon exited: {status}"));
        return report.with_log(&daemon);
    }

    // At once after the last turn ended, as a client that just finished sees it,
    // then a second later.
    let pss_at_once = common::pss_kib(pid);
    std::thread::sleep(Duration::from_secs(1));
    let (pss, rss) = (common::pss_kib(pid), common::rss_kib(pid));
    let per_session = |after: u64, before: u64| {
        format!(
            "{} (+{:.1} KiB/session)",
            mib(after),
            after.saturating_sub(before) as f64 / live.max(1) as f64
        )
    };
    report.row(
        &format!("PSS, {live} live, at once after the last turn"),
        per_session(pss_at_once, pss_idle),
    );
    report.row(&format!("PSS, {live} live"), per_session(pss, pss_idle));
    report.row(&format!("RSS, {live} live"), per_session(rss, rss_idle));
    for (what, name) in [
        ("maps", "memory maps"),
        ("fd", "open files"),
        ("task", "threads"),
    ] {
        let count = common::proc_count(pid, what);
        report.row(
            &format!("{name}, {live} live"),
            count.map_or("?".into(), |n| n.to_string()),
        );
        if what == "maps" && count.unwrap_or(0) + 16 >= max_map_count().unwrap_or(usize::MAX) {
            report.note(format!(
                "the daemon's memory maps reached vm.max_map_count ({})",
                max_map_count().unwrap_or(0)
            ));
        }
    }

    // Ours parks an instance after 10 s without input (`--adapter-park-after-ms`).
    let rest = Duration::from_secs(env_usize("SCALE_REST_SECS", 11) as u64);
    if rest > Duration::from_secs(1) {
        eprintln!("[{}] {live} sessions at rest for {rest:?}", binary.name);
        std::thread::sleep(rest - Duration::from_secs(1));
        let (pss, rss) = (common::pss_kib(pid), common::rss_kib(pid));
        let at_rest = format!("{live} at rest ({} s)", rest.as_secs());
        report.row(&format!("PSS, {at_rest}"), per_session(pss, pss_idle));
        report.row(&format!("RSS, {at_rest}"), per_session(rss, rss_idle));
        let maps = common::proc_count(pid, "maps");
        report.row(
            &format!("memory maps, {at_rest}"),
            maps.map_or("?".into(), |n| n.to_string()),
        );
        eprintln!(
            "[{}] first message to {WOKEN} sessions at rest",
            binary.name
        );
        let woken = runtime.block_on(wake_latency(&client, live.min(WOKEN)));
        report.latency(&format!("first after rest, {WOKEN} of {live}"), woken);
    }

    eprintln!("[{}] GET /v1/health x {HEALTH_REQUESTS}", binary.name);
    match health_latency(daemon.port) {
        Ok(mut samples) => {
            let mut p = |q| us(percentile(&mut samples, q));
            report.row(
                "GET /v1/health p50 / p99 / max",
                format!("{} / {} / {}", p(50.0), p(99.0), p(100.0)),
            );
        }
        Err(err) => report.note(format!("GET /v1/health: {err}")),
    }

    eprintln!("[{}] SSE latency, {live} sessions live", binary.name);
    let latency = runtime.block_on(session_latency(&client, "latency-live"));
    report.latency(&format!("{live} live"), latency);
    if let Some(status) = daemon.exited() {
        report.note(format!("the daemon exited: {status}"));
    }
    if !errors.is_empty() {
        report = report.with_log(&daemon);
    }
    report
}

/// Creates session `id` and times messages on it over SSE.
async fn session_latency(client: &Client, id: &str) -> Result<TurnLatency, String> {
    let request = CreateSessionRequest {
        agent: "mock".into(),
        ..Default::default()
    };
    client
        .create_session(id, &request)
        .await
        .map_err(|err| describe(&err))?;
    turn_latency(
        client,
        &Posting::KeptAlive,
        id,
        LATENCY_WARMUP,
        LATENCY_MESSAGES,
    )
    .await
}

/// One message to each of the first `count` sessions, after they sat at rest (ours
/// has parked their adapter instances): the latency of that first message over SSE.
async fn wake_latency(client: &Client, count: usize) -> Result<TurnLatency, String> {
    let mut all = TurnLatency::default();
    for i in 0..count {
        let one = turn_latency(client, &Posting::KeptAlive, &format!("scale-{i}"), 0, 1).await?;
        all.first_event.extend(one.first_event);
        all.turn_ended.extend(one.turn_ended);
        all.post_answered.extend(one.post_answered);
    }
    Ok(all)
}

/// Creates `sessions` mock sessions, `in_flight` at a time, each with one turn.
/// Returns how many succeeded and each distinct error with its count.
async fn create_sessions(
    client: &Client,
    sessions: usize,
    in_flight: usize,
) -> (usize, BTreeMap<String, usize>) {
    let begin = Instant::now();
    let mut outcomes = futures::stream::iter(0..sessions)
        .map(|i| async move {
            let id = format!("scale-{i}");
            one_session(client, &id)
                .await
                .map_err(|err| err.replace(&id, "<id>"))
        })
        .buffer_unordered(in_flight);
    let (mut done, mut live, mut errors) = (0, 0, BTreeMap::new());
    while let Some(outcome) = outcomes.next().await {
        done += 1;
        match outcome {
            Ok(()) => live += 1,
            Err(err) => *errors.entry(err).or_insert(0) += 1,
        }
        if done % 1_000 == 0 || done == sessions {
            eprintln!(
                "  {done} done, {live} live, {} failed, {:.0} s",
                done - live,
                begin.elapsed().as_secs_f64()
            );
        }
    }
    (live, errors)
}

/// Creates mock session `id`, opens its SSE stream, sends it one message and
/// follows the stream until the turn has ended (as a client watching its
/// sessions does).
async fn one_session(client: &Client, id: &str) -> Result<(), String> {
    let request = CreateSessionRequest {
        agent: "mock".into(),
        ..Default::default()
    };
    let created = client
        .create_session(id, &request)
        .await
        .map_err(|err| format!("POST /v1/sessions/{id}: {}", describe(&err)))?;
    if !created.healthy {
        return Err(format!(
            "POST /v1/sessions/{id}: not healthy: {:?}",
            created.error
        ));
    }
    let mut events = client
        .events_sse(id, Some(0), false, None)
        .await
        .map_err(|err| format!("GET /v1/sessions/{id}/events/sse: {}", describe(&err)))?;
    let message = MessageRequest {
        message: Some("hello".into()),
        ..Default::default()
    };
    client
        .send_message(id, &message)
        .await
        .map_err(|err| format!("POST /v1/sessions/{id}/messages: {}", describe(&err)))?;
    let follow = async {
        while let Some(event) = events.next().await {
            let event =
                event.map_err(|err| format!("SSE of /v1/sessions/{id}: {}", describe(&err)))?;
            match event.event_type.as_str() {
                "turn.ended" => return Ok(()),
                kind @ ("error" | "session.ended") => {
                    return Err(format!("the turn emitted {kind}: {:?}", event.data))
                }
                _ => {}
            }
        }
        Err(format!("the SSE stream of {id} ended before turn.ended"))
    };
    tokio::time::timeout(TURN_TIMEOUT, follow)
        .await
        .map_err(|_| format!("the turn did not end within {TURN_TIMEOUT:?}"))?
}

/// `GET /v1/health` back to back over one kept-alive connection.
fn health_latency(port: u16) -> Result<Vec<Duration>, String> {
    let mut connection = common::KeepAlive::connect(port).map_err(|err| err.to_string())?;
    let mut samples = Vec::with_capacity(HEALTH_REQUESTS);
    for i in 0..HEALTH_WARMUP + HEALTH_REQUESTS {
        let begin = Instant::now();
        match connection.get("/v1/health") {
            Ok(200) => {}
            Ok(status) => return Err(format!("status {status}")),
            Err(err) => return Err(err.to_string()),
        }
        if i >= HEALTH_WARMUP {
            samples.push(begin.elapsed());
        }
    }
    Ok(samples)
}

/// An error with its sources (the client's errors hide the cause, such as a refused
/// connection, in them).
fn describe(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).map_or(default, |value| {
        value
            .replace(['_', ','], "")
            .parse()
            .unwrap_or_else(|_| panic!("{name}={value} is not a number"))
    })
}

fn max_map_count() -> Option<usize> {
    std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()?
        .trim()
        .parse()
        .ok()
}

fn open_files_limit() -> String {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return "?".into();
    }
    format!("{} (hard {})", limit.rlim_cur, limit.rlim_max)
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// The figures of one binary, in the order measured, and what went wrong.
struct Report {
    name: String,
    rows: Vec<(String, String)>,
    notes: Vec<String>,
}

impl Report {
    fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            rows: Vec::new(),
            notes: Vec::new(),
        }
    }

    fn row(&mut self, name: &str, value: String) {
        self.rows.push((name.to_owned(), value));
    }

    fn note(&mut self, note: String) {
        self.notes.push(note);
    }

    fn latency(&mut self, context: &str, latency: Result<TurnLatency, String>) {
        match latency {
            Ok(mut latency) => {
                for (what, samples) in [
                    ("first event", &mut latency.first_event),
                    ("turn.ended", &mut latency.turn_ended),
                ] {
                    let (p50, p95) = (percentile(samples, 50.0), percentile(samples, 95.0));
                    self.row(
                        &format!("POST message -> {what} on SSE, {context}: median / p95"),
                        format!("{} / {}", us(p50), us(p95)),
                    );
                }
            }
            Err(err) => self.note(format!("SSE latency, {context}: {err}")),
        }
    }

    /// Adds the end of the daemon's stderr.
    fn with_log(mut self, daemon: &Daemon) -> Self {
        for line in daemon.log_tail(4) {
            self.note(format!("stderr: {line}"));
        }
        self
    }
}

/// One line per figure, one column per binary, then each binary's notes.
fn print(reports: &[Report], sessions: usize) {
    let mut names: Vec<&str> = Vec::new();
    for report in reports {
        for (name, _) in &report.rows {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let value = |report: &Report, name: &str| {
        report
            .rows
            .iter()
            .find(|(n, _)| n == name)
            .map_or("-".to_owned(), |(_, v)| v.clone())
    };
    let column = reports
        .iter()
        .flat_map(|r| r.rows.iter().map(|(_, v)| v.chars().count()))
        .chain(reports.iter().map(|r| r.name.len()))
        .max()
        .unwrap_or(0);
    println!("\nSessions at scale ({sessions} mock sessions)\n");
    print!("  {:<width$}", "");
    for report in reports {
        print!("  {:>column$}", report.name);
    }
    println!();
    for name in &names {
        print!("  {name:<width$}");
        for report in reports {
            print!("  {:>column$}", value(report, name));
        }
        println!();
    }
    for report in reports {
        for note in &report.notes {
            println!("  [{}] {note}", report.name);
        }
    }
}
