//! `health`, `openapi` and `agents`.

use super::*;

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
        "`agentplex openapi` differs from GET /v1/openapi.json"
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
        problem_failure(&cli(&daemon, args), "unsupported_agent", 404);
    }
}
