//! The daemon as an ACP agent, driven by clients nobody here wrote
//! (testing/acp-clients): the official ACP client library over `agentplex acp`
//! (stdio), through a daemon restart, and the reference project's TypeScript SDK
//! over `/v1/acp/{server_id}`; bad JSON-RPC over both gets JSON-RPC errors.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::common::acp::{acp_post, answer_to, stream_answers};
use super::common::{binary, describe, Options};
use super::*;

/// testing/acp-clients, once its packages are installed (`npm ci` there, which
/// scripts/test.sh does); `None` outside CI without them.
fn acp_clients() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testing/acp-clients");
    if dir.join("node_modules/@agentclientprotocol/sdk").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "testing/acp-clients has no node_modules: run `npm ci` there"
    );
    eprintln!("skipping: testing/acp-clients has no node_modules (npm ci there)");
    None
}

/// Runs one of the client scripts against `daemon`; its stdout, once it passed.
fn run_client(dir: &PathBuf, daemon: &Daemon, cwd: &std::path::Path, args: &[&str]) -> String {
    let output = Command::new("node")
        .args(args)
        .current_dir(dir)
        .env("AGENTPLEX_BIN", binary())
        .env("AGENTPLEX_ENDPOINT", &daemon.endpoint)
        .env("AGENTPLEX_TOKEN", daemon.token.clone().unwrap_or_default())
        .env("ACP_CWD", cwd)
        .output()
        .expect("running node");
    assert!(output.status.success(), "{}", describe(&output));
    String::from_utf8(output.stdout).unwrap()
}

fn daemon_with_token(data_dir: Option<tempfile::TempDir>) -> Daemon {
    Daemon::start_with(Options {
        token: Some("acp-test-token".into()),
        data_dir,
        ..Options::default()
    })
}

#[test]
fn the_official_acp_client_drives_agentplex_acp_and_loads_after_a_restart() {
    let Some(dir) = acp_clients() else { return };
    let work = tempfile::tempdir().unwrap();
    let daemon = daemon_with_token(None);
    let out = run_client(&dir, &daemon, work.path(), &["stdio.mjs", "scenarios"]);
    for scenario in [
        "initialize",
        "turn",
        "thought",
        "tool call",
        "permission allowed",
        "permission rejected",
        "question",
        "cancel",
        "list",
        "errors",
    ] {
        assert!(
            out.contains(&format!("ok {scenario}\n")),
            "{scenario}: {out}"
        );
    }
    let session_id = out
        .lines()
        .find_map(|line| line.strip_prefix("session "))
        .expect("the session id")
        .to_owned();
    // The session made over ACP is the daemon's: in /v1/sessions, with its events.
    let api = Api::new(&daemon);
    let info = api.get_ok(&format!("/v1/sessions/{session_id}"));
    assert_eq!(info["agent"], "mock");
    assert_eq!(info["directory"], work.path().display().to_string());
    let data_dir = daemon.stop_keeping_data();
    let daemon = daemon_with_token(Some(data_dir));
    let out = run_client(
        &dir,
        &daemon,
        work.path(),
        &["stdio.mjs", "load", &session_id],
    );
    assert!(
        out.contains("ok load\n") && out.contains("ok prompt after load\n"),
        "{out}"
    );
}

#[test]
fn the_reference_sdk_works_unchanged_over_http() {
    let Some(dir) = acp_clients() else { return };
    let work = tempfile::tempdir().unwrap();
    let daemon = daemon_with_token(None);
    let out = run_client(&dir, &daemon, work.path(), &["reference-sdk.mjs"]);
    for scenario in [
        "turn",
        "permission",
        "mode, model and thought level",
        "listed over REST",
    ] {
        assert!(
            out.contains(&format!("ok {scenario}\n")),
            "{scenario}: {out}"
        );
    }
}

#[test]
fn bad_json_rpc_over_http_gets_json_rpc_errors_and_the_connection_lives() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    // No agent on the first POST: 404 (no such server), the server is not opened.
    let response = acp_post(
        &api,
        "s1",
        "",
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#,
    );
    assert_eq!(response.status().as_u16(), 404);
    assert_eq!(api.get("/v1/acp/s1").status().as_u16(), 404);
    let response = acp_post(&api, "s1", "?agent=no-such-agent", "{}");
    expect_problem(response, 404, "unsupported_agent");
    let error = |body: &str| -> Value {
        let response = acp_post(&api, "s1", "?agent=mock", body);
        assert_eq!(response.status().as_u16(), 200);
        response.json::<Value>().unwrap()
    };
    // A body that is not a JSON object is refused before JSON-RPC, as the
    // document says; an object that is not JSON-RPC gets JSON-RPC's error.
    for body in ["{not json", "[]", "7"] {
        let response = acp_post(&api, "s1", "?agent=mock", body);
        assert_eq!(response.status().as_u16(), 400, "{body}");
    }
    let answer = error(r#"{"id":9,"method":"initialize"}"#);
    assert_eq!(
        (answer["id"].clone(), answer["error"]["code"].clone()),
        (json!(9), json!(-32600))
    );
    assert_eq!(
        error(r#"{"jsonrpc":"2.0","id":2,"method":"session/list"}"#)["error"]["code"],
        -32600,
        "before initialize"
    );
    let init = error(
        r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"one"}}"#,
    );
    assert_eq!(
        (init["id"].clone(), init["error"]["code"].clone()),
        (json!(3), json!(-32602))
    );
    // A newer client version is answered with the one spoken here.
    let init =
        error(r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":7}}"#);
    assert_eq!(init["result"]["protocolVersion"], 1);
    assert_eq!(
        error(r#"{"jsonrpc":"2.0","id":5,"method":"nope/nope"}"#)["error"]["code"],
        -32601
    );
    let bad = error(r#"{"jsonrpc":"2.0","id":6,"method":"session/list","params":{"cursor":5}}"#);
    assert_eq!(bad["error"]["code"], -32602);
    assert!(
        bad["error"]["message"].as_str().unwrap().contains("cursor"),
        "{bad}"
    );
    // The connection still works: a session, listed.
    let work = tempfile::tempdir().unwrap();
    let new = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"session/new","params":{{"cwd":{:?},"mcpServers":[]}}}}"#,
        work.path().display().to_string()
    );
    let session_id = error(&new)["result"]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    let listed = api.get_ok("/v1/acp");
    assert_eq!(listed["servers"][0]["serverId"], "s1");
    assert_eq!(listed["servers"][0]["sessionIds"], json!([session_id]));
    // Another agent on the same server id: 409.
    let response = acp_post(
        &api,
        "s1",
        "?agent=claude",
        r#"{"jsonrpc":"2.0","method":"x"}"#,
    );
    assert_eq!(response.status().as_u16(), 409);
    // Notifications are taken with 202, unknown ones too.
    let response = acp_post(&api, "s1", "", r#"{"jsonrpc":"2.0","method":"x/y"}"#);
    assert_eq!(response.status().as_u16(), 202);
    assert_eq!(api.delete("/v1/acp/s1").status().as_u16(), 204);
    assert_eq!(api.delete("/v1/acp/s1").status().as_u16(), 404);
    // The session outlives the connection.
    api.get_ok(&format!("/v1/sessions/{session_id}"));
}

/// `agentplex acp` with `args`, its stdin and stdout as lines.
struct AcpCommand {
    child: std::process::Child,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl AcpCommand {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(binary())
            .arg("acp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("agentplex acp");
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Self { child, lines }
    }

    /// Writes `line`, reads the next message.
    fn ask(&mut self, line: &str) -> Value {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        let answer = self.lines.next().expect("a line").unwrap();
        serde_json::from_str(&answer).unwrap()
    }

    /// Closes stdin: the command must end, successfully.
    fn finish(mut self) {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "{status}");
                return;
            }
            assert!(
                Instant::now() < deadline,
                "agentplex acp did not end with its stdin"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[test]
fn agentplex_acp_answers_bad_lines_and_runs_a_daemon_of_its_own() {
    let data_dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    // No --endpoint: the command starts a daemon on the data dir and stops it.
    let mut acp = AcpCommand::start(&[
        "--agent",
        "mock",
        "--data-dir",
        data_dir.path().to_str().unwrap(),
    ]);
    let init =
        acp.ask(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#);
    assert_eq!(init["result"]["agentInfo"]["name"], "agentplex", "{init}");
    assert_eq!(acp.ask("this is not JSON")["error"]["code"], -32700);
    let new = acp.ask(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"session/new","params":{{"cwd":{:?}}}}}"#,
        work.path().display().to_string()
    ));
    assert!(
        new["result"]["sessionId"]
            .as_str()
            .unwrap()
            .starts_with("acp-"),
        "{new}"
    );
    acp.finish();
    // Its sessions are in the data dir, for the next daemon.
    let daemon = Daemon::start_with(Options {
        data_dir: Some(data_dir),
        ..Options::default()
    });
    let sessions = Api::new(&daemon).get_ok("/v1/sessions");
    assert_eq!(
        sessions["sessions"][0]["sessionId"],
        new["result"]["sessionId"]
    );
}

#[test]
fn the_official_remote_transports_over_http_and_websocket() {
    let Some(dir) = acp_clients() else { return };
    let work = tempfile::tempdir().unwrap();
    // Node before 22 has its WebSocket behind a flag.
    let probe = Command::new("node")
        .args(["-p", "typeof WebSocket"])
        .output()
        .expect("node");
    let flag = if String::from_utf8_lossy(&probe.stdout).trim() == "undefined" {
        "--experimental-websocket"
    } else {
        "--no-warnings"
    };
    // A connection over HTTP ends with the client's DELETE, which the library sends
    // as it closes; when the script exits before it is sent (CI saw it; here, two
    // runs in thirty), the daemon closes the connection once it has been idle with
    // its stream closed for --acp-idle-timeout-secs: 1 s here.
    // With a token: the WebSocket's in `?access_token=`, as a browser sends it.
    let daemon = Daemon::start_with(Options {
        token: Some("acp-remote-token".into()),
        args: vec!["--acp-idle-timeout-secs".into(), "1".into()],
        ..Options::default()
    });
    for transport in ["http", "ws"] {
        let out = run_client(&dir, &daemon, work.path(), &[flag, "remote.mjs", transport]);
        for scenario in ["turn", "permission", "question", "cancel", "list"] {
            assert!(
                out.contains(&format!("ok {scenario}\n")),
                "{transport} {scenario}: {out}"
            );
        }
    }
    // The WebSocket's connection ended with it; the HTTP one was closed by its client
    // (or reaped, above). The daemon ends the WebSocket's connection once it sees the
    // socket close, a moment after the client exits.
    let api = Api::new(&daemon);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while api.get_ok("/v1/acp")["servers"] != json!([]) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(api.get_ok("/v1/acp")["servers"], json!([]));

    // `?access_token=` opens nothing with another token or none, and a request
    // that is not a WebSocket upgrade (the SSE stream) does not take it.
    let socket = |query: &str| format!("ws://127.0.0.1:{}/acp/mock{query}", daemon.port);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for query in ["?access_token=wrong", ""] {
        let refused = runtime
            .block_on(tokio_tungstenite::connect_async(socket(query)))
            .unwrap_err();
        assert!(refused.to_string().contains("401"), "{query}: {refused}");
    }
    let stream = reqwest::blocking::get(daemon.url("/acp/mock?access_token=acp-remote-token"));
    assert_eq!(stream.unwrap().status(), 401);
}

#[test]
fn a_connection_whose_client_is_gone_is_closed_and_its_session_goes_on() {
    let daemon = Daemon::start_with(Options {
        args: vec!["--acp-idle-timeout-secs".into(), "1".into()],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#;
    for server in ["gone", "streaming"] {
        assert_eq!(
            acp_post(&api, server, "?agent=mock", init)
                .status()
                .as_u16(),
            200
        );
    }
    let work = tempfile::tempdir().unwrap();
    let new = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"session/new","params":{{"cwd":{:?}}}}}"#,
        work.path().display().to_string()
    );
    let created: Value = acp_post(&api, "gone", "", &new).json().unwrap();
    let session_id = created["result"]["sessionId"].as_str().unwrap().to_owned();
    // A client reading its stream is there, however long it sends nothing.
    let stream = api
        .client()
        .get(daemon.url("/v1/acp/streaming"))
        .send()
        .unwrap();
    let open = |api: &Api| -> Vec<String> {
        api.get_ok("/v1/acp")["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["serverId"].as_str().unwrap().to_owned())
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while open(&api).contains(&"gone".to_owned()) {
        assert!(
            Instant::now() < deadline,
            "the idle connection stays: {:?}",
            open(&api)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(open(&api), ["streaming"]);
    // Its session is the daemon's, and goes on.
    api.get_ok(&format!("/v1/sessions/{session_id}"));
    // The stream gone, that connection is closed too.
    drop(stream);
    while !open(&api).is_empty() {
        assert!(
            Instant::now() < deadline,
            "the connection stays: {:?}",
            open(&api)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// An image in a prompt (for an agent that takes images, as `initialize` says):
/// its bytes are kept in the session's scratch folder and the message carries
/// the file; a file:// image is passed as it is; bad image data is -32602.
#[test]
fn an_image_in_a_prompt_reaches_the_agent_as_a_file() {
    use base64::Engine;
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#;
    let answer: Value = acp_post(&api, "pics", "?agent=mock", init).json().unwrap();
    let prompt_capabilities = &answer["result"]["agentCapabilities"]["promptCapabilities"];
    assert_eq!(prompt_capabilities["image"], true, "{answer}");
    assert_eq!(prompt_capabilities["audio"], false, "{answer}");
    let work = tempfile::tempdir().unwrap();
    let new = json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
                     "params": {"cwd": work.path(), "mcpServers": []}});
    let created: Value = acp_post(&api, "pics", "", &new.to_string()).json().unwrap();
    let session_id = created["result"]["sessionId"].as_str().unwrap().to_owned();
    // Prompts are answered on the connection's stream.
    let answers = stream_answers(&api, "pics");
    let pixels: &[u8] = b"\x89PNG\r\n\x1a\n not really a picture";
    let on_disk = work.path().join("shot.jpg");
    std::fs::write(&on_disk, b"jpeg bytes").unwrap();
    let prompt = json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {
    "sessionId": session_id,
    "prompt": [
        {"type": "text", "text": "what is in these?"},
        {"type": "image", "mimeType": "image/png",
         "data": base64::engine::general_purpose::STANDARD.encode(pixels)},
        {"type": "image", "mimeType": "image/jpeg",
         "uri": format!("file://{}", on_disk.display())},
    ]}});
    acp_post(&api, "pics", "", &prompt.to_string());
    let answer = answer_to(&answers, 3);
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    let events = api.get_ok(&format!("/v1/sessions/{session_id}/events"));
    let user = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "item.completed" && e["data"]["item"]["role"] == "user")
        .unwrap_or_else(|| panic!("no user message: {events}"));
    let images: Vec<&Value> = user["data"]["item"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|part| part["type"] == "image")
        .collect();
    assert_eq!(images.len(), 2, "{user}");
    let kept = images[0]["path"].as_str().unwrap();
    assert!(
        kept.ends_with(".png") && kept.contains("attachments"),
        "{kept}"
    );
    assert_eq!(std::fs::read(kept).unwrap(), pixels);
    assert_eq!(images[1]["path"], on_disk.display().to_string());
    // Data that is not base64: the JSON-RPC error, and the session takes the next prompt.
    let bad = json!({"jsonrpc": "2.0", "id": 4, "method": "session/prompt", "params": {
        "sessionId": session_id,
        "prompt": [{"type": "image", "mimeType": "image/png", "data": "%%%"}]}});
    acp_post(&api, "pics", "", &bad.to_string());
    let answer = answer_to(&answers, 4);
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let next = json!({"jsonrpc": "2.0", "id": 5, "method": "session/prompt", "params": {
        "sessionId": session_id, "prompt": [{"type": "text", "text": "still here"}]}});
    acp_post(&api, "pics", "", &next.to_string());
    let answer = answer_to(&answers, 5);
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
}

#[test]
fn the_official_acp_client_lists_and_changes_a_sessions_modes_and_model() {
    let Some(dir) = acp_clients() else { return };
    let work = tempfile::tempdir().unwrap();
    let daemon = daemon_with_token(None);
    let out = run_client(&dir, &daemon, work.path(), &["stdio.mjs", "modes"]);
    for scenario in [
        "modes listed",
        "set_mode",
        "set_config_option",
        "mode updates",
        "mode errors",
        "set_model",
        "thought level",
    ] {
        assert!(
            out.contains(&format!("ok {scenario}\n")),
            "{scenario}: {out}"
        );
    }
    let session_id = out
        .lines()
        .find_map(|line| line.strip_prefix("session "))
        .expect("the session id");
    // The daemon's session shows the modes it runs with, and the transcript says
    // when they changed.
    let api = Api::new(&daemon);
    let info = api.get_ok(&format!("/v1/sessions/{session_id}"));
    assert_eq!(
        (&info["agentMode"], &info["permissionMode"], &info["model"]),
        (&json!("plan"), &json!("plan"), &json!("mock-large"))
    );
    assert_eq!(info["variant"], "high");
    let events = api.get_ok(&format!("/v1/sessions/{session_id}/events"));
    let changes: Vec<&str> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|event| {
            let part = &event["data"]["item"]["content"][0];
            (part["label"] == "modes changed").then(|| part["detail"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        changes,
        [
            r#"{"agentMode":"plan","permissionMode":"default"}"#,
            r#"{"agentMode":"build","permissionMode":"default"}"#,
            r#"{"agentMode":"build","permissionMode":"plan"}"#,
            // Over REST.
            r#"{"agentMode":"plan","permissionMode":"plan"}"#,
            r#"{"agentMode":"plan","permissionMode":"plan","model":"mock-large"}"#,
            r#"{"agentMode":"plan","permissionMode":"plan","model":"mock"}"#,
            r#"{"agentMode":"plan","permissionMode":"plan","model":"mock-large"}"#,
            r#"{"agentMode":"plan","permissionMode":"plan","model":"mock-large","variant":"high"}"#,
        ]
    );
}
