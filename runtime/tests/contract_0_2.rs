//! Components built against the 0.2.0 contract keep loading and running, and
//! what that contract added works for them, end to end: the host's `log` import,
//! and `write-file` into the session's scratch folder (made by the daemon,
//! checked, removed with the session). A 0.2.0 component cannot move its agent's
//! session (0.3.0 added that): a session it runs moves with its transcript alone.
//!
//! `fixtures/contract-0.2.0/` holds the test-only `probe` adapter
//! (testing/guests/probe) and the mock as the 0.2.0 kit built them (see the README
//! there); the host links them as 0.2.0 and converts their values to 0.3.0's.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use agentplex_host::{AdapterRegistry, HostConfig, Input, MessagePart};
use common::api::*;
use common::{Daemon, Options};
use serde_json::json;

/// A component of the fixtures, built against 0.2.0.
fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/contract-0.2.0")
        .join(format!("{name}.wasm"))
}

/// Log output captured in memory.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn an_adapters_log_lines_reach_the_daemons_log() {
    let registry = AdapterRegistry::new(HostConfig::default()).unwrap();
    let probe = registry.load_file(&fixture("probe")).unwrap();
    assert_eq!(probe.contract(), "sandbox-agent:adapter@0.2.0");
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let mut session = probe.new_session(common::adapter_session_config()).unwrap();
        session.handle(Input::Start).unwrap();
        session
            .handle(Input::SendMessage(vec![MessagePart::Text(
                "log the probe was here".into(),
            )]))
            .unwrap();
    });
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let line = log
        .lines()
        .find(|line| line.contains("the probe was here"))
        .unwrap_or_else(|| panic!("no adapter line in the log:\n{log}"));
    assert!(line.contains("WARN") && line.contains("probe"), "{line}");
}

#[test]
fn write_file_lands_in_the_sessions_scratch_folder_only() {
    let adapters = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("probe"), adapters.path().join("probe.wasm")).unwrap();
    let daemon = Daemon::start_with(Options {
        token: None,
        args: vec![
            "--adapters-dir".into(),
            adapters.path().display().to_string(),
        ],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    api.create("w", "probe");
    let scratch = daemon.data_dir.path().join("scratch/w");
    assert!(scratch.is_dir(), "the daemon makes {}", scratch.display());
    api.send("w", "write config/agent.json {\"mcp\":{}}");
    let written = scratch.join("config/agent.json");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !written.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(std::fs::read_to_string(&written).unwrap(), "{\"mcp\":{}}");
    // It may hold secrets: the daemon's user alone reads it, and the folder.
    use std::os::unix::fs::PermissionsExt;
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&written), 0o600);
    assert_eq!(mode(&scratch), 0o700);

    // A path out of the scratch folder is an invalid action: the session ends,
    // nothing is written.
    api.create("escape", "probe");
    let sent = api.post_json(
        "/v1/sessions/escape/messages",
        json!({ "message": "write ../escaped.txt gotcha" }),
    );
    let problem = expect_problem(sent, 500, "adapter_failed");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("scratch folder"),
        "{problem}"
    );
    assert!(!daemon.data_dir.path().join("scratch/escaped.txt").exists());

    // Deleting the session removes its scratch folder.
    let deleted = api.delete("/v1/sessions/w");
    assert!(deleted.status().is_success(), "{:?}", deleted.status());
    assert!(!scratch.exists(), "{} is removed", scratch.display());
}

#[test]
fn a_0_2_0_mock_runs_sessions_and_moves_them_without_its_state() {
    let adapters = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("mock"), adapters.path().join("mock.wasm")).unwrap();
    let start = || {
        Daemon::start_with(Options {
            args: vec![
                "--adapters-dir".into(),
                adapters.path().display().to_string(),
            ],
            ..Options::default()
        })
    };
    let daemon = start();
    let api = Api::new(&daemon);
    let mock = api.agent("mock");
    assert_eq!(mock["capabilities"]["move"], json!(false), "{mock}");
    api.create("old", "mock");
    assert_eq!(assistant_texts(&api.turn("old", "hello")), ["hello"]);
    let response = api.get("/v1/sessions/old/export");
    assert_eq!(response.status().as_u16(), 200);
    let lost = response
        .headers()
        .get("x-agentplex-native-lost")
        .map(|value| value.to_str().unwrap().to_owned())
        .expect("the export says the agent's session stays behind");
    assert!(lost.contains("0.3.0"), "{lost}");
    let archive = response.bytes().unwrap().to_vec();

    let other = start();
    let moved = Api::new(&other);
    let answer = ok_json(moved.import("old", "", archive, &[]));
    assert!(
        answer["lost"].as_str().unwrap().contains("0.3.0"),
        "{answer}"
    );
    // The transcript came along; the agent starts a session of its own (the
    // mock numbers its turns from 1 again: its state stayed behind).
    let turn = moved.turn("old", "again");
    assert_eq!(assistant_texts(&turn), ["again"]);
    let started = turn.iter().find(|e| e["type"] == "turn.started").unwrap();
    assert_eq!(started["data"]["turn_id"], json!("turn_1"), "{started}");
}
