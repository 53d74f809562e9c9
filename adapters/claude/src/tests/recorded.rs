//! The transcripts recorded from the real CLI (`tests/record.rs`) and the shared
//! captures, replayed: the shape every transcript must have, then what each scenario
//! must show.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing::lifecycle::{
    check_crash_mid_turn, check_every_shape, check_terminated,
};
use sandbox_agent_adapter_kit::testing::replay::events;
use sandbox_agent_adapter_kit::testing::shape::Shape;
use sandbox_agent_adapter_kit::testing::{assert_has, check};
use serde_json::Value;

use super::replay::{only, replay, Step};
use crate::ClaudeSession;

/// Native lines that carry nothing for the universal schema: the handshake's answer,
/// per-turn `init`/`status` notices, stream framing, signatures and tool-input JSON
/// (the `assistant` line has the whole input).
fn is_silent(line: &str) -> bool {
    let Ok(message) = serde_json::from_str::<Value>(line) else {
        return false;
    };
    let field = |value: &Value, key: &str| value[key].as_str().unwrap_or_default().to_owned();
    let event = &message["event"];
    match field(&message, "type").as_str() {
        "system" => {
            ["init", "status", "thinking_tokens"].contains(&field(&message, "subtype").as_str())
        }
        // Withdraws a request the client was asked; nothing when the cancel resolved it.
        "keep_alive" | "control_cancel_request" => true,
        "control_response" => field(&message["response"], "subtype") == "success",
        "stream_event" => match field(event, "type").as_str() {
            "message_start" | "message_delta" | "message_stop" | "content_block_stop" | "ping" => {
                true
            }
            "content_block_delta" => ["signature_delta", "input_json_delta"]
                .contains(&field(&event["delta"], "type").as_str()),
            _ => false,
        },
        _ => false,
    }
}

/// What Claude transcripts allow: the silent lines above; items a crash left open
/// stay open when the session ended.
const SHAPE: Shape = Shape {
    is_silent,
    open_items_may_end: true,
};

#[test]
fn every_transcript_has_the_universal_shape() {
    check_every_shape::<ClaudeSession>(env!("CARGO_MANIFEST_DIR"), 15, SHAPE);
}

#[test]
fn a_text_turn_streams_deltas_and_reports_usage() {
    let steps = replay("text-multi-turn");
    check(
        only(
            &steps,
            &["set-native", "turn.", "item.", "spawn", "write-stdin"],
        ),
        &[
            r#"spawn claude_1 ["claude", "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--permission-prompt-tool", "stdio", "--permission-mode", "default"]"#,
            r#"write-stdin claude_1 "{\"request\":{\"subtype\":\"initialize\"},\"request_id\":\"req_1\",\"type\":\"control_request\"}\n""#,
            "turn.started turn_1 (synthetic)",
            r#"item.started itm_1 message/user in_progress [text "hello"] (synthetic)"#,
            r#"item.completed itm_1 message/user completed [text "hello"] (synthetic)"#,
            r#"write-stdin claude_1 "{\"message\":{\"content\":[{\"text\":\"hello\",\"type\":\"text\"}],\"role\":\"user\"},\"parent_tool_use_id\":null,\"type\":\"user\"}\n""#,
            "set-native-session-id dde16ab0-9ce8-4160-a5ae-ea58c47356e5",
            "item.started itm_2 message/assistant in_progress []",
            r#"item.delta itm_2 "Echo: ""#,
            r#"item.delta itm_2 "hello""#,
            r#"item.completed itm_2 message/assistant completed [text "Echo: hello"]"#,
            "turn.ended turn_1 usage(in=100 out=10 cached=0 cost=$0.00075)",
            "turn.started turn_2 (synthetic)",
            r#"item.started itm_3 message/user in_progress [text "second message"] (synthetic)"#,
            r#"item.completed itm_3 message/user completed [text "second message"] (synthetic)"#,
            r#"write-stdin claude_1 "{\"message\":{\"content\":[{\"text\":\"second message\",\"type\":\"text\"}],\"role\":\"user\"},\"parent_tool_use_id\":null,\"type\":\"user\"}\n""#,
            "item.started itm_4 message/assistant in_progress []",
            r#"item.delta itm_4 "Echo: ""#,
            r#"item.delta itm_4 "second ""#,
            r#"item.delta itm_4 "message""#,
            r#"item.completed itm_4 message/assistant completed [text "Echo: second message"]"#,
            "turn.ended turn_2 usage(in=100 out=10 cached=0 cost=$0.00075)",
        ],
    );
}

/// Panics unless the replay has a rendered line equal to `expected`.
#[track_caller]
fn has(steps: &[Step], expected: &str) {
    assert_has(&super::replay::rendered(steps), expected);
}

#[test]
fn thinking_becomes_a_reasoning_item() {
    let steps = replay("think");
    check(
        only(&steps, &["item.", "turn.ended"])[2..].to_vec(),
        &[
            r#"item.started itm_2 message/assistant in_progress [reasoning public ""]"#,
            r#"item.delta itm_2 "Let me think about colors.""#,
            r#"item.completed itm_2 message/assistant completed [reasoning public "Let me think about colors."]"#,
            "item.started itm_3 message/assistant in_progress []",
            r#"item.delta itm_3 "Thought ""#,
            r#"item.delta itm_3 "about ""#,
            r#"item.delta itm_3 "colors.""#,
            r#"item.completed itm_3 message/assistant completed [text "Thought about colors."]"#,
            "turn.ended turn_1 usage(in=100 out=10 cached=0 cost=$0.00075)",
        ],
    );
}

#[test]
fn a_permission_answered_once_allows_the_call() {
    let steps = replay("permission-once");
    let id = "574a4195-79cb-4d4a-b6cd-0281d65c4740";
    let lines = only(
        &steps,
        &["permission.", "write-stdin claude_1 \"{\\\"response"],
    );
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert!(lines[0].starts_with(&format!(
        "permission.requested {id} Bash: touch a.txt requested {{"
    )));
    assert!(lines[1]
        .contains(r#"\"behavior\":\"allow\",\"updatedInput\":{\"command\":\"touch a.txt\""#));
    assert!(lines[2].starts_with(&format!(
        "permission.resolved {id} Bash: touch a.txt accept {{"
    )));
    has(
        &steps,
        r#"item.completed itm_4 tool_result/tool completed parent=itm_3 [tool_result call_8 "(Bash completed with no output)"]"#,
    );
}

#[test]
fn always_applies_the_suggested_rules_to_the_session_only() {
    let steps = replay("permission-always");
    let answer = only(&steps, &["write-stdin claude_1 \"{\\\"response"]);
    assert_eq!(answer.len(), 1);
    assert!(answer[0].contains(r#"\"updatedPermissions\":[{\"behavior\":\"allow\",\"destination\":\"session\",\"rules\":[{\"ruleContent\":\"touch a.txt\",\"toolName\":\"Bash\"}]"#));
    assert!(!answer[0].contains("localSettings"));
    let resolved = only(&steps, &["permission.resolved"]);
    assert!(resolved[0].contains(" accept_for_session "), "{resolved:?}");
}

#[test]
fn a_rejected_permission_denies_the_call_and_fails_its_result() {
    let steps = replay("permission-reject");
    has(
        &steps,
        r#"write-stdin claude_1 "{\"response\":{\"request_id\":\"d7d9fe3c-0073-404e-aee4-cfa1d85ac076\",\"response\":{\"behavior\":\"deny\",\"message\":\"The user rejected this tool use.\"},\"subtype\":\"success\"},\"type\":\"control_response\"}\n""#,
    );
    has(
        &steps,
        r#"item.completed itm_4 tool_result/tool failed parent=itm_3 [tool_result call_14 "The user rejected this tool use."]"#,
    );
}

#[test]
fn bypass_mode_skips_prompts_and_sets_is_sandbox() {
    let steps = replay("bypass-run");
    assert!(only(&steps, &["permission."]).is_empty());
    let Some(Action::Spawn(spawn)) = steps[0]
        .actions
        .iter()
        .find(|a| matches!(a, Action::Spawn(_)))
    else {
        panic!("no spawn");
    };
    assert!(spawn
        .env
        .contains(&("IS_SANDBOX".to_owned(), "1".to_owned())));
    has(
        &steps,
        r#"item.completed itm_4 tool_result/tool completed parent=itm_3 [tool_result call_16 "made a.txt"]"#,
    );
}

#[test]
fn file_tools_report_file_refs_with_diffs() {
    let steps = replay("file-changes");
    let results: Vec<String> = only(&steps, &["item.completed"])
        .into_iter()
        .filter(|line| line.contains("file_ref"))
        .map(|line| line[line.find("file_ref").unwrap_or(0)..].to_owned())
        .collect();
    check(
        results,
        &[
            r#"file_ref write notes.txt diff="@@ -0,0 +1,1 @@\n+hello world\n\\ No newline at end of file\n"]"#,
            "file_ref read notes.txt]",
            r#"file_ref write notes.txt diff="@@ -1,1 +1,1 @@\n-hello world\n\\ No newline at end of file\n+goodbye\n\\ No newline at end of file\n"]"#,
        ],
    );
}

#[test]
fn an_answered_question_allows_the_call_with_the_answers() {
    let steps = replay("question-answer");
    let id = "e7ba8cf5-b298-4780-9764-b4c9fa125082";
    check(
        only(&steps, &["question."]),
        &[
            &format!(r#"question.requested {id} requested "Proceed?" ["yes", "no"]"#),
            &format!(r#"question.resolved {id} answered "Proceed?" ["yes", "no"] response="yes""#),
        ],
    );
    let answer = only(&steps, &["write-stdin claude_1 \"{\\\"response"]);
    assert!(answer[0].contains(r#"\"behavior\":\"allow\",\"updatedInput\":{\"answers\":{\"Proceed?\":\"yes\"},\"questions\""#));
}

#[test]
fn a_declined_question_denies_the_call() {
    let steps = replay("question-decline");
    let resolved = only(&steps, &["question.resolved"]);
    assert!(resolved[0].contains(" rejected "), "{resolved:?}");
    let answer = only(&steps, &["write-stdin claude_1 \"{\\\"response"]);
    assert!(answer[0].contains(
        r#"\"behavior\":\"deny\",\"message\":\"The user declined to answer the question.\""#
    ));
}

#[test]
fn exit_plan_mode_is_a_plan_approval_question() {
    let approve = replay("plan-approve");
    assert!(only(&approve, &["spawn"])[0].ends_with(r#""--permission-mode", "plan"]"#));
    let questions = only(&approve, &["question."]);
    assert_eq!(
        questions[0],
        r#"question.requested 11ed180a-6455-4ff0-94a8-e6906558b71f requested "Approve the plan?\n\nStep one, then step two" ["approve", "reject"]"#
    );
    assert!(questions[1].ends_with(r#"response="approve""#));
    let answers = only(&approve, &["write-stdin claude_1 \"{\\\"response"]);
    assert!(answers[0].contains(
        r#"\"behavior\":\"allow\",\"updatedInput\":{\"plan\":\"Step one, then step two\"}"#
    ));

    let reject = replay("plan-reject");
    let answers = only(&reject, &["write-stdin claude_1 \"{\\\"response"]);
    assert!(answers[0].contains(r#"\"behavior\":\"deny\""#));
}

#[test]
fn cancel_interrupts_the_turn_and_keeps_the_session() {
    let steps = replay("cancel-streaming");
    check(
        only(
            &steps,
            &[
                "write-stdin claude_1 \"{\\\"request\\\":{\\\"subtype\\\":\\\"interrupt",
                "set-timer",
                "cancel-timer",
                "turn.",
                "item.completed itm_2",
                "item.completed itm_3",
            ],
        ),
        &[
            "turn.started turn_1 (synthetic)",
            r#"write-stdin claude_1 "{\"request\":{\"subtype\":\"interrupt\"},\"request_id\":\"req_2\",\"type\":\"control_request\"}\n""#,
            "set-timer interrupt 10000ms",
            r#"item.completed itm_2 message/assistant failed [text "tick 1 tick 2 "]"#,
            r#"item.completed itm_3 system/system completed [text "[Request interrupted by user]"]"#,
            "cancel-timer interrupt",
            r#"turn.ended turn_1 usage(in=0 out=0 cached=0 cost=$0) {"cancelled":true}"#,
            "turn.started turn_2 (synthetic)",
            "turn.ended turn_2 usage(in=100 out=10 cached=0 cost=$0.00075)",
        ],
    );
}

#[test]
fn cancel_rejects_a_pending_permission() {
    let steps = replay("cancel-permission");
    let resolved = only(&steps, &["permission.resolved"]);
    assert_eq!(resolved.len(), 1);
    assert!(resolved[0].contains(" reject "), "{resolved:?}");
    has(
        &steps,
        r#"turn.ended turn_1 usage(in=100 out=10 cached=0 cost=$0.00075) {"cancelled":true}"#,
    );
}

#[test]
fn an_api_error_is_an_error_event_and_the_session_goes_on() {
    let steps = replay("api-error");
    check(
        only(&steps, &["error", "turn.ended"]),
        &[
            r#"error "API Error: 400 boom" code=api_error"#,
            "turn.ended turn_1 usage(in=0 out=0 cached=0 cost=$0)",
            "turn.ended turn_2 usage(in=100 out=10 cached=0 cost=$0.00075)",
        ],
    );
}

#[test]
fn a_crash_mid_turn_ends_the_session_with_an_error() {
    let steps = replay("crash-mid-turn");
    let events = events(&steps);
    let Some(Event::SessionEnded(ended)) = events.last().map(|e| &e.event) else {
        panic!("the session did not end");
    };
    assert_eq!(ended.reason, SessionEndReason::Error);
    assert_eq!(ended.terminated_by, TerminatedBy::Agent);
    assert_eq!(
        ended.message.as_deref(),
        Some("Claude Code exited during a turn with signal 9")
    );
    check_crash_mid_turn(
        &steps,
        "Claude Code",
        r#"item.completed itm_2 message/assistant failed [text "tick 1 tick 2 "] (synthetic)"#,
    );
}

#[test]
fn an_idle_exit_resumes_in_a_new_process() {
    let steps = replay("idle-exit-resume");
    let spawns = only(&steps, &["spawn"]);
    assert_eq!(spawns.len(), 2);
    assert!(spawns[1].starts_with("spawn claude_2 "));
    assert!(spawns[1].ends_with(r#""--resume", "75ea9f8f-15e1-4260-ab80-d56c8a269d12"]"#));
    assert!(only(&steps, &["error", "session.ended"]).is_empty());
    has(
        &steps,
        r#"item.completed itm_4 message/assistant completed [text "Echo: second message"]"#,
    );
}

#[test]
fn terminate_closes_stdin_and_ends_the_session() {
    check_terminated(&replay("terminate"), "claude_1");
}

#[test]
fn a_missing_binary_ends_the_session_naming_it() {
    let steps = replay("spawn-failed");
    check(
        only(&steps, &["error", "session.ended"]),
        &[
            r#"error "could not start /opt/agents/bin/claude: No such file or directory (os error 2)" code=spawn_failed (synthetic)"#,
            r#"session.ended error by agent "could not start /opt/agents/bin/claude: No such file or directory (os error 2)" (synthetic)"#,
        ],
    );
}

#[test]
fn the_print_capture_without_partial_messages_gets_one_delta_per_text() {
    let steps = replay("capture-print");
    check(
        only(&steps, &["item.", "turn.ended"])[2..].to_vec(),
        &[
            "item.started itm_2 message/assistant in_progress []",
            r#"item.delta itm_2 "I'll run the command.""#,
            r#"item.completed itm_2 message/assistant completed [text "I'll run the command."]"#,
            r#"item.started itm_3 tool_call/assistant in_progress [tool_call toolu_c3696d3d85554d1a9a3546d7 Bash {"command":"echo hello","description":"Print hello"}]"#,
            r#"item.completed itm_3 tool_call/assistant completed [tool_call toolu_c3696d3d85554d1a9a3546d7 Bash {"command":"echo hello","description":"Print hello"}]"#,
            r#"item.started itm_4 tool_result/tool in_progress parent=itm_3 [tool_result toolu_c3696d3d85554d1a9a3546d7 "hello"]"#,
            r#"item.completed itm_4 tool_result/tool completed parent=itm_3 [tool_result toolu_c3696d3d85554d1a9a3546d7 "hello"]"#,
            "item.started itm_5 message/assistant in_progress []",
            r#"item.delta itm_5 "done""#,
            r#"item.completed itm_5 message/assistant completed [text "done"]"#,
            "turn.ended turn_1 usage(in=200 out=20 cached=0 cost=$0.0009)",
        ],
    );
}

#[test]
#[ignore = "prints every replay for review"]
fn print_replays() {
    for name in super::replay::names() {
        println!("=== {name}");
        for line in super::replay::rendered(&replay(&name)) {
            println!("{line}");
        }
    }
}
