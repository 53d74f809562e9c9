//! The transcripts recorded from the real CLI (`tests/record.py`) and the shared
//! capture, replayed: the shape every transcript must have, then what each scenario
//! must show.

use sandbox_agent_adapter_kit::testing::check;
use sandbox_agent_adapter_kit::testing::lifecycle::{
    check_crash_mid_turn, check_every_shape, check_terminated,
};
use sandbox_agent_adapter_kit::testing::shape::Shape;
use serde_json::Value;

use super::replay::{only, replay};
use crate::PiSession;

/// Native lines that carry nothing for the universal schema: acknowledgements, Pi's
/// loop framing, echoes of the prompt and of tool results, tool-argument JSON,
/// message ends that only add usage.
fn is_silent(line: &str) -> bool {
    let Ok(message) = serde_json::from_str::<Value>(line) else {
        return false;
    };
    let field = |value: &Value, key: &str| value[key].as_str().unwrap_or_default().to_owned();
    match field(&message, "type").as_str() {
        "response" => message["success"] == true,
        "agent_start" | "turn_start" | "turn_end" | "message_start" | "queue_update" => true,
        // Pi repeats the whole output so far: only new output makes a delta.
        "tool_execution_update" => true,
        "message_end" => field(&message["message"], "stopReason") != "error",
        "message_update" => ["start", "toolcall_delta", "done", "error"]
            .contains(&field(&message["assistantMessageEvent"], "type").as_str()),
        _ => false,
    }
}

/// What Pi transcripts allow: the silent lines above; every item completes.
const SHAPE: Shape = Shape {
    is_silent,
    open_items_may_end: false,
};

#[test]
fn every_transcript_has_the_universal_shape() {
    check_every_shape::<PiSession>(env!("CARGO_MANIFEST_DIR"), 12, SHAPE);
}

#[test]
fn bash_output_streams_into_the_tool_result() {
    let steps = replay("tool-run");
    let lines = only(
        &steps,
        &[
            "item.delta itm_4",
            "item.completed itm_3",
            "item.completed itm_4",
        ],
    );
    check(
        lines,
        &[
            r#"item.completed itm_3 tool_call/assistant completed [tool_call call_18 bash {"command":"echo hi && sleep 0.3 && echo there","description":"Run the command"}]"#,
            r#"item.delta itm_4 "hi\n""#,
            r#"item.delta itm_4 "there\n""#,
            r#"item.completed itm_4 tool_result/tool completed parent=itm_3 [tool_result call_18 "hi\nthere\n"]"#,
        ],
    );
}

#[test]
fn file_tools_are_file_refs() {
    let steps = replay("file-write-read");
    let refs: Vec<String> = only(&steps, &["item.completed"])
        .into_iter()
        .filter(|line| line.contains("file_ref"))
        .collect();
    check(
        refs,
        &[
            r#"item.completed itm_4 tool_result/tool completed parent=itm_3 [tool_result call_20 "Successfully wrote 10 bytes to notes.txt", file_ref write /workspace/notes.txt]"#,
            r#"item.completed itm_9 tool_result/tool completed parent=itm_8 [tool_result call_22 "hello file", file_ref read /workspace/notes.txt]"#,
        ],
    );
}

#[test]
fn thinking_is_a_reasoning_item() {
    let steps = replay("think");
    check(
        only(&steps, &["item.completed itm_2"]),
        &[
            r#"item.completed itm_2 message/assistant completed [reasoning public "Let me think about colors."]"#,
        ],
    );
}

#[test]
fn plan_mode_runs_pi_with_read_only_tools() {
    let steps = replay("plan-read-only");
    check(
        only(&steps, &["spawn"]),
        &[r#"spawn pi_1 ["pi", "--mode", "rpc", "--tools", "read,grep,find,ls"]"#],
    );
}

#[test]
fn an_api_error_is_an_error_event_and_the_turn_ends() {
    let steps = replay("api-error");
    check(
        only(&steps, &["error", "turn.ended"]),
        &[
            r#"error "400 {\"error\":{\"message\":\"boom\",\"type\":\"invalid_request_error\"},\"type\":\"error\"}" code=api_error"#,
            "turn.ended turn_1 usage(in=0 out=0 cached=0 cost=$0)",
        ],
    );
}

#[test]
fn cancel_aborts_and_the_session_goes_on() {
    let steps = replay("cancel-streaming");
    check(
        only(
            &steps,
            &[
                "write-stdin pi_1 \"{\\\"id\\\":\\\"req_3",
                "item.completed itm_2",
                "turn.ended",
            ],
        ),
        &[
            r#"write-stdin pi_1 "{\"id\":\"req_3\",\"type\":\"abort\"}\n""#,
            r#"item.completed itm_2 message/assistant failed [text "tick 1 tick 2 tick 3 "]"#,
            r#"turn.ended turn_1 usage(in=100 out=1 cached=0 cost=$0) {"cancelled":true}"#,
            "turn.ended turn_2 usage(in=100 out=10 cached=0 cost=$0)",
        ],
    );
}

#[test]
fn a_crash_mid_turn_ends_the_session_with_the_signal() {
    check_crash_mid_turn(
        &replay("crash-mid-turn"),
        "Pi",
        r#"item.completed itm_2 message/assistant failed [text "tick 1 tick 2 tick 3 "] (synthetic)"#,
    );
}

#[test]
fn an_idle_exit_resumes_the_session_in_a_new_process() {
    let steps = replay("idle-exit-resume");
    check(
        only(&steps, &["spawn", "set-native-session-id"]),
        &[
            r#"spawn pi_1 ["pi", "--mode", "rpc"]"#,
            "set-native-session-id 01a208c9-3db9-76ad-9e99-af037aceba7e",
            r#"spawn pi_2 ["pi", "--mode", "rpc", "--session", "01a208c9-3db9-76ad-9e99-af037aceba7e"]"#,
        ],
    );
}

#[test]
fn a_session_pi_never_saved_starts_afresh() {
    let steps = replay("resume-missing");
    check(
        only(&steps, &["spawn", "set-native-session-id", "error"]),
        &[
            "set-native-session-id 01a208c3-0000-7000-8000-000000000000",
            r#"spawn pi_1 ["pi", "--mode", "rpc", "--session", "01a208c3-0000-7000-8000-000000000000"]"#,
            r#"error "Pi has no saved session 01a208c3-0000-7000-8000-000000000000 to resume: a new session starts" code=resume_failed (synthetic)"#,
            r#"spawn pi_2 ["pi", "--mode", "rpc"]"#,
            "set-native-session-id 01a208c9-6d75-72ef-8131-22b778abc0b4",
        ],
    );
}

#[test]
fn terminate_closes_stdin_and_ends_the_session() {
    check_terminated(&replay("terminate"), "pi_1");
}

#[test]
fn usage_sums_the_turns_model_calls() {
    let steps = replay("capture-rpc");
    check(
        only(&steps, &["turn.ended"]),
        &["turn.ended turn_1 usage(in=200 out=20 cached=0 cost=$0)"],
    );
}
