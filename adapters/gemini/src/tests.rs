//! Unit tests of the static facts and of single lines the recordings lack; the
//! recorded transcripts in `transcripts/` are replayed by `sandbox-agent adapters
//! test` (runtime/tests/adapter_transcripts.rs).

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing;
use sandbox_agent_adapter_kit::transcript::render;

use crate::GeminiSession;
use sandbox_agent_adapter_kit::native_session::place;

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

/// Gemini CLI's sessions, as the kit's exports reach them.
fn sessions() -> NativeSessions {
    <crate::Gemini as Adapter>::NATIVE_SESSIONS.expect("Gemini CLI's sessions move")
}

#[test]
fn session_files_are_searched_in_every_projects_chats_by_the_short_id() {
    let id = "7e6301c5-1111-2222-3333-444455556666";
    let searches = |folder: &str| {
        ["-7e6301c5.jsonl", "-7e6301c5-moved.jsonl"].map(|suffix| {
            NativeSource::Search(FileSearch {
                folder: folder.into(),
                depth: 2,
                suffix: suffix.into(),
            })
        })
    };
    assert_eq!(
        (sessions().files)(id, &place("/home/a", "/work/C1/proj", &[])),
        searches("/home/a/.gemini/tmp")
    );
    let at = place("/home/a", "/w", &[("GEMINI_CLI_HOME", "/g/")]);
    assert_eq!((sessions().files)(id, &at), searches("/g/.gemini/tmp"));
    // The CLI's file name part: other characters as `_`.
    assert_eq!(crate::native_files::short_id("a/b.c"), "a_b_c");
    assert!((sessions().files)("", &at).is_empty());
}

#[test]
fn the_project_id_is_the_slug_of_the_directorys_last_name() {
    use crate::native_files::project_id;
    assert_eq!(project_id("/tmp/t/C2/other.dir_x"), "other-dir-x");
    assert_eq!(project_id("/work/My  Project__2/"), "my-project-2");
    assert_eq!(project_id("/work/_proj_"), "proj");
    assert_eq!(project_id("/work/é😀"), "project");
    assert_eq!(project_id("/x/İK"), "i-k");
    assert_eq!(project_id("/"), "project");
}

/// A recording as the CLI writes it at (home A, `C1`): metadata, the session
/// context, the first turn with a shell call.
const RECORDING: &str = concat!(
    r#"{"sessionId":"7e6301c5-1111-2222-3333-444455556666","projectHash":"f66f","startTime":"2026-12-03T06:18:00.000Z","lastUpdated":"2026-12-03T06:19:00.000Z","kind":"main"}"#,
    "\n",
    r#"{"$set":{"messages":[{"id":"m0","type":"user","content":[{"text":"<session_context> temporary directory is: /tmp/t/homeA/.gemini/tmp/proj Workspace Directories: /tmp/t/C1/proj</session_context>"}]}]}}"#,
    "\n",
    r#"{"id":"m1","timestamp":"2026-12-03T06:18:01.000Z","type":"user","content":[{"text":"FIRST_TURN_MARKER_alpha CALL_SHELL"}]}"#,
    "\n",
    r#"{"id":"m2","type":"gemini","content":"","toolCalls":[{"args":{"command":"pwd","dir_path":"/tmp/t/C1/proj"},"result":[{"functionResponse":{"response":{"output":"/tmp/t/C1/proj"}}}]}]}"#,
    "\n"
);

#[test]
fn a_moved_recording_gets_a_name_the_cli_never_writes_under_the_new_project_id() {
    let from = place("/tmp/t/homeA", "/tmp/t/C1/proj", &[]);
    let to = place("/tmp/t/homeB", "/tmp/t/C2/other.dir_x", &[]);
    let chats = "/tmp/t/homeA/.gemini/tmp/proj/chats";
    let new_chats = "/tmp/t/homeB/.gemini/tmp/other-dir-x/chats";
    let old = format!("{chats}/session-2026-12-03T06-18-7e6301c5.jsonl");
    let moved = (sessions().relocate)(&old, RECORDING.as_bytes().to_vec(), &from, &to).unwrap();
    assert_eq!(
        moved.path,
        format!("{new_chats}/session-2026-12-03T06-18-7e6301c5-moved.jsonl")
    );
    let text = String::from_utf8(moved.contents).unwrap();
    assert_eq!(
        text,
        RECORDING
            .replace(
                "/tmp/t/homeA/.gemini/tmp/proj",
                "/tmp/t/homeB/.gemini/tmp/other-dir-x"
            )
            .replace("/tmp/t/C1/proj", "/tmp/t/C2/other.dir_x")
    );
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap();
    }

    // Moved again: the name stays.
    let again = "/tmp/t/homeA/.gemini/tmp/p-1/chats/session-2026-12-03T06-18-7e6301c5-moved.jsonl";
    let moved = (sessions().relocate)(again, RECORDING.as_bytes().to_vec(), &from, &to).unwrap();
    assert_eq!(
        moved.path,
        format!("{new_chats}/session-2026-12-03T06-18-7e6301c5-moved.jsonl")
    );
    // The empty recording a load leaves (metadata and context only), even of the
    // same minute, gets a name of its own, which the CLI's cleanup deletes alone.
    let empty = RECORDING.lines().take(2).collect::<Vec<_>>().join("\n");
    let moved = (sessions().relocate)(&old, empty.into_bytes(), &from, &to).unwrap();
    assert_eq!(
        moved.path,
        format!("{new_chats}/session-2026-12-03T06-18-7e6301c5-empty.jsonl")
    );

    // Bytes that are not UTF-8 move as they are, as a conversation.
    let moved = (sessions().relocate)(&old, vec![0xff, b'\n'], &from, &to).unwrap();
    assert!(moved.path.ends_with("-7e6301c5-moved.jsonl"));
    assert_eq!(moved.contents, [0xff, b'\n']);

    // A file of another shape keeps its place under the new `tmp`; one outside it
    // does not move.
    let stray = "/tmp/t/homeA/.gemini/tmp/proj/x-7e6301c5.jsonl";
    let moved = (sessions().relocate)(stray, Vec::new(), &from, &to).unwrap();
    assert_eq!(moved.path, "/tmp/t/homeB/.gemini/tmp/proj/x-7e6301c5.jsonl");
    let registry = "/tmp/t/homeA/.gemini/projects.json";
    assert!((sessions().relocate)(registry, Vec::new(), &from, &to).is_err());
}

#[test]
fn before_a_resume_a_recording_is_renamed_in_its_own_project_folder() {
    assert!(sessions().before_resume);
    let info = <crate::Gemini as sandbox_agent_adapter_kit::bindings::exports::sandbox_agent::adapter::adapter::Guest>::info();
    assert!(info
        .capabilities
        .iter()
        .any(|name| name == "move-before-resume"));
    // The CLI's registry named the directory `proj-1`, not its slug: the file
    // stays in that folder, unchanged but for its name.
    let here = place("/tmp/t/homeA", "/tmp/t/C1/proj", &[]);
    let chats = "/tmp/t/homeA/.gemini/tmp/proj-1/chats";
    let old = format!("{chats}/session-2026-12-03T06-18-7e6301c5.jsonl");
    let moved = (sessions().relocate)(&old, RECORDING.as_bytes().to_vec(), &here, &here).unwrap();
    assert_eq!(
        moved.path,
        format!("{chats}/session-2026-12-03T06-18-7e6301c5-moved.jsonl")
    );
    assert_eq!(moved.contents, RECORDING.as_bytes());
    // Renamed once: the next resume leaves it where it is.
    let again = (sessions().relocate)(&moved.path, moved.contents.clone(), &here, &here).unwrap();
    assert_eq!(again.path, moved.path);
}

#[test]
fn a_recording_is_resumable_when_a_load_has_a_message_to_replay() {
    use crate::native_files::resumable;
    let lines: Vec<&str> = RECORDING.lines().collect();
    assert!(!resumable(&lines[..2].join("\n")));
    assert!(resumable(&lines[..3].join("\n")));
    assert!(resumable(&[lines[0], lines[3]].join("\n")));
    // Commands and empty model turns are not replayed.
    assert!(!resumable(r#"{"id":"a","type":"user","content":"/help"}"#));
    assert!(!resumable(r#"{"id":"a","type":"gemini","content":"  "}"#));
    // The history a load writes anew, in a `$set`.
    assert!(resumable(
        r#"{"$set":{"messages":[{"id":"a","type":"user","content":[{"text":"hi"}]}]}}"#
    ));
    // What cannot be read is kept as a conversation.
    assert!(resumable("{\"sessionId\":\"x\"}\n{\"id\":\"a\",\"ty"));
}

/// A session (`default`) whose CLI answered the handshake (`g1`) and one turn
/// (request ids 1 to 3).
fn after_one_turn() -> GeminiSession {
    let mut session = GeminiSession::new(config("default"));
    session.start();
    session.send_message(vec![MessagePart::Text("hi".into())]);
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"g1"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}"#,
    ] {
        session.on_stdout("gemini_1".into(), line.into());
    }
    session
}

#[test]
fn changed_modes_reach_the_running_cli_as_session_set_mode_before_the_prompt() {
    let session = after_one_turn();
    let feed = |session: &mut GeminiSession, line: &str| {
        render(&session.on_stdout("gemini_1".into(), line.into()))
    };
    // The host rebuilds the session with the new modes, as after a PUT .../modes.
    let changed = config("acceptEdits");
    let mut session = GeminiSession::restore(changed, &session.snapshot()).unwrap();
    let sent = render(&session.send_message(vec![MessagePart::Text("go".into())]));
    let writes: Vec<&String> = sent
        .iter()
        .filter(|l| l.starts_with("write-stdin"))
        .collect();
    assert_eq!(writes.len(), 2, "{sent:#?}");
    assert!(
        writes[0].contains(r#"\"method\":\"session/set_mode\""#)
            && writes[0].contains(r#"\"modeId\":\"autoEdit\""#),
        "{}",
        writes[0]
    );
    assert!(writes[1].contains("session/prompt"), "{}", writes[1]);
    // A refusal is shown, and the prompt goes on; the next prompt goes alone.
    let refused = feed(
        &mut session,
        r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid or unavailable mode"}}"#,
    );
    assert!(
        refused[0].contains("Gemini CLI kept its earlier mode"),
        "{refused:#?}"
    );
    feed(
        &mut session,
        r#"{"jsonrpc":"2.0","id":5,"result":{"stopReason":"end_turn"}}"#,
    );
    let sent = render(&session.send_message(vec![MessagePart::Text("again".into())]));
    assert_eq!(
        sent.iter().filter(|l| l.starts_with("write-stdin")).count(),
        1,
        "{sent:#?}"
    );
}

#[test]
fn a_changed_model_reaches_the_running_cli_as_session_set_model_once() {
    let session = after_one_turn();
    let feed = |session: &mut GeminiSession, line: &str| {
        render(&session.on_stdout("gemini_1".into(), line.into()))
    };
    let mut changed = config("default");
    changed.model = Some("gemini-2.5-pro".into());
    let mut session = GeminiSession::restore(changed, &session.snapshot()).unwrap();
    let writes = |sent: Vec<String>| -> Vec<String> {
        sent.into_iter()
            .filter(|l| l.starts_with("write-stdin"))
            .collect()
    };
    let sent = writes(render(
        &session.send_message(vec![MessagePart::Text("go".into())]),
    ));
    assert_eq!(sent.len(), 2, "{sent:#?}");
    assert!(
        sent[0].contains(r#"\"method\":\"session/set_model\""#)
            && sent[0].contains(r#"\"modelId\":\"gemini-2.5-pro\""#),
        "{}",
        sent[0]
    );
    assert!(sent[1].contains("session/prompt"), "{}", sent[1]);
    // A refusal is shown, and the prompt goes on.
    let refused = feed(
        &mut session,
        r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid model"}}"#,
    );
    assert!(
        refused[0].contains("Gemini CLI kept its earlier model"),
        "{refused:#?}"
    );
    feed(
        &mut session,
        r#"{"jsonrpc":"2.0","id":5,"result":{"stopReason":"end_turn"}}"#,
    );
    let sent = writes(render(
        &session.send_message(vec![MessagePart::Text("again".into())]),
    ));
    assert_eq!(sent.len(), 1, "{sent:#?}");
}
