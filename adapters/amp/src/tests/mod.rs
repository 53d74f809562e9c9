//! Unit tests: flag probing and launch plans per Amp version, and the session's
//! handling of single lines and process events (the static facts are `facts.json`'s).

mod launch;
mod session;

sandbox_agent_adapter_kit::facts_test!(crate::Amp, "../facts.json");

/// A session config with the transcripts' defaults.
pub(crate) use sandbox_agent_adapter_kit::testing::config;

sandbox_agent_adapter_kit::fuzz_test!(crate::AmpSession, transcripts: ["transcripts"], captures: []);

/// Amp's threads stay on Amp's servers: no `move`, and an export says why.
#[test]
fn a_thread_does_not_move_and_the_export_says_why() {
    use sandbox_agent_adapter_kit::native_session::place;
    use sandbox_agent_adapter_kit::Guest;
    let info = <crate::Amp as Guest>::info();
    assert!(!info.capabilities.iter().any(|name| name == "move"));
    let at = place("/home/a", "/work", &[]);
    let stays = <crate::Amp as Guest>::native_session_files("T-1".into(), at).unwrap_err();
    assert!(stays.contains("Amp's servers"), "{stays}");
}

/// Amp's model calls are not the sandbox's to carry (see the crate documentation):
/// it names no wire format for the daemon's model gateway.
#[test]
fn amp_names_no_model_apis() {
    use sandbox_agent_adapter_kit::Adapter;
    assert!(<crate::Amp as Adapter>::model_apis().is_empty());
}
