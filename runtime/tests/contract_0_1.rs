//! Components built against the 0.1.0 contract keep loading and running unchanged.
//!
//! `fixtures/contract-0.1.0/mock.wasm` is the mock adapter as the 0.1.0 kit built
//! it from `wit/v0.1.0` (see the README there). The host links it as 0.1.0 and
//! converts between its values and 0.2.0's; this file drives it through the host
//! crate and through a daemon that loads it from `--adapters-dir`.

mod common;

use std::path::PathBuf;

use agentplex_host::{
    Action, AdapterOrigin, AdapterRegistry, HostConfig, Input, MessagePart, PermissionReply,
};
use agentplex_universal::{ItemRole, UniversalEventData, UniversalEventType};
use common::acp::acp_post;
use common::api::*;
use common::{Daemon, Options};
use serde_json::json;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/contract-0.1.0/mock.wasm")
}

/// The texts of the assistant items completed in `actions`.
fn completed_texts(actions: &[Action]) -> Vec<String> {
    actions
        .iter()
        .filter_map(|action| match action {
            Action::Emit(event) => match &event.data {
                UniversalEventData::Item(item)
                    if event.event_type == UniversalEventType::ItemCompleted
                        && item.item.role == Some(ItemRole::Assistant) =>
                {
                    Some(
                        item.item
                            .content
                            .iter()
                            .filter_map(|part| match part {
                                agentplex_universal::ContentPart::Text { text } => {
                                    Some(text.clone())
                                }
                                _ => None,
                            })
                            .collect::<String>(),
                    )
                }
                _ => None,
            },
            _ => None,
        })
        .filter(|text| !text.is_empty())
        .collect()
}

#[test]
fn a_0_1_0_component_runs_through_the_host() {
    let registry = AdapterRegistry::new(HostConfig::default()).unwrap();
    let bytes = std::fs::read(fixture()).unwrap();
    let adapter = registry
        .load_bytes(AdapterOrigin::File(fixture()), &bytes)
        .unwrap();
    assert_eq!(adapter.contract(), "sandbox-agent:adapter@0.1.0");
    let info = adapter.info();
    assert_eq!(info.id, "mock");
    // The 0.1.0 record of booleans becomes the list of names.
    for name in [
        "permissions",
        "questions",
        "cancel",
        "usage",
        "text-messages",
    ] {
        assert!(info.has(name), "{name} in {:?}", info.capabilities);
    }
    assert!(!info.has("mcp-servers") && !info.has("shared-process"));
    assert!(info.location_env.is_empty());
    // What 0.1.0 lacks has its 0.1 meaning.
    assert_eq!(
        adapter.credential_files(Some("/home/u"), &[]).unwrap(),
        Vec::<String>::new()
    );
    let digest = "ab".repeat(32);
    assert_eq!(
        adapter
            .parse_checksum(
                "https://h/SHA256SUMS",
                &format!("{digest}  tool.tar.gz\n"),
                "tool.tar.gz"
            )
            .unwrap(),
        Ok(digest)
    );

    let mut session = adapter
        .new_session(common::adapter_session_config())
        .unwrap();
    session.handle(Input::Start).unwrap();
    let turn = session
        .handle(Input::SendMessage(vec![MessagePart::Text("hello".into())]))
        .unwrap();
    assert_eq!(completed_texts(&turn), ["hello"]);

    // A reply converts too: the permission flow of the 0.1.0 mock.
    let asked = session
        .handle(Input::SendMessage(vec![MessagePart::Text(
            "permission".into(),
        )]))
        .unwrap();
    let permission_id = asked
        .iter()
        .find_map(|action| match action {
            Action::Emit(event) => match &event.data {
                UniversalEventData::Permission(p) => Some(p.permission_id.clone()),
                _ => None,
            },
            _ => None,
        })
        .expect("a permission request");
    let replied = session
        .handle(Input::ReplyPermission {
            permission_id,
            reply: PermissionReply::Once,
        })
        .unwrap();
    assert!(!replied.is_empty());
    // Snapshots round-trip through the old contract as well.
    let state = session.snapshot().unwrap();
    let mut restored = adapter
        .restore_session(common::adapter_session_config(), &state)
        .unwrap();
    let again = restored
        .handle(Input::SendMessage(vec![MessagePart::Text("again".into())]))
        .unwrap();
    assert_eq!(completed_texts(&again), ["again"]);
}

/// A daemon that loads the 0.1.0 mock from its adapters folder (the guard
/// holds the folder).
fn daemon_with_the_0_1_0_mock() -> (Daemon, tempfile::TempDir) {
    let adapters = tempfile::tempdir().unwrap();
    std::fs::copy(fixture(), adapters.path().join("mock-0.1.0.wasm")).unwrap();
    let daemon = Daemon::start_with(Options {
        token: None,
        args: vec![
            "--adapters-dir".into(),
            adapters.path().display().to_string(),
        ],
        ..Options::default()
    });
    (daemon, adapters)
}

#[test]
fn a_daemon_serves_a_0_1_0_component_from_its_adapters_folder() {
    let (daemon, _adapters) = daemon_with_the_0_1_0_mock();
    let api = Api::new(&daemon);
    let mock = api.agent("mock");
    assert_eq!(mock["capabilities"]["permissions"], json!(true), "{mock}");
    assert_eq!(
        mock["capabilities"]["sharedProcess"],
        json!(false),
        "{mock}"
    );
    api.create("old", "mock");
    assert_eq!(assistant_texts(&api.turn("old", "hello")), ["hello"]);
    let all = api.events("old");
    check_envelopes("old", 0, &all);
    check_turns(&all, true);
}

/// Over ACP a 0.1.0 component, which can change nothing in a running session,
/// offers no modes, models or options; the methods that would change them are
/// not found, and an option it lacks is a bad parameter, as any unknown one.
#[test]
fn over_acp_a_0_1_0_component_offers_no_choices_and_refuses_changes() {
    let (daemon, _adapters) = daemon_with_the_0_1_0_mock();
    let api = Api::new(&daemon);
    let work = tempfile::tempdir().unwrap();
    let mut id = 0;
    let mut call = |query: &str, method: &str, params: serde_json::Value| {
        id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        acp_post(&api, "old", query, &message.to_string())
            .json::<serde_json::Value>()
            .unwrap()
    };
    let init = call("?agent=mock", "initialize", json!({"protocolVersion": 1}));
    assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
    let new = call(
        "",
        "session/new",
        json!({"cwd": work.path(), "mcpServers": []}),
    );
    let created = &new["result"];
    let session_id = created["sessionId"].as_str().unwrap().to_owned();
    for field in ["modes", "models", "configOptions"] {
        assert!(created.get(field).is_none(), "{field}: {new}");
    }
    let code = |answer: serde_json::Value| (answer["error"]["code"].clone(), answer);
    let (set_model, answer) = code(call(
        "",
        "session/set_model",
        json!({"sessionId": session_id, "modelId": "mock"}),
    ));
    assert_eq!(set_model, -32601, "{answer}");
    let (set_mode, answer) = code(call(
        "",
        "session/set_mode",
        json!({"sessionId": session_id, "modeId": "plan"}),
    ));
    assert_eq!(set_mode, -32601, "{answer}");
    for option in [
        "model",
        "thought_level",
        "mode",
        "permission_mode",
        "colour",
    ] {
        let params = json!({"sessionId": session_id, "configId": option, "value": "x"});
        let (refused, answer) = code(call("", "session/set_config_option", params));
        assert_eq!(refused, -32602, "{option}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("this session has no option {option:?}")),
            "{message}"
        );
    }
}
