//! The process API (`/v1/processes`) end to end against the daemon binary: one-shot
//! runs (exit codes, signals, timeouts, output caps), managed processes (stdin, logs
//! by offset and over SSE, the ring buffer, stop and kill, limits), PTY terminals over
//! a real WebSocket client (several viewers, scrollback, bad frames, the query
//! token), reaping, process group ids never signalled once the daemon let go of
//! them, the daemon stopping every process tree it started, and the CPU priority
//! of agents and processes.

#[path = "../common/mod.rs"]
mod common;

mod managed;
mod priority;
mod reuse;
mod runs;
mod shutdown;
mod terminal;

use std::future::Future;
use std::time::{Duration, Instant};

use agentplex_client::{Client, ClientError, ProcessInfo, ProcessLogsQuery, ProcessState};
use common::{Daemon, Options};

/// A daemon with these extra server flags (and `--no-token`).
fn daemon(args: &[&str]) -> Daemon {
    Daemon::start_with(Options {
        args: args.iter().map(|a| a.to_string()).collect(),
        ..Options::default()
    })
}

/// Runs a test's async part (the daemon is started and stopped outside it: its
/// launcher blocks).
fn block_on<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(future)
}

/// The daemon's client.
fn client(daemon: &Daemon) -> Client {
    Client::new(&daemon.endpoint, daemon.token.clone()).expect("a client")
}

/// The status and code of a refusal.
#[track_caller]
fn refusal<T: std::fmt::Debug>(result: Result<T, ClientError>) -> (u16, String, String) {
    let error = result.expect_err("the daemon refuses");
    let problem = error
        .problem()
        .unwrap_or_else(|| panic!("no problem: {error}"));
    (
        problem.status,
        problem.code().to_owned(),
        problem.detail.clone().unwrap_or_default(),
    )
}

/// Everything the process printed that its log still holds, as text.
async fn log_text(client: &Client, id: &str) -> String {
    let logs = client
        .process_logs(id, &ProcessLogsQuery::default())
        .await
        .expect("logs");
    logs.entries.iter().map(|e| decode(&e.data)).collect()
}

/// A log entry's base64 data as text.
fn decode(data: &str) -> String {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("base64 data");
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Waits up to 10 s for the process's log to hold `needle`.
async fn wait_for_output(client: &Client, id: &str, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = log_text(client, id).await;
        if text.contains(needle) {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "{needle:?} never came; got {text:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits up to 10 s for the process to exit.
async fn wait_exited(client: &Client, id: &str) -> ProcessInfo {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let info = client.get_process(id).await.expect("the process");
        if info.status == ProcessState::Exited {
            return info;
        }
        assert!(Instant::now() < deadline, "{id} did not exit: {info:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The live members of process group `pgid` (zombies aside).
fn group_members(pgid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .expect("reading /proc")
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let Some(close) = stat.rfind(')') else {
                return false;
            };
            let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
            fields.first() != Some(&"Z") && fields.get(2) == Some(&pgid.to_string().as_str())
        })
        .collect()
}

/// The median of some durations.
fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}
