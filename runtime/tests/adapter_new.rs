//! An adapter started outside the repository: `agentplex adapters new` writes a
//! project into a temporary folder, `adapters test DIR` builds, validates and
//! replays it, and a running daemon picks the component up from its adapters
//! folder without a restart (file watch, and `POST /v1/adapters/reload`).

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::api::*;
use common::{binary, describe, text, wasm_component, wasm_target_dir, Daemon, Options};
use serde_json::{json, Value};

/// `agentplex` with `args`, in `dir`, with no adapter settings from the
/// environment; a project it builds goes to the tests' shared WebAssembly target
/// folder (cargo's `CARGO_TARGET_DIR`, which `adapters test` follows).
fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(binary())
        .args(args)
        .current_dir(dir)
        .env_remove("AGENTPLEX_ADAPTERS_DIR")
        .env_remove("AGENTPLEX_DATA_DIR")
        .env("CARGO_TARGET_DIR", wasm_target_dir())
        .output()
        .expect("running agentplex")
}

/// The ids `GET /v1/agents` lists.
fn agent_ids(api: &Api) -> Vec<String> {
    api.get_ok("/v1/agents")["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|agent| agent["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Polls until `ready` holds for the agent list, for up to 20 s.
fn wait_for_agents(api: &Api, what: &str, ready: impl Fn(&[String]) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let ids = agent_ids(api);
        if ready(&ids) {
            return;
        }
        assert!(Instant::now() < deadline, "{what}: agents are {ids:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_new_adapter_builds_outside_the_repo_and_loads_into_a_running_daemon() {
    let outside = tempfile::tempdir().unwrap();
    let project = outside.path().join("echoer");
    let made = run(
        outside.path(),
        &["adapters", "new", "echoer", "--dir", "echoer"],
    );
    assert!(made.status.success(), "{}", describe(&made));
    assert!(
        text(&made.stdout).contains("echoer-adapter"),
        "{}",
        describe(&made)
    );
    // Nothing in the project points back into this repository.
    let manifest = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
    assert!(!manifest.contains("../"), "{manifest}");

    // Build, validate and replay the template's transcripts, in one command.
    let tested = run(&project, &["adapters", "test", "."]);
    assert!(tested.status.success(), "{}", describe(&tested));
    let report = text(&tested.stdout);
    for line in [
        "ok       contract: sandbox-agent:adapter@0.5.0",
        r#"ok       info: agent "echoer""#,
        "6 cases, 0 failed",
    ] {
        assert!(report.contains(line), "{line:?} in:\n{report}");
    }
    let component = wasm_component("echoer_adapter");
    let validated = run(
        outside.path(),
        &["adapters", "validate", component.to_str().unwrap()],
    );
    assert!(validated.status.success(), "{}", describe(&validated));

    // A daemon with an empty adapters folder; the component is dropped in while it runs.
    let adapters = tempfile::tempdir().unwrap();
    let daemon = Daemon::start_with(Options {
        token: None,
        args: vec![
            "--adapters-dir".into(),
            adapters.path().display().to_string(),
        ],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    assert!(!agent_ids(&api).contains(&"echoer".to_owned()));
    std::fs::copy(&component, adapters.path().join("echoer.wasm")).unwrap();
    wait_for_agents(&api, "the dropped-in component loads", |ids| {
        ids.iter().any(|id| id == "echoer")
    });
    api.create("e", "echoer");
    let turn = api.turn("e", "hello");
    let streamed: String = turn
        .iter()
        .filter(|event| event["type"] == "item.delta")
        .filter_map(|event| event["data"]["delta"].as_str())
        .collect();
    assert_eq!(streamed, "hello\n", "{turn:?}");

    // The reload route reports the folder.
    let reloaded = ok_json(api.post_empty("/v1/adapters/reload"));
    let loaded: Vec<&Value> = reloaded["adapters"].as_array().unwrap().iter().collect();
    assert_eq!(loaded.len(), 1, "{reloaded}");
    assert_eq!(
        (&loaded[0]["id"], &loaded[0]["contract"]),
        (&json!("echoer"), &json!("sandbox-agent:adapter@0.5.0")),
        "{reloaded}"
    );
    assert_eq!(reloaded["skipped"], json!([]), "{reloaded}");

    // A broken file is skipped and reported; removing the component removes the agent.
    std::fs::write(adapters.path().join("broken.wasm"), b"not wasm").unwrap();
    let reloaded = ok_json(api.post_empty("/v1/adapters/reload"));
    let skipped = reloaded["skipped"].as_array().unwrap();
    assert!(
        skipped.len() == 1 && skipped[0].as_str().unwrap().contains("broken.wasm"),
        "{reloaded}"
    );
    std::fs::remove_file(adapters.path().join("echoer.wasm")).unwrap();
    wait_for_agents(&api, "the removed component unloads", |ids| {
        !ids.iter().any(|id| id == "echoer") && ids.iter().any(|id| id == "mock")
    });
    // The session made before keeps its adapter.
    assert_eq!(api.session_info("e")["agent"], "echoer");
}

/// The request is fine; the daemon is not set up for it: 409 `not_configured`.
#[test]
fn reload_without_an_adapters_folder_is_a_clear_409() {
    let daemon = Daemon::start_with(Options {
        token: None,
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let problem = expect_problem(api.post_empty("/v1/adapters/reload"), 409, "not_configured");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("--adapters-dir"),
        "{problem}"
    );
}

#[test]
fn adapters_new_refuses_bad_names_and_busy_folders() {
    let outside = tempfile::tempdir().unwrap();
    let bad = run(outside.path(), &["adapters", "new", "Bad Name"]);
    assert_eq!(bad.status.code(), Some(2), "{}", describe(&bad));
    assert!(
        text(&bad.stderr).contains("invalid adapter name"),
        "{}",
        describe(&bad)
    );
    std::fs::create_dir(outside.path().join("busy")).unwrap();
    std::fs::write(outside.path().join("busy/keep.txt"), "mine").unwrap();
    let busy = run(outside.path(), &["adapters", "new", "ok", "--dir", "busy"]);
    assert_eq!(busy.status.code(), Some(2), "{}", describe(&busy));
    assert!(
        text(&busy.stderr).contains("not empty"),
        "{}",
        describe(&busy)
    );
    assert_eq!(
        std::fs::read_to_string(outside.path().join("busy/keep.txt")).unwrap(),
        "mine"
    );
}

/// The real Qwen Code CLI the conformance suite installs (`testing/agents`), when
/// it is there.
fn installed_acp_agent() -> Option<std::path::PathBuf> {
    let entry = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testing/agents/qwen/node_modules/@qwen-code/qwen-code/cli-entry.js");
    if entry.is_file() {
        return Some(entry);
    }
    let message = "Qwen Code is not installed: see testing/agents/qwen/package.json";
    assert!(std::env::var_os("CI").is_none(), "{message}");
    eprintln!("skipping: {message}");
    None
}

#[test]
fn an_acp_adapter_made_from_a_command_line_drives_a_real_acp_agent() {
    let Some(entry) = installed_acp_agent() else {
        return;
    };
    // The agent's program on PATH under the name the command gives.
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&entry, bin.path().join("qwen")).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let made = run(
        outside.path(),
        &[
            "adapters",
            "new",
            "any-acp",
            "--dir",
            "any-acp",
            "--acp",
            "qwen --acp --auth-type openai",
        ],
    );
    assert!(made.status.success(), "{}", describe(&made));
    let project = outside.path().join("any-acp");
    let tested = run(&project, &["adapters", "test", "."]);
    assert!(tested.status.success(), "{}", describe(&tested));
    assert!(
        text(&tested.stdout).contains(r#"ok       info: agent "any-acp""#),
        "{}",
        describe(&tested)
    );

    let adapters = tempfile::tempdir().unwrap();
    std::fs::copy(
        wasm_component("any_acp_adapter"),
        adapters.path().join("any-acp.wasm"),
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let daemon = Daemon::start_with(Options {
        token: None,
        args: vec![
            "--adapters-dir".into(),
            adapters.path().display().to_string(),
        ],
        env: vec![("PATH".into(), path)],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let model = agentplex_model_server::ModelServer::start().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let created = api.post_json(
        "/v1/sessions/q",
        json!({
            "agent": "any-acp",
            "directory": workspace.path(),
            "env": {
                "HOME": home.path(),
                "QWEN_HOME": home.path().join(".qwen"),
                "OPENAI_BASE_URL": model.openai_url(),
                "OPENAI_API_KEY": "sk-scripted",
                "OPENAI_MODEL": "scripted",
            },
        }),
    );
    let created = ok_json(created);
    assert_eq!(created["healthy"], true, "{created}");
    let turn = api.turn("q", "hello from a generic adapter");
    let texts = assistant_texts(&turn);
    assert!(
        texts
            .iter()
            .any(|t| t.contains("hello from a generic adapter")),
        "{texts:?}\n{turn:?}"
    );
}
