//! A session's secrets (MCP bearer tokens, header values, OAuth client secrets,
//! credentials in URLs, local servers' environments and arguments, credentials in
//! a git skill source) never show on any process's command line, in the daemon's
//! log at trace level, or in any answer about the session; the agent still gets
//! them, in a file only the daemon's user can read.
//!
//! The agent is a stand-in `claude` that notes its command line and waits: the
//! command line the real adapter gives it is what `ps` shows.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use super::common::api::*;
use super::common::{fake_claude, wait_until, Daemon, Options};
use serde_json::json;
use tempfile::TempDir;

/// Distinct secrets, random for this run.
fn secrets(count: usize) -> Vec<String> {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let mut rng = fastrand::Rng::with_seed(seed as u64 ^ u64::from(std::process::id()));
    (0..count)
        .map(|n| {
            let random: String = (0..20).map(|_| rng.alphanumeric()).collect();
            format!("s{n}k{random}")
        })
        .collect()
}

/// The first of `secrets` that `text` holds.
fn leaked<'s>(text: &str, secrets: &'s [String]) -> Option<&'s String> {
    secrets.iter().find(|secret| text.contains(secret.as_str()))
}

/// Every process's command line (what `ps -eo args` shows), with its pid.
fn command_lines() -> Vec<(String, String)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|entry| {
            let line = std::fs::read(entry.path().join("cmdline")).ok()?;
            let line = String::from_utf8_lossy(&line).replace('\0', " ");
            Some((entry.file_name().to_string_lossy().into_owned(), line))
        })
        .collect()
}

#[test]
fn mcp_and_skill_secrets_stay_off_command_lines_logs_and_answers() {
    let secrets = secrets(12);
    let dir = TempDir::new().unwrap();
    let argv_file = dir.path().join("argv");
    fake_claude(
        dir.path(),
        &format!(
            "printf '%s\\n' \"$@\" > '{0}.tmp' && mv '{0}.tmp' '{0}'",
            argv_file.display()
        ),
    );
    // Not in the install folder, which the daemon watches (its events are logged).
    let logs = TempDir::new().unwrap();
    let log = logs.path().join("daemon.log");
    let daemon = Daemon::start_with(Options {
        args: vec!["--install-dir".into(), dir.path().display().to_string()],
        env: vec![("AGENTPLEX_LOG".into(), "trace".into())],
        output: Some(log.clone()),
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let s = &secrets;
    let mcp = json!({
        "web": {
            "type": "remote",
            "url": format!("https://user{0}:{1}@mcp.example/mcp?token={2}", s[0], s[1], s[2]),
            "headers": { "X-Static": s[3] },
            "envHeaders": { "X-Key": "KEY_VAR" },
            "bearerTokenEnvVar": "TOKEN_VAR",
            "oauth": { "clientId": "public-id", "clientSecret": s[4] },
        },
        "calc": {
            "type": "local",
            "command": ["node", "server.js", format!("--key={}", s[5])],
            "args": ["--token", s[6]],
            "env": { "API_KEY": s[7] },
        },
    });
    let env = json!({ "TOKEN_VAR": s[8], "KEY_VAR": s[9] });
    let created = ok_json(api.post_json(
        "/v1/sessions/web",
        json!({ "agent": "claude", "mcp": mcp, "env": env }),
    ));
    assert_eq!(created["healthy"], json!(true), "{created}");

    // The agent runs and got its servers in a 0600 file named on its command line.
    wait_until(DEADLINE, "the agent started", || argv_file.exists());
    let argv = std::fs::read_to_string(&argv_file).unwrap();
    let argv: Vec<&str> = argv.lines().collect();
    let at = argv.iter().position(|arg| *arg == "--mcp-config").unwrap();
    let config_file = Path::new(argv[at + 1]);
    assert!(
        config_file.starts_with(daemon.data_dir.path().join("scratch/web")),
        "{argv:?}"
    );
    let mode = std::fs::metadata(config_file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{}", config_file.display());
    let config = std::fs::read_to_string(config_file).unwrap();
    for secret in [&s[1], &s[2], &s[3], &s[5], &s[6], &s[7], &s[8], &s[9]] {
        assert!(
            config.contains(secret.as_str()),
            "the agent lacks {secret}: {config}"
        );
    }

    // No process's command line holds a secret, while the agent runs.
    let lines = command_lines();
    assert!(
        lines.iter().any(|(_, line)| line.contains("--mcp-config")),
        "the agent is not running (among {} processes)",
        lines.len()
    );
    for (pid, line) in &lines {
        assert_eq!(leaked(line, s), None, "process {pid}: {line}");
    }

    // A git skill source with credentials that cannot be fetched, and one refused.
    let port = super::common::free_port();
    for (id, source) in [
        (
            "skills-a",
            format!(
                "https://user:{}@127.0.0.1:{port}/r.git?token={}",
                s[10], s[11]
            ),
        ),
        (
            "skills-b",
            format!("http://user:{}@127.0.0.1:{port}/r.git", s[10]),
        ),
    ] {
        let skills = json!({ "sources": [{ "type": "git", "source": source }] });
        let problem = expect_problem(
            api.post_json(
                &format!("/v1/sessions/{id}"),
                json!({ "agent": "claude", "skills": skills }),
            ),
            400,
            "invalid_request",
        );
        assert!(
            problem["detail"].as_str().unwrap().contains("redacted"),
            "{problem}"
        );
        assert_eq!(leaked(&problem.to_string(), s), None, "{problem}");
    }

    // No answer about the session holds a secret; the shapes stay.
    let listed = api.get_ok("/v1/sessions");
    let one = api.get_ok("/v1/sessions/web");
    let events = api.get_ok("/v1/sessions/web/events?includeRaw=true");
    let agents = api.get_ok("/v1/agents");
    for answer in [&listed, &one, &events, &agents] {
        assert_eq!(leaked(&answer.to_string(), s), None, "{answer}");
    }
    let shown = &one["mcp"];
    assert_eq!(shown["web"]["headers"]["X-Static"], "<redacted>", "{shown}");
    assert_eq!(shown["web"]["oauth"]["clientSecret"], "<redacted>");
    assert_eq!(shown["web"]["envHeaders"]["X-Key"], "KEY_VAR");
    assert_eq!(
        shown["web"]["url"],
        "https://redacted:redacted@mcp.example/mcp?token=redacted"
    );
    assert_eq!(
        shown["calc"],
        json!({
            "type": "local", "command": ["node", "<redacted>", "<redacted>"],
            "args": ["<redacted>", "<redacted>"], "env": { "API_KEY": "<redacted>" },
        })
    );

    // Nor does the daemon's log, at trace level.
    daemon.stop();
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(
        log.contains("spawned"),
        "the log is not at trace level: {log}"
    );
    if let Some(secret) = leaked(&log, s) {
        let line = log.lines().find(|line| line.contains(secret.as_str()));
        panic!("the log holds {secret}: {line:?}");
    }
}
