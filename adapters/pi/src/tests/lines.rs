//! Native lines and situations the recordings do not have, fed one at a time.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing::{self, check, render_without_raw};
use serde_json::{json, Value};

use super::replay::config_of;
use crate::PiSession;

/// A started session whose process answered `get_state`.
fn started() -> PiSession {
    let mut session = PiSession::new(config_of(&Value::Null));
    session.start();
    let state = json!({"id":"req_1","type":"response","command":"get_state","success":true,
                       "data":{"sessionId":"abc"}});
    session.on_stdout("pi_1".into(), state.to_string());
    session
}

/// A started session with one message sent (turn 1, user item `itm_1`, prompt `req_2`).
fn in_turn() -> PiSession {
    let mut session = started();
    session.send_message(vec![MessagePart::Text("hi".into())]);
    session
}

/// Feeds one stdout line of `pi_1`, rendered without raw payloads.
fn line(session: &mut PiSession, value: Value) -> Vec<String> {
    render_without_raw(session.on_stdout("pi_1".into(), value.to_string()))
}

fn image(path: &str, mime: Option<&str>) -> MessagePart {
    MessagePart::Image(Attachment {
        path: path.to_owned(),
        mime: mime.map(str::to_owned),
        filename: None,
    })
}

#[test]
fn lines_not_understood_are_unparsed_with_the_line_kept() {
    let mut session = in_turn();
    testing::assert_unknown_lines_unparsed(|line| session.on_stdout("pi_1".into(), line.into()));
}

#[test]
fn images_are_read_by_helpers_then_sent_inline() {
    let mut session = started();
    let sent = session.send_message(vec![
        MessagePart::Text("what is this".into()),
        image("dot.png", None),
        image("/tmp/photo", Some("image/jpeg")),
    ]);
    let rendered = render_without_raw(sent);
    assert!(
        rendered[1].contains("[text \"what is this\", image dot.png"),
        "{rendered:?}"
    );
    assert!(
        rendered[3].starts_with(r#"spawn image_1 ["node", "-e""#),
        "{rendered:?}"
    );
    assert!(rendered[3].ends_with(r#""dot.png"]"#), "{rendered:?}");
    assert!(rendered[4].starts_with("spawn image_2"), "{rendered:?}");
    assert_eq!(rendered.len(), 5, "no prompt before the images are read");
    assert!(session
        .on_stdout("image_1".into(), "iVBORw0=".into())
        .is_empty());
    let ok = ExitStatus {
        code: Some(0),
        signal: None,
    };
    assert!(session.on_exit("image_1".into(), ok).is_empty());
    assert!(session
        .on_stdout("image_2".into(), "/9j/4A==".into())
        .is_empty());
    let Some(Action::WriteStdin(write)) = session.on_exit("image_2".into(), ok).pop() else {
        panic!("the prompt is written");
    };
    let prompt: Value = serde_json::from_slice(&write.data).unwrap();
    assert_eq!(
        prompt,
        json!({"id":"req_2","type":"prompt","message":"what is this","images":[
            {"type":"image","data":"iVBORw0=","mimeType":"image/png"},
            {"type":"image","data":"/9j/4A==","mimeType":"image/jpeg"}]})
    );
}

#[test]
fn an_unreadable_image_fails_the_turn_without_reaching_pi() {
    let mut session = started();
    session.send_message(vec![image("a.png", None), image("b.png", None)]);
    let failed = session.on_exit(
        "image_1".into(),
        ExitStatus {
            code: Some(1),
            signal: None,
        },
    );
    check(
        render_without_raw(failed),
        &[
            "kill image_2",
            r#"error "could not read the image a.png: exit code 1" code=attachment_unreadable (synthetic)"#,
            "turn.ended turn_1 (synthetic)",
        ],
    );
}

#[test]
fn files_are_listed_by_path_in_the_prompt() {
    let mut session = started();
    let file = MessagePart::File(Attachment {
        path: "/workspace/notes.md".into(),
        mime: None,
        filename: None,
    });
    let actions = session.send_message(vec![MessagePart::Text("summarize".into()), file]);
    let Some(Action::WriteStdin(write)) = actions.last() else {
        panic!("{actions:?}");
    };
    let prompt: Value = serde_json::from_slice(&write.data).unwrap();
    assert_eq!(
        prompt["message"],
        "summarize\n\nAttached files:\n- /workspace/notes.md"
    );
}

#[test]
fn a_refused_prompt_ends_the_turn_with_an_error() {
    let mut session = in_turn();
    let refused = json!({"id":"req_2","type":"response","command":"prompt","success":false,
                         "error":"No API key found for the selected model."});
    check(
        line(&mut session, refused),
        &[
            r#"error "No API key found for the selected model." code=prompt_failed"#,
            "turn.ended turn_1",
        ],
    );
}

#[test]
fn an_edit_is_a_patch_with_pis_diff() {
    let mut session = in_turn();
    let call = json!({"type":"toolCall","id":"call_1","name":"edit","arguments":{}});
    let partial = json!({"role":"assistant","content":[call]});
    line(
        &mut session,
        json!({"type":"message_update",
        "assistantMessageEvent":{"type":"toolcall_start","contentIndex":0,"partial":partial}}),
    );
    let args = json!({"path":"src/a.txt","edits":[{"oldText":"a","newText":"b"}]});
    line(
        &mut session,
        json!({"type":"message_update","assistantMessageEvent":{
        "type":"toolcall_end","contentIndex":0,
        "toolCall":{"type":"toolCall","id":"call_1","name":"edit","arguments":args}}}),
    );
    line(
        &mut session,
        json!({"type":"tool_execution_start","toolCallId":"call_1",
        "toolName":"edit","args":args}),
    );
    let ended = line(
        &mut session,
        json!({"type":"tool_execution_end","toolCallId":"call_1",
        "toolName":"edit","isError":false,"result":{
            "content":[{"type":"text","text":"Successfully replaced 1 block(s) in src/a.txt."}],
            "details":{"diff":"-1 a\n+1 b","firstChangedLine":1}}}),
    );
    check(
        ended,
        &[
            r#"item.completed itm_3 tool_result/tool completed parent=itm_2 [tool_result call_1 "Successfully replaced 1 block(s) in src/a.txt.", file_ref patch /workspace/src/a.txt diff="-1 a\n+1 b"]"#,
        ],
    );
}

#[test]
fn extension_dialogs_are_questions() {
    let mut session = in_turn();
    let asked = line(
        &mut session,
        json!({"type":"extension_ui_request","id":"u1",
        "method":"select","title":"Allow dangerous command?","options":["Allow","Block"]}),
    );
    check(
        asked,
        &[
            r#"question.requested question_1 requested "Allow dangerous command?" ["Allow", "Block"]"#,
        ],
    );
    let answered = session
        .reply_question("question_1".into(), vec![vec!["Block".into()]])
        .unwrap();
    let rendered = render_without_raw(answered);
    assert_eq!(
        rendered[0],
        r#"write-stdin pi_1 "{\"id\":\"u1\",\"type\":\"extension_ui_response\",\"value\":\"Block\"}\n""#
    );
    assert!(
        rendered[1].starts_with("question.resolved question_1 answered"),
        "{rendered:?}"
    );
    assert!(session.reject_question("question_1".into()).is_err());
    line(
        &mut session,
        json!({"type":"extension_ui_request","id":"u2","method":"confirm",
        "title":"Clear?","message":"All lost."}),
    );
    let declined = render_without_raw(session.reject_question("question_2".into()).unwrap());
    assert!(
        declined[0].contains(r#"\"cancelled\":true"#),
        "{declined:?}"
    );
    let notified = line(
        &mut session,
        json!({"type":"extension_ui_request","id":"u3",
        "method":"notify","message":"Blocked"}),
    );
    assert!(notified[0].contains("status/assistant"), "{notified:?}");
}

#[test]
fn an_abort_pi_does_not_finish_kills_the_process() {
    let mut session = in_turn();
    let cancel = render_without_raw(session.cancel_turn());
    check(
        cancel,
        &[
            r#"write-stdin pi_1 "{\"id\":\"req_3\",\"type\":\"abort\"}\n""#,
            "set-timer abort 10000ms",
        ],
    );
    check(
        render_without_raw(session.on_timer("abort".into())),
        &[
            "kill pi_1",
            "cancel-timer abort",
            r#"turn.ended turn_1 {"cancelled":true} (synthetic)"#,
        ],
    );
    let next = render_without_raw(session.send_message(vec![MessagePart::Text("again".into())]));
    assert!(next.iter().any(|l| l.starts_with("spawn pi_2")), "{next:?}");
}

#[test]
fn a_process_that_dies_at_start_ends_the_session() {
    let mut session = PiSession::new(config_of(&Value::Null));
    session.start();
    let exited = session.on_exit(
        "pi_1".into(),
        ExitStatus {
            code: Some(1),
            signal: None,
        },
    );
    check(
        render_without_raw(exited),
        &[
            r#"error "Pi exited at start with exit code 1" code=agent_exited (synthetic)"#,
            r#"session.ended error by agent "Pi exited at start with exit code 1" (synthetic)"#,
        ],
    );
}

/// A `text_start`, `text_delta` or `text_end` line of content block `index`.
fn text_event(kind: &str, index: u64, text: &str) -> Value {
    json!({"type":"message_update","assistantMessageEvent":
        {"type": kind, "contentIndex": index, "delta": text, "content": text}})
}

/// Found by fuzzing (`FUZZ_STRICT=1`): a block's end or deltas repeated after its end
/// completed its item twice or streamed into a completed item.
#[test]
fn a_block_that_ended_takes_no_more_deltas_nor_a_second_end() {
    let mut session = in_turn();
    line(&mut session, text_event("text_start", 0, ""));
    line(&mut session, text_event("text_delta", 0, "a"));
    let ended = line(&mut session, text_event("text_end", 0, "a"));
    assert!(ended[0].starts_with("item.completed itm_2"), "{ended:?}");
    for again in [
        text_event("text_delta", 0, "b"),
        text_event("text_end", 0, "ab"),
    ] {
        let rendered = line(&mut session, again);
        assert_eq!(rendered.len(), 1, "{rendered:?}");
        assert!(
            rendered[0].starts_with("agent.unparsed") && rendered[0].contains("already ended"),
            "{rendered:?}"
        );
    }
}

/// Found by fuzzing: a block started again at the same index left the first one's
/// item open for ever.
#[test]
fn a_block_started_again_completes_the_open_one_as_failed() {
    let mut session = in_turn();
    line(&mut session, text_event("text_start", 0, ""));
    line(&mut session, text_event("text_delta", 0, "a"));
    check(
        line(&mut session, text_event("text_start", 0, "")),
        &[
            r#"item.completed itm_2 message/assistant failed [text "a"]"#,
            "item.started itm_3 message/assistant in_progress []",
        ],
    );
}

/// Found by fuzzing: Pi's output outside any prompt opens a turn the daemon does
/// not wait for; the next message's turn started inside it.
#[test]
fn a_message_ends_the_turn_pi_opened_by_itself_first() {
    let mut session = started();
    line(&mut session, json!({"type":"agent_start"}));
    let sent = render_without_raw(session.send_message(vec![MessagePart::Text("hi".into())]));
    assert_eq!(
        sent[..2],
        [
            "turn.ended turn_1 (synthetic)",
            "turn.started turn_2 (synthetic)"
        ],
        "{sent:?}"
    );
}

/// Found by fuzzing: a tool's end repeated completed its result twice, and output or
/// a start after its end went to a completed result.
#[test]
fn a_tool_that_ended_takes_no_more_output_nor_a_second_start_or_end() {
    let mut session = in_turn();
    let tool = |kind: &str| {
        json!({"type": kind, "toolCallId": "call_1", "toolName": "bash",
        "args": {"command": "ls"}, "partialResult": {"content": "more"},
        "result": {"content": [{"type": "text", "text": "a.txt"}]}, "isError": false})
    };
    line(&mut session, tool("tool_execution_start"));
    let ended = line(&mut session, tool("tool_execution_end"));
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert!(ended[0].starts_with("item.completed"), "{ended:?}");
    for kind in [
        "tool_execution_end",
        "tool_execution_update",
        "tool_execution_start",
    ] {
        let rendered = line(&mut session, tool(kind));
        assert_eq!(rendered.len(), 1, "{kind}: {rendered:?}");
        assert!(
            rendered[0].starts_with("agent.unparsed"),
            "{kind}: {rendered:?}"
        );
    }
}

/// Found by fuzzing: token counts near `u64::MAX` overflowed when the turn's usage
/// was summed (a panic in a debug build, a trap with overflow checks).
#[test]
fn absurd_token_counts_saturate() {
    let mut session = in_turn();
    let huge = u64::MAX;
    let usage = json!({"input": huge, "output": huge, "cacheRead": huge, "cacheWrite": 1});
    for _ in 0..2 {
        line(
            &mut session,
            json!({"type":"message_end","message":{"role":"assistant","content":[],
                "stopReason":"stop","usage": usage}}),
        );
    }
    let ended = line(&mut session, json!({"type":"agent_end"}));
    let turn_ended = ended.iter().find(|l| l.starts_with("turn.ended"));
    assert!(
        turn_ended.is_some_and(|l| l.contains(&huge.to_string())),
        "{ended:?}"
    );
}

#[test]
fn a_changed_model_reaches_a_running_pi_as_set_model_once() {
    let mut session = in_turn();
    line(&mut session, json!({"type": "agent_end", "messages": []}));
    // The host rebuilds the session with a new model, as after a PUT .../modes.
    let mut changed = config_of(&Value::Null);
    changed.model = Some("scripted/scripted-b".into());
    let mut session = PiSession::restore(changed.clone(), &session.snapshot()).unwrap();
    let sent = render_without_raw(session.send_message(vec![MessagePart::Text("go".into())]));
    let writes: Vec<&String> = sent
        .iter()
        .filter(|l| l.starts_with("write-stdin"))
        .collect();
    assert_eq!(writes.len(), 2, "{sent:#?}");
    assert!(
        writes[0].contains(r#"\"type\":\"set_model\""#)
            && writes[0].contains(r#"\"provider\":\"scripted\""#)
            && writes[0].contains(r#"\"modelId\":\"scripted-b\""#),
        "{}",
        writes[0]
    );
    // A name without its provider is said once, and nothing is sent for it.
    line(&mut session, json!({"type": "agent_end", "messages": []}));
    changed.model = Some("scripted-c".into());
    let mut session = PiSession::restore(changed, &session.snapshot()).unwrap();
    let sent = render_without_raw(session.send_message(vec![MessagePart::Text("again".into())]));
    let refused = sent.iter().filter(|l| l.contains("model_refused")).count();
    let writes = sent.iter().filter(|l| l.starts_with("write-stdin")).count();
    assert_eq!((refused, writes), (1, 1), "{sent:#?}");
}

#[test]
fn a_changed_thinking_level_reaches_a_running_pi_once() {
    let mut session = in_turn();
    line(&mut session, json!({"type": "agent_end", "messages": []}));
    // The host rebuilds the session with a new variant, as after a PUT .../modes.
    let mut changed = config_of(&Value::Null);
    changed.variant = Some("high".into());
    let mut session = PiSession::restore(changed, &session.snapshot()).unwrap();
    let writes = |session: &mut PiSession| {
        let sent = render_without_raw(session.send_message(vec![MessagePart::Text("go".into())]));
        line(session, json!({"type": "agent_end", "messages": []}));
        let writes = sent.into_iter().filter(|l| l.starts_with("write-stdin"));
        writes.collect::<Vec<String>>()
    };
    let sent = writes(&mut session);
    assert_eq!(sent.len(), 2, "{sent:#?}");
    assert!(
        sent[0].contains(r#"\"type\":\"set_thinking_level\""#)
            && sent[0].contains(r#"\"level\":\"high\""#),
        "{}",
        sent[0]
    );
    assert_eq!(writes(&mut session).len(), 1, "told once");
}

/// Pi takes its tools only at launch: a permission mode changed to `plan` (read-only
/// tools) or back starts it again on its native session before the next prompt;
/// a change that keeps its tools does not.
#[test]
fn a_changed_tool_set_starts_pi_again_on_its_session() {
    let mut session = in_turn();
    line(&mut session, json!({"type": "agent_end", "messages": []}));
    let mut changed = config_of(&Value::Null);
    let mut next = |session: PiSession, mode: &str| {
        changed.permission_mode = mode.into();
        let mut session = PiSession::restore(changed.clone(), &session.snapshot()).unwrap();
        let sent = render_without_raw(session.send_message(vec![MessagePart::Text("go".into())]));
        (session, sent)
    };
    let (mut session, sent) = next(session, "plan");
    let spawn = |sent: &[String], n: u32| {
        let prefix = format!("spawn pi_{n} ");
        sent.iter().find(|l| l.starts_with(&prefix)).cloned()
    };
    assert!(sent.contains(&"kill pi_1".to_owned()), "{sent:#?}");
    let relaunched = spawn(&sent, 2).expect("Pi started again");
    assert!(
        relaunched.contains(r#""--tools", "read,grep,find,ls""#)
            && relaunched.contains(r#""--session", "abc""#),
        "{relaunched}"
    );
    let prompted = sent
        .iter()
        .any(|l| l.starts_with("write-stdin pi_2") && l.contains(r#"\"type\":\"prompt\""#));
    assert!(prompted, "{sent:#?}");
    // The killed process's exit is not the live one's: the session goes on.
    let exited = session.on_exit(
        "pi_1".into(),
        ExitStatus {
            code: None,
            signal: Some(9),
        },
    );
    assert!(exited.is_empty(), "{:?}", render_without_raw(exited));
    session.on_stdout(
        "pi_2".into(),
        json!({"type": "agent_end", "messages": []}).to_string(),
    );

    // Back to Pi's own tools, on the same session.
    let (mut session, sent) = next(session, "default");
    assert!(sent.contains(&"kill pi_2".to_owned()), "{sent:#?}");
    let relaunched = spawn(&sent, 3).expect("Pi started again");
    assert!(
        !relaunched.contains("--tools") && relaunched.contains(r#""--session", "abc""#),
        "{relaunched}"
    );
    session.on_stdout(
        "pi_3".into(),
        json!({"type": "agent_end", "messages": []}).to_string(),
    );

    // `bypass` runs the same tools: the running Pi takes the prompt.
    let (_, sent) = next(session, "bypass");
    assert!(
        !sent
            .iter()
            .any(|l| l.starts_with("kill") || l.starts_with("spawn")),
        "{sent:#?}"
    );
}
