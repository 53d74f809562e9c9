//! Daemon benchmarks: `cargo bench -p agentplex --bench daemon`.
//!
//! Not a timed test: it measures and prints, it does not assert thresholds. Everything
//! runs on loopback against the real `sandbox-agent` binary (built with the bench
//! profile, or `AGENTPLEX_BENCH_BIN`, e.g. the static release binary), except the last group, which drives the mock adapter component through the
//! host crate directly. Bounded to well under a minute on a 2-core machine.
//!
//! What each number means is described in `docs/benchmarks.md`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "daemon/acp.rs"]
mod acp;
mod common;
#[path = "daemon/fleet.rs"]
mod fleet;
#[path = "daemon/gateway.rs"]
mod gateway;
#[path = "daemon/latency.rs"]
mod latency;
#[path = "daemon/moves.rs"]
mod moves;
#[path = "daemon/relay.rs"]
mod relay;
#[path = "daemon/throughput.rs"]
mod throughput;

use agentplex_client::{Client, CreateSessionRequest};
use agentplex_host::{
    Action, AdapterRegistry, ExitStatus, HostConfig, Input, MessagePart, SessionConfig,
};
use common::latency::Posting;
use common::{percentile, us};

const TOKEN: &str = "bench-token";
/// Cold and warm start-ups measured (the median is reported).
const COLD_STARTS: usize = 2;
const WARM_STARTS: usize = 3;
/// Idle mock sessions created for the RSS measurement.
const IDLE_SESSIONS: usize = 100;
/// Concurrent clients and duration of each `GET /v1/agents` run.
const RPS_CLIENTS: [usize; 2] = [1, 16];
const RPS_DURATION: Duration = Duration::from_secs(3);
/// Adapter calls timed per input kind, and per turn (to keep adapter state small).
const CONVERT_CALLS: usize = 10_000;
const CONVERT_CALLS_PER_TURN: usize = 2_000;
/// Instances built for the warm instantiation and restore rows.
const INSTANCE_CALLS: usize = 500;

fn main() {
    if let Ok(target) = std::env::var(relay::RELAY_VAR) {
        relay::serve(&target);
    }
    // `cargo bench --bench daemon -- NAME...` runs only the parts whose name
    // contains one of the NAMEs (startup, idle, agents, latency, throughput,
    // moves, gateway, acp, takeover, adapter); cargo's own `--bench` flag is not a filter.
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let wanted =
        |part: &str| filters.is_empty() || filters.iter().any(|f| part.contains(f.as_str()));
    let started = Instant::now();
    let mut table = Table::default();
    let scratch = tempfile::tempdir().expect("scratch directory");

    if wanted("startup") {
        eprintln!("[1/6] daemon start-up (cold, then warm compile cache)");
        startup(&mut table, scratch.path());
    }

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let cache_dir = scratch.path().join("warm-cache");
    let postgres = ["latency", "throughput", "moves", "takeover"]
        .iter()
        .any(|part| wanted(part))
        .then(fleet::Postgres::start)
        .flatten();
    let stores = fleet::stores(postgres.as_ref());
    if wanted("idle") || wanted("agents") {
        let daemon = Daemon::start(scratch.path(), &cache_dir);
        if wanted("idle") {
            eprintln!("[2/6] idle RSS");
            runtime.block_on(idle_rss(&mut table, &daemon));
        }
        if wanted("agents") {
            eprintln!("[3/6] GET /v1/agents throughput");
            runtime.block_on(agents_rps(&mut table, &daemon));
        }
    }
    if wanted("latency") {
        eprintln!(
            "[4/6] mock event latency over SSE, SQLite store vs --ephemeral, then references"
        );
        let rounds = latency::latency_rounds();
        let references = common::daemons::Binary::references();
        let mut measured: Vec<(latency::Measured, Vec<common::latency::TurnLatency>)> = Vec::new();
        let mut record = |what: latency::Measured, latency| match measured
            .iter_mut()
            .find(|(w, _)| *w == what)
        {
            Some((_, runs)) => runs.push(latency),
            None => measured.push((what, vec![latency])),
        };
        // Every daemon once per round and way of posting, in the same order, each a
        // fresh process: one process's median moves by tens of percent with where its
        // tasks land, so each figure pools the messages of all its rounds.
        for _ in 0..rounds {
            for new_connection in [false, true] {
                for (label, args) in &stores {
                    let daemon = Daemon::start_with(scratch.path(), &cache_dir, &flags(args));
                    let posting = Posting::to(new_connection, &daemon.endpoint, Some(TOKEN));
                    let what = latency::Measured {
                        daemon: label.clone(),
                        posting: posting.label(),
                    };
                    record(
                        what,
                        runtime.block_on(latency::event_latency(daemon.client(), posting)),
                    );
                }
                // The same client against each `AGENTPLEX_REFERENCES` binary, in this run.
                for reference in &references {
                    let (daemon, _) = common::daemons::Daemon::start(reference, scratch.path());
                    let endpoint = format!("http://127.0.0.1:{}", daemon.port);
                    let posting = Posting::to(new_connection, &endpoint, daemon.token.as_deref());
                    let what = latency::Measured {
                        daemon: format!("{} (its default store)", reference.name),
                        posting: posting.label(),
                    };
                    record(
                        what,
                        runtime.block_on(latency::event_latency(daemon.client(), posting)),
                    );
                }
            }
        }
        latency::latency_rows(&mut table, &measured);
    }

    if wanted("throughput") {
        eprintln!("[5/6] sustained events/s, SQLite store vs --ephemeral vs PostgreSQL");
        table.section("Sustained event rate (8 mock sessions streaming at once)");
        for (label, args) in &stores {
            let daemon = Daemon::start_with(scratch.path(), &cache_dir, &flags(args));
            for load in [throughput::Load::Turns, throughput::Load::AgentOutput] {
                runtime.block_on(throughput::event_throughput(
                    &mut table, &daemon, label, load,
                ));
            }
        }
    }
    if wanted("moves") {
        eprintln!(
            "[5/6] a session of {} events exported and imported",
            moves::MOVED_EVENTS
        );
        for (label, args) in stores
            .iter()
            .filter(|(label, _)| !label.contains("ephemeral"))
        {
            let flags = flags(args);
            let at = moves::Ends {
                scratch: scratch.path(),
                cache_dir: &cache_dir,
                flags: &flags,
            };
            runtime.block_on(moves::moves(&mut table, label, &at));
        }
    }
    if wanted("gateway") {
        eprintln!("[5/6] model gateway overhead, streams at once");
        runtime.block_on(gateway::gateway(&mut table, scratch.path(), &cache_dir));
    }
    if wanted("acp") {
        eprintln!("[5/6] ACP: a prompt to its first update, REST, HTTP and stdio");
        runtime.block_on(acp::acp(&mut table, scratch.path()));
    }
    if wanted("takeover") {
        match &postgres {
            Some(postgres) => {
                eprintln!("[5/6] takeover of a session after its daemon's death (PostgreSQL)");
                runtime.block_on(fleet::takeover(
                    &mut table,
                    postgres,
                    scratch.path(),
                    &cache_dir,
                ));
            }
            None => eprintln!("[5/6] takeover: skipped, no PostgreSQL server"),
        }
    }
    drop(runtime);

    if wanted("adapter") {
        eprintln!("[6/6] WASM adapter calls through the host crate");
        adapter_calls(&mut table);
    }

    table.print();
    println!(
        "\n(total bench time {:.1} s, {} CPUs)",
        started.elapsed().as_secs_f64(),
        cpus()
    );
}

// ---------------------------------------------------------------------------
// The daemon process

struct Daemon {
    child: Child,
    endpoint: String,
    _data_dir: tempfile::TempDir,
}

impl Daemon {
    /// Starts a daemon with a fresh data dir and `cache_dir`, and waits until it is healthy.
    fn start(scratch: &Path, cache_dir: &Path) -> Daemon {
        Daemon::start_timed(scratch, cache_dir).0
    }

    /// Starts a daemon with extra `server` flags.
    fn start_with(scratch: &Path, cache_dir: &Path, args: &[&str]) -> Daemon {
        Daemon::start_timed_with(scratch, cache_dir, args).0
    }

    /// Also returns the time from spawning the process to the first healthy answer.
    fn start_timed(scratch: &Path, cache_dir: &Path) -> (Daemon, Duration) {
        Daemon::start_timed_with(scratch, cache_dir, &[])
    }

    /// Starts a daemon with extra `server` flags and environment variables.
    fn start_with_env(
        scratch: &Path,
        cache_dir: &Path,
        args: &[&str],
        env: &[(&str, String)],
    ) -> Daemon {
        Daemon::start_timed_env(scratch, cache_dir, args, env).0
    }

    fn start_timed_with(scratch: &Path, cache_dir: &Path, args: &[&str]) -> (Daemon, Duration) {
        Daemon::start_timed_env(scratch, cache_dir, args, &[])
    }

    fn start_timed_env(
        scratch: &Path,
        cache_dir: &Path,
        args: &[&str],
        env: &[(&str, String)],
    ) -> (Daemon, Duration) {
        let data_dir = tempfile::tempdir_in(scratch).expect("data dir");
        let port = common::free_port();
        let begin = Instant::now();
        // The bench build's binary, or `AGENTPLEX_BENCH_BIN` (the shipped one).
        let child = Command::new(common::daemons::Binary::ours().path)
            .args([
                "server",
                "--host",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--token",
                TOKEN,
            ])
            .arg("--data-dir")
            .arg(data_dir.path())
            .arg("--cache-dir")
            .arg(cache_dir)
            .args(args)
            .envs(env.iter().map(|(name, value)| (name, value)))
            .env("AGENTPLEX_LOG", "warn")
            .env_remove("AGENTPLEX_ADAPTERS_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting sandbox-agent");
        let mut daemon = Daemon {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
            _data_dir: data_dir,
        };
        let deadline = begin + Duration::from_secs(120);
        loop {
            if let Some(status) = daemon.child.try_wait().unwrap() {
                panic!("sandbox-agent exited during start-up: {status}");
            }
            if common::http_get(port, "/v1/health", None) == Some(200) {
                return (daemon, begin.elapsed());
            }
            assert!(
                Instant::now() < deadline,
                "sandbox-agent did not become healthy"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn client(&self) -> Client {
        Client::new(&self.endpoint, Some(TOKEN.into())).unwrap()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        common::stop(&mut self.child);
    }
}

/// `args` as the flags [`Daemon::start_with`] takes.
fn flags(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

// ---------------------------------------------------------------------------
// 1. Start-up

fn startup(table: &mut Table, scratch: &Path) {
    let mut cold = Vec::new();
    for i in 0..COLD_STARTS {
        // A fresh cache dir each time: the adapter components are compiled from scratch.
        let (daemon, elapsed) =
            Daemon::start_timed(scratch, &scratch.join(format!("cold-cache-{i}")));
        cold.push(elapsed);
        drop(daemon);
    }
    // Fill the cache that the warm start-ups (and the rest of the bench) use.
    drop(Daemon::start(scratch, &scratch.join("warm-cache")));
    let mut warm = Vec::new();
    for _ in 0..WARM_STARTS {
        let (daemon, elapsed) = Daemon::start_timed(scratch, &scratch.join("warm-cache"));
        warm.push(elapsed);
        drop(daemon);
    }
    table.section("Start-up (spawn → first 200 from GET /v1/health)");
    table.row(
        "cold: fresh data dir + fresh compile cache",
        ms(median(&mut cold)),
        format!("median of {COLD_STARTS}; all: {}", list_ms(&cold)),
    );
    table.row(
        "warm: fresh data dir, compile cache filled",
        ms(median(&mut warm)),
        format!("median of {WARM_STARTS}; all: {}", list_ms(&warm)),
    );
}

// ---------------------------------------------------------------------------
// 2. Idle RSS

async fn idle_rss(table: &mut Table, daemon: &Daemon) {
    let client = daemon.client();
    let settle = || tokio::time::sleep(Duration::from_millis(300));
    settle().await;
    let at_start = common::rss_kib(daemon.pid());
    let begin = Instant::now();
    for i in 0..IDLE_SESSIONS {
        let request = CreateSessionRequest {
            agent: "mock".into(),
            ..Default::default()
        };
        let created = client
            .create_session(&format!("idle-{i}"), &request)
            .await
            .expect("creating a session");
        assert!(created.healthy, "session {i} is not healthy");
    }
    let create_time = begin.elapsed();
    settle().await;
    let after = common::rss_kib(daemon.pid());
    table.section("Idle memory (VmRSS of the daemon)");
    table.row(
        "after start-up, no session",
        mib(at_start),
        "warm start, after 300 ms idle".into(),
    );
    table.row(
        &format!("after {IDLE_SESSIONS} idle mock sessions"),
        mib(after),
        format!(
            "+{:.0} KiB per session; creating them took {:.1} ms each",
            after.saturating_sub(at_start) as f64 / IDLE_SESSIONS as f64,
            create_time.as_secs_f64() * 1000.0 / IDLE_SESSIONS as f64
        ),
    );
}

// ---------------------------------------------------------------------------
// 3. GET /v1/agents throughput

async fn agents_rps(table: &mut Table, daemon: &Daemon) {
    table.section(&format!(
        "GET /v1/agents throughput ({:.0} s per run, keep-alive, token auth)",
        RPS_DURATION.as_secs_f64()
    ));
    let url = format!("{}/v1/agents", daemon.endpoint);
    for clients in RPS_CLIENTS {
        let http = reqwest::Client::builder()
            .no_proxy()
            .pool_max_idle_per_host(clients)
            .build()
            .unwrap();
        // Warm the connections.
        for _ in 0..clients {
            http.get(&url)
                .bearer_auth(TOKEN)
                .send()
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap();
        }
        let begin = Instant::now();
        let deadline = begin + RPS_DURATION;
        let tasks: Vec<_> = (0..clients)
            .map(|_| {
                let http = http.clone();
                let url = url.clone();
                tokio::spawn(async move {
                    let mut latencies = Vec::new();
                    while Instant::now() < deadline {
                        let t = Instant::now();
                        let response = http
                            .get(&url)
                            .bearer_auth(TOKEN)
                            .send()
                            .await
                            .expect("GET /v1/agents");
                        assert!(
                            response.status().is_success(),
                            "GET /v1/agents: {}",
                            response.status()
                        );
                        response.bytes().await.unwrap();
                        latencies.push(t.elapsed());
                    }
                    latencies
                })
            })
            .collect();
        let mut latencies = Vec::new();
        for task in tasks {
            latencies.extend(task.await.unwrap());
        }
        let elapsed = begin.elapsed();
        let rps = latencies.len() as f64 / elapsed.as_secs_f64();
        table.row(
            &format!(
                "{clients} concurrent client{}",
                if clients == 1 { "" } else { "s" }
            ),
            format!("{rps:.0} req/s"),
            format!(
                "{} requests; latency p50 {} p95 {}",
                latencies.len(),
                us(percentile(&mut latencies, 50.0)),
                us(percentile(&mut latencies, 95.0))
            ),
        );
    }
}

// ---------------------------------------------------------------------------
// 5. Adapter calls through the host crate

fn mock_component() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../adapters/target/wasm32-wasip2/release/sandbox_agent_adapter_mock.wasm")
}

fn adapter_calls(table: &mut Table) {
    let path = mock_component();
    assert!(
        path.is_file(),
        "the mock component is not built at {} (the agentplex-builtins build script builds it)",
        path.display()
    );
    let begin = Instant::now();
    let registry = AdapterRegistry::new(HostConfig::default()).expect("adapter registry");
    let adapter = registry
        .load_file(&path)
        .expect("loading the mock component");
    let compile = begin.elapsed();

    let config = SessionConfig {
        session_id: "bench".into(),
        agent_mode: "build".into(),
        permission_mode: "default".into(),
        model: None,
        variant: None,
        directory: "/tmp".into(),
        agent_binary: None,
        env: Vec::new(),
        resume_native_session_id: None,
        mcp_servers: Vec::new(),
        skills: Vec::new(),
        scratch_dir: String::new(),
        model_endpoints: Vec::new(),
        policy: None,
    };
    let begin = Instant::now();
    let mut session = adapter
        .new_session(config.clone())
        .expect("new adapter session");
    let new_session = begin.elapsed();
    session.handle(Input::Start).expect("start");

    table.section("WASM adapter calls (mock component via agentplex-host, no daemon)");
    table.row(
        "load + compile the mock component (no cache)",
        ms(compile),
        format!(
            "{} KiB component",
            std::fs::metadata(&path).unwrap().len() / 1024
        ),
    );
    table.row(
        "new adapter session (instantiate)",
        us(new_session),
        String::new(),
    );

    // on-stdout: a `shell` turn waits for its process; each line becomes one item.delta.
    let line = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"a line of native agent output, about 120 bytes"}]}}"#;
    let mut samples = Vec::with_capacity(CONVERT_CALLS);
    let mut turns = 0;
    while samples.len() < CONVERT_CALLS {
        let actions = session
            .handle(Input::SendMessage(vec![MessagePart::Text(
                "shell cat".into(),
            )]))
            .unwrap();
        let process_id = actions
            .iter()
            .find_map(|a| match a {
                Action::Spawn(spawn) => Some(spawn.process_id.clone()),
                _ => None,
            })
            .expect("the shell command spawns a process");
        for _ in 0..CONVERT_CALLS_PER_TURN {
            let input = Input::Stdout {
                process_id: process_id.clone(),
                line: line.to_owned(),
            };
            let t = Instant::now();
            let actions = session.handle(input).unwrap();
            samples.push(t.elapsed());
            assert_eq!(actions.len(), 1, "one item.delta per stdout line");
        }
        session
            .handle(Input::Exit {
                process_id,
                status: ExitStatus {
                    code: Some(0),
                    signal: None,
                },
            })
            .unwrap();
        turns += 1;
    }
    call_row(
        table,
        "on-stdout: 1 native line → 1 item.delta",
        &mut samples,
        &format!("{turns} shell turns"),
    );

    // on-timer: a `slow` turn ticks; each tick is one item.delta and the next timer.
    let mut samples = Vec::with_capacity(CONVERT_CALLS);
    while samples.len() < CONVERT_CALLS {
        let actions = session
            .handle(Input::SendMessage(vec![MessagePart::Text(
                "slow 36000".into(),
            )]))
            .unwrap();
        let mut timer_id = timer_of(&actions);
        for _ in 0..CONVERT_CALLS_PER_TURN {
            let input = Input::Timer {
                timer_id: timer_id.clone(),
            };
            let t = Instant::now();
            let actions = session.handle(input).unwrap();
            samples.push(t.elapsed());
            timer_id = timer_of(&actions);
        }
        session.handle(Input::CancelTurn).unwrap();
    }
    call_row(
        table,
        "on-timer: 1 tick → 1 item.delta + next timer",
        &mut samples,
        "",
    );

    // on-stderr: a line kept in the adapter's state, no action (the boundary cost alone).
    let mut samples = Vec::with_capacity(CONVERT_CALLS);
    while samples.len() < CONVERT_CALLS {
        let actions = session
            .handle(Input::SendMessage(vec![MessagePart::Text(
                "shell cat".into(),
            )]))
            .unwrap();
        let process_id = process_of(&actions);
        for _ in 0..CONVERT_CALLS_PER_TURN {
            let input = Input::Stderr {
                process_id: process_id.clone(),
                line: "warning: something".into(),
            };
            let t = Instant::now();
            let actions = session.handle(input).unwrap();
            samples.push(t.elapsed());
            assert!(actions.is_empty());
        }
        session
            .handle(Input::Exit {
                process_id,
                status: ExitStatus {
                    code: Some(0),
                    signal: None,
                },
            })
            .unwrap();
    }
    call_row(
        table,
        "on-stderr: 1 line, no action (call overhead)",
        &mut samples,
        "",
    );

    // send-message: a whole echo turn (9 events) in one call.
    let mut fresh = adapter.new_session(config.clone()).unwrap();
    fresh.handle(Input::Start).unwrap();
    let mut samples = Vec::with_capacity(2_000);
    for i in 0..2_000 {
        let input = Input::SendMessage(vec![MessagePart::Text(format!("hello there number {i}"))]);
        let t = Instant::now();
        let actions = fresh.handle(input).unwrap();
        samples.push(t.elapsed());
        assert!(actions.len() >= 9, "an echo turn emits at least 9 events");
    }
    call_row(
        table,
        "send-message: 1 echo turn → 9 events",
        &mut samples,
        "",
    );

    // Warm instantiation (the first one above paid for one-time set-up), and a
    // parked session's next call: a new instance restored from its snapshot.
    let mut samples = Vec::with_capacity(INSTANCE_CALLS);
    for _ in 0..INSTANCE_CALLS {
        let t = Instant::now();
        let session = adapter.new_session(config.clone()).unwrap();
        samples.push(t.elapsed());
        drop(session);
    }
    call_row(table, "new adapter session, warm", &mut samples, "");
    let mut samples = Vec::with_capacity(INSTANCE_CALLS);
    for _ in 0..INSTANCE_CALLS {
        fresh.park().unwrap();
        let input = Input::SendMessage(vec![MessagePart::Text("hello".into())]);
        let t = Instant::now();
        fresh.handle(input).unwrap();
        samples.push(t.elapsed());
    }
    call_row(
        table,
        "parked session's next echo turn (restore + send-message)",
        &mut samples,
        "",
    );
    table.row(
        "instance recycles during the above",
        format!("{}", session.recycled() + fresh.recycled()),
        format!("memory now {} KiB", session.memory_size() / 1024),
    );
}

fn process_of(actions: &[Action]) -> String {
    actions
        .iter()
        .find_map(|a| match a {
            Action::Spawn(spawn) => Some(spawn.process_id.clone()),
            _ => None,
        })
        .expect("the shell command spawns a process")
}

fn timer_of(actions: &[Action]) -> String {
    actions
        .iter()
        .find_map(|a| match a {
            Action::SetTimer(timer) => Some(timer.timer_id.clone()),
            _ => None,
        })
        .expect("the slow command sets a timer")
}

fn call_row(table: &mut Table, name: &str, samples: &mut [Duration], note: &str) {
    let mean = samples.iter().sum::<Duration>() / samples.len() as u32;
    let p50 = percentile(samples, 50.0);
    let p95 = percentile(samples, 95.0);
    let mut text = format!(
        "{} calls; mean {}, p95 {}",
        samples.len(),
        us(mean),
        us(p95)
    );
    if !note.is_empty() {
        text.push_str("; ");
        text.push_str(note);
    }
    table.row(name, format!("{} /call", us(p50)), text);
}

// ---------------------------------------------------------------------------
// Statistics and printing

fn median(samples: &mut [Duration]) -> Duration {
    percentile(samples, 50.0)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn list_ms(samples: &[Duration]) -> String {
    samples
        .iter()
        .map(|d| format!("{:.0}", d.as_secs_f64() * 1000.0))
        .collect::<Vec<_>>()
        .join(", ")
        + " ms"
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

#[derive(Default)]
struct Table {
    rows: Vec<Option<(String, String, String)>>,
    sections: Vec<(usize, String)>,
}

impl Table {
    fn section(&mut self, title: &str) {
        self.sections.push((self.rows.len(), title.to_owned()));
    }

    fn row(&mut self, name: &str, value: String, note: String) {
        self.rows.push(Some((name.to_owned(), value, note)));
    }

    fn print(&self) {
        let rows: Vec<_> = self.rows.iter().flatten().collect();
        let name_width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
        let value_width = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
        println!("\nsandbox-agent daemon benchmarks");
        for (index, row) in self.rows.iter().enumerate() {
            for (_, title) in self.sections.iter().filter(|(at, _)| *at == index) {
                println!("\n{title}");
                println!("  {}", "-".repeat(name_width + value_width + 4));
            }
            if let Some((name, value, note)) = row {
                println!("  {name:<name_width$}  {value:>value_width$}  {note}");
            }
        }
    }
}
