//! The `agentplex` binary used as a CLI against a running daemon: one test (at
//! least) per subcommand, checking what it prints on stdout, what it prints on
//! stderr when it fails, and its exit status.
//!
//! Every client command gets `--endpoint` explicitly; `AGENTPLEX_*` variables of
//! the environment the tests run in are removed so they cannot leak in.

#[path = "../common/mod.rs"]
mod common;

mod adapters;
mod errors;
mod files;
mod human;
mod meta;
mod moves;
mod processes;
mod requests;
mod sessions;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{binary, describe, free_port, text, Daemon, Options};
use serde_json::{json, Value};

/// Longest a single CLI call may take before the test fails (compiling an adapter
/// component in a debug build of the host is the slowest thing a command does).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);
/// How long to wait for an asynchronous effect (an event in the log...).
const EVENT_TIMEOUT: Duration = Duration::from_secs(20);

const ENV_VARS: [&str; 9] = [
    "AGENTPLEX_ENDPOINT",
    "AGENTPLEX_TOKEN",
    "AGENTPLEX_HOST",
    "AGENTPLEX_PORT",
    "AGENTPLEX_DATA_DIR",
    "AGENTPLEX_ADAPTERS_DIR",
    "AGENTPLEX_INSTALL_DIR",
    "AGENTPLEX_CACHE_DIR",
    "AGENTPLEX_LOG",
];

// ---------------------------------------------------------------------------
// Running the binary

/// `agentplex <args>` with a clean environment, output captured.
fn command(args: &[&str]) -> Command {
    let mut command = Command::new(binary());
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in ENV_VARS {
        // Under the name of 0.2 too, which the binary still reads.
        let legacy = var.replace("AGENTPLEX_", "SANDBOX_AGENT_");
        command.env_remove(var).env_remove(legacy);
    }
    command
}

/// Runs a command to its end, failing the test if it takes longer than `timeout`.
fn run_command(mut command: Command, timeout: Duration) -> Output {
    let mut child = command.spawn().expect("starting agentplex");
    let stdout = read_in_background(child.stdout.take().unwrap());
    let stderr = read_in_background(child.stderr.take().unwrap());
    let status = wait_with_deadline(&mut child, timeout)
        .unwrap_or_else(|| panic!("{command:?} did not finish within {timeout:?}"));
    Output {
        status,
        stdout: stdout.recv().unwrap(),
        stderr: stderr.recv().unwrap(),
    }
}

fn read_in_background(mut pipe: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = sender.send(bytes);
    });
    receiver
}

/// Waits for `child` to exit; kills it and returns `None` past the deadline.
fn wait_with_deadline(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().expect("polling a child process") {
            return Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A client subcommand (`args`) against `daemon`, with `--endpoint` and its token.
fn client_command(daemon: &Daemon, args: &[&str]) -> Command {
    let mut command = command(args);
    command.args(["--endpoint", &daemon.endpoint]);
    if let Some(token) = &daemon.token {
        command.args(["--token", token]);
    }
    command
}

/// Runs a client subcommand against `daemon`.
fn cli(daemon: &Daemon, args: &[&str]) -> Output {
    run_command(client_command(daemon, args), COMMAND_TIMEOUT)
}

/// Asserts the command succeeded and printed one JSON document on stdout.
#[track_caller]
fn json_ok(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "command failed: {}",
        describe(output)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}): {}",
            describe(output)
        )
    })
}

/// Asserts the command succeeded and printed one JSON document per line on stdout.
#[track_caller]
fn json_lines_ok(output: &Output) -> Vec<Value> {
    assert!(
        output.status.success(),
        "command failed: {}",
        describe(output)
    );
    json_lines(&text(&output.stdout))
}

#[track_caller]
fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON line ({e}): {line:?}"))
        })
        .collect()
}

/// What a failed command printed on stderr: the daemon's problem document (when it
/// sent one) and the `error: ...` line, which must be the last line.
struct Failure {
    problem: Option<Value>,
    error_line: String,
    stderr: String,
}

#[track_caller]
fn expect_failure(output: &Output) -> Failure {
    assert!(
        !output.status.success(),
        "command should have failed: {}",
        describe(output)
    );
    assert_eq!(
        output.status.code(),
        Some(1),
        "a failure exits with 1: {}",
        describe(output)
    );
    let stderr = text(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    let error_line = lines.last().copied().unwrap_or_default().to_owned();
    assert!(
        error_line.starts_with("error: "),
        "last stderr line is not `error: ...`: {}",
        describe(output)
    );
    assert_eq!(
        lines
            .iter()
            .filter(|line| line.starts_with("error: "))
            .count(),
        1,
        "exactly one `error:` line expected: {}",
        describe(output)
    );
    let before: String = lines[..lines.len() - 1].join("\n");
    let problem = if before.trim().is_empty() {
        None
    } else {
        Some(serde_json::from_str(&before).unwrap_or_else(|e| {
            panic!(
                "stderr before the error line is not a JSON problem ({e}): {}",
                describe(output)
            )
        }))
    };
    Failure {
        problem,
        error_line,
        stderr,
    }
}

/// Asserts a failure carrying the daemon's problem of type `code` with `status`.
#[track_caller]
fn problem_failure(output: &Output, code: &str, status: u16) -> Failure {
    let failure = expect_failure(output);
    let problem = failure
        .problem
        .as_ref()
        .unwrap_or_else(|| panic!("no problem document on stderr: {}", describe(output)));
    assert_eq!(
        problem["type"],
        format!("urn:sandbox-agent:error:{code}"),
        "{}",
        describe(output)
    );
    assert_eq!(problem["status"], status, "{}", describe(output));
    assert!(
        problem["title"].as_str().is_some_and(|t| !t.is_empty()),
        "problem without a title: {problem}"
    );
    assert!(
        failure.error_line.contains(code),
        "the error line should name the code {code}: {}",
        failure.error_line
    );
    assert!(
        failure.error_line.contains(&status.to_string()),
        "the error line should name the status: {}",
        failure.error_line
    );
    failure
}

// ---------------------------------------------------------------------------
// Daemon helpers

fn start_daemon() -> Daemon {
    Daemon::start()
}

/// Creates a mock session through the CLI.
fn create_mock_session(daemon: &Daemon, id: &str) {
    let created = json_ok(&cli(daemon, &["sessions", "create", id, "--agent", "mock"]));
    assert_eq!(created["healthy"], true, "{created}");
}

/// The session's whole transcript, through the HTTP API directly.
fn http_events(daemon: &Daemon, id: &str) -> Vec<Value> {
    let mut request =
        reqwest::blocking::Client::new().get(daemon.url(&format!("/v1/sessions/{id}/events")));
    if let Some(token) = &daemon.token {
        request = request.bearer_auth(token);
    }
    let response = request.send().expect("GET events");
    assert!(
        response.status().is_success(),
        "GET events: {}",
        response.status()
    );
    let body: Value = response.json().expect("events JSON");
    body["events"].as_array().expect("events array").clone()
}

/// Polls the transcript until `done` holds for it, failing after [`EVENT_TIMEOUT`].
#[track_caller]
fn wait_for_events(
    daemon: &Daemon,
    id: &str,
    what: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let deadline = Instant::now() + EVENT_TIMEOUT;
    loop {
        let events = http_events(daemon, id);
        if done(&events) {
            return events;
        }
        if Instant::now() >= deadline {
            panic!(
                "timed out waiting for {what}; events so far:\n{}",
                types(&events).join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("?").to_owned())
        .collect()
}

fn count_type(events: &[Value], event_type: &str) -> usize {
    events.iter().filter(|e| e["type"] == event_type).count()
}

fn has_type(events: &[Value], event_type: &str) -> bool {
    count_type(events, event_type) > 0
}

/// The last event of a type.
#[track_caller]
fn last_of<'a>(events: &'a [Value], event_type: &str) -> &'a Value {
    events
        .iter()
        .rev()
        .find(|e| e["type"] == event_type)
        .unwrap_or_else(|| panic!("no {event_type} in {:?}", types(events)))
}

/// Text of the last completed assistant message.
#[track_caller]
fn last_assistant_text(events: &[Value]) -> String {
    let item = events
        .iter()
        .rev()
        .filter(|e| e["type"] == "item.completed")
        .map(|e| &e["data"]["item"])
        .find(|item| item["kind"] == "message" && item["role"] == "assistant")
        .unwrap_or_else(|| panic!("no completed assistant message in {:?}", types(events)));
    item["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|part| part["type"] == "text")
        .map(|part| part["text"].as_str().unwrap())
        .collect()
}

/// Sends `message` with `send --stream` and returns the events it printed.
fn send_stream(daemon: &Daemon, id: &str, message: &str) -> Vec<Value> {
    json_lines_ok(&cli(daemon, &["sessions", "send", id, message, "--stream"]))
}

fn mock_wasm() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../adapters/target/wasm32-wasip2/release/sandbox_agent_adapter_mock.wasm")
}
