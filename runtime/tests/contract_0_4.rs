//! Components built against the 0.4.0 contract keep loading and running, and what
//! 0.5.0 added has its 0.4 meaning for them: they describe no permission request
//! and name nothing their agent asks for, so an approval policy decides their
//! requests as `other`. The builtins, built against 0.5.0, describe theirs. A
//! capability named after them (`variant-change`) is not one of theirs: what it
//! allows is refused for them.
//!
//! `fixtures/contract-0.4.0/` holds the test-only `probe` adapter
//! (testing/guests/probe) and the mock as the 0.4.0 kit built them (see the README
//! there); the host links them as 0.4.0 and converts their values to 0.5.0's.

mod common;

use agentplex_builtins::builtin_registry;
use agentplex_host::{AdapterRegistry, HostConfig, Input, MessagePart, ToolKind};
use common::api::*;
use common::{Daemon, Options};
use serde_json::json;

/// A component of the fixtures, built against 0.4.0.
fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/contract-0.4.0")
        .join(format!("{name}.wasm"))
}

/// A daemon whose `mock` is the 0.4.0 kit's (from an adapters dir, kept while
/// the second value lives).
fn daemon_with_the_0_4_0_mock() -> (Daemon, tempfile::TempDir) {
    let adapters = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("mock"), adapters.path().join("mock.wasm")).unwrap();
    let daemon = Daemon::start_with(Options {
        args: vec![
            "--adapters-dir".into(),
            adapters.path().display().to_string(),
        ],
        ..Options::default()
    });
    (daemon, adapters)
}

#[test]
fn a_0_4_0_component_runs_keeps_its_model_apis_and_describes_nothing() {
    let registry = AdapterRegistry::new(HostConfig::default()).unwrap();
    for name in ["probe", "mock"] {
        let adapter = registry.load_file(&fixture(name)).unwrap();
        assert_eq!(adapter.contract(), "sandbox-agent:adapter@0.4.0");
        assert_eq!(adapter.facts().asks_for, Vec::new(), "{name}");
    }
    let mock = registry.load_file(&fixture("mock")).unwrap();
    assert_eq!(
        mock.facts().model_apis.len(),
        1,
        "0.4.0's model APIs come through"
    );
    let mut session = mock.new_session(common::adapter_session_config()).unwrap();
    session.handle(Input::Start).unwrap();
    session
        .handle(Input::SendMessage(vec![MessagePart::Text(
            "permission ls".into(),
        )]))
        .unwrap();
    assert_eq!(
        session.describe_permission("mock_1_permission").unwrap(),
        None
    );
}

#[test]
fn builtins_built_against_0_5_0_say_what_their_agents_ask_for() {
    let registry = builtin_registry(HostConfig::default()).unwrap();
    let mock = registry.get("mock").expect("the builtin mock");
    assert_eq!(mock.contract(), "sandbox-agent:adapter@0.5.0");
    assert_eq!(mock.facts().asks_for, [ToolKind::Shell, ToolKind::Write]);
    for agent in ["claude", "codex", "opencode", "gemini"] {
        let adapter = registry.get(agent).expect("a builtin");
        assert!(
            adapter.facts().asks_for.contains(&ToolKind::Shell),
            "{agent}"
        );
    }
}

#[test]
fn a_policy_decides_a_0_4_0_mocks_requests_as_other() {
    let (daemon, _adapters) = daemon_with_the_0_4_0_mock();
    let api = Api::new(&daemon);
    let policy = json!({
        "rules": [
            {"tool": "shell", "decision": "allow"},
            {"tool": "other", "decision": "deny"}
        ]
    });
    ok_json(api.post_json(
        "/v1/sessions/old",
        json!({"agent": "mock", "policy": policy}),
    ));
    let offset = api.last_sequence("old");
    api.send("old", "permission echo hi");
    let events = api.wait_for_type("old", offset, "turn.ended");
    let decided = find(&events, "permission.decided");
    assert_eq!(decided["data"]["tool"], "other", "{decided}");
    assert_eq!(decided["data"]["decision"], "deny", "{decided}");
    assert_eq!(decided["data"]["rule"], 1, "{decided}");
}

#[test]
fn a_0_4_0_mock_is_refused_a_variant_change_in_a_running_session() {
    let (daemon, _adapters) = daemon_with_the_0_4_0_mock();
    let api = Api::new(&daemon);
    ok_json(api.post_json("/v1/sessions/old", json!({"agent": "mock"})));
    let put = api.put_json("/v1/sessions/old/modes", json!({"variant": "high"}));
    let problem = expect_problem(put, 400, "mode_not_supported");
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.contains("`variant-change`"), "{problem}");
    assert_eq!(api.session_info("old").get("variant"), None);
}
