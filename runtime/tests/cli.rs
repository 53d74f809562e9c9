//! The `sandbox-agent` binary used as a CLI against a running daemon: one test (at
//! least) per subcommand, checking what it prints on stdout, what it prints on
//! stderr when it fails, and its exit status.
//!
//! Every client command gets `--endpoint` explicitly; `SANDBOX_AGENT_*` variables of
//! the environment the tests run in are removed so they cannot leak in.

mod common;

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
    "SANDBOX_AGENT_ENDPOINT",
    "SANDBOX_AGENT_TOKEN",
    "SANDBOX_AGENT_HOST",
    "SANDBOX_AGENT_PORT",
    "SANDBOX_AGENT_DATA_DIR",
    "SANDBOX_AGENT_ADAPTERS_DIR",
    "SANDBOX_AGENT_INSTALL_DIR",
    "SANDBOX_AGENT_CACHE_DIR",
    "SANDBOX_AGENT_LOG",
];

// ---------------------------------------------------------------------------
// Running the binary

/// `sandbox-agent <args>` with a clean environment, output captured.
fn command(args: &[&str]) -> Command {
    let mut command = Command::new(binary());
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in ENV_VARS {
        command.env_remove(var);
    }
    command
}

/// Runs a command to its end, failing the test if it takes longer than `timeout`.
fn run_command(mut command: Command, timeout: Duration) -> Output {
    let mut child = command.spawn().expect("starting sandbox-agent");
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

// ---------------------------------------------------------------------------
// health, openapi

#[test]
fn health_prints_status_and_version() {
    let daemon = start_daemon();
    let health = json_ok(&cli(&daemon, &["health"]));
    assert_eq!(health["status"], "ok");
    assert_eq!(health["version"], env!("CARGO_PKG_VERSION"));
}

#[test]
fn health_needs_no_token_but_other_commands_do() {
    let daemon = Daemon::start_with(Options {
        token: Some("s3cret".into()),
        ..Default::default()
    });
    let health = json_ok(&run_command(
        command(&["health", "--endpoint", &daemon.endpoint]),
        COMMAND_TIMEOUT,
    ));
    assert_eq!(health["status"], "ok");
    let output = run_command(
        command(&["agents", "list", "--endpoint", &daemon.endpoint]),
        COMMAND_TIMEOUT,
    );
    problem_failure(&output, "token_invalid", 401);
}

#[test]
fn openapi_prints_the_openapi_document() {
    let output = run_command(command(&["openapi"]), COMMAND_TIMEOUT);
    let document = json_ok(&output);
    assert!(
        document["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.1")),
        "openapi version: {}",
        document["openapi"]
    );
    let paths = document["paths"].as_object().expect("paths");
    for path in [
        "/v1/health",
        "/v1/agents",
        "/v1/sessions",
        "/v1/sessions/{session_id}",
        "/v1/sessions/{session_id}/messages",
        "/v1/sessions/{session_id}/events/sse",
        "/v1/sessions/{session_id}/terminate",
    ] {
        assert!(
            paths.contains_key(path),
            "openapi has no {path}: {:?}",
            paths.keys().collect::<Vec<_>>()
        );
    }
}

#[test]
fn openapi_matches_the_served_document() {
    let daemon = start_daemon();
    let printed = json_ok(&run_command(command(&["openapi"]), COMMAND_TIMEOUT));
    let served: Value = reqwest::blocking::get(daemon.url("/v1/openapi.json"))
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(
        printed, served,
        "`sandbox-agent openapi` differs from GET /v1/openapi.json"
    );
}

// ---------------------------------------------------------------------------
// agents

#[test]
fn agents_list_shows_mock_installed() {
    let daemon = start_daemon();
    let list = json_ok(&cli(&daemon, &["agents", "list"]));
    let agents = list["agents"].as_array().expect("agents array");
    let mock = agents
        .iter()
        .find(|a| a["id"] == "mock")
        .unwrap_or_else(|| panic!("no mock agent: {list}"));
    assert_eq!(mock["installed"], true, "{mock}");
    assert_eq!(mock["capabilities"]["permissions"], true, "{mock}");
    assert_eq!(mock["capabilities"]["questions"], true, "{mock}");
    assert_eq!(mock["capabilities"]["mcpTools"], false, "{mock}");
}

#[test]
fn agents_modes_lists_build_and_plan() {
    let daemon = start_daemon();
    let modes = json_ok(&cli(&daemon, &["agents", "modes", "mock"]));
    let ids: Vec<&str> = modes["modes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["build", "plan"], "{modes}");
}

#[test]
fn agents_models_lists_mock_models() {
    let daemon = start_daemon();
    let models = json_ok(&cli(&daemon, &["agents", "models", "mock"]));
    assert_eq!(models["defaultModel"], "mock", "{models}");
    let list = models["models"].as_array().unwrap();
    let large = list
        .iter()
        .find(|m| m["id"] == "mock-large")
        .unwrap_or_else(|| panic!("no mock-large: {models}"));
    assert_eq!(
        large["variants"],
        json!(["low", "medium", "high"]),
        "{models}"
    );
    assert_eq!(large["defaultVariant"], "medium", "{models}");
    assert!(list.iter().any(|m| m["id"] == "mock"), "{models}");
}

#[test]
fn agents_install_builtin_mock_succeeds() {
    let daemon = start_daemon();
    for args in [
        &["agents", "install", "mock"][..],
        &["agents", "install", "mock", "--reinstall"],
    ] {
        let outcome = json_ok(&cli(&daemon, args));
        assert_eq!(outcome["agent"], "mock", "{outcome}");
        assert_eq!(outcome["alreadyInstalled"], true, "{outcome}");
    }
}

#[test]
fn agents_commands_refuse_an_unknown_agent() {
    let daemon = start_daemon();
    for args in [
        &["agents", "modes", "no-such-agent"][..],
        &["agents", "models", "no-such-agent"],
        &["agents", "install", "no-such-agent"],
    ] {
        problem_failure(&cli(&daemon, args), "unsupported_agent", 400);
    }
}

// ---------------------------------------------------------------------------
// sessions

#[test]
fn sessions_create_prints_the_answer() {
    let daemon = start_daemon();
    let created = json_ok(&cli(
        &daemon,
        &["sessions", "create", "create-1", "--agent", "mock"],
    ));
    assert_eq!(created["healthy"], true, "{created}");
    assert_eq!(created["nativeSessionId"], "mock-create-1", "{created}");
    // Creating it again is refused.
    problem_failure(
        &cli(
            &daemon,
            &["sessions", "create", "create-1", "--agent", "mock"],
        ),
        "session_already_exists",
        409,
    );
    // An unknown agent is refused.
    problem_failure(
        &cli(
            &daemon,
            &["sessions", "create", "create-2", "--agent", "nope"],
        ),
        "unsupported_agent",
        400,
    );
}

#[test]
fn sessions_create_passes_every_option() {
    let daemon = start_daemon();
    let dir = tempfile::tempdir().unwrap();
    let dir_text = dir.path().to_str().unwrap();
    let created = json_ok(&cli(
        &daemon,
        &[
            "sessions",
            "create",
            "opts",
            "--agent",
            "mock",
            "--agent-mode",
            "plan",
            "--permission-mode",
            "plan",
            "--model",
            "mock-large",
            "--variant",
            "high",
            "--title",
            "My title",
            "--directory",
            dir_text,
            "--env",
            "GREETING=hi=there",
        ],
    ));
    assert_eq!(created["healthy"], true, "{created}");
    let list = json_ok(&cli(&daemon, &["sessions", "list"]));
    let session = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sessionId"] == "opts")
        .expect("session listed")
        .clone();
    assert_eq!(session["agent"], "mock", "{session}");
    assert_eq!(session["agentMode"], "plan", "{session}");
    assert_eq!(session["permissionMode"], "plan", "{session}");
    assert_eq!(session["model"], "mock-large", "{session}");
    assert_eq!(session["variant"], "high", "{session}");
    assert_eq!(session["title"], "My title", "{session}");
    assert_eq!(session["directory"], dir_text, "{session}");

    // `--env` reaches the agent's processes (value kept whole, `=` included), and the
    // directory is their working directory: a build-mode session runs `shell`.
    json_ok(&cli(
        &daemon,
        &[
            "sessions",
            "create",
            "env",
            "--agent",
            "mock",
            "--directory",
            dir_text,
            "--env",
            "GREETING=hi=there",
        ],
    ));
    let events = send_stream(&daemon, "env", "shell echo \"$GREETING\"; pwd");
    let result = events
        .iter()
        .rev()
        .find(|e| e["type"] == "item.completed" && e["data"]["item"]["kind"] == "tool_result")
        .unwrap_or_else(|| panic!("no tool result: {:?}", types(&events)));
    let output = result["data"]["item"]["content"][0]["output"]
        .as_str()
        .unwrap();
    let real_dir = dir.path().canonicalize().unwrap();
    assert_eq!(
        output,
        format!("hi=there\n{}\n", real_dir.display()),
        "{result}"
    );

    // A malformed `--env` is refused by the CLI before anything is sent.
    let output = cli(
        &daemon,
        &[
            "sessions", "create", "bad-env", "--agent", "mock", "--env", "NOEQUALS",
        ],
    );
    assert!(!output.status.success(), "{}", describe(&output));
    assert!(
        text(&output.stderr).contains("KEY=VALUE"),
        "{}",
        describe(&output)
    );
}

#[test]
fn sessions_list_shows_sessions_and_counts() {
    let daemon = start_daemon();
    assert_eq!(
        json_ok(&cli(&daemon, &["sessions", "list"])),
        json!({ "sessions": [] })
    );
    create_mock_session(&daemon, "list-a");
    create_mock_session(&daemon, "list-b");
    send_stream(&daemon, "list-b", "hello");
    let list = json_ok(&cli(&daemon, &["sessions", "list"]));
    let sessions = list["sessions"].as_array().unwrap();
    let mut ids: Vec<&str> = sessions
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap())
        .collect();
    ids.sort();
    assert_eq!(ids, ["list-a", "list-b"], "{list}");
    let b = sessions
        .iter()
        .find(|s| s["sessionId"] == "list-b")
        .unwrap();
    assert_eq!(b["agent"], "mock");
    assert_eq!(b["ended"], false);
    assert_eq!(b["queuedMessages"], 0);
    assert_eq!(b["nativeSessionId"], "mock-list-b");
    assert_eq!(
        b["eventCount"].as_u64().unwrap() as usize,
        http_events(&daemon, "list-b").len(),
        "{b}"
    );
}

#[test]
fn sessions_send_queues_the_message() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "send");
    let output = cli(
        &daemon,
        &["sessions", "send", "send", "hello", "from", "the", "cli"],
    );
    assert_eq!(json_ok(&output), json!({ "ok": true }));
    let events = wait_for_events(&daemon, "send", "turn.ended", |events| {
        has_type(events, "turn.ended")
    });
    // The words are joined with spaces into one message, echoed by the mock.
    assert_eq!(last_assistant_text(&events), "hello from the cli");
    let user = events
        .iter()
        .find(|e| e["type"] == "item.completed" && e["data"]["item"]["role"] == "user")
        .expect("user item");
    assert_eq!(
        user["data"]["item"]["content"][0]["text"],
        "hello from the cli"
    );
}

#[test]
fn sessions_send_with_attachment() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "attach");
    let events = json_lines_ok(&cli(
        &daemon,
        &[
            "sessions",
            "send",
            "attach",
            "look",
            "--attach",
            "/tmp/notes.txt",
            "--stream",
        ],
    ));
    assert_eq!(
        last_assistant_text(&events),
        "look\n\nAttachments:\n- /tmp/notes.txt"
    );
}

#[test]
fn sessions_send_stream_prints_the_turn_as_json_lines() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "stream");
    let output = cli(
        &daemon,
        &[
            "sessions",
            "send",
            "stream",
            "hello streaming world",
            "--stream",
        ],
    );
    let events = json_lines_ok(&output);
    let kinds = types(&events);
    assert_eq!(
        kinds.first().map(String::as_str),
        Some("turn.started"),
        "{kinds:?}"
    );
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("turn.ended"),
        "{kinds:?}"
    );
    assert!(count_type(&events, "item.delta") >= 3, "{kinds:?}");
    let deltas: String = events
        .iter()
        .filter(|e| e["type"] == "item.delta")
        .map(|e| e["data"]["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, "hello streaming world");
    assert_eq!(last_assistant_text(&events), "hello streaming world");
    // Sequences are increasing and the lines are exactly the daemon's events.
    let logged = http_events(&daemon, "stream");
    let first = events[0]["sequence"].as_u64().unwrap() as usize;
    assert_eq!(
        &logged[first - 1..first - 1 + events.len()],
        &events[..],
        "printed events differ from the log"
    );
    // Without --include-raw no raw payloads; with it, the flag reaches the daemon.
    assert!(events.iter().all(|e| e.get("raw").is_none()));
    let raw = json_lines_ok(&cli(
        &daemon,
        &[
            "sessions",
            "send",
            "stream",
            "unparsed",
            "--stream",
            "--include-raw",
        ],
    ));
    let unparsed = last_of(&raw, "agent.unparsed");
    assert_eq!(unparsed["raw"], json!({ "raw": "mock" }), "{unparsed}");
}

#[test]
fn sessions_send_stream_stops_at_a_permission_request() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "stream-perm");
    let events = send_stream(&daemon, "stream-perm", "permission");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "permission.requested", "{:?}", types(&events));
    assert_eq!(last["data"]["permission_id"], "mock_1_permission");
    assert!(!has_type(&events, "turn.ended"));
}

#[test]
fn sessions_events_pages_with_offset_and_limit() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "events");
    send_stream(&daemon, "events", "hello there");
    let all = json_ok(&cli(&daemon, &["sessions", "events", "events"]));
    let events = all["events"].as_array().unwrap();
    assert_eq!(all["hasMore"], false, "{all}");
    assert!(events.len() >= 8, "{:?}", types(events));
    let sequences: Vec<u64> = events
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(sequences, (1..=events.len() as u64).collect::<Vec<_>>());
    assert_eq!(events[0]["type"], "session.started");
    assert_eq!(
        events,
        &http_events(&daemon, "events"),
        "CLI output differs from the HTTP answer"
    );

    let page = json_ok(&cli(
        &daemon,
        &[
            "sessions", "events", "events", "--offset", "2", "--limit", "3",
        ],
    ));
    let sequences: Vec<u64> = page["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(sequences, [3, 4, 5], "{page}");
    assert_eq!(page["hasMore"], true, "{page}");

    let total = events.len() as u64;
    let tail = json_ok(&cli(
        &daemon,
        &[
            "sessions",
            "events",
            "events",
            "--offset",
            &(total - 1).to_string(),
            "--limit",
            "10",
        ],
    ));
    assert_eq!(tail["events"].as_array().unwrap().len(), 1, "{tail}");
    assert_eq!(tail["hasMore"], false, "{tail}");
    let past_end = json_ok(&cli(
        &daemon,
        &[
            "sessions",
            "events",
            "events",
            "--offset",
            &total.to_string(),
        ],
    ));
    assert_eq!(past_end, json!({ "events": [], "hasMore": false }));

    // --include-raw is passed on.
    send_stream(&daemon, "events", "unparsed");
    let with_raw = json_ok(&cli(
        &daemon,
        &[
            "sessions",
            "events",
            "events",
            "--offset",
            &total.to_string(),
            "--include-raw",
        ],
    ));
    let unparsed = last_of(with_raw["events"].as_array().unwrap(), "agent.unparsed");
    assert_eq!(unparsed["raw"], json!({ "raw": "mock" }), "{unparsed}");
    let without = json_ok(&cli(
        &daemon,
        &[
            "sessions",
            "events",
            "events",
            "--offset",
            &total.to_string(),
        ],
    ));
    assert!(
        last_of(without["events"].as_array().unwrap(), "agent.unparsed")
            .get("raw")
            .is_none()
    );
}

/// A `sessions watch` running in the background, its stdout read line by line.
struct Watch {
    child: Child,
    lines: mpsc::Receiver<String>,
    stderr: mpsc::Receiver<Vec<u8>>,
    seen: Vec<Value>,
}

impl Watch {
    fn start(daemon: &Daemon, args: &[&str]) -> Watch {
        let mut child = client_command(daemon, args)
            .spawn()
            .expect("starting sessions watch");
        let stdout = child.stdout.take().unwrap();
        let stderr = read_in_background(child.stderr.take().unwrap());
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Watch {
            child,
            lines,
            stderr,
            seen: Vec::new(),
        }
    }

    /// Reads lines until one has type `event_type`.
    #[track_caller]
    fn wait_for(&mut self, event_type: &str) -> Value {
        let deadline = Instant::now() + EVENT_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let event: Value = serde_json::from_str(&line)
                        .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line:?}"));
                    self.seen.push(event.clone());
                    if event["type"] == event_type {
                        return event;
                    }
                }
                Err(_) => panic!(
                    "watch printed no {event_type} in time; printed {:?}",
                    types(&self.seen)
                ),
            }
        }
    }

    /// Waits for the process to exit on its own; returns its status and the rest of its output.
    #[track_caller]
    fn finish(mut self) -> (ExitStatus, Vec<Value>, String) {
        let status = wait_with_deadline(&mut self.child, EVENT_TIMEOUT).unwrap_or_else(|| {
            panic!(
                "sessions watch did not exit after the session ended; printed {:?}",
                types(&self.seen)
            )
        });
        let rest: Vec<String> = self.lines.iter().collect();
        let mut seen = std::mem::take(&mut self.seen);
        seen.extend(json_lines(&rest.join("\n")));
        (status, seen, text(&self.stderr.recv().unwrap()))
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn sessions_watch_follows_until_the_session_ends() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "watch");
    send_stream(&daemon, "watch", "before watching");
    let mut watch = Watch::start(&daemon, &["sessions", "watch", "watch"]);
    // The history is replayed first.
    let started = watch.wait_for("session.started");
    assert_eq!(started["sequence"], 1);
    watch.wait_for("turn.ended");
    // Then live events.
    assert_eq!(
        json_ok(&cli(
            &daemon,
            &["sessions", "send", "watch", "while watching"]
        )),
        json!({ "ok": true })
    );
    watch.wait_for("turn.ended");
    assert_eq!(last_assistant_text(&watch.seen), "while watching");
    // Still running until the session ends.
    assert!(
        watch.child.try_wait().unwrap().is_none(),
        "watch exited before the session ended"
    );
    assert_eq!(
        json_ok(&cli(&daemon, &["sessions", "terminate", "watch"])),
        json!({ "ok": true })
    );
    let (status, seen, stderr) = watch.finish();
    assert!(status.success(), "watch exited with {status}: {stderr}");
    let last = seen.last().unwrap();
    assert_eq!(last["type"], "session.ended", "{:?}", types(&seen));
    assert_eq!(last["data"]["reason"], "terminated");
    // Every event exactly once, in order.
    let sequences: Vec<u64> = seen
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(sequences, (1..=seen.len() as u64).collect::<Vec<_>>());
    assert_eq!(seen, http_events(&daemon, "watch"));
}

#[test]
fn sessions_watch_with_offset_and_on_an_ended_session() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "watch-end");
    send_stream(&daemon, "watch-end", "hello");
    // `end` makes the agent end the session itself.
    send_stream(&daemon, "watch-end", "end");
    let all = wait_for_events(&daemon, "watch-end", "session.ended", |e| {
        has_type(e, "session.ended")
    });
    let total = all.len();
    // On an ended session, watch prints the rest of the transcript and exits at once.
    let offset = (total - 3).to_string();
    let output = cli(
        &daemon,
        &["sessions", "watch", "watch-end", "--offset", &offset],
    );
    let events = json_lines_ok(&output);
    assert_eq!(events, all[total - 3..].to_vec());
    assert_eq!(events.last().unwrap()["type"], "session.ended");
    assert_eq!(events.last().unwrap()["data"]["terminated_by"], "agent");
}

#[test]
fn sessions_cancel_interrupts_the_running_turn() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "cancel");
    assert_eq!(
        json_ok(&cli(
            &daemon,
            &["sessions", "send", "cancel", "slow", "600"]
        )),
        json!({ "ok": true })
    );
    wait_for_events(&daemon, "cancel", "the first tick", |e| {
        has_type(e, "item.delta")
    });
    assert_eq!(
        json_ok(&cli(&daemon, &["sessions", "cancel", "cancel"])),
        json!({ "ok": true })
    );
    let events = wait_for_events(&daemon, "cancel", "turn.ended", |e| {
        has_type(e, "turn.ended")
    });
    let ended = last_of(&events, "turn.ended");
    assert_eq!(
        ended["data"]["metadata"],
        json!({ "cancelled": true }),
        "{ended}"
    );
    assert!(count_type(&events, "item.delta") < 600);
    // The session goes on.
    assert_eq!(
        last_assistant_text(&send_stream(&daemon, "cancel", "still here")),
        "still here"
    );
    // Cancelling when nothing runs is fine.
    assert_eq!(
        json_ok(&cli(&daemon, &["sessions", "cancel", "cancel"])),
        json!({ "ok": true })
    );
}

#[test]
fn sessions_terminate_ends_the_session() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "term");
    assert_eq!(
        json_ok(&cli(&daemon, &["sessions", "terminate", "term"])),
        json!({ "ok": true })
    );
    let events = wait_for_events(&daemon, "term", "session.ended", |e| {
        has_type(e, "session.ended")
    });
    let ended = last_of(&events, "session.ended");
    assert_eq!(ended["data"]["reason"], "terminated", "{ended}");
    assert_eq!(ended["data"]["terminated_by"], "daemon", "{ended}");
    let list = json_ok(&cli(&daemon, &["sessions", "list"]));
    assert_eq!(list["sessions"][0]["ended"], true, "{list}");
    // An ended session takes no more messages; terminating it again is a no-op.
    problem_failure(
        &cli(&daemon, &["sessions", "send", "term", "hello"]),
        "session_ended",
        409,
    );
    assert_eq!(
        json_ok(&cli(&daemon, &["sessions", "terminate", "term"])),
        json!({ "ok": true })
    );
}

#[test]
fn sessions_delete_removes_the_session() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "doomed");
    assert_eq!(
        json_ok(&cli(&daemon, &["sessions", "delete", "doomed"])),
        json!({ "ok": true })
    );
    let list = json_ok(&cli(&daemon, &["sessions", "list"]));
    assert_eq!(list["sessions"], json!([]), "{list}");
    problem_failure(
        &cli(&daemon, &["sessions", "delete", "doomed"]),
        "session_not_found",
        404,
    );
}

// ---------------------------------------------------------------------------
// questions, permissions

#[test]
fn questions_reply_with_answer_flags() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "q1");
    let events = send_stream(&daemon, "q1", "question");
    let requested = events.last().unwrap();
    assert_eq!(requested["type"], "question.requested");
    let id = requested["data"]["question_id"].as_str().unwrap();
    assert_eq!(id, "mock_1_question");
    let output = cli(
        &daemon,
        &[
            "questions",
            "reply",
            "q1",
            id,
            "--answer",
            "Red",
            "--answer",
            "Blue",
        ],
    );
    assert_eq!(json_ok(&output), json!({ "ok": true }));
    let events = wait_for_events(&daemon, "q1", "turn.ended", |e| has_type(e, "turn.ended"));
    let resolved = last_of(&events, "question.resolved");
    assert_eq!(resolved["data"]["status"], "answered", "{resolved}");
    assert_eq!(resolved["data"]["response"], "Red, Blue", "{resolved}");
    assert_eq!(last_assistant_text(&events), "You answered: Red, Blue.");
    // It is not pending any more. (The daemon answers 404 request_not_found;
    // docs/mock-agent.md still says 400 invalid_request.)
    problem_failure(
        &cli(
            &daemon,
            &["questions", "reply", "q1", id, "--answer", "Red"],
        ),
        "request_not_found",
        404,
    );
}

#[test]
fn questions_reply_with_answers_json() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "q2");
    send_stream(&daemon, "q2", "question");
    let output = cli(
        &daemon,
        &[
            "questions",
            "reply",
            "q2",
            "mock_1_question",
            "--answers",
            r#"[["Blue"]]"#,
        ],
    );
    assert_eq!(json_ok(&output), json!({ "ok": true }));
    let events = wait_for_events(&daemon, "q2", "turn.ended", |e| has_type(e, "turn.ended"));
    assert_eq!(
        last_of(&events, "question.resolved")["data"]["response"],
        "Blue"
    );
    assert_eq!(last_assistant_text(&events), "You answered: Blue.");

    // Malformed --answers is refused before anything is sent.
    send_stream(&daemon, "q2", "question");
    let output = cli(
        &daemon,
        &[
            "questions",
            "reply",
            "q2",
            "mock_2_question",
            "--answers",
            r#"["Blue"]"#,
        ],
    );
    let failure = expect_failure(&output);
    assert!(failure.problem.is_none(), "{}", failure.stderr);
    assert!(
        failure.error_line.contains("--answers"),
        "{}",
        failure.error_line
    );
    assert!(!has_type(
        &http_events(&daemon, "q2")[events.len()..],
        "question.resolved"
    ));
    // --answer and --answers together are refused by the parser.
    let output = cli(
        &daemon,
        &[
            "questions",
            "reply",
            "q2",
            "mock_2_question",
            "--answer",
            "Red",
            "--answers",
            r#"[["Red"]]"#,
        ],
    );
    assert!(!output.status.success(), "{}", describe(&output));
}

#[test]
fn questions_reject_declines() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "q3");
    send_stream(&daemon, "q3", "question");
    assert_eq!(
        json_ok(&cli(
            &daemon,
            &["questions", "reject", "q3", "mock_1_question"]
        )),
        json!({ "ok": true })
    );
    let events = wait_for_events(&daemon, "q3", "turn.ended", |e| has_type(e, "turn.ended"));
    let resolved = last_of(&events, "question.resolved");
    assert_eq!(resolved["data"]["status"], "rejected", "{resolved}");
    assert!(
        resolved["data"].get("response").is_none_or(Value::is_null),
        "{resolved}"
    );
    assert_eq!(last_assistant_text(&events), "You declined to answer.");
    // Unknown question ids are refused.
    problem_failure(
        &cli(&daemon, &["questions", "reject", "q3", "no-such-question"]),
        "request_not_found",
        404,
    );
}

/// Asks for a permission in a new session, replies `reply` with the CLI, and
/// returns the turn's events.
fn permission_round(daemon: &Daemon, session: &str, reply: &str) -> Vec<Value> {
    create_mock_session(daemon, session);
    let events = send_stream(daemon, session, "permission ls -la");
    let requested = events.last().unwrap();
    assert_eq!(
        requested["type"],
        "permission.requested",
        "{:?}",
        types(&events)
    );
    assert_eq!(requested["data"]["metadata"]["command"], "ls -la");
    let id = requested["data"]["permission_id"].as_str().unwrap();
    assert_eq!(
        json_ok(&cli(daemon, &["permissions", "reply", session, id, reply])),
        json!({ "ok": true })
    );
    wait_for_events(daemon, session, "turn.ended", |e| has_type(e, "turn.ended"))
}

#[test]
fn permissions_reply_once() {
    let daemon = start_daemon();
    let events = permission_round(&daemon, "p-once", "once");
    assert_eq!(
        last_of(&events, "permission.resolved")["data"]["status"],
        "accept"
    );
    assert_eq!(
        last_assistant_text(&events),
        "Permission granted once: I may run `ls -la`."
    );
}

#[test]
fn permissions_reply_always() {
    let daemon = start_daemon();
    let events = permission_round(&daemon, "p-always", "always");
    assert_eq!(
        last_of(&events, "permission.resolved")["data"]["status"],
        "accept_for_session"
    );
    assert_eq!(
        last_assistant_text(&events),
        "Permission granted for this session: I may run `ls -la`, and will not ask again."
    );
}

#[test]
fn permissions_reply_reject() {
    let daemon = start_daemon();
    let events = permission_round(&daemon, "p-reject", "reject");
    assert_eq!(
        last_of(&events, "permission.resolved")["data"]["status"],
        "reject"
    );
    assert_eq!(
        last_assistant_text(&events),
        "Permission rejected: I did not run `ls -la`."
    );
}

#[test]
fn permissions_reply_refuses_bad_input() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "p-bad");
    // Not a reply clap knows: refused before sending, with the choices listed.
    let output = cli(
        &daemon,
        &[
            "permissions",
            "reply",
            "p-bad",
            "mock_1_permission",
            "maybe",
        ],
    );
    assert!(!output.status.success(), "{}", describe(&output));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("once") && stderr.contains("always") && stderr.contains("reject"),
        "{stderr}"
    );
    // Nothing pending under that id.
    problem_failure(
        &cli(
            &daemon,
            &["permissions", "reply", "p-bad", "mock_1_permission", "once"],
        ),
        "request_not_found",
        404,
    );
}

// ---------------------------------------------------------------------------
// adapters (local, no daemon)

#[test]
fn adapters_list_shows_the_builtin_mock() {
    let output = run_command(command(&["adapters", "list"]), COMMAND_TIMEOUT);
    let list = json_ok(&output);
    let adapters = list["adapters"].as_array().expect("adapters array");
    let mock = adapters
        .iter()
        .find(|a| a["id"] == "mock")
        .unwrap_or_else(|| panic!("no mock adapter: {list}"));
    assert_eq!(mock["builtin"], true, "{mock}");
    assert_eq!(mock["defaultMode"], "build", "{mock}");
    assert_eq!(mock["contract"], "sandbox-agent:adapter@0.2.0", "{mock}");
    assert!(
        mock["origin"].as_str().is_some_and(|o| o.contains("mock")),
        "{mock}"
    );
}

#[test]
fn the_coverage_matrix_doc_matches_the_builtin_adapters() {
    if std::env::var_os("SANDBOX_AGENT_BUILTIN_ADAPTERS").is_some() {
        eprintln!("skipped: this daemon was built with a subset of the adapters");
        return;
    }
    let data_dir = tempfile::tempdir().unwrap();
    let mut matrix = command(&["adapters", "matrix", "--data-dir"]);
    matrix.arg(data_dir.path());
    let output = run_command(matrix, COMMAND_TIMEOUT);
    assert!(output.status.success(), "{}", describe(&output));
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/coverage-matrix.md");
    let committed = std::fs::read_to_string(&doc).unwrap_or_default();
    assert!(
        committed == text(&output.stdout),
        "docs/coverage-matrix.md is stale; regenerate it with \
         `cargo run -p agentplex -- adapters matrix > docs/coverage-matrix.md`"
    );
    for agent in ["Claude Code", "Codex", "OpenCode", "Mock"] {
        assert!(
            committed.contains(agent),
            "{agent} is a column of the matrix"
        );
    }
}

#[test]
fn adapters_inspect_describes_the_mock_component() {
    let wasm = mock_wasm();
    assert!(
        wasm.is_file(),
        "the mock component was not built at {}",
        wasm.display()
    );
    let output = run_command(
        command(&["adapters", "inspect", wasm.to_str().unwrap()]),
        COMMAND_TIMEOUT,
    );
    let view = json_ok(&output);
    assert_eq!(view["id"], "mock", "{view}");
    assert_eq!(
        view["name"].as_str().map(str::is_empty),
        Some(false),
        "{view}"
    );
    assert_eq!(view["contract"], "sandbox-agent:adapter@0.2.0", "{view}");
    assert_eq!(view["defaultModel"], "mock", "{view}");
    let modes: Vec<&str> = view["modes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["build", "plan"], "{view}");
    assert_eq!(view["capabilities"]["questions"], true, "{view}");
    assert!(
        view["origin"]
            .as_str()
            .unwrap()
            .contains("sandbox_agent_adapter_mock.wasm"),
        "{view}"
    );
}

#[test]
fn adapters_inspect_refuses_a_non_wasm_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-component.wasm");
    std::fs::write(&file, "this is not WebAssembly\n").unwrap();
    let output = run_command(
        command(&["adapters", "inspect", file.to_str().unwrap()]),
        COMMAND_TIMEOUT,
    );
    let failure = expect_failure(&output);
    assert!(failure.problem.is_none(), "{}", failure.stderr);
    assert_eq!(
        failure.stderr.trim_end().lines().count(),
        1,
        "expected a one-line error: {}",
        failure.stderr
    );
    assert!(
        failure.error_line.contains("not-a-component.wasm"),
        "the error should name the file: {}",
        failure.error_line
    );
    assert!(output.stdout.is_empty(), "{}", describe(&output));

    // A file that does not exist: also one line, naming it.
    let missing = dir.path().join("missing.wasm");
    let output = run_command(
        command(&["adapters", "inspect", missing.to_str().unwrap()]),
        COMMAND_TIMEOUT,
    );
    let failure = expect_failure(&output);
    assert_eq!(
        failure.stderr.trim_end().lines().count(),
        1,
        "expected a one-line error: {}",
        failure.stderr
    );
    assert!(
        failure.error_line.contains("missing.wasm"),
        "{}",
        failure.error_line
    );
}

// ---------------------------------------------------------------------------
// errors

#[test]
fn unknown_session_is_session_not_found() {
    let daemon = start_daemon();
    let commands: [&[&str]; 10] = [
        &["sessions", "send", "ghost", "hello"],
        &["sessions", "send", "ghost", "hello", "--stream"],
        &["sessions", "events", "ghost"],
        &["sessions", "watch", "ghost"],
        &["sessions", "cancel", "ghost"],
        &["sessions", "terminate", "ghost"],
        &["sessions", "delete", "ghost"],
        &["questions", "reply", "ghost", "q", "--answer", "x"],
        &["questions", "reject", "ghost", "q"],
        &["permissions", "reply", "ghost", "p", "once"],
    ];
    for args in commands {
        let output = cli(&daemon, args);
        let failure = problem_failure(&output, "session_not_found", 404);
        assert!(
            output.stdout.is_empty(),
            "{args:?} printed on stdout: {}",
            describe(&output)
        );
        let problem = failure.problem.unwrap();
        assert!(
            problem.to_string().contains("ghost"),
            "{args:?}: the problem should name the session: {problem}"
        );
    }
}

#[test]
fn wrong_token_is_token_invalid() {
    let daemon = Daemon::start_with(Options {
        token: Some("right-token".into()),
        ..Default::default()
    });
    let endpoint = daemon.endpoint.as_str();
    // The right token works, by flag and by environment.
    let ok = run_command(
        command(&[
            "sessions",
            "list",
            "--endpoint",
            endpoint,
            "--token",
            "right-token",
        ]),
        COMMAND_TIMEOUT,
    );
    assert_eq!(json_ok(&ok), json!({ "sessions": [] }));
    let mut by_env = command(&["sessions", "list"]);
    by_env
        .env("SANDBOX_AGENT_ENDPOINT", endpoint)
        .env("SANDBOX_AGENT_TOKEN", "right-token");
    assert_eq!(
        json_ok(&run_command(by_env, COMMAND_TIMEOUT)),
        json!({ "sessions": [] })
    );
    // A wrong or missing one is refused, on plain and streaming routes.
    for args in [
        &["sessions", "list", "--token", "wrong-token"][..],
        &["agents", "list", "--token", "wrong-token"],
        &[
            "sessions",
            "create",
            "x",
            "--agent",
            "mock",
            "--token",
            "wrong-token",
        ],
        &["sessions", "watch", "x", "--token", "wrong-token"],
        &["sessions", "list"],
    ] {
        let mut full = args.to_vec();
        full.extend(["--endpoint", endpoint]);
        let output = run_command(command(&full), COMMAND_TIMEOUT);
        let failure = problem_failure(&output, "token_invalid", 401);
        assert!(
            !failure.stderr.contains("right-token"),
            "the token leaked: {}",
            failure.stderr
        );
    }
    // Nothing was created by the refused request.
    let ok = run_command(
        command(&[
            "sessions",
            "list",
            "--endpoint",
            endpoint,
            "--token",
            "right-token",
        ]),
        COMMAND_TIMEOUT,
    );
    assert_eq!(json_ok(&ok), json!({ "sessions": [] }));
}

#[test]
fn daemon_not_running_is_a_connection_error() {
    let port = free_port();
    let endpoint = format!("http://127.0.0.1:{port}");
    for args in [
        &["health"][..],
        &["agents", "list"],
        &["sessions", "list"],
        &["sessions", "watch", "x"],
    ] {
        let mut full = args.to_vec();
        full.extend(["--endpoint", &endpoint]);
        let output = run_command(command(&full), COMMAND_TIMEOUT);
        let failure = expect_failure(&output);
        assert!(failure.problem.is_none(), "{}", failure.stderr);
        assert_eq!(
            failure.stderr.trim_end().lines().count(),
            1,
            "expected a one-line error: {}",
            failure.stderr
        );
        let line = failure.error_line.to_lowercase();
        assert!(
            line.contains("connect") || line.contains("refused"),
            "not a clear connection error: {line}"
        );
        assert!(
            failure.error_line.contains(&endpoint),
            "the error should name the endpoint: {}",
            failure.error_line
        );
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn bad_endpoint_is_refused() {
    let output = run_command(
        command(&["health", "--endpoint", "not a url"]),
        COMMAND_TIMEOUT,
    );
    let failure = expect_failure(&output);
    assert!(
        failure.error_line.contains("not a url"),
        "{}",
        failure.error_line
    );
}

#[test]
fn server_without_token_flag_refuses_to_start() {
    let data_dir = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    let args = [
        "server",
        "--host",
        "127.0.0.1",
        "--port",
        &port,
        "--data-dir",
        data_dir.path().to_str().unwrap(),
    ];
    let output = run_command(command(&args), Duration::from_secs(30));
    let failure = expect_failure(&output);
    assert_eq!(
        failure.stderr.trim_end().lines().count(),
        1,
        "expected a one-line error: {}",
        failure.stderr
    );
    assert!(
        failure.error_line.contains("--token") && failure.error_line.contains("--no-token"),
        "the message should say to pass --token or --no-token: {}",
        failure.error_line
    );
    // Nothing listens on the port.
    assert!(std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).is_err());

    // An empty token is refused too.
    let mut with_empty = args.to_vec();
    with_empty.extend(["--token", ""]);
    let failure = expect_failure(&run_command(command(&with_empty), Duration::from_secs(30)));
    assert!(
        failure.error_line.contains("--token"),
        "{}",
        failure.error_line
    );

    // Both flags at once are refused by the parser.
    let mut both = args.to_vec();
    both.extend(["--token", "t", "--no-token"]);
    let output = run_command(command(&both), Duration::from_secs(30));
    assert!(!output.status.success(), "{}", describe(&output));
}

#[test]
fn server_takes_the_token_from_the_environment() {
    let data_dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut server = command(&["server", "--host", "127.0.0.1", "--port", &port.to_string()]);
    server
        .arg("--data-dir")
        .arg(data_dir.path())
        .arg("--cache-dir")
        .arg(common::shared_cache_dir())
        .env("SANDBOX_AGENT_TOKEN", "env-token")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = server.spawn().unwrap();
    struct Kill(Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let endpoint = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("server exited: {status}");
        }
        if reqwest::blocking::get(format!("{endpoint}/v1/health"))
            .is_ok_and(|r| r.status().is_success())
        {
            break;
        }
        assert!(Instant::now() < deadline, "server did not become healthy");
        std::thread::sleep(Duration::from_millis(50));
    }
    let _guard = Kill(child);
    let ok = run_command(
        command(&[
            "agents",
            "list",
            "--endpoint",
            &endpoint,
            "--token",
            "env-token",
        ]),
        COMMAND_TIMEOUT,
    );
    json_ok(&ok);
    let refused = run_command(
        command(&["agents", "list", "--endpoint", &endpoint]),
        COMMAND_TIMEOUT,
    );
    problem_failure(&refused, "token_invalid", 401);
}
