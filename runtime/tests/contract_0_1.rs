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

#[test]
fn a_daemon_serves_a_0_1_0_component_from_its_adapters_folder() {
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
