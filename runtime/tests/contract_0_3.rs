//! Components built against the 0.3.0 contract keep loading and running, moves
//! included, and what 0.4.0 added has its 0.3 meaning for them: they name no
//! model API, so their agents' model calls are not carried by the daemon. The
//! builtins, built against a later contract, name theirs.
//!
//! `fixtures/contract-0.3.0/` holds the test-only `probe` adapter
//! (testing/guests/probe) and the mock as the 0.3.0 kit built them (see the README
//! there); the host links them as 0.3.0 and converts their values to 0.4.0's.

mod common;

use agentplex_builtins::builtin_registry;
use agentplex_host::{AdapterRegistry, HostConfig, Input, MessagePart, ModelApiFormat};
use common::api::*;
use common::{Daemon, Options};
use serde_json::json;

/// A component of the fixtures, built against 0.3.0.
fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/contract-0.3.0")
        .join(format!("{name}.wasm"))
}

#[test]
fn a_0_3_0_component_runs_and_names_no_model_api() {
    let registry = AdapterRegistry::new(HostConfig::default()).unwrap();
    for name in ["probe", "mock"] {
        let adapter = registry.load_file(&fixture(name)).unwrap();
        assert_eq!(adapter.contract(), "sandbox-agent:adapter@0.3.0");
        assert_eq!(adapter.facts().model_apis, Vec::new(), "{name}");
    }
    let mock = registry.load_file(&fixture("mock")).unwrap();
    let mut session = mock.new_session(common::adapter_session_config()).unwrap();
    session.handle(Input::Start).unwrap();
    let actions = session
        .handle(Input::SendMessage(vec![MessagePart::Text("hello".into())]))
        .unwrap();
    assert!(!actions.is_empty(), "the 0.3.0 mock answers a message");
}

#[test]
fn builtins_name_their_model_apis() {
    let registry = builtin_registry(HostConfig::default()).unwrap();
    let mock = registry.get("mock").expect("the builtin mock");
    assert_eq!(mock.contract(), "sandbox-agent:adapter@0.5.0");
    let apis = &mock.facts().model_apis;
    assert_eq!(apis.len(), 1, "{apis:?}");
    assert_eq!(apis[0].format, ModelApiFormat::AnthropicMessages);
    assert_eq!(apis[0].base_url_env, ["ANTHROPIC_BASE_URL"]);
    assert_eq!(apis[0].key_env, ["ANTHROPIC_API_KEY"]);
}

#[test]
fn a_0_3_0_mock_moves_with_its_state() {
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
    assert_eq!(mock["capabilities"]["move"], json!(true), "{mock}");
    api.create("old", "mock");
    assert_eq!(assistant_texts(&api.turn("old", "hello")), ["hello"]);
    let archive = api.export("old");

    let other = start();
    let moved = Api::new(&other);
    let answer = ok_json(moved.import("old", "", archive, &[]));
    assert_eq!(answer["lost"], json!(null), "{answer}");
    // The agent's own session came along: the mock numbers its turns on.
    let turn = moved.turn("old", "again");
    assert_eq!(assistant_texts(&turn), ["again"]);
    let started = turn.iter().find(|e| e["type"] == "turn.started").unwrap();
    assert_eq!(started["data"]["turn_id"], json!("turn_2"), "{started}");
}
