//! Installing agents for real: a loopback HTTP server plays the vendors' release
//! servers (version files, GitHub-release-like documents and archives holding fake
//! binaries, small shell scripts that print a version), and the daemon fetches from
//! it through `--releases-mirror`. The npm source is tested with the real `npm`
//! against its configured registry and a loopback one. A reinstall leaves the
//! folder of a running process alone.

mod common;
#[path = "install/npm_source.rs"]
mod npm_source;
#[path = "install/registry.rs"]
mod registry;
#[path = "install/reinstall.rs"]
mod reinstall;
#[path = "install/vendors.rs"]
mod vendors;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::api::{expect_no_content, expect_problem, Api};
use common::{Daemon, Options};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use vendors::{Reply, Vendors};

/// Seed 003's release locations, as the mirror serves them (`/<host>/<path>`).
const CLAUDE: &str =
    "/storage.googleapis.com/claude-code-dist-86c565f3-f756-42ad-8dfa-d59b1c096819/claude-code-releases";
const AMP: &str = "/storage.googleapis.com/amp-public-assets-prod-0/cli";
const CODEX: &str = "openai/codex";
const CODEX_LATEST: &str = "/api.github.com/repos/openai/codex/releases/latest";
const OPENCODE: &str = "anomalyco/opencode";
const OPENCODE_LATEST: &str = "/api.github.com/repos/anomalyco/opencode/releases/latest";
const PI: &str = "badlogic/pi-mono";
const PI_LATEST: &str = "/registry.npmjs.org/@mariozechner/pi-coding-agent/latest";

/// A fake agent binary: a script that prints its version.
fn fake_binary(version: &str) -> Vec<u8> {
    format!("#!/bin/sh\necho \"{version}\"\n").into_bytes()
}

fn sha256(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

fn tar_gz(files: &[(&str, &[u8])]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut builder = tar::Builder::new(gz);
    for (name, data) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, name, *data).unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(data).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// A daemon that installs from `vendors` for Linux x64 glibc, releases only.
fn daemon(vendors: &Vendors, extra: &[&str]) -> Daemon {
    daemon_with(vendors, extra, None)
}

fn daemon_with(vendors: &Vendors, extra: &[&str], data_dir: Option<tempfile::TempDir>) -> Daemon {
    let mut args = vec!["--releases-mirror".to_owned(), vendors.base.clone()];
    for (flag, default) in [
        ("--install-platform", "linux-x64"),
        ("--install-source", "release"),
    ] {
        if !extra.contains(&flag) {
            args.extend([flag.to_owned(), default.to_owned()]);
        }
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    Daemon::start_with(Options {
        args,
        // No agent from the machine's PATH.
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        data_dir,
        ..Options::default()
    })
}

fn install_dir(daemon: &Daemon) -> PathBuf {
    daemon.data_dir.path().join("bin")
}

/// `GET /v1/agents` entry of `agent`.
fn agent_entry(api: &Api, agent: &str) -> Value {
    let agents = api.get_ok("/v1/agents");
    agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["id"] == agent)
        .cloned()
        .unwrap_or_else(|| panic!("no {agent} in {agents}"))
}

/// `POST /v1/agents/{agent}/install` as an event stream: the progress reports and
/// the last event (`result` or `error`).
fn install_events(daemon: &Daemon, agent: &str, body: Value) -> (Vec<Value>, String, Value) {
    let text = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(600))
        .build()
        .unwrap()
        .post(daemon.url(&format!("/v1/agents/{agent}/install")))
        .header("accept", "text/event-stream")
        .json(&body)
        .send()
        .unwrap()
        .text()
        .unwrap();
    let mut progress = Vec::new();
    let mut last = (String::new(), Value::Null);
    for frame in text.split("\n\n") {
        let event = frame
            .lines()
            .find_map(|l| l.strip_prefix("event: "))
            .unwrap_or_default();
        let data = frame
            .lines()
            .find_map(|l| l.strip_prefix("data: "))
            .unwrap_or_default();
        if event.is_empty() {
            continue;
        }
        let data: Value = serde_json::from_str(data).unwrap_or(Value::Null);
        match event {
            "progress" => progress.push(data),
            _ => last = (event.to_owned(), data),
        }
    }
    (progress, last.0, last.1)
}

/// The names in the install dir (hidden staging files included).
fn install_dir_entries(daemon: &Daemon) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(install_dir(daemon))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn run(binary: &Path) -> String {
    let output = std::process::Command::new(binary).output().unwrap();
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

#[test]
fn each_agent_installs_from_its_release_recipe() {
    let vendors = Vendors::start();
    vendors.publish_claude("2.1.7");
    vendors.body(
        CODEX_LATEST,
        json!({"tag_name": "rust-v0.170.1"}).to_string(),
    );
    vendors.publish_github(
        CODEX,
        "rust-v0.170.1",
        "codex-x86_64-unknown-linux-musl.tar.gz",
        &tar_gz(&[("codex-x86_64-unknown-linux-musl", &fake_binary("0.170.1"))]),
    );
    vendors.body(OPENCODE_LATEST, json!({"tag_name": "v1.19.2"}).to_string());
    vendors.publish_github(
        OPENCODE,
        "v1.19.2",
        "opencode-linux-x64.tar.gz",
        &tar_gz(&[("opencode", &fake_binary("1.19.2"))]),
    );
    vendors.body(
        &format!("{AMP}/cli-version.txt"),
        "0.0.1790000000-gabc123\n",
    );
    vendors.body(
        &format!("{AMP}/0.0.1790000000-gabc123/amp-linux-x64"),
        fake_binary("0.0.1790000000-gabc123"),
    );
    vendors.body(
        PI_LATEST,
        json!({"name": "pi", "version": "0.74.0"}).to_string(),
    );
    vendors.publish_github(
        PI,
        "v0.74.0",
        "pi-linux-x64.tar.gz",
        &tar_gz(&[
            ("pi/pi", &fake_binary("0.74.0")),
            ("pi/theme/dark.json", b"{}"),
        ]),
    );
    let daemon = daemon(&vendors, &[]);
    let api = Api::new(&daemon);
    let expected = [
        ("claude", "claude", "2.1.7"),
        ("codex", "codex", "0.170.1"),
        ("opencode", "opencode", "1.19.2"),
        ("amp", "amp", "0.0.1790000000-gabc123"),
        ("pi", "pi", "0.74.0"),
    ];
    for (agent, binary, version) in expected {
        assert_eq!(
            agent_entry(&api, agent)["installed"],
            false,
            "{agent} before"
        );
        expect_no_content(
            api.post_json(&format!("/v1/agents/{agent}/install"), json!({})),
            agent,
        );
        let entry = agent_entry(&api, agent);
        let path = install_dir(&daemon).join(binary);
        assert_eq!(entry["installed"], true, "{entry}");
        assert_eq!(entry["version"], version, "{entry}");
        assert_eq!(entry["path"], path.display().to_string(), "{entry}");
        assert_eq!(run(&path), version, "{agent} runs");
    }
    // Pi's release folder is kept whole next to the binary.
    let pi = std::fs::canonicalize(install_dir(&daemon).join("pi")).unwrap();
    assert!(pi.parent().unwrap().join("theme/dark.json").is_file());
    // Nothing half-done is left behind.
    let leftovers: Vec<String> = install_dir_entries(&daemon)
        .into_iter()
        .filter(|name| name.contains(".tmp-") || name.contains(".link-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn opencode_on_macos_comes_as_a_zip() {
    let vendors = Vendors::start();
    vendors.body(OPENCODE_LATEST, json!({"tag_name": "v1.19.3"}).to_string());
    vendors.publish_github(
        OPENCODE,
        "v1.19.3",
        "opencode-darwin-arm64.zip",
        &zip(&[("opencode", &fake_binary("1.19.3"))]),
    );
    let daemon = daemon(&vendors, &["--install-platform", "darwin-arm64"]);
    let api = Api::new(&daemon);
    expect_no_content(
        api.post_json("/v1/agents/opencode/install", json!({})),
        "zip",
    );
    let entry = agent_entry(&api, "opencode");
    assert_eq!(entry["version"], "1.19.3", "{entry}");
}

/// Codex, OpenCode and Pi releases publish no checksum file: their downloads are
/// checked against the digest GitHub lists for the asset in the release document.
#[test]
fn github_release_downloads_are_checked_against_the_asset_digest() {
    let vendors = Vendors::start();
    let daemon = daemon(&vendors, &[]);
    let api = Api::new(&daemon);
    let cases = [
        (
            "codex",
            CODEX,
            "rust-v0.170.2",
            "codex-x86_64-unknown-linux-musl.tar.gz",
            "codex-x86_64-unknown-linux-musl",
        ),
        (
            "opencode",
            OPENCODE,
            "v1.19.4",
            "opencode-linux-x64.tar.gz",
            "opencode",
        ),
        ("pi", PI, "v0.74.1", "pi-linux-x64.tar.gz", "pi/pi"),
    ];
    for (agent, repo, tag, file, binary) in cases {
        let version = tag.trim_start_matches("rust-v").trim_start_matches('v');
        let archive = tar_gz(&[(binary, &fake_binary(version))]);
        // The mirror (or the network) serves other bytes than GitHub recorded.
        let tampered = tar_gz(&[(binary, b"#!/bin/sh\necho pwned\n".as_slice())]);
        vendors.publish_github_asset(repo, tag, file, &tampered, &archive);
        let request = json!({"version": version});
        let problem = expect_problem(
            api.post_json(&format!("/v1/agents/{agent}/install"), request.clone()),
            500,
            "install_failed",
        );
        let detail = problem["detail"].as_str().unwrap();
        assert!(
            detail.contains("checksum mismatch") && detail.contains(file),
            "{agent}: {problem}"
        );
        assert!(
            !install_dir(&daemon).join(agent).exists(),
            "{agent} was installed"
        );
        // The bytes GitHub recorded install.
        vendors.publish_github(repo, tag, file, &archive);
        expect_no_content(
            api.post_json(&format!("/v1/agents/{agent}/install"), request),
            agent,
        );
        assert_eq!(run(&install_dir(&daemon).join(agent)), version, "{agent}");
    }
}

#[test]
fn pinned_versions_reinstall_and_no_op() {
    let vendors = Vendors::start();
    vendors.publish_claude("1.0.4");
    vendors.publish_claude("2.0.1");
    let daemon = daemon(&vendors, &[]);
    let api = Api::new(&daemon);
    let old = format!("{CLAUDE}/1.0.4/linux-x64/claude");
    let new = format!("{CLAUDE}/2.0.1/linux-x64/claude");

    let (progress, last, outcome) = install_events(&daemon, "claude", json!({"version": "1.0.4"}));
    assert_eq!(last, "result", "{outcome}");
    assert_eq!(outcome["version"], "1.0.4", "{outcome}");
    assert_eq!(outcome["alreadyInstalled"], false, "{outcome}");
    assert!(
        progress
            .iter()
            .any(|p| p["stage"] == "downloading" && p["bytesDone"] == p["bytesTotal"]),
        "{progress:?}"
    );
    assert_eq!(agent_entry(&api, "claude")["version"], "1.0.4");
    assert_eq!(
        vendors.hits(&format!("{CLAUDE}/latest")),
        0,
        "a pinned version needs no lookup"
    );

    // The same version again: nothing to download.
    let (_, _, outcome) = install_events(&daemon, "claude", json!({"version": "1.0.4"}));
    assert_eq!(outcome["alreadyInstalled"], true, "{outcome}");
    assert_eq!(vendors.hits(&old), 1);

    // The latest differs from the installed one: installed.
    expect_no_content(
        api.post_json("/v1/agents/claude/install", json!({})),
        "latest",
    );
    assert_eq!(agent_entry(&api, "claude")["version"], "2.0.1");
    assert_eq!(vendors.hits(&new), 1);
    let (_, _, outcome) = install_events(&daemon, "claude", json!({}));
    assert_eq!(outcome["alreadyInstalled"], true, "{outcome}");
    assert_eq!(vendors.hits(&new), 1);

    // `reinstall` downloads again, and back to the old version the version follows.
    expect_no_content(
        api.post_json("/v1/agents/claude/install", json!({"reinstall": true})),
        "reinstall",
    );
    assert_eq!(vendors.hits(&new), 2);
    assert_eq!(agent_entry(&api, "claude")["version"], "2.0.1");
    expect_no_content(
        api.post_json(
            "/v1/agents/claude/install",
            json!({"version": "1.0.4", "reinstall": true}),
        ),
        "pinned reinstall",
    );
    assert_eq!(agent_entry(&api, "claude")["version"], "1.0.4");
    assert_eq!(run(&install_dir(&daemon).join("claude")), "1.0.4");

    let problem = expect_problem(
        api.post_json("/v1/agents/claude/install", json!({"version": "../x"})),
        400,
        "invalid_request",
    );
    assert!(
        problem["detail"].as_str().unwrap().contains("../x"),
        "{problem}"
    );
}

/// Installs claude and expects `install_failed` naming `needle`; the final path
/// keeps what it had and no staging file is left.
fn expect_install_failure(daemon: &Daemon, needle: &str) -> Value {
    let api = Api::new(daemon);
    let before = std::fs::read(install_dir(daemon).join("claude")).ok();
    let problem = expect_problem(
        api.post_json("/v1/agents/claude/install", json!({"reinstall": true})),
        500,
        "install_failed",
    );
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.contains(needle), "{needle:?} not in {detail}");
    assert_eq!(problem["agent"], "claude", "{problem}");
    assert_eq!(
        std::fs::read(install_dir(daemon).join("claude")).ok(),
        before
    );
    assert!(
        install_dir_entries(daemon)
            .iter()
            .all(|name| !name.starts_with('.')),
        "{:?}",
        install_dir_entries(daemon)
    );
    problem
}

#[test]
fn corrupted_truncated_and_missing_downloads_fail_cleanly() {
    let vendors = Vendors::start();
    vendors.publish_claude("3.0.0");
    let daemon = daemon(&vendors, &[]);
    let binary = format!("{CLAUDE}/3.0.0/linux-x64/claude");

    // Checksum mismatch: the bucket serves other bytes than the manifest names.
    vendors.body(&binary, fake_binary("3.0.0-tampered"));
    let problem = expect_install_failure(&daemon, "checksum mismatch");
    assert!(problem["detail"]
        .as_str()
        .unwrap()
        .contains("/3.0.0/linux-x64/claude"));

    // Truncated: fewer bytes than announced, then the connection closes.
    let full = fake_binary("3.0.0");
    vendors.set(
        &binary,
        Reply::Truncated {
            body: full[..full.len() / 2].to_vec(),
            claimed: full.len(),
        },
    );
    expect_install_failure(&daemon, "/3.0.0/linux-x64/claude");

    // An empty body.
    vendors.body(&binary, Vec::new());
    expect_install_failure(&daemon, "empty download");

    // 404 and 500, with the URL and status.
    vendors.set(&binary, Reply::Status(404));
    let problem = expect_install_failure(&daemon, "HTTP 404");
    assert!(problem["detail"].as_str().unwrap().contains(&vendors.base));
    vendors.set(&binary, Reply::Status(503));
    expect_install_failure(&daemon, "HTTP 503");

    // An archive without the binary the recipe names.
    vendors.body(CODEX_LATEST, json!({"tag_name": "rust-v0.1.0"}).to_string());
    vendors.publish_github(
        CODEX,
        "rust-v0.1.0",
        "codex-x86_64-unknown-linux-musl.tar.gz",
        &tar_gz(&[("README.md", b"no binary here")]),
    );
    let problem = expect_problem(
        Api::new(&daemon).post_json("/v1/agents/codex/install", json!({})),
        500,
        "install_failed",
    );
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("has no codex-x86_64-unknown-linux-musl"),
        "{problem}"
    );

    // The good bytes install.
    vendors.body(&binary, full);
    expect_no_content(
        Api::new(&daemon).post_json("/v1/agents/claude/install", json!({})),
        "after the failures",
    );
}

#[test]
fn a_daemon_killed_mid_download_leaves_the_old_binary_and_a_retry_works() {
    let vendors = Vendors::start();
    vendors.publish_claude("4.0.0");
    let mut daemon = daemon(&vendors, &[]);
    expect_no_content(
        Api::new(&daemon).post_json("/v1/agents/claude/install", json!({})),
        "first install",
    );
    let final_path = install_dir(&daemon).join("claude");
    let installed = std::fs::read(&final_path).unwrap();

    // 4.0.1 trickles; the daemon dies in the middle of it.
    let mut next = fake_binary("4.0.1");
    next.resize(64 << 10, b'\n');
    vendors.publish_claude_binary("4.0.1", &next);
    let path = format!("{CLAUDE}/4.0.1/linux-x64/claude");
    vendors.set(
        &path,
        Reply::Trickle {
            body: next.clone(),
            piece: 1024,
            pause: Duration::from_millis(50),
        },
    );
    let endpoint = daemon.url("/v1/agents/claude/install");
    let request = std::thread::spawn(move || {
        reqwest::blocking::Client::new()
            .post(endpoint)
            .json(&json!({}))
            .send()
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    while *vendors.trickled.lock().unwrap() < 8 << 10 {
        assert!(Instant::now() < deadline, "the download never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let data_dir = daemon.kill();
    assert!(
        request.join().unwrap().is_err(),
        "the request died with the daemon"
    );
    assert_eq!(
        std::fs::read(&final_path).unwrap(),
        installed,
        "the old binary is intact"
    );
    assert_eq!(run(&final_path), "4.0.0");

    // A new daemon on the same data dir: the retry installs and cleans up.
    vendors.body(&path, next);
    let daemon = daemon_with(&vendors, &[], Some(data_dir));
    let api = Api::new(&daemon);
    expect_no_content(
        api.post_json("/v1/agents/claude/install", json!({})),
        "retry",
    );
    assert_eq!(agent_entry(&api, "claude")["version"], "4.0.1");
    assert_eq!(install_dir_entries(&daemon), ["claude"]);
}

#[test]
fn concurrent_installs_download_once() {
    let vendors = Vendors::start();
    let binary = vendors.publish_claude("5.0.0");
    let path = format!("{CLAUDE}/5.0.0/linux-x64/claude");
    vendors.set(
        &path,
        Reply::Trickle {
            body: binary,
            piece: 8,
            pause: Duration::from_millis(40),
        },
    );
    let daemon = daemon(&vendors, &[]);
    let endpoint = daemon.url("/v1/agents/claude/install");
    let requests: Vec<_> = (0..3)
        .map(|_| {
            let endpoint = endpoint.clone();
            std::thread::spawn(move || {
                reqwest::blocking::Client::new()
                    .post(endpoint)
                    .json(&json!({}))
                    .send()
                    .unwrap()
                    .status()
                    .as_u16()
            })
        })
        .collect();
    for request in requests {
        assert_eq!(request.join().unwrap(), 204);
    }
    assert_eq!(vendors.hits(&path), 1, "one download for three requests");
    assert_eq!(
        agent_entry(&Api::new(&daemon), "claude")["version"],
        "5.0.0"
    );
}

#[test]
fn session_create_installs_the_agent_version_asked_for() {
    let vendors = Vendors::start();
    vendors.publish_claude("6.0.0");
    vendors.publish_claude("6.1.0");
    let daemon = daemon(&vendors, &[]);
    let api = Api::new(&daemon);
    let response = api.post_json(
        "/v1/sessions/s1",
        json!({"agent": "claude", "agentVersion": "6.0.0"}),
    );
    let status = response.status();
    assert!(
        status.is_success(),
        "{status}: {}",
        response.text().unwrap()
    );
    assert_eq!(agent_entry(&api, "claude")["version"], "6.0.0");
    assert_eq!(vendors.hits(&format!("{CLAUDE}/latest")), 0);
    // Without agentVersion an installed agent is used as is.
    let response = api.post_json("/v1/sessions/s2", json!({"agent": "claude"}));
    assert!(response.status().is_success());
    assert_eq!(agent_entry(&api, "claude")["version"], "6.0.0");
}

#[test]
fn no_install_makes_a_missing_agent_not_installed() {
    let vendors = Vendors::start();
    vendors.publish_claude("7.0.0");
    let daemon = daemon(&vendors, &["--no-install"]);
    let api = Api::new(&daemon);
    let problem = expect_problem(
        api.post_json("/v1/sessions/s1", json!({"agent": "claude"})),
        404,
        "agent_not_installed",
    );
    assert!(
        problem["detail"].as_str().unwrap().contains("--no-install"),
        "{problem}"
    );
    assert_eq!(vendors.hits(&format!("{CLAUDE}/7.0.0/linux-x64/claude")), 0);
    // An explicit install request still installs.
    expect_no_content(
        api.post_json("/v1/agents/claude/install", json!({})),
        "explicit",
    );
    let response = api.post_json("/v1/sessions/s1", json!({"agent": "claude"}));
    assert!(response.status().is_success());
    let problem = expect_problem(
        api.post_json(
            "/v1/sessions/s2",
            json!({"agent": "claude", "agentVersion": "6.9.0"}),
        ),
        404,
        "agent_not_installed",
    );
    assert!(
        problem["detail"].as_str().unwrap().contains("6.9.0"),
        "{problem}"
    );
}

#[test]
fn the_cli_prints_progress_and_the_outcome() {
    let vendors = Vendors::start();
    vendors.publish_claude("8.0.0");
    let daemon = daemon(&vendors, &[]);
    let output = std::process::Command::new(common::binary())
        .args([
            "agents",
            "install",
            "claude",
            "--version",
            "8.0.0",
            "--endpoint",
            &daemon.endpoint,
        ])
        .env_remove("AGENTPLEX_TOKEN")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let outcome: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(outcome["version"], "8.0.0", "{outcome}");
    assert_eq!(
        outcome["path"],
        install_dir(&daemon).join("claude").display().to_string()
    );
    assert!(
        stderr.contains("downloading"),
        "plain progress lines: {stderr}"
    );

    vendors.set(
        &format!("{CLAUDE}/8.0.1/linux-x64/claude"),
        Reply::Status(404),
    );
    vendors.body(&format!("{CLAUDE}/8.0.1/manifest.json"), "{}");
    let output = std::process::Command::new(common::binary())
        .args([
            "agents",
            "install",
            "claude",
            "--version",
            "8.0.1",
            "--endpoint",
            &daemon.endpoint,
        ])
        .env_remove("AGENTPLEX_TOKEN")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("install_failed") && stderr.contains("HTTP 404"),
        "{stderr}"
    );
}
