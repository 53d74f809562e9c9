//! Before a resume, the agent's own session moved to the place it already is
//! (capability `move-before-resume`), with the adapters the daemon embeds.

use std::path::Path;
use std::sync::Arc;

use agentplex_host::{AdapterRegistry, HostConfig, LoadedAdapter, Place};
use agentplex_sessions::moves::in_place::{move_in_place, InPlace, CAPABILITY};

/// The adapters the daemon embeds.
fn builtins() -> AdapterRegistry {
    let host = HostConfig {
        cache_dir: Some(Path::new(env!("CARGO_TARGET_TMPDIR")).join("adapter-cache")),
        ..HostConfig::default()
    };
    agentplex_builtins::builtin_registry(host).unwrap()
}

/// Gemini CLI's adapter, as the daemon embeds it.
fn gemini() -> Arc<LoadedAdapter> {
    builtins()
        .get("gemini")
        .expect("the builtin Gemini CLI adapter")
}

#[test]
fn a_recording_is_renamed_where_the_agent_neither_writes_over_nor_deletes_it() {
    let adapter = gemini();
    assert!(adapter.info().has(CAPABILITY));
    let home = tempfile::tempdir().unwrap();
    let place = Place {
        home: home.path().display().to_string(),
        directory: "/work/proj".into(),
        env: Vec::new(),
    };
    let id = "7e6301c5-1111-2222-3333-444455556666";
    // The CLI's registry named the project `proj-1`; another session's file
    // and the session's own empty recording of a later minute are beside it.
    let chats = home.path().join(".gemini/tmp/proj-1/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let recording = concat!(
        r#"{"sessionId":"7e6301c5-1111-2222-3333-444455556666","kind":"main"}"#,
        "\n",
        r#"{"id":"m1","type":"user","content":[{"text":"remember this"}]}"#,
        "\n"
    );
    let name = "session-2026-12-05T21-40-7e6301c5";
    std::fs::write(chats.join(format!("{name}.jsonl")), recording).unwrap();
    let other = chats.join("session-2026-12-05T21-40-0badc0de.jsonl");
    std::fs::write(&other, "{}").unwrap();

    let renamed = |count| InPlace {
        renamed: count,
        refused: Vec::new(),
    };
    assert_eq!(move_in_place(&adapter, id, &place), Ok(renamed(1)));
    let moved = chats.join(format!("{name}-moved.jsonl"));
    assert_eq!(std::fs::read_to_string(&moved).unwrap(), recording);
    assert!(!chats.join(format!("{name}.jsonl")).exists());
    assert!(other.exists(), "another session's file stays");
    // At the next resume it is where it belongs: nothing to do.
    assert_eq!(move_in_place(&adapter, id, &place), Ok(renamed(0)));

    // A file in the way is never written over: that rename is refused and both
    // stay as they were, while the empty recording a load left is renamed all
    // the same.
    std::fs::write(chats.join(format!("{name}.jsonl")), recording).unwrap();
    std::fs::write(&moved, "kept").unwrap();
    let empty = "session-2026-12-05T21-45-7e6301c5";
    let metadata = r#"{"sessionId":"7e6301c5-1111-2222-3333-444455556666","kind":"main"}"#;
    std::fs::write(chats.join(format!("{empty}.jsonl")), metadata).unwrap();
    let done = move_in_place(&adapter, id, &place).unwrap();
    assert_eq!(done.renamed, 1, "{done:?}");
    assert_eq!(done.refused.len(), 1, "{done:?}");
    assert_eq!(std::fs::read_to_string(&moved).unwrap(), "kept");
    assert!(chats.join(format!("{name}.jsonl")).exists());
    assert!(chats.join(format!("{empty}-empty.jsonl")).exists());
}

#[test]
fn adapters_without_the_capability_are_not_asked() {
    for adapter in builtins().list() {
        let asks = adapter.info().has(CAPABILITY);
        assert_eq!(asks, adapter.info().id == "gemini", "{}", adapter.info().id);
    }
}
