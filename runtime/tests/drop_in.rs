//! A component dropped into `--adapters-dir` replaces a built-in adapter with the
//! same agent id, in the same daemon binary: no rebuild. `mock-dropin`
//! (testing/guests/mock-dropin) registers as `mock` version `99.0.0-dropin` and
//! answers in upper case.

mod common;

use common::api::*;
use common::{adapters_dir_with, Daemon, Options};
use serde_json::Value;

fn mock_entry(api: &Api) -> Value {
    let agents = api.get_ok("/v1/agents");
    let mocks: Vec<&Value> = agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["id"] == "mock")
        .collect();
    assert_eq!(mocks.len(), 1, "one mock agent: {agents}");
    mocks[0].clone()
}

#[test]
fn a_dropped_in_component_replaces_the_builtin_mock() {
    // The built-in mock first, from the same binary.
    let builtin = Daemon::start();
    let api = Api::new(&builtin);
    assert_ne!(mock_entry(&api)["adapterVersion"], "99.0.0-dropin");
    api.create("m", "mock");
    assert_eq!(assistant_texts(&api.turn("m", "hello")), ["hello"]);
    drop(api);
    builtin.stop();

    let adapters = adapters_dir_with(&["mock_dropin"]);
    let daemon = Daemon::start_with(Options {
        token: None,
        args: vec![
            "--adapters-dir".into(),
            adapters.path().display().to_string(),
        ],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let mock = mock_entry(&api);
    assert_eq!(mock["adapterVersion"], "99.0.0-dropin", "{mock}");
    assert_eq!(mock["installed"], true);

    let created = api.create("m", "mock");
    assert_eq!(created["healthy"], true);
    let turn = api.turn("m", "hello");
    assert_eq!(assistant_texts(&turn), ["HELLO"]);
    let all = api.events("m");
    check_envelopes("m", 0, &all);
    check_turns(&all, true);
    assert_eq!(api.session_info("m")["agent"], "mock");
}
