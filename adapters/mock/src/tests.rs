//! The mock's script, checked as transcripts: a message (or a reply, a process line, a
//! timer tick) in, universal events and actions out, one rendered line each.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing::check;
use sandbox_agent_adapter_kit::transcript::render;

use crate::{Mock, MockSession};

/// The opening of every turn: `turn.started` and the user's message as a synthetic item.
fn opening(turn: u64, item: u64, text: &str) -> [String; 3] {
    [
        format!("turn.started turn_{turn}"),
        format!("item.started itm_{item} message/user in_progress [text {text:?}] (synthetic)"),
        format!("item.completed itm_{item} message/user completed [text {text:?}] (synthetic)"),
    ]
}

/// A test session, started.
struct Harness {
    session: MockSession,
}

impl Harness {
    fn new() -> Self {
        Self::with(|_| {})
    }

    fn with(configure: impl FnOnce(&mut SessionConfig)) -> Self {
        let mut config = SessionConfig {
            session_id: "s1".into(),
            agent_mode: "build".into(),
            permission_mode: "default".into(),
            model: None,
            variant: None,
            directory: "/work".into(),
            agent_binary: None,
            env: vec![("MOCK_ENV".into(), "1".into())],
            resume_native_session_id: None,
            mcp_servers: Vec::new(),
            skills: Vec::new(),
            scratch_dir: String::new(),
        };
        configure(&mut config);
        let mut session = MockSession::new(config);
        session.start();
        Self { session }
    }

    fn send(&mut self, text: &str) -> Vec<String> {
        self.send_parts(vec![MessagePart::Text(text.into())])
    }

    fn send_parts(&mut self, parts: Vec<MessagePart>) -> Vec<String> {
        render(&self.session.send_message(parts))
    }

    fn reply_permission(&mut self, id: &str, reply: PermissionReply) -> Vec<String> {
        render(
            &self
                .session
                .reply_permission(id.into(), reply)
                .expect("known permission id"),
        )
    }

    fn reply_question(&mut self, id: &str, answers: &[&[&str]]) -> Vec<String> {
        let answers = answers
            .iter()
            .map(|a| a.iter().map(|s| s.to_string()).collect())
            .collect();
        render(
            &self
                .session
                .reply_question(id.into(), answers)
                .expect("known question id"),
        )
    }

    fn reject_question(&mut self, id: &str) -> Vec<String> {
        render(
            &self
                .session
                .reject_question(id.into())
                .expect("known question id"),
        )
    }

    fn stdout(&mut self, process: &str, line: &str) -> Vec<String> {
        render(&self.session.on_stdout(process.into(), line.into()))
    }

    fn stderr(&mut self, process: &str, line: &str) -> Vec<String> {
        render(&self.session.on_stderr(process.into(), line.into()))
    }

    fn exit(&mut self, process: &str, code: i32) -> Vec<String> {
        render(&self.session.on_exit(
            process.into(),
            ExitStatus {
                code: Some(code),
                signal: None,
            },
        ))
    }

    fn timer(&mut self, id: &str) -> Vec<String> {
        render(&self.session.on_timer(id.into()))
    }

    fn cancel(&mut self) -> Vec<String> {
        render(&self.session.cancel_turn())
    }

    fn terminate(&mut self) -> Vec<String> {
        render(&self.session.terminate())
    }

    /// Replaces the session by one restored from its own snapshot.
    fn restart(&mut self) {
        let bytes = self.session.snapshot();
        let config = self.session.config().clone();
        self.session = MockSession::restore(config, &bytes).expect("snapshot restores");
        assert_eq!(
            self.session.snapshot(),
            bytes,
            "a restored session snapshots the same"
        );
    }
}

/// Like [`check`], after the turn's opening lines (checked against `opening`).
#[track_caller]
fn check_turn(actual: Vec<String>, opening: [String; 3], rest: &[&str]) {
    assert_eq!(actual[..3], opening, "turn opening");
    check(actual[3..].to_vec(), rest);
}

/// The transcript without its `item.delta` lines.
fn without_deltas(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .filter(|line| !line.starts_with("item.delta"))
        .collect()
}

/// The text the `item.delta` lines of `item` add up to.
fn streamed_text(lines: &[String], item: &str) -> String {
    let prefix = format!("item.delta {item} ");
    lines
        .iter()
        .filter_map(|line| line.strip_prefix(&prefix))
        .map(|quoted| serde_json::from_str::<String>(quoted).expect("a quoted delta"))
        .collect()
}

#[test]
fn info_describes_a_builtin_agent() {
    let info = <Mock as Adapter>::info();
    assert_eq!(
        (info.id.as_str(), info.name.as_str(), info.builtin),
        ("mock", "Mock", true)
    );
    let modes: Vec<&str> = info.modes.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(modes, ["build", "plan"]);
    assert_eq!(info.default_mode, "build");
    let models: Vec<&str> = info.models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(models, ["mock", "mock-large"]);
    assert_eq!(info.default_model.as_deref(), Some("mock"));
    assert!(
        Capabilities::from_names(&info.capabilities).permissions
            && Capabilities::from_names(&info.capabilities).cancel
            && Capabilities::from_names(&info.capabilities).usage
    );
    assert!(
        !Capabilities::from_names(&info.capabilities).mcp_tools
            && !Capabilities::from_names(&info.capabilities).shared_process
    );
    let platform = Platform {
        os: Os::Linux,
        arch: Arch::X8664,
        libc: Some(Libc::Gnu),
    };
    assert_eq!(<Mock as Adapter>::install_plan(platform, None), None);
    assert_eq!(<Mock as Adapter>::version_args(), None);
}

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
    check(
        without_deltas(lines.clone()),
        &[
            "turn.started turn_1",
            r#"item.started itm_1 message/user in_progress [text "look", image /tmp/a.png image/png, file_ref read /tmp/b.txt] (synthetic)"#,
            r#"item.completed itm_1 message/user completed [text "look", image /tmp/a.png image/png, file_ref read /tmp/b.txt] (synthetic)"#,
            "item.started itm_2 message/assistant in_progress []",
            r#"item.completed itm_2 message/assistant completed [text "look\n\nAttachments:\n- /tmp/a.png\n- /tmp/b.txt"]"#,
            "turn.ended turn_1 usage(in=1 out=6)",
        ],
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
    let lines = mock.send("echo  Hi   there ");
    assert_eq!(streamed_text(&lines, "itm_2"), "Hi   there");
    let lines = mock.send("SAY it");
    assert_eq!(streamed_text(&lines, "itm_4"), "it");
    let lines = mock.send("echo");
    assert_eq!(
        streamed_text(&lines, "itm_6"),
        "Tell me what to say after `echo`."
    );
}

#[test]
fn an_empty_message_points_to_help() {
    let lines = Harness::new().send("   ");
    assert_eq!(
        streamed_text(&lines, "itm_2"),
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
    check_turn(
        mock.send("status"),
        opening(1, 1, "status"),
        &[
            r#"item.started itm_2 status/assistant in_progress [status "Indexing" "2 files"]"#,
            r#"item.completed itm_2 status/assistant completed [status "Indexing" "Done"]"#,
            "turn.ended turn_1 usage(in=1 out=0)",
        ],
    );
    check_turn(
        mock.send("image"),
        opening(2, 3, "image"),
        &[
            "item.started itm_4 message/assistant in_progress []",
            r#"item.delta itm_4 "Here is a mock image output.""#,
            r#"item.completed itm_4 message/assistant completed [text "Here is a mock image output.", image mock_2/image.png image/png]"#,
            "turn.ended turn_2 usage(in=1 out=6)",
        ],
    );
    check_turn(
        mock.send("unknown"),
        opening(3, 5, "unknown"),
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
            "item.started itm_2 message/assistant in_progress []",
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
    let lines = mock.send("edit a.txt");
    assert_eq!(
        streamed_text(&lines, "itm_4"),
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
    check_turn(
        mock.send("error"),
        opening(1, 1, "error"),
        &[
            r#"error "Mock error event." code=mock_error {"mock":true}"#,
            r#"agent.unparsed mock.stream "unsupported payload" raw={"raw":"mock"}"#,
            "turn.ended turn_1 usage(in=1 out=0)",
        ],
    );
    check_turn(
        mock.send("unparsed"),
        opening(2, 2, "unparsed"),
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
    check_turn(
        mock.send("end"),
        opening(1, 1, "end"),
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
fn shell_runs_a_real_process_and_streams_its_output() {
    let mut mock = Harness::new();
    let spawn = r#"spawn shell_1 ["sh", "-c", "ls -1"]"#;
    check_turn(
        mock.send("shell ls -1"),
        opening(1, 1, "shell ls -1"),
        &[
            r#"item.started itm_2 tool_call/assistant in_progress [tool_call call_1 shell {"command":"ls -1"}]"#,
            r#"item.completed itm_2 tool_call/assistant completed [tool_call call_1 shell {"command":"ls -1"}]"#,
            r#"item.started itm_3 tool_result/tool in_progress [tool_result call_1 ""]"#,
            spawn,
        ],
    );
    check(
        mock.stdout("shell_1", "Cargo.toml"),
        &[r#"item.delta itm_3 "Cargo.toml\n""#],
    );
    check(
        mock.stdout("shell_1", "src"),
        &[r#"item.delta itm_3 "src\n""#],
    );
    check(mock.stdout("another", "stray line"), &[]);
    check(
        mock.exit("shell_1", 0),
        &[
            r#"item.completed itm_3 tool_result/tool completed [tool_result call_1 "Cargo.toml\nsrc\n"]"#,
            "item.started itm_4 message/assistant in_progress []",
            r#"item.delta itm_4 "`ls -""#,
            r#"item.delta itm_4 "1` ex""#,
            r#"item.delta itm_4 "ited ""#,
            r#"item.delta itm_4 "with ""#,
            r#"item.delta itm_4 "code ""#,
            r#"item.delta itm_4 "0.""#,
            r#"item.completed itm_4 message/assistant completed [text "`ls -1` exited with code 0."]"#,
            "turn.ended turn_1 usage(in=3 out=6)",
        ],
    );
}

#[test]
fn shell_passes_the_session_env_to_the_process() {
    let mut session = Harness::new().session;
    let actions = session.send_message(vec![MessagePart::Text("shell env".into())]);
    let spawn = actions.iter().find_map(|a| match a {
        Action::Spawn(spawn) => Some(spawn),
        _ => None,
    });
    let spawn = spawn.expect("a spawn action");
    assert_eq!(spawn.env, [("MOCK_ENV".to_string(), "1".to_string())]);
    assert_eq!(spawn.cwd, None, "runs in the session's directory");
}

#[test]
fn a_failing_shell_command_fails_its_result_and_reports_stderr() {
    let mut mock = Harness::new();
    mock.send("shell cat missing");
    check(
        mock.stderr("shell_1", "cat: missing: No such file or directory"),
        &[],
    );
    check(
        without_deltas(mock.exit("shell_1", 1)),
        &[
            r#"item.completed itm_3 tool_result/tool failed [tool_result call_1 ""]"#,
            "item.started itm_4 message/assistant in_progress []",
            r#"item.completed itm_4 message/assistant completed [text "`cat missing` failed with exit code 1.\n\nstderr:\ncat: missing: No such file or directory"]"#,
            "turn.ended turn_1 usage(in=3 out=15)",
        ],
    );
}

#[test]
fn a_shell_command_that_cannot_start_fails_its_result() {
    let mut mock = Harness::new();
    mock.send("shell true");
    let lines = render(
        &mock
            .session
            .on_spawn_failed("shell_1".into(), "sh: not found".into()),
    );
    check(
        without_deltas(lines),
        &[
            r#"item.completed itm_3 tool_result/tool failed [tool_result call_1 "sh: not found"]"#,
            "item.started itm_4 message/assistant in_progress []",
            r#"item.completed itm_4 message/assistant completed [text "`true` could not start: sh: not found"]"#,
            "turn.ended turn_1 usage(in=2 out=7)",
        ],
    );
}

#[test]
fn slow_streams_one_delta_per_timer_tick() {
    let mut mock = Harness::new();
    check_turn(
        mock.send("slow 3"),
        opening(1, 1, "slow 3"),
        &[
            "item.started itm_2 message/assistant in_progress []",
            "set-timer slow_1 100ms",
        ],
    );
    check(
        mock.timer("slow_1"),
        &[r#"item.delta itm_2 "tick 1/3\n""#, "set-timer slow_1 100ms"],
    );
    check(mock.timer("unrelated"), &[]);
    check(
        mock.timer("slow_1"),
        &[r#"item.delta itm_2 "tick 2/3\n""#, "set-timer slow_1 100ms"],
    );
    check(
        mock.timer("slow_1"),
        &[
            r#"item.delta itm_2 "tick 3/3\n""#,
            r#"item.completed itm_2 message/assistant completed [text "tick 1/3\ntick 2/3\ntick 3/3\n"]"#,
            "turn.ended turn_1 usage(in=2 out=6)",
        ],
    );
}

#[test]
fn slow_defaults_to_fifty_ticks() {
    let mut mock = Harness::new();
    mock.send("slow");
    for _ in 0..49 {
        assert_eq!(
            mock.timer("slow_1").last().unwrap(),
            "set-timer slow_1 100ms"
        );
    }
    assert!(mock
        .timer("slow_1")
        .last()
        .unwrap()
        .starts_with("turn.ended turn_1"));
}

#[test]
fn cancel_interrupts_a_slow_turn() {
    let mut mock = Harness::new();
    mock.send("slow");
    mock.timer("slow_1");
    check(
        mock.cancel(),
        &[
            "cancel-timer slow_1",
            r#"item.completed itm_2 message/assistant failed [text "tick 1/50\n"]"#,
            r#"turn.ended turn_1 usage(in=1 out=2) {"cancelled":true}"#,
        ],
    );
    check(mock.timer("slow_1"), &[]);
    check(mock.cancel(), &[]);
    assert_eq!(
        mock.send("next").last().unwrap(),
        "turn.ended turn_2 usage(in=1 out=1)"
    );
}

#[test]
fn cancel_kills_a_running_shell_command() {
    let mut mock = Harness::new();
    mock.send("shell sleep 60");
    mock.stdout("shell_1", "partial");
    check(
        mock.cancel(),
        &[
            "kill shell_1",
            r#"item.completed itm_3 tool_result/tool failed [tool_result call_1 "partial\n"]"#,
            r#"turn.ended turn_1 usage(in=3 out=0) {"cancelled":true}"#,
        ],
    );
    // What the killed process still prints, and its exit, are ignored.
    check(mock.stdout("shell_1", "late"), &[]);
    check(mock.exit("shell_1", 143), &[]);
}

#[test]
fn permission_waits_for_a_reply_once() {
    let mut mock = Harness::new();
    check_turn(
        mock.send("permission"),
        opening(1, 1, "permission"),
        &[
            r#"permission.requested mock_1_permission command_execution requested {"command":"echo mock","tool":"bash"}"#,
        ],
    );
    check(
        without_deltas(mock.reply_permission("mock_1_permission", PermissionReply::Once)),
        &[
            r#"permission.resolved mock_1_permission command_execution accept {"command":"echo mock","tool":"bash"}"#,
            "item.started itm_2 message/assistant in_progress []",
            r#"item.completed itm_2 message/assistant completed [text "Permission granted once: I may run `echo mock`."]"#,
            "turn.ended turn_1 usage(in=1 out=8)",
        ],
    );
    // `once` is not remembered: the next request waits again.
    assert_eq!(
        mock.send("permission").last().unwrap(),
        r#"permission.requested mock_2_permission command_execution requested {"command":"echo mock","tool":"bash"}"#
    );
}

#[test]
fn permission_always_is_remembered_for_the_session() {
    let mut mock = Harness::new();
    mock.send("permission git push");
    check(
        without_deltas(mock.reply_permission("mock_1_permission", PermissionReply::Always)),
        &[
            r#"permission.resolved mock_1_permission command_execution accept_for_session {"command":"git push","tool":"bash"}"#,
            "item.started itm_2 message/assistant in_progress []",
            r#"item.completed itm_2 message/assistant completed [text "Permission granted for this session: I may run `git push`, and will not ask again."]"#,
            "turn.ended turn_1 usage(in=3 out=15)",
        ],
    );
    check_turn(
        without_deltas(mock.send("permission")),
        opening(2, 3, "permission"),
        &[
            r#"permission.requested mock_2_permission command_execution requested {"command":"echo mock","tool":"bash"}"#,
            r#"permission.resolved mock_2_permission command_execution accept_for_session {"command":"echo mock","tool":"bash"}"#,
            "item.started itm_4 message/assistant in_progress []",
            r#"item.completed itm_4 message/assistant completed [text "Permission granted for this session: I may run `echo mock`, and will not ask again."]"#,
            "turn.ended turn_2 usage(in=1 out=15)",
        ],
    );
}

#[test]
fn permission_reject_finishes_the_turn_without_running() {
    let mut mock = Harness::new();
    mock.send("permission");
    check(
        without_deltas(mock.reply_permission("mock_1_permission", PermissionReply::Reject)),
        &[
            r#"permission.resolved mock_1_permission command_execution reject {"command":"echo mock","tool":"bash"}"#,
            "item.started itm_2 message/assistant in_progress []",
            r#"item.completed itm_2 message/assistant completed [text "Permission rejected: I did not run `echo mock`."]"#,
            "turn.ended turn_1 usage(in=1 out=8)",
        ],
    );
}

#[test]
fn replies_to_unknown_ids_are_errors() {
    let mut mock = Harness::new();
    let session = &mut mock.session;
    assert_eq!(
        session.reply_permission("nope".into(), PermissionReply::Once),
        Err("unknown permission id: nope".into())
    );
    assert_eq!(
        session.reply_question("nope".into(), vec![]),
        Err("unknown question id: nope".into())
    );
    assert_eq!(
        session.reject_question("nope".into()),
        Err("unknown question id: nope".into())
    );
    // A pending permission does not make its id a question id, nor another id valid.
    mock.send("permission");
    let session = &mut mock.session;
    assert!(session
        .reply_question("mock_1_permission".into(), vec![])
        .is_err());
    assert!(session
        .reply_permission("mock_9_permission".into(), PermissionReply::Once)
        .is_err());
    assert!(session
        .reply_permission("mock_1_permission".into(), PermissionReply::Once)
        .is_ok());
    assert!(session
        .reply_permission("mock_1_permission".into(), PermissionReply::Once)
        .is_err());
}

#[test]
fn question_waits_for_an_answer() {
    let mut mock = Harness::new();
    check_turn(
        mock.send("question"),
        opening(1, 1, "question"),
        &[r#"question.requested mock_1_question requested "Choose a color" ["Red", "Blue"]"#],
    );
    check(
        without_deltas(mock.reply_question("mock_1_question", &[&["Red", "Blue"]])),
        &[
            r#"question.resolved mock_1_question answered "Choose a color" ["Red", "Blue"] response="Red, Blue""#,
            "item.started itm_2 message/assistant in_progress []",
            r#"item.completed itm_2 message/assistant completed [text "You answered: Red, Blue."]"#,
            "turn.ended turn_1 usage(in=1 out=4)",
        ],
    );
}

#[test]
fn question_reject_resolves_it_as_rejected() {
    let mut mock = Harness::new();
    mock.send("question");
    check(
        without_deltas(mock.reject_question("mock_1_question")),
        &[
            r#"question.resolved mock_1_question rejected "Choose a color" ["Red", "Blue"]"#,
            "item.started itm_2 message/assistant in_progress []",
            r#"item.completed itm_2 message/assistant completed [text "You declined to answer."]"#,
            "turn.ended turn_1 usage(in=1 out=4)",
        ],
    );
}

#[test]
fn cancel_resolves_a_pending_request() {
    let mut mock = Harness::new();
    mock.send("permission");
    check(
        mock.cancel(),
        &[
            r#"permission.resolved mock_1_permission command_execution reject {"command":"echo mock","tool":"bash"}"#,
            r#"turn.ended turn_1 usage(in=1 out=0) {"cancelled":true}"#,
        ],
    );
    assert!(mock
        .session
        .reply_permission("mock_1_permission".into(), PermissionReply::Once)
        .is_err());
    mock.send("question");
    check(
        mock.cancel(),
        &[
            r#"question.resolved mock_2_question rejected "Choose a color" ["Red", "Blue"]"#,
            r#"turn.ended turn_2 usage(in=1 out=0) {"cancelled":true}"#,
        ],
    );
}

#[test]
fn terminate_stops_the_turn_and_ends_the_session() {
    let mut mock = Harness::new();
    mock.send("shell sleep 60");
    check(
        mock.terminate(),
        &[
            "kill shell_1",
            r#"item.completed itm_3 tool_result/tool failed [tool_result call_1 ""]"#,
            r#"turn.ended turn_1 usage(in=3 out=0) {"cancelled":true}"#,
            "session.ended terminated by daemon",
        ],
    );
    let mut idle = Harness::new();
    check(idle.terminate(), &["session.ended terminated by daemon"]);
    assert!(idle
        .session
        .reply_permission("x".into(), PermissionReply::Once)
        .is_err());
}

#[test]
fn snapshot_and_restore_continue_a_shell_turn() {
    let mut mock = Harness::new();
    mock.send("hello"); // turn 1, items 1-2
    mock.send("shell printf 'a\\nb\\n'"); // turn 2, items 3-5, call_1, shell_1
    mock.stdout("shell_1", "a");
    mock.restart();
    check(mock.stdout("shell_1", "b"), &[r#"item.delta itm_5 "b\n""#]);
    check(
        without_deltas(mock.exit("shell_1", 0)),
        &[
            r#"item.completed itm_5 tool_result/tool completed [tool_result call_1 "a\nb\n"]"#,
            "item.started itm_6 message/assistant in_progress []",
            r#"item.completed itm_6 message/assistant completed [text "`printf 'a\\nb\\n'` exited with code 0."]"#,
            "turn.ended turn_2 usage(in=3 out=6)",
        ],
    );
    // Counters carry on after the restore.
    assert_eq!(mock.send("shell true")[0], "turn.started turn_3");
    assert!(mock
        .exit("shell_2", 0)
        .last()
        .unwrap()
        .starts_with("turn.ended turn_3"));
}

#[test]
fn snapshot_and_restore_keep_pending_requests_and_slow_streams() {
    let mut mock = Harness::new();
    mock.send("permission always");
    mock.reply_permission("mock_1_permission", PermissionReply::Always);
    mock.send("demo"); // turn 2 leaves four detached requests
    mock.send("question"); // turn 3 waits
    mock.restart();
    // The `always` is remembered, the detached and waiting requests are still answerable.
    assert!(
        mock.reply_permission("mock_2_permission_denied", PermissionReply::Reject)[0]
            .starts_with("permission.resolved mock_2_permission_denied file_change reject")
    );
    let answered = mock.reply_question("mock_3_question", &[&["Blue"]]);
    assert!(answered.last().unwrap().starts_with("turn.ended turn_3"));
    assert!(mock.send("permission")[4].starts_with("permission.resolved mock_4_permission"));

    mock.send("slow 2");
    mock.timer("slow_1");
    mock.restart();
    check(
        mock.timer("slow_1"),
        &[
            r#"item.delta itm_27 "tick 2/2\n""#,
            r#"item.completed itm_27 message/assistant completed [text "tick 1/2\ntick 2/2\n"]"#,
            "turn.ended turn_5 usage(in=2 out=4)",
        ],
    );
}

#[test]
fn restore_refuses_a_foreign_snapshot() {
    let config = Harness::new().session.config().clone();
    assert!(MockSession::restore(config.clone(), b"not json").is_err());
    assert!(MockSession::restore(config, br#"{"version":99,"state":{}}"#).is_err());
}

#[test]
fn the_shared_test_suite_prompts_still_work() {
    let mut mock = Harness::new();
    let ok = mock.send("Reply with exactly the single word OK.");
    assert_eq!(streamed_text(&ok, "itm_2"), "OK");
    let lines = mock.send("Use the bash tool to run `ls` in the current directory. Do not answer without using the tool.");
    assert_eq!(
        lines.last().unwrap(),
        r#"permission.requested mock_2_permission command_execution requested {"command":"ls","tool":"bash"}"#
    );
    let lines = mock.reply_permission("mock_2_permission", PermissionReply::Once);
    assert!(
        lines[1].starts_with("item.started itm_4 tool_call/assistant"),
        "{lines:#?}"
    );
    assert!(lines.last().unwrap().starts_with("turn.ended turn_2"));
    let lines = mock.send("Call the AskUserQuestion tool with exactly one yes/no question and wait for a reply. Do not answer yourself.");
    assert_eq!(
        lines.last().unwrap(),
        r#"question.requested mock_3_question requested "Proceed?" ["Yes", "No"]"#
    );
}
