//! An agent, a tool it runs or any process in the sandbox looks for the daemon's
//! token: in its own environment (inherited), in the daemon's command line and
//! environment as `ps` and `/proc` show them, through the process API's children
//! and terminals, and in an agent's process. It must find it nowhere, however the
//! token was given (`--token`, `AGENTPLEX_TOKEN` as the SDKs pass it,
//! `--token-file`).

use std::process::Command;
use std::time::Duration;

use serde_json::json;

use super::common::api::*;
use super::common::{adapters_dir_with, binary, Daemon, Options, TokenIn};

/// What a process in the sandbox can read of the daemon `pid`: its command line and
/// start-up environment through `/proc`, every process's arguments through `ps`.
fn visible_from_outside(pid: u32) -> String {
    let mut seen = String::new();
    for file in ["cmdline", "environ"] {
        // Unreadable is fine: that is the point.
        if let Ok(bytes) = std::fs::read(format!("/proc/{pid}/{file}")) {
            seen.push_str(&String::from_utf8_lossy(&bytes));
        }
    }
    let ps = Command::new("ps")
        .args(["-eo", "args"])
        .output()
        .expect("ps runs");
    seen.push_str(&String::from_utf8_lossy(&ps.stdout));
    seen
}

/// A shell line that prints what a child of the daemon inherits and can read of
/// its parent.
const LOOK_AROUND: &str =
    "env; cat /proc/$PPID/cmdline /proc/$PPID/environ 2>/dev/null; ps -eo args";

#[test]
fn the_token_stays_with_the_daemon_however_it_is_given() {
    let adapters = adapters_dir_with(&["probe"]);
    for (way, token) in [
        (TokenIn::Argument, "argument-token-6d1f0c2b9a"),
        (TokenIn::Variable, "variable-token-84e2a7c3d1"),
        (TokenIn::File, "file-token-37b9e5f0a6c2"),
    ] {
        let daemon = Daemon::start_with(Options {
            token: Some(token.into()),
            token_in: way,
            args: vec![
                "--adapters-dir".into(),
                adapters.path().display().to_string(),
            ],
            // The trace exporter's key is the daemon's too.
            env: vec![(
                "OTEL_EXPORTER_OTLP_HEADERS".into(),
                "x-honeycomb-team=otlp-key-5a9c".into(),
            )],
            ..Options::default()
        });
        let api = Api::new(&daemon);
        let what = format!("{way:?}");

        let outside = visible_from_outside(daemon.pid());
        assert!(
            !outside.contains(token),
            "{what}: visible outside the daemon"
        );

        // A command run through the process API.
        let run = ok_json(api.post_json(
            "/v1/processes/run",
            json!({ "command": "sh", "args": ["-c", LOOK_AROUND] }),
        ));
        let output = format!("{}{}", run["stdout"], run["stderr"]);
        assert!(output.contains("PATH="), "{what}: {output}");
        assert!(
            !output.contains(token),
            "{what}: a run's child sees the token"
        );
        assert!(
            !output.contains("otlp-key-5a9c"),
            "{what}: a child sees the exporter's key"
        );

        // A terminal.
        let terminal = ok_json(api.post_json(
            "/v1/processes",
            json!({ "command": "sh", "args": ["-c", format!("{LOOK_AROUND}; echo looked-$((40 + 2))")], "tty": true }),
        ));
        let id = terminal["id"].as_str().unwrap();
        let mut logs = String::new();
        super::common::wait_until(Duration::from_secs(20), "the terminal's output", || {
            logs = terminal_output(&api, id);
            logs.contains("looked-42")
        });
        assert!(!logs.contains(token), "{what}: a terminal sees the token");

        // An agent's own process (the probe adapter runs `sh -c` as its agent).
        api.create("agent", "probe");
        api.send(
            "agent",
            &format!("share look {LOOK_AROUND}; echo looked-$((40 + 2))"),
        );
        // The agent's lines come back as `agent.unparsed`, their text in `raw`.
        let mut transcript = String::new();
        super::common::wait_until(Duration::from_secs(20), "the agent's output", || {
            transcript = api
                .events_page("agent", "offset=0&include_raw=true")
                .to_string();
            transcript.contains("looked-42")
        });
        assert!(transcript.contains("PATH="), "{what}: {transcript}");
        assert!(
            !transcript.contains(token),
            "{what}: an agent sees the token"
        );
        assert!(
            !transcript.contains("otlp-key-5a9c"),
            "{what}: an agent sees the exporter's key"
        );
    }
}

/// Everything a terminal printed so far, decoded.
fn terminal_output(api: &Api, id: &str) -> String {
    use base64::Engine as _;
    let logs = api.get_ok(&format!("/v1/processes/{id}/logs"));
    let mut bytes = Vec::new();
    for entry in logs["entries"].as_array().into_iter().flatten() {
        let data = entry["data"].as_str().unwrap_or_default();
        bytes.extend(
            base64::engine::general_purpose::STANDARD
                .decode(data)
                .unwrap(),
        );
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn a_token_file_that_cannot_be_used_stops_the_daemon_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "\n").unwrap();
    let missing = dir.path().join("missing");
    for (file, says) in [(&empty, "is empty"), (&missing, "No such file")] {
        let output = Command::new(binary())
            .args(["server", "--port", "0", "--token-file"])
            .arg(file)
            .env_remove("AGENTPLEX_TOKEN")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("error: --token-file") && stderr.contains(says),
            "{stderr}"
        );
    }
    // Without a token, allowing every origin would let every web page drive it.
    let output = Command::new(binary())
        .args([
            "server",
            "--port",
            "0",
            "--no-token",
            "--cors-allow-origin",
            "*",
        ])
        .env_remove("AGENTPLEX_TOKEN")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--no-token cannot be combined"));
}
