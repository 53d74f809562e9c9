//! What the 0.2.0 contract added, end to end with the test-only `probe` adapter
//! (testing/guests/probe): the host's `log` import, and `write-file` into the
//! session's scratch folder (made by the daemon, checked, removed with the session).

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use agentplex_host::{AdapterRegistry, HostConfig, Input, MessagePart};
use common::api::*;
use common::{adapters_dir_with, test_guest, Daemon, Options};
use serde_json::json;

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
    let probe = registry.load_file(&test_guest("probe")).unwrap();
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
    let adapters = adapters_dir_with(&["probe"]);
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
