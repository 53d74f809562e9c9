//! The adapter host's own guarantees, checked on real components: instances are
//! recycled from their snapshot when their memory grows, and components built for
//! another contract are refused with a clear error.

mod common;

use agentplex_builtins::BUILTIN_ADAPTERS;
use agentplex_host::{
    Action, AdapterOrigin, AdapterRegistry, HostConfig, HostError, Input, MessagePart,
};
use agentplex_universal::UniversalEventData;

/// Host settings for tests: the shared compile cache, and the given overrides.
fn host(config: HostConfig) -> HostConfig {
    HostConfig {
        cache_dir: Some(common::shared_cache_dir()),
        ..config
    }
}

fn mock_registry(config: HostConfig) -> AdapterRegistry {
    let registry = AdapterRegistry::new(host(config)).unwrap();
    let mock = BUILTIN_ADAPTERS
        .iter()
        .find(|builtin| builtin.name.contains("mock"))
        .expect("mock is builtin");
    registry.add_builtin(mock, None).unwrap();
    registry
}

fn item_ids(actions: &[Action]) -> Vec<String> {
    actions
        .iter()
        .filter_map(|action| match action {
            Action::Emit(event) => match &event.data {
                UniversalEventData::Item(item) => Some(item.item.item_id.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// A mock session that has started and run one turn, with that turn's actions.
fn mock_after_one_turn(config: HostConfig) -> (agentplex_host::AdapterSession, Vec<Action>) {
    let registry = mock_registry(config);
    let mut session = registry
        .get("mock")
        .unwrap()
        .new_session(common::adapter_session_config())
        .unwrap();
    session.handle(Input::Start).unwrap();
    let first = session
        .handle(Input::SendMessage(vec![MessagePart::Text("hello".into())]))
        .unwrap();
    (session, first)
}

#[test]
fn a_grown_instance_is_rebuilt_from_its_snapshot() {
    let (mut session, first) = mock_after_one_turn(HostConfig {
        recycle_threshold_bytes: 4 << 20,
        ..HostConfig::default()
    });
    assert_eq!(session.recycled(), 0);

    // A 6 MiB native line grows the guest's memory past the threshold.
    let line = "x".repeat(6 << 20);
    session
        .handle(Input::Stdout {
            process_id: "agent".into(),
            line,
        })
        .unwrap();
    assert_eq!(session.recycled(), 1);
    assert!(
        session.memory_size() < 2 << 20,
        "memory after recycling: {}",
        session.memory_size()
    );

    // The state came along: item ids continue instead of starting over.
    let second = session
        .handle(Input::SendMessage(vec![MessagePart::Text("again".into())]))
        .unwrap();
    let (first, second) = (item_ids(&first), item_ids(&second));
    assert!(!first.is_empty() && !second.is_empty());
    assert!(
        second.iter().all(|id| !first.contains(id)),
        "ids repeated after recycling: {first:?} {second:?}"
    );
}

#[test]
fn a_component_for_another_contract_is_refused_clearly() {
    let registry = AdapterRegistry::new(host(HostConfig::default())).unwrap();
    // The smallest valid component: a header with no exports at all.
    const EMPTY_COMPONENT: &[u8] = b"\0asm\x0d\x00\x01\x00";
    let error = registry
        .compile(AdapterOrigin::File("other.wasm".into()), EMPTY_COMPONENT)
        .unwrap_err();
    assert!(
        matches!(error, HostError::IncompatibleContract { .. }),
        "{error}"
    );
    let message = error.to_string();
    assert!(
        message.contains("other.wasm")
            && message.contains(
                "sandbox-agent:adapter@0.5.0, sandbox-agent:adapter@0.4.0, sandbox-agent:adapter@0.3.0, \
                 sandbox-agent:adapter@0.2.0, sandbox-agent:adapter@0.1.0"
            ),
        "{message}"
    );

    let error = registry
        .compile(AdapterOrigin::File("junk.wasm".into()), b"not wasm at all")
        .unwrap_err();
    assert!(matches!(error, HostError::Load { .. }), "{error}");
}

#[test]
fn each_session_has_its_own_instance() {
    let registry = mock_registry(HostConfig::default());
    let adapter = registry.get("mock").unwrap();
    let mut one = adapter
        .new_session(common::adapter_session_config())
        .unwrap();
    let mut two = adapter
        .new_session(common::adapter_session_config())
        .unwrap();
    let a = one
        .handle(Input::SendMessage(vec![MessagePart::Text("a".into())]))
        .unwrap();
    let b = two
        .handle(Input::SendMessage(vec![MessagePart::Text("b".into())]))
        .unwrap();
    assert_eq!(
        item_ids(&a),
        item_ids(&b),
        "separate instances count from the same start"
    );
}

#[test]
fn a_parked_session_holds_no_instance_and_carries_on_where_it_was() {
    let (mut session, first) = mock_after_one_turn(HostConfig::default());
    let before = session.snapshot().unwrap();
    session.park().unwrap();
    assert!(session.is_parked());
    assert_eq!(session.memory_size(), 0, "no instance while parked");
    session.park().unwrap();
    assert_eq!(
        session.snapshot().unwrap(),
        before,
        "the snapshot it was parked with"
    );
    assert!(
        session.is_parked(),
        "a snapshot does not rebuild the instance"
    );

    let second = session
        .handle(Input::SendMessage(vec![MessagePart::Text("again".into())]))
        .unwrap();
    assert!(!session.is_parked());
    assert!(session.memory_size() > 0);
    let (first, second) = (item_ids(&first), item_ids(&second));
    assert!(!first.is_empty() && !second.is_empty());
    assert!(
        second.iter().all(|id| !first.contains(id)),
        "ids repeated after parking: {first:?} {second:?}"
    );
}
