//! Unit tests of the static facts and of single lines the recordings lack; the
//! recorded transcripts in `transcripts/` are replayed by `sandbox-agent adapters
//! test` (runtime/tests/adapter_transcripts.rs).

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing;
use sandbox_agent_adapter_kit::transcript::render;

use crate::GeminiSession;

sandbox_agent_adapter_kit::facts_test!(crate::Gemini, "facts.json");

/// The transcripts' default config with `permission_mode`.
fn config(permission_mode: &str) -> SessionConfig {
    SessionConfig {
        permission_mode: permission_mode.into(),
        ..testing::config()
    }
}

#[test]
fn permission_modes_map_to_approval_modes() {
    for (mode, approval) in [("default", "default"), ("plan", "plan"), ("bypass", "yolo")] {
        let mut session = GeminiSession::new(config(mode));
        let started = render(&session.start());
        assert!(
            started[1].contains(&format!("\"--approval-mode\", \"{approval}\"")),
            "{started:?}"
        );
    }
}

#[test]
fn non_json_output_is_kept_as_unparsed() {
    let mut session = GeminiSession::new(config("default"));
    session.start();
    let out = render(&session.on_stdout("gemini_1".into(), "hello".into()));
    assert_eq!(
        out,
        [r#"agent.unparsed stdout "not a JSON-RPC message" raw="hello""#]
    );
}

/// Found by fuzzing: an empty `sessionId` in the answer to `session/new` was passed
/// on as the native session id, which the host refuses, ending the session with a
/// vague error (the kit's ACP session, shared with Qwen Code).
#[test]
fn a_new_session_without_an_id_fails_clearly() {
    let mut session = GeminiSession::new(config("default"));
    session.start();
    session.send_message(vec![MessagePart::Text("hi".into())]);
    let mut feed = |line: &str| render(&session.on_stdout("gemini_1".into(), line.into()));
    feed(r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}"#);
    let out = feed(r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":""}}"#);
    assert!(
        !out.iter().any(|l| l.starts_with("set-native-session-id")),
        "{out:#?}"
    );
    assert!(
        out.iter()
            .any(|l| l.contains("session/new answered without a sessionId")),
        "{out:#?}"
    );
}

/// Found by fuzzing (`FUZZ_STRICT=1`), and in the recordings too: the kit's ACP
/// session (shared with Qwen Code) completed the failed result of a rejected or
/// cancelled tool call without starting it. Every item of every recording now
/// starts before it completes.
#[test]
fn every_item_of_the_recordings_starts_before_it_completes() {
    let transcripts = testing::replay::Transcripts::of_crate(env!("CARGO_MANIFEST_DIR"));
    for name in transcripts.names() {
        let mut started = std::collections::BTreeSet::new();
        let steps = transcripts.replay::<GeminiSession>(&name);
        let events = steps.iter().flat_map(|step| &step.actions);
        for action in events {
            let Action::Emit(emitted) = action else {
                continue;
            };
            match &emitted.event {
                Event::ItemStarted(item) => {
                    started.insert(item.item_id.clone());
                }
                Event::ItemCompleted(item) => assert!(
                    started.contains(&item.item_id),
                    "{name}: {} completed before it started",
                    item.item_id
                ),
                _ => {}
            }
        }
    }
}

/// Found by fuzzing: a `plan` update became a `status` item completed without
/// being started.
#[test]
fn a_plan_is_a_status_item_started_then_completed() {
    let mut session = GeminiSession::new(config("default"));
    session.start();
    session.send_message(vec![MessagePart::Text("hi".into())]);
    let mut feed = |line: &str| render(&session.on_stdout("gemini_1".into(), line.into()));
    feed(r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}"#);
    feed(r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s"}}"#);
    let out = feed(
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[]}}}"#,
    );
    let kinds: Vec<&str> = out
        .iter()
        .map(|line| line.split(' ').next().unwrap_or_default())
        .collect();
    assert_eq!(kinds, ["item.started", "item.completed"], "{out:#?}");
}

sandbox_agent_adapter_kit::fuzz_test!(crate::GeminiSession, transcripts: ["transcripts"], captures: ["captures"]);
