//! Credentials end to end: `agentplex credentials list` on fixture home folders
//! (secrets never printed whole), `credentialsAvailable` from files, and the
//! environment of a session's processes (its agent's keys, no other agent's).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use common::api::{ok_json, Api, DEADLINE};
use common::{binary, describe, text, Daemon, Options};

/// Fake secrets: the `MIDDLE` part must never be printed.
const CLAUDE_FILE_KEY: &str = "sk-ant-api03-MIDDLE-claude-json-key-0001";
const CLAUDE_LOGIN: &str = "sk-ant-oat01-MIDDLE-claude-login-token-0002";
const CODEX_FILE_KEY: &str = "sk-proj-MIDDLE-codex-auth-json-key-0003";
const OPENCODE_FILE_KEY: &str = "sk-or-v1-MIDDLE-opencode-openrouter-0004";
const AMP_FILE_KEY: &str = "sgamp_user_MIDDLE-amp-secrets-key-0005";
const PI_FILE_KEY: &str = "sk-ant-api03-MIDDLE-pi-auth-json-key-0006";
const ENV_ANTHROPIC: &str = "sk-ant-api03-MIDDLE-from-the-environment-0007";
const ENV_CLAUDE_TOKEN: &str = "sk-ant-oat01-MIDDLE-claude-env-token-0008";
const ENV_CODEX: &str = "sk-proj-MIDDLE-codex-env-key-for-codex-0009";
const ENV_AMP: &str = "sgamp_user_MIDDLE-amp-env-key-for-amp-0010";

/// The data dir of these tests' CLI runs (its compile cache is reused).
fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("credentials-data")
}

/// Writes a file, making its folders.
fn write(home: &Path, relative: &str, text: &str) {
    let path = home.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A home folder with a credential file for every agent.
fn fixture_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write(
        h,
        ".claude.json",
        &json!({ "primaryApiKey": CLAUDE_FILE_KEY }).to_string(),
    );
    write(
        h,
        ".claude/.credentials.json",
        &json!({ "claudeAiOauth": { "accessToken": CLAUDE_LOGIN, "refreshToken": "r" } })
            .to_string(),
    );
    write(
        h,
        ".codex/auth.json",
        &json!({ "auth_mode": "apikey", "OPENAI_API_KEY": CODEX_FILE_KEY }).to_string(),
    );
    write(
        h,
        ".local/share/opencode/auth.json",
        &json!({ "openrouter": { "type": "api", "key": OPENCODE_FILE_KEY } }).to_string(),
    );
    write(
        h,
        ".local/share/amp/secrets.json",
        &json!({ "apiKey@https://ampcode.com/": AMP_FILE_KEY }).to_string(),
    );
    write(
        h,
        ".pi/agent/auth.json",
        &json!({ "anthropic": { "type": "api_key", "key": PI_FILE_KEY } }).to_string(),
    );
    home
}

/// `agentplex credentials list <args>` with only `env` (and `PATH`) as its environment.
fn list(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(binary())
        .args(["credentials", "list"])
        .args(args)
        .arg("--data-dir")
        .arg(data_dir())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .envs(env.iter().copied())
        .output()
        .expect("running agentplex")
}

/// A listing that succeeded, and its JSON.
fn listing(output: &Output) -> Value {
    assert!(output.status.success(), "{}", describe(output));
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", describe(output)))
}

/// Fails when any of the test's secrets shows whole, or its middle shows, in the output.
fn assert_redacted(output: &Output) {
    let all = format!("{}{}", text(&output.stdout), text(&output.stderr));
    assert!(!all.contains("MIDDLE"), "a secret leaked:\n{all}");
}

/// The credentials of one agent in a listing.
fn of_agent<'a>(listing: &'a Value, agent: &str) -> Vec<&'a Value> {
    listing["credentials"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["agent"] == agent)
        .collect()
}

#[test]
fn list_reads_env_and_every_agents_files_and_redacts_them() {
    let home = fixture_home();
    let home_str = home.path().to_str().unwrap();
    let env = [("ANTHROPIC_API_KEY", ENV_ANTHROPIC), ("HOME", home_str)];
    let via_home_var = list(&[], &env);
    let via_flag = list(
        &["--home", home_str],
        &[
            ("ANTHROPIC_API_KEY", ENV_ANTHROPIC),
            ("HOME", "/nonexistent"),
        ],
    );
    for output in [&via_home_var, &via_flag] {
        assert_redacted(output);
        let listing = listing(output);
        assert_eq!(listing["warnings"], json!([]));
        let files: BTreeMap<&str, &str> = listing["credentials"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["source"]["type"] == "file")
            .map(|c| {
                (
                    c["agent"].as_str().unwrap(),
                    c["source"]["path"].as_str().unwrap(),
                )
            })
            .collect();
        for agent in ["claude", "codex", "opencode", "amp", "pi"] {
            let path = files
                .get(agent)
                .unwrap_or_else(|| panic!("{agent}: no file credential in {listing:#}"));
            assert!(path.starts_with(home_str), "{agent}: {path}");
        }

        // Claude: the environment's key is passed; the file's key and the login are listed only.
        let claude = of_agent(&listing, "claude");
        assert_eq!(
            claude[0]["source"],
            json!({"type": "env", "variable": "ANTHROPIC_API_KEY"})
        );
        assert_eq!(claude[0]["passedAs"], "ANTHROPIC_API_KEY");
        assert_eq!(claude[0]["value"], "sk-ant-…0007");
        let passed: Vec<&Value> = claude.iter().map(|c| &c["passedAs"]).collect();
        assert_eq!(
            passed,
            [&json!("ANTHROPIC_API_KEY"), &Value::Null, &Value::Null]
        );
        // Codex and Amp: keys found only in files are passed as their variables.
        assert_eq!(of_agent(&listing, "codex")[0]["passedAs"], "OPENAI_API_KEY");
        assert_eq!(of_agent(&listing, "amp")[0]["passedAs"], "AMP_API_KEY");
        assert_eq!(of_agent(&listing, "amp")[0]["value"], "sgamp_…0005");
        assert_eq!(of_agent(&listing, "mock"), Vec::<&Value>::new());
    }
}

#[test]
fn list_filters_by_agent() {
    let home = fixture_home();
    let output = list(
        &["--agent", "codex", "--home", home.path().to_str().unwrap()],
        &[("OPENAI_API_KEY", ENV_CODEX)],
    );
    assert_redacted(&output);
    let listing = listing(&output);
    let agents: BTreeSet<&str> = listing["credentials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["agent"].as_str().unwrap())
        .collect();
    assert_eq!(agents, BTreeSet::from(["codex"]));
    // The environment wins over the file.
    let codex = of_agent(&listing, "codex");
    assert_eq!(codex[0]["source"]["variable"], "OPENAI_API_KEY");
    assert_eq!(codex[1]["passedAs"], Value::Null);
}

#[test]
fn list_warns_about_malformed_files_and_rejects_bad_input() {
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".codex/auth.json", "{\"OPENAI_API_KEY\": ");
    let output = list(&["--home", home.path().to_str().unwrap()], &[]);
    let warnings = listing(&output)["warnings"].clone();
    assert_eq!(warnings.as_array().unwrap().len(), 1, "{warnings}");
    assert_eq!(warnings[0]["agent"], "codex");
    assert!(warnings[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("not valid JSON"));
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with("warning: codex: ") && stderr.contains("auth.json"),
        "{stderr}"
    );

    for (args, message) in [
        (
            vec!["--agent", "nobody"],
            "error: unknown agent \"nobody\" (known: ",
        ),
        (
            vec!["--home", "/nonexistent/home"],
            "error: --home /nonexistent/home is not a directory",
        ),
        (
            vec!["--directory", "/nonexistent/project"],
            "error: --directory /nonexistent/project is not a directory",
        ),
    ] {
        let output = list(&args, &[]);
        assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
        let stderr = text(&output.stderr);
        assert!(stderr.starts_with(message), "{stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn list_reads_a_projects_configuration_in_the_directory() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    write(
        project.path(),
        "opencode.json",
        r#"{"provider": {"openai": {"options": {"baseURL": "https://project.test/v1"}}}}"#,
    );
    let nested = project.path().join("src");
    std::fs::create_dir(&nested).unwrap();
    let home_str = home.path().to_str().unwrap();
    let base_url = |listing: &Value| -> Option<Value> {
        of_agent(listing, "opencode")
            .into_iter()
            .find(|c| c["passedAs"] == "AGENTPLEX_OPENCODE_OPENAI_BASE_URL")
            .map(|c| c["source"].clone())
    };
    let elsewhere = listing(&list(
        &["--agent", "opencode", "--directory", home_str],
        &[("HOME", home_str)],
    ));
    assert_eq!(base_url(&elsewhere), None, "{elsewhere}");
    let args = [
        "--agent",
        "opencode",
        "--directory",
        nested.to_str().unwrap(),
    ];
    let inside = listing(&list(&args, &[("HOME", home_str)]));
    let file = project.path().join("opencode.json").canonicalize().unwrap();
    assert_eq!(
        base_url(&inside),
        Some(json!({
            "type": "merged",
            "key": format!("provider.openai.options.baseURL in {}", file.display())
        })),
        "{inside}"
    );
}

/// Every credential variable of the builtin adapters, from `adapters list`.
fn every_credential_variable() -> BTreeSet<String> {
    let output = Command::new(binary())
        .args(["adapters", "list", "--data-dir"])
        .arg(data_dir())
        .env_remove("AGENTPLEX_ADAPTERS_DIR")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", describe(&output));
    let list: Value = serde_json::from_slice(&output.stdout).unwrap();
    list["adapters"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| a["credentialEnv"].as_array().unwrap().clone())
        .map(|name| name.as_str().unwrap().to_owned())
        .collect()
}

/// Shell commands that write the process's environment (NUL-separated) to
/// `dump`, whole or not at all.
fn dumping_env(dump: &Path) -> String {
    let dump = dump.display();
    format!("env -0 > '{dump}.tmp' && mv '{dump}.tmp' '{dump}'")
}

/// A fake `claude` that answers the version probe and otherwise writes its
/// environment to `dump`, then reads its stdin until it closes.
fn fake_claude(install_dir: &Path, dump: &Path) {
    common::fake_claude(install_dir, &dumping_env(dump));
}

/// A daemon with its agents in `install_dir` and nothing of the test machine's
/// own credentials: every credential variable and the agents' folder variables
/// are empty, then `set` is set.
fn isolated_daemon(install_dir: &Path, set: &[(&str, &str)]) -> Daemon {
    let mut env: BTreeMap<String, String> = every_credential_variable()
        .into_iter()
        .chain(
            [
                "CLAUDE_CONFIG_DIR",
                "CODEX_HOME",
                "XDG_DATA_HOME",
                "PI_CODING_AGENT_DIR",
            ]
            .map(str::to_owned),
        )
        .map(|name| (name, String::new()))
        .collect();
    for (name, value) in set {
        env.insert((*name).to_owned(), (*value).to_owned());
    }
    Daemon::start_with(Options {
        args: vec!["--install-dir".into(), install_dir.display().to_string()],
        env: env.into_iter().collect(),
        ..Options::default()
    })
}

/// The environment a process dumped, once the file is there.
fn read_dump(dump: &Path) -> BTreeMap<String, String> {
    let deadline = Instant::now() + DEADLINE;
    while !dump.exists() {
        assert!(Instant::now() < deadline, "the agent never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::read(dump)
        .unwrap()
        .split(|b| *b == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (name, value) = entry.split_once('=')?;
            Some((name.to_owned(), value.to_owned()))
        })
        .collect()
}

#[test]
fn sessions_get_their_agents_credentials_only() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".claude.json",
        &json!({ "primaryApiKey": CLAUDE_FILE_KEY }).to_string(),
    );
    write(
        home.path(),
        ".local/share/opencode/auth.json",
        &json!({ "openrouter": { "type": "api", "key": OPENCODE_FILE_KEY } }).to_string(),
    );
    let install_dir = tempfile::tempdir().unwrap();
    let dump = install_dir.path().join("claude.env");
    fake_claude(install_dir.path(), &dump);

    let daemon = isolated_daemon(
        install_dir.path(),
        &[
            ("HOME", home.path().to_str().unwrap()),
            ("CLAUDE_CODE_OAUTH_TOKEN", ENV_CLAUDE_TOKEN),
            ("CODEX_API_KEY", ENV_CODEX),
            ("AMP_API_KEY", ENV_AMP),
        ],
    );
    let api = Api::new(&daemon);

    let agents = api.get_ok("/v1/agents");
    let available: BTreeMap<&str, bool> = agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["id"].as_str().unwrap(),
                a["credentialsAvailable"].as_bool().unwrap(),
            )
        })
        .collect();
    for (agent, expected) in [
        ("claude", true),   // a file and the environment
        ("opencode", true), // a file only
        ("codex", true),    // the environment only
        ("pi", false),      // nothing
        ("mock", true),     // needs none
    ] {
        assert_eq!(available.get(agent), Some(&expected), "{agent}: {agents:#}");
    }

    // Claude's process: its own token from the environment, its key from its
    // file, nothing of Codex's or Amp's.
    api.create("claude-env", "claude");
    let _ = api.post_json(
        "/v1/sessions/claude-env/messages",
        json!({ "message": "hi" }),
    );
    let claude = read_dump(&dump);
    assert_eq!(
        claude.get("ANTHROPIC_API_KEY").map(String::as_str),
        Some(CLAUDE_FILE_KEY)
    );
    assert_eq!(
        claude.get("CLAUDE_CODE_OAUTH_TOKEN").map(String::as_str),
        Some(ENV_CLAUDE_TOKEN)
    );
    for name in [
        "CODEX_API_KEY",
        "AMP_API_KEY",
        "OPENAI_API_KEY",
        "OPENROUTER_API_KEY",
    ] {
        assert!(!claude.contains_key(name), "claude got {name}");
    }
    assert!(!claude
        .values()
        .any(|v| v == ENV_CODEX || v == ENV_AMP || v == OPENCODE_FILE_KEY));

    // The mock needs no credentials and gets none; a variable the client sets
    // for the session still reaches it.
    let created = ok_json(api.post_json(
        "/v1/sessions/mock-env",
        json!({ "agent": "mock", "env": { "AMP_API_KEY": "given-by-the-client" } }),
    ));
    assert_eq!(created["healthy"], true, "{created}");
    let turn = api.turn("mock-env", "shell env");
    let output = turn
        .iter()
        .filter(|e| e["type"] == "item.completed" && e["data"]["item"]["kind"] == "tool_result")
        .map(|e| e["data"]["item"]["content"][0]["output"].as_str().unwrap())
        .next()
        .expect("the shell's output");
    let mock: BTreeMap<&str, &str> = output
        .lines()
        .filter_map(|line| line.split_once('='))
        .collect();
    assert_eq!(mock.get("AMP_API_KEY"), Some(&"given-by-the-client"));
    for name in [
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CODEX_API_KEY",
        "ANTHROPIC_API_KEY",
    ] {
        assert!(!mock.contains_key(name), "the mock got {name}:\n{output}");
    }
}

/// A key a file gives as a variable's name (Pi's `auth.json`) reaches a
/// session's process as that variable's value in the session's `env` when the
/// session sets it, as Pi itself would read it, else the daemon's; a session
/// whose `env` moves Pi's folder has its files read there.
#[test]
fn a_sessions_env_is_read_as_the_agent_reads_it() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".pi/agent/auth.json",
        &json!({ "anthropic": { "type": "api_key", "key": "MY_PI_KEY" } }).to_string(),
    );
    let moved = tempfile::tempdir().unwrap();
    write(
        moved.path(),
        "auth.json",
        &json!({ "anthropic": { "type": "api_key", "key": CLAUDE_FILE_KEY } }).to_string(),
    );
    let moved_dir = moved.path().display().to_string();
    let install_dir = tempfile::tempdir().unwrap();
    let dump = install_dir.path().join("pi.env");
    common::fake_agent(install_dir.path(), "pi", "0.73.0", &dumping_env(&dump));
    let daemon = isolated_daemon(
        install_dir.path(),
        &[
            ("HOME", home.path().to_str().unwrap()),
            ("MY_PI_KEY", ENV_ANTHROPIC),
        ],
    );
    let api = Api::new(&daemon);
    for (session, given, expected) in [
        ("pi-daemon", json!({}), ENV_ANTHROPIC),
        (
            "pi-moved",
            json!({ "PI_CODING_AGENT_DIR": moved_dir }),
            CLAUDE_FILE_KEY,
        ),
        (
            "pi-session",
            json!({ "MY_PI_KEY": PI_FILE_KEY }),
            PI_FILE_KEY,
        ),
    ] {
        let _ = std::fs::remove_file(&dump);
        let created = ok_json(api.post_json(
            &format!("/v1/sessions/{session}"),
            json!({ "agent": "pi", "env": given }),
        ));
        assert_eq!(created["healthy"], true, "{created}");
        let _ = api.post_json(
            &format!("/v1/sessions/{session}/messages"),
            json!({ "message": "hi" }),
        );
        let pi = read_dump(&dump);
        assert_eq!(
            pi.get("ANTHROPIC_API_KEY").map(String::as_str),
            Some(expected),
            "{session}"
        );
        let _ = api.delete(&format!("/v1/sessions/{session}"));
    }
}
