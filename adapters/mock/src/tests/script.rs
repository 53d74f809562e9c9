//! The commands of the script that need no other input: what each one emits.

use super::*;

#[test]
fn start_records_the_native_session_id_and_emits_session_started() {
    let mut session = Harness::new().session;
    check(
        render(&session.start()),
        &[
            "set-native-session-id mock-s1",
            r#"session.started {"agent":"mock","agentMode":"build","model":null,"permissionMode":"default","variant":null}"#,
        ],
    );
}

#[test]
fn plain_text_is_echoed_in_several_deltas() {
    let mut mock = Harness::new();
    check(
        mock.send("hello"),
        &[
            "turn.started turn_1",
            r#"item.started itm_1 message/user in_progress [text "hello"] (synthetic)"#,
            r#"item.completed itm_1 message/user completed [text "hello"] (synthetic)"#,
            "item.started itm_2 message/assistant in_progress []",
            r#"item.delta itm_2 "he""#,
            r#"item.delta itm_2 "ll""#,
            r#"item.delta itm_2 "o""#,
            r#"item.completed itm_2 message/assistant completed [text "hello"]"#,
            "turn.ended turn_1 usage(in=1 out=1)",
        ],
    );
    // Ids and turn numbers continue across turns.
    let second = mock.send("how are you today");
    check_turn(
        second.clone(),
        opening(2, 3, "how are you today"),
        &[
            "item.started itm_4 message/assistant in_progress []",
            r#"item.delta itm_4 "how a""#,
            r#"item.delta itm_4 "re yo""#,
            r#"item.delta itm_4 "u tod""#,
            r#"item.delta itm_4 "ay""#,
            r#"item.completed itm_4 message/assistant completed [text "how are you today"]"#,
            "turn.ended turn_2 usage(in=4 out=4)",
        ],
    );
    assert_eq!(streamed_text(&second, "itm_4"), "how are you today");
}

#[test]
fn attachments_appear_in_the_user_item_and_the_echo() {
    let mut mock = Harness::new();
    let attachment = |path: &str, mime: &str| Attachment {
        path: path.into(),
        mime: Some(mime.into()),
        filename: None,
    };
    let lines = mock.send_parts(vec![
        MessagePart::Text("look".into()),
        MessagePart::Image(attachment("/tmp/a.png", "image/png")),
        MessagePart::File(attachment("/tmp/b.txt", "text/plain")),
    ]);
    check_closing(
        lines.clone(),
        &[
            "turn.started turn_1",
            r#"item.started itm_1 message/user in_progress [text "look", image /tmp/a.png image/png, file_ref read /tmp/b.txt] (synthetic)"#,
            r#"item.completed itm_1 message/user completed [text "look", image /tmp/a.png image/png, file_ref read /tmp/b.txt] (synthetic)"#,
        ],
        closing(
            2,
            "look\n\nAttachments:\n- /tmp/a.png\n- /tmp/b.txt",
            1,
            "in=1 out=6",
        ),
    );
    assert_eq!(
        streamed_text(&lines, "itm_2"),
        "look\n\nAttachments:\n- /tmp/a.png\n- /tmp/b.txt"
    );
}

#[test]
fn every_command_opens_and_closes_its_turn_the_same_way() {
    let commands = [
        "help",
        "echo hi",
        "say hi",
        "demo",
        "markdown",
        "tool",
        "tools",
        "status",
        "image",
        "unknown",
        "reasoning tea",
        "think",
        "file",
        "edit",
        "usage",
        "error",
        "unparsed",
        "Hello there",
        "",
    ];
    for command in commands {
        let mut mock = Harness::new();
        let lines = mock.send(command);
        assert_eq!(
            lines[..3],
            opening(1, 1, command),
            "{command:?} opens its turn"
        );
        assert!(
            lines
                .last()
                .unwrap()
                .starts_with("turn.ended turn_1 usage(in="),
            "{command:?} ends its turn: {lines:#?}"
        );
        let turn_events = lines.iter().filter(|l| l.starts_with("turn.")).count();
        assert_eq!(turn_events, 2, "{command:?} has one turn");
    }
}

#[test]
fn help_lists_the_commands() {
    let lines = Harness::new().send("help");
    let text = streamed_text(&lines, "itm_2");
    assert!(text.starts_with("Mock agent commands"));
    for command in [
        "help",
        "echo",
        "demo",
        "markdown",
        "tool",
        "status",
        "image",
        "unknown",
        "reasoning",
        "file",
        "edit",
        "shell",
        "slow",
        "permission",
        "question",
        "usage",
        "error",
        "unparsed",
        "end",
    ] {
        assert!(
            text.contains(&format!("\n- {command}")),
            "help mentions {command}"
        );
    }
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("item.delta")).count(),
        8
    );
}

#[test]
fn echo_and_say_reply_with_the_rest_of_the_message() {
    let mut mock = Harness::new();
    assert_eq!(mock.answer("echo  Hi   there ", "itm_2"), "Hi   there");
    assert_eq!(mock.answer("SAY it", "itm_4"), "it");
    assert_eq!(
        mock.answer("echo", "itm_6"),
        "Tell me what to say after `echo`."
    );
}

#[test]
fn an_empty_message_points_to_help() {
    assert_eq!(
        Harness::new().answer("   ", "itm_2"),
        "Send `help` to list the mock agent's commands."
    );
}

#[test]
fn demo_covers_every_event_kind_with_markers() {
    let mut mock = Harness::new();
    let lines = mock.send("demo");
    let markers: Vec<String> = lines
        .iter()
        .filter(|l| l.contains("[text \"Next: "))
        .map(|l| l.split("[text ").nth(1).unwrap().to_owned())
        .collect();
    assert_eq!(
        markers,
        [
            "\"Next: system message (system role).\"]",
            "\"Next: assistant message with deltas, reasoning, and JSON content parts.\"]",
            "\"Next: status item updates.\"]",
            "\"Next: markdown rendering + streaming markdown deltas.\"]",
            "\"Next: tool call item.\"]",
            "\"Next: image output content part.\"]",
            "\"Next: unknown item kind.\"]",
            "\"Next: permission requests (pending).\"]",
            "\"Next: question requests (pending).\"]",
            "\"Next: error and agent.unparsed events.\"]",
        ]
    );
    let kinds = [
        "item.completed itm_3 system/system completed [text \"System ready for mock events.\"]",
        "item.completed itm_5 message/assistant completed [text \"Mock assistant response with rich content.\", reasoning public \"Public reasoning for display.\", reasoning private \"Private reasoning hidden by default.\", json {\"ok\":true,\"stage\":\"analysis\"}]",
        "item.completed itm_7 status/assistant completed [status \"Indexing\" \"Done\"]",
        "item.completed itm_11 tool_call/assistant completed [tool_call call_1 mock.search {\"query\":\"example\"}]",
        "item.completed itm_16 unknown/assistant completed [text \"Unknown item kind example.\"]",
        "permission.requested mock_1_permission command_execution requested {\"command\":\"echo mock\",\"tool\":\"bash\"}",
        "permission.requested mock_1_permission_denied file_change requested {\"path\":\"mock_1/deny.txt\",\"tool\":\"edit\"}",
        "question.requested mock_1_question requested \"Choose a color\" [\"Red\", \"Blue\"]",
        "question.requested mock_1_question_reject requested \"Allow mock experiment?\" [\"Yes\", \"No\"]",
        "error \"Mock error event.\" code=mock_error {\"mock\":true}",
        "agent.unparsed mock.stream \"unsupported payload\" raw={\"raw\":\"mock\"}",
    ];
    for line in kinds {
        assert!(lines.iter().any(|l| l == line), "demo emits {line}");
    }
    assert_eq!(
        lines.last().unwrap(),
        "turn.ended turn_1 usage(in=1 out=141 reasoning=9)"
    );

    // The demo's requests stay pending after its turn; answering them only resolves them.
    check(
        mock.reply_permission("mock_1_permission", PermissionReply::Once),
        &[
            r#"permission.resolved mock_1_permission command_execution accept {"command":"echo mock","tool":"bash"}"#,
        ],
    );
    check(
        mock.reply_permission("mock_1_permission_denied", PermissionReply::Reject),
        &[
            r#"permission.resolved mock_1_permission_denied file_change reject {"path":"mock_1/deny.txt","tool":"edit"}"#,
        ],
    );
    check(
        mock.reply_question("mock_1_question", &[&["Blue"]]),
        &[
            r#"question.resolved mock_1_question answered "Choose a color" ["Red", "Blue"] response="Blue""#,
        ],
    );
    check(
        mock.reject_question("mock_1_question_reject"),
        &[
            r#"question.resolved mock_1_question_reject rejected "Allow mock experiment?" ["Yes", "No"]"#,
        ],
    );
    assert!(mock
        .session
        .reply_permission("mock_1_permission".into(), PermissionReply::Once)
        .is_err());
}

#[test]
fn markdown_streams_a_document_in_eight_deltas() {
    let lines = Harness::new().send("markdown");
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("item.delta itm_2"))
            .count(),
        8
    );
    let text = streamed_text(&lines, "itm_2");
    assert!(text.starts_with("# Markdown Demo\n"));
    for feature in [
        "**bold**",
        "~~strikethrough~~",
        "```ts",
        "| Left | Right |",
        "> A quote",
        "---",
    ] {
        assert!(text.contains(feature), "markdown has {feature}");
    }
    let completed = format!("item.completed itm_2 message/assistant completed [text {text:?}]");
    assert!(lines.contains(&completed));
}

#[test]
fn tool_emits_a_call_and_a_failed_result_with_file_refs() {
    let result = r#"[tool_result call_1 "mock search results", file_ref read mock_1/readme.md, file_ref write mock_1/output.txt diff="+mock output\n", file_ref patch mock_1/patch.txt diff="@@ -1,1 +1,1 @@\n-old\n+new\n"]"#;
    check_turn(
        Harness::new().send("tool"),
        opening(1, 1, "tool"),
        &[
            r#"item.started itm_2 tool_call/assistant in_progress [tool_call call_1 mock.search {"query":"example"}]"#,
            r#"item.completed itm_2 tool_call/assistant completed [tool_call call_1 mock.search {"query":"example"}]"#,
            &format!("item.started itm_3 tool_result/tool in_progress {result}"),
            &format!("item.completed itm_3 tool_result/tool failed {result}"),
            "turn.ended turn_1 usage(in=1 out=0)",
        ],
    );
}

#[test]
fn status_image_and_unknown_items() {
    let mut mock = Harness::new();
    mock.check_send(
        "status",
        1,
        1,
        &[
            r#"item.started itm_2 status/assistant in_progress [status "Indexing" "2 files"]"#,
            r#"item.completed itm_2 status/assistant completed [status "Indexing" "Done"]"#,
            "turn.ended turn_1 usage(in=1 out=0)",
        ],
    );
    mock.check_send(
        "image",
        2,
        3,
        &[
            "item.started itm_4 message/assistant in_progress []",
            r#"item.delta itm_4 "Here is a mock image output.""#,
            r#"item.completed itm_4 message/assistant completed [text "Here is a mock image output.", image mock_2/image.png image/png]"#,
            "turn.ended turn_2 usage(in=1 out=6)",
        ],
    );
    mock.check_send(
        "unknown",
        3,
        5,
        &[
            r#"item.started itm_6 unknown/assistant in_progress [text "Unknown item kind example."]"#,
            r#"item.completed itm_6 unknown/assistant completed [text "Unknown item kind example."]"#,
            "turn.ended turn_3 usage(in=1 out=0)",
        ],
    );
}

#[test]
fn reasoning_streams_a_reasoning_item_then_the_answer() {
    let lines = Harness::new().send("think cats");
    check_turn(
        without_deltas(lines.clone()),
        opening(1, 1, "think cats"),
        &[
            r#"item.started itm_2 message/assistant in_progress [reasoning public ""]"#,
            r#"item.completed itm_2 message/assistant completed [reasoning public "The user asked me to think about cats. I will restate it, then answer in one sentence."]"#,
            "item.started itm_3 message/assistant in_progress []",
            r#"item.completed itm_3 message/assistant completed [text "I thought about cats, and this is my answer."]"#,
            "turn.ended turn_1 usage(in=2 out=9 reasoning=17)",
        ],
    );
    assert_eq!(
        streamed_text(&lines, "itm_2"),
        "The user asked me to think about cats. I will restate it, then answer in one sentence."
    );
}

#[test]
fn file_and_edit_report_file_changes_with_diffs() {
    let mut mock = Harness::new();
    check_turn(
        without_deltas(mock.send("file")),
        opening(1, 1, "file"),
        &[
            r#"item.started itm_2 tool_call/assistant in_progress [tool_call call_1 write {"content":"Hello from the mock agent.","path":"notes.md"}]"#,
            r#"item.completed itm_2 tool_call/assistant completed [tool_call call_1 write {"content":"Hello from the mock agent.","path":"notes.md"}]"#,
            r#"item.started itm_3 tool_result/tool in_progress [tool_result call_1 "Wrote notes.md", file_ref write notes.md diff="--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1,1 @@\n+Hello from the mock agent.\n"]"#,
            r#"item.completed itm_3 tool_result/tool completed [tool_result call_1 "Wrote notes.md", file_ref write notes.md diff="--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1,1 @@\n+Hello from the mock agent.\n"]"#,
            "item.started itm_4 message/assistant in_progress []",
            r#"item.completed itm_4 message/assistant completed [text "Wrote notes.md (1 line)."]"#,
            "turn.ended turn_1 usage(in=1 out=4)",
        ],
    );
    check_turn(
        without_deltas(mock.send("edit src/app.ts export const x = 1;")),
        opening(2, 5, "edit src/app.ts export const x = 1;"),
        &[
            r#"item.started itm_6 tool_call/assistant in_progress [tool_call call_2 edit {"content":"export const x = 1;","path":"src/app.ts"}]"#,
            r#"item.completed itm_6 tool_call/assistant completed [tool_call call_2 edit {"content":"export const x = 1;","path":"src/app.ts"}]"#,
            r#"item.started itm_7 tool_result/tool in_progress [tool_result call_2 "Edited src/app.ts", file_ref patch src/app.ts diff="--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,1 +1,1 @@\n-Hello from the mock agent.\n+export const x = 1;\n"]"#,
            r#"item.completed itm_7 tool_result/tool completed [tool_result call_2 "Edited src/app.ts", file_ref patch src/app.ts diff="--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,1 +1,1 @@\n-Hello from the mock agent.\n+export const x = 1;\n"]"#,
            "item.started itm_8 message/assistant in_progress []",
            r#"item.completed itm_8 message/assistant completed [text "Edited src/app.ts (1 line)."]"#,
            "turn.ended turn_2 usage(in=7 out=4)",
        ],
    );
}

#[test]
fn plan_mode_describes_instead_of_acting() {
    let mut mock = Harness::with(|config| config.agent_mode = "plan".into());
    let lines = mock.send("shell rm -rf build");
    assert!(
        !lines.iter().any(|l| l.starts_with("spawn")),
        "no process in plan mode"
    );
    assert_eq!(
        streamed_text(&lines, "itm_2"),
        "Plan mode: I would run `rm -rf build`."
    );
    assert_eq!(
        mock.answer("edit a.txt", "itm_4"),
        "Plan mode: I would edit `a.txt` (nothing was changed)."
    );
}

#[test]
fn usage_reports_the_session_totals_and_every_usage_field() {
    let mut mock = Harness::new();
    mock.send("one two three"); // in=3 out=3
    mock.send("echo four five"); // in=3 out=2
    let lines = mock.send("usage");
    assert_eq!(
        streamed_text(&lines, "itm_6"),
        "Usage before this turn: 2 turns, 6 input tokens, 5 output tokens."
    );
    // cached = the earlier turns' input; cost = (1 + 12) tokens at $0.01 per thousand.
    assert_eq!(
        lines.last().unwrap(),
        "turn.ended turn_3 usage(in=1 out=12 cached=6 reasoning=0 cost=$0.00013)"
    );
}

#[test]
fn error_and_unparsed_keep_the_session_going() {
    let mut mock = Harness::new();
    mock.check_send(
        "error",
        1,
        1,
        &[
            r#"error "Mock error event." code=mock_error {"mock":true}"#,
            r#"agent.unparsed mock.stream "unsupported payload" raw={"raw":"mock"}"#,
            "turn.ended turn_1 usage(in=1 out=0)",
        ],
    );
    mock.check_send(
        "unparsed",
        2,
        2,
        &[
            r#"agent.unparsed mock.stream "unsupported payload" raw={"raw":"mock"}"#,
            "turn.ended turn_2 usage(in=1 out=0)",
        ],
    );
    assert_eq!(
        mock.send("still here").last().unwrap(),
        "turn.ended turn_3 usage(in=2 out=2)"
    );
}

#[test]
fn end_closes_the_turn_then_ends_the_session() {
    let mut mock = Harness::new();
    mock.check_send(
        "end",
        1,
        1,
        &[
            "turn.ended turn_1 usage(in=1 out=0)",
            "session.ended completed by agent",
        ],
    );
    assert!(
        mock.send("hello").is_empty(),
        "an ended session ignores messages"
    );
    assert!(mock.terminate().is_empty(), "and does not end twice");
}

#[test]
fn settings_names_the_modes_and_model_the_session_runs_with() {
    let mut mock = Harness::new();
    assert_eq!(
        mock.answer("settings", "itm_2"),
        "Agent mode build, permission mode default, model the default."
    );
    let mut mock = Harness::with(|config| {
        config.permission_mode = "bypass".into();
        config.model = Some("mock-large".into());
    });
    assert_eq!(
        mock.answer("settings", "itm_2"),
        "Agent mode build, permission mode bypass, model mock-large."
    );
}
