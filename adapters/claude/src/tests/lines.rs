//! Native lines and situations the recordings do not have, fed one at a time.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing::{self, check, render_without_raw};
use serde_json::{json, Value};

use super::replay::config_of;
use crate::ClaudeSession;

/// A started session with one message sent (turn 1, user item `itm_1`).
fn in_turn() -> ClaudeSession {
    let mut session = ClaudeSession::new(config_of(&Value::Null));
    session.start();
    session.send_message(vec![MessagePart::Text("hi".into())]);
    session
}

/// Feeds one stdout line of `claude_1`, rendered without raw payloads.
fn line(session: &mut ClaudeSession, value: Value) -> Vec<String> {
    render_without_raw(session.on_stdout("claude_1".into(), value.to_string()))
}

fn can_use_tool(request_id: &str, tool: &str, input: Value) -> Value {
    json!({
        "type": "control_request",
        "request_id": request_id,
        "request": { "subtype": "can_use_tool", "tool_name": tool, "input": input },
    })
}

#[test]
fn lines_not_understood_are_unparsed_with_the_line_kept() {
    let mut session = in_turn();
    testing::assert_unknown_lines_unparsed(|line| {
        session.on_stdout("claude_1".into(), line.into())
    });
}

#[test]
fn an_unsupported_control_request_is_refused() {
    let mut session = in_turn();
    let request =
        json!({"type":"control_request","request_id":"r9","request":{"subtype":"hook_callback"}});
    check(
        line(&mut session, request),
        &[
            r#"agent.unparsed stdout "unsupported control request \"hook_callback\"""#,
            r#"write-stdin claude_1 "{\"response\":{\"error\":\"unsupported control request \\\"hook_callback\\\"\",\"request_id\":\"r9\",\"subtype\":\"error\"},\"type\":\"control_response\"}\n""#,
        ],
    );
}

/// Found by fuzzing: a request whose `request_id` is not a string became a
/// question with an empty id, which the host refuses, ending the session.
#[test]
fn a_control_request_without_a_string_id_is_unparsed() {
    let mut session = in_turn();
    for id in [json!({"a": "r1"}), json!(""), Value::Null] {
        let plan = json!({"plan": "Step one"});
        let mut request = can_use_tool("r1", "ExitPlanMode", plan);
        request["request_id"] = id;
        check(
            line(&mut session, request),
            &[r#"agent.unparsed stdout "control_request without a request_id""#],
        );
    }
}

#[test]
fn several_questions_are_answered_in_one_allow() {
    let mut session = in_turn();
    let options = json!([{"label":"a","description":""},{"label":"b","description":""}]);
    let input = json!({"questions":[
        {"question":"First?","header":"1","options":options,"multiSelect":false},
        {"question":"Second?","header":"2","options":options,"multiSelect":true},
    ]});
    check(
        line(&mut session, can_use_tool("q", "AskUserQuestion", input)),
        &[
            r#"question.requested q-1 requested "First?" ["a", "b"]"#,
            r#"question.requested q-2 requested "Second?" ["a", "b"]"#,
        ],
    );
    let first = session.reply_question("q-1".into(), vec![vec!["a".into()]]);
    check(
        render_without_raw(first.expect("known")),
        &[r#"question.resolved q-1 answered "First?" ["a", "b"] response="a""#],
    );
    let second = session.reply_question("q-2".into(), vec![vec!["a".into(), "b".into()]]);
    let rendered = render_without_raw(second.expect("known"));
    assert_eq!(
        rendered[0],
        r#"question.resolved q-2 answered "Second?" ["a", "b"] response="a, b""#
    );
    assert!(
        rendered[1].contains(r#"\"answers\":{\"First?\":\"a\",\"Second?\":\"a, b\"}"#),
        "{rendered:?}"
    );
    assert!(session.reply_question("q-1".into(), Vec::new()).is_err());
}

#[test]
fn declining_one_of_several_questions_denies_the_call() {
    let mut session = in_turn();
    let options = json!([{"label":"a","description":""},{"label":"b","description":""}]);
    let input = json!({"questions":[
        {"question":"First?","header":"1","options":options,"multiSelect":false},
        {"question":"Second?","header":"2","options":options,"multiSelect":false},
    ]});
    line(&mut session, can_use_tool("q", "AskUserQuestion", input));
    let rendered = render_without_raw(session.reject_question("q-2".into()).expect("known"));
    assert_eq!(
        rendered[0],
        r#"question.resolved q-2 rejected "First?" ["a", "b"]"#.replace("First", "Second")
    );
    assert_eq!(
        rendered[1],
        r#"question.resolved q-1 rejected "First?" ["a", "b"]"#
    );
    assert!(rendered[2].contains(r#"\"behavior\":\"deny\""#));
}

#[test]
fn after_always_the_adapter_allows_the_tool_by_itself() {
    let mut session = in_turn();
    line(
        &mut session,
        can_use_tool("p1", "Bash", json!({"command":"ls /"})),
    );
    session
        .reply_permission("p1".into(), PermissionReply::Always)
        .expect("known");
    check(
        line(
            &mut session,
            can_use_tool("p2", "Bash", json!({"command":"ls /tmp"})),
        ),
        &[
            r#"permission.requested p2 Bash: ls /tmp requested {"input":{"command":"ls /tmp"},"tool":"Bash"}"#,
            r#"permission.resolved p2 Bash: ls /tmp accept_for_session {"input":{"command":"ls /tmp"},"tool":"Bash"}"#,
            r#"write-stdin claude_1 "{\"response\":{\"request_id\":\"p2\",\"response\":{\"behavior\":\"allow\",\"updatedInput\":{\"command\":\"ls /tmp\"}},\"subtype\":\"success\"},\"type\":\"control_response\"}\n""#,
        ],
    );
    // Another tool still asks.
    let other = line(
        &mut session,
        can_use_tool("p3", "Write", json!({"file_path":"/a"})),
    );
    assert_eq!(other.len(), 1, "{other:?}");
}

#[test]
fn the_cli_withdrawing_a_request_rejects_it() {
    let mut session = in_turn();
    line(
        &mut session,
        can_use_tool("p1", "Bash", json!({"command":"ls"})),
    );
    check(
        line(
            &mut session,
            json!({"type":"control_cancel_request","request_id":"p1"}),
        ),
        &[r#"permission.resolved p1 Bash: ls reject {"input":{"command":"ls"},"tool":"Bash"}"#],
    );
    assert!(session
        .reply_permission("p1".into(), PermissionReply::Once)
        .is_err());
}

#[test]
fn an_unanswered_interrupt_kills_the_process_and_the_next_message_resumes() {
    let mut session = in_turn();
    line(
        &mut session,
        json!({"type":"system","subtype":"init","session_id":"native-1"}),
    );
    session.cancel_turn();
    check(
        render_without_raw(session.on_timer("interrupt".into())),
        &[
            "kill claude_1",
            "cancel-timer interrupt",
            r#"turn.ended turn_1 {"cancelled":true} (synthetic)"#,
        ],
    );
    // Late output of the killed process is ignored.
    assert!(session
        .on_stdout("claude_1".into(), "late".into())
        .is_empty());
    assert!(session
        .on_exit(
            "claude_1".into(),
            ExitStatus {
                code: None,
                signal: Some(9)
            }
        )
        .is_empty());
    let next = render_without_raw(session.send_message(vec![MessagePart::Text("again".into())]));
    assert!(next[0].starts_with("spawn claude_2 "), "{next:?}");
    assert!(next[0].ends_with(r#""--resume", "native-1"]"#), "{next:?}");
}

#[test]
fn a_subagents_items_belong_to_its_task_call() {
    let mut session = in_turn();
    let call = json!({"type":"assistant","parent_tool_use_id":null,"message":{"id":"m1","content":[
        {"type":"tool_use","id":"task1","name":"Task","input":{"prompt":"look"}}]}});
    line(&mut session, call);
    let inner = json!({"type":"assistant","parent_tool_use_id":"task1","message":{"id":"m2","content":[
        {"type":"text","text":"found it"}]}});
    check(
        line(&mut session, inner),
        &[
            "item.started itm_3 message/assistant in_progress parent=itm_2 []",
            r#"item.delta itm_3 "found it""#,
            r#"item.completed itm_3 message/assistant completed parent=itm_2 [text "found it"]"#,
        ],
    );
}

#[test]
fn system_notices_become_status_items() {
    let mut session = in_turn();
    let notice = json!({"type":"system","subtype":"api_retry","attempt":1,"message":"overloaded"});
    check(
        line(&mut session, notice),
        &[
            r#"item.started itm_2 status/assistant in_progress [status "api_retry" "overloaded"]"#,
            r#"item.completed itm_2 status/assistant completed [status "api_retry" "overloaded"]"#,
        ],
    );
}

#[test]
fn output_while_idle_opens_a_turn_of_the_agents_own() {
    let mut session = ClaudeSession::new(config_of(&Value::Null));
    session.start();
    let text = json!({"type":"assistant","parent_tool_use_id":null,"message":{"id":"m1","content":[
        {"type":"text","text":"background task done"}]}});
    let rendered = line(&mut session, text);
    assert_eq!(rendered[0], "turn.started turn_1 (synthetic)");
    let result = json!({"type":"result","subtype":"success","is_error":false,"usage":{"input_tokens":3,"output_tokens":4},"total_cost_usd":0.5});
    check(
        line(&mut session, result),
        &["turn.ended turn_1 usage(in=3 out=4 cached=0 cost=$0.5)"],
    );
}

#[test]
fn a_failed_resume_forgets_the_native_session() {
    let config = json!({"resumeNativeSessionId": "gone"});
    let mut session = ClaudeSession::new(config_of(&config));
    let start = render_without_raw(session.start());
    assert_eq!(start[0], "set-native-session-id gone");
    assert!(start[2].ends_with(r#""--resume", "gone"]"#), "{start:?}");
    session.send_message(vec![MessagePart::Text("hi".into())]);
    let result = json!({"type":"result","subtype":"error_during_execution","is_error":true,
        "usage":{},"errors":["No conversation found with session ID: gone"]});
    let rendered = line(&mut session, result);
    assert_eq!(
        rendered[0],
        r#"error "No conversation found with session ID: gone" code=error_during_execution"#
    );
    session.on_exit(
        "claude_1".into(),
        ExitStatus {
            code: Some(1),
            signal: None,
        },
    );
    let next = render_without_raw(session.send_message(vec![MessagePart::Text("again".into())]));
    assert!(!next[0].contains("--resume"), "{next:?}");
}

#[test]
fn attachments_are_listed_by_path() {
    let mut session = in_turn();
    session.on_stdout(
        "claude_1".into(),
        json!({"type":"result","subtype":"success","is_error":false}).to_string(),
    );
    let parts = vec![
        MessagePart::Text("look".into()),
        MessagePart::Image(Attachment {
            path: "/workspace/a.png".into(),
            mime: None,
            filename: None,
        }),
    ];
    let rendered = render_without_raw(session.send_message(parts));
    let written = rendered
        .iter()
        .find(|l| l.starts_with("write-stdin"))
        .expect("a write");
    assert!(
        written.contains(r#"look\\n\\nAttached files:\\n- /workspace/a.png"#),
        "{written}"
    );
}

#[test]
fn an_mcp_tools_image_is_an_image_part_of_its_result() {
    let mut session = in_turn();
    let call = json!({"type":"assistant","parent_tool_use_id":null,"message":{"id":"m1","content":[
        {"type":"tool_use","id":"call_1","name":"mcp__desktop__screenshot","input":{}}]}});
    line(&mut session, call);
    // As Claude Code prints an MCP tool's image (the bytes shortened).
    let result = json!({"type":"user","parent_tool_use_id":null,"message":{"role":"user","content":[
        {"type":"tool_result","tool_use_id":"call_1","content":[
            {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
            {"type":"text","text":"the whole screen, 800x600 pixels"}]}]}});
    let rendered = line(&mut session, result);
    let completed = rendered
        .iter()
        .find(|line| line.starts_with("item.completed itm_3 tool_result"))
        .unwrap_or_else(|| panic!("{rendered:#?}"));
    assert!(
        completed.contains(r#"image data:image/png;base64,iVBORw0KGgo= image/png"#)
            && completed.contains("the whole screen, 800x600 pixels"),
        "{completed}"
    );
}
