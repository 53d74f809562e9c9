//! The adapter's state machine on recorded Codex output: the shared captures
//! (`../shared/captures/codex`, copied under `testdata/`), plus hand-written lines
//! for the paths a capture rarely shows (attach to a running server, idle exit,
//! cancel before Codex named the turn, spawn failure, restore).

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing;
use sandbox_agent_adapter_kit::transcript::{render, render_events};
use serde_json::{json, Value};

use crate::CodexSession;
use sandbox_agent_adapter_kit::native_session::place;

sandbox_agent_adapter_kit::facts_test!(crate::Codex, "facts.json");

/// A started test session.
struct Harness {
    session: CodexSession,
}

pub(crate) fn config(id: &str, permission_mode: &str, agent_mode: &str) -> SessionConfig {
    SessionConfig {
        session_id: id.into(),
        agent_mode: agent_mode.into(),
        permission_mode: permission_mode.into(),
        ..testing::config()
    }
}

impl Harness {
    fn new(config: SessionConfig) -> (Self, Vec<String>) {
        let mut session = CodexSession::new(config);
        let started = render(&session.start());
        (Self { session }, started)
    }

    fn line(&mut self, line: &str) -> Vec<String> {
        render(&self.session.on_stdout("app-server".into(), line.into()))
    }

    /// Feeds the lines and returns the events (raw payloads left out).
    fn lines(&mut self, lines: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for line in lines {
            let actions = self.session.on_stdout("app-server".into(), line.clone());
            out.extend(testing::render_without_raw(actions));
        }
        out
    }

    fn send(&mut self, text: &str) -> Vec<String> {
        render(
            &self
                .session
                .send_message(vec![MessagePart::Text(text.into())]),
        )
    }
}

/// A capture's server lines, with the capture driver's numeric request ids renamed to
/// the ids this adapter sends (`s1:1`, `s1:2`... in the same order).
fn capture(name: &str) -> Vec<String> {
    let text = match name {
        "appserver" => include_str!("../testdata/appserver.jsonl"),
        _ => include_str!("../testdata/appserver-approval-accept.jsonl"),
    };
    text.lines()
        .map(|line| {
            let mut message: Value = serde_json::from_str(line).unwrap();
            if message.get("method").is_none() {
                if let Some(id) = message.get("id").and_then(Value::as_i64) {
                    message["id"] = json!(format!("s1:{id}"));
                }
            }
            message.to_string()
        })
        .collect()
}

const THREAD: &str = "01a20722-0d63-73a1-8d94-33f3ced2df04";
const TURN: &str = "01a20722-0d86-7330-95ab-4ccfab57cb69";

#[test]
fn start_spawns_the_shared_server_and_initializes() {
    let (_, started) = Harness::new(config("s1", "default", "build"));
    assert_eq!(
        started[0],
        r#"session.started {"agent":"codex","agentMode":"build","model":null,"permissionMode":"default","variant":null} (synthetic)"#
    );
    assert_eq!(
        started[1],
        r#"spawn app-server ["codex", "app-server"] share="app-server""#
    );
    assert!(started[2]
        .starts_with(r#"write-stdin app-server "{\"id\":\"s1:1\",\"method\":\"initialize\""#));
    assert!(started[2].contains(r#"\"experimentalApi\":true"#));
}

#[test]
fn a_bypass_turn_from_the_capture() {
    let (mut h, _) = Harness::new(config("s1", "bypass", "build"));
    let lines = capture("appserver");
    // initialize answered: `initialized`, then thread/start with the bypass policy.
    let init = h.line(&lines[0]);
    assert_eq!(
        init[0],
        r#"write-stdin app-server "{\"method\":\"initialized\"}\n""#
    );
    assert!(init[1].contains(r#"\"method\":\"thread/start\""#));
    assert!(init[1].contains(r#"\"approvalPolicy\":\"never\""#));
    assert!(init[1].contains(r#"\"sandbox\":\"danger-full-access\""#));
    assert_eq!(h.lines(&lines[1..2]), Vec::<String>::new());
    assert_eq!(
        h.lines(&lines[2..4]),
        [format!("set-native-session-id {THREAD}")]
    );
    let sent = h.send("Run echo hello in the shell");
    assert!(sent[0].contains(r#"\"method\":\"turn/start\""#));
    assert!(sent[0].contains(r#"\"input\":[{\"text\":\"Run echo hello in the shell\",\"text_elements\":[],\"type\":\"text\"}]"#));
    let events = h.lines(&lines[4..]);
    let user = r#"[text "Run echo hello in the shell"]"#;
    let shell = r#"tool_call call_fa219a4a372b43019a3805e5 shell {"command":"/bin/bash -lc 'echo hello'","cwd":"/workspace"}"#;
    assert_eq!(
        events,
        [
            format!("turn.started {TURN}"),
            format!("item.started itm_1 message/user in_progress {user}"),
            format!("item.completed itm_1 message/user completed {user}"),
            "item.started itm_2 message/assistant in_progress []".into(),
            r#"item.delta itm_2 "I'll run the command.""#.into(),
            r#"item.completed itm_2 message/assistant completed [text "I'll run the command."]"#.into(),
            format!("item.started itm_3 tool_call/assistant in_progress [{shell}]"),
            format!("item.completed itm_3 tool_call/assistant completed [{shell}]"),
            r#"item.started itm_4 tool_result/tool in_progress parent=itm_3 [tool_result call_fa219a4a372b43019a3805e5 ""]"#.into(),
            r#"item.completed itm_4 tool_result/tool completed parent=itm_3 [tool_result call_fa219a4a372b43019a3805e5 "hello\n"]"#.into(),
            "item.started itm_5 message/assistant in_progress []".into(),
            r#"item.delta itm_5 "done""#.into(),
            r#"item.completed itm_5 message/assistant completed [text "done"]"#.into(),
            format!(r#"turn.ended {TURN} usage(in=200 out=20 cached=0 reasoning=0) {{"status":"completed"}}"#),
        ]
    );
}

#[test]
fn every_event_keeps_its_native_line() {
    let (mut h, _) = Harness::new(config("s1", "bypass", "build"));
    let lines = capture("appserver");
    for line in &lines[..4] {
        h.line(line);
    }
    h.send("Run echo hello in the shell");
    for line in &lines[4..] {
        for action in h.session.on_stdout("app-server".into(), line.clone()) {
            if let Action::Emit(event) = action {
                assert!(
                    event.synthetic || event.raw.as_deref() == Some(line.as_str()),
                    "{event:?}"
                );
            }
        }
    }
}

#[test]
fn an_approval_from_the_capture_asks_and_answers_accept() {
    let (mut h, _) = Harness::new(config("s1", "default", "build"));
    let lines = capture("approval");
    let init = h.lines(&lines[..1]);
    assert!(init[1].contains(r#"\"approvalPolicy\":\"untrusted\""#));
    h.lines(&lines[1..4]);
    h.send("Run echo hello in the shell");
    let events = h.lines(&lines[4..15]);
    let request = events.last().unwrap();
    assert!(
        request
            .starts_with("permission.requested perm_1 shell: echo hello > hello.txt requested {"),
        "{request}"
    );
    let reply = h
        .session
        .reply_permission("perm_1".into(), PermissionReply::Once)
        .unwrap();
    let reply = render(&reply);
    assert_eq!(
        reply[0],
        r#"write-stdin app-server "{\"id\":0,\"result\":{\"decision\":\"accept\"}}\n""#
    );
    assert!(reply[1].starts_with("permission.resolved perm_1 shell: echo hello > hello.txt accept"));
    // Codex confirms (serverRequest/resolved): nothing left to resolve.
    let rest = h.lines(&lines[15..]);
    assert!(!rest.iter().any(|e| e.starts_with("permission.")));
    assert_eq!(
        rest.last().unwrap(),
        r#"turn.ended 01a20722-2030-7e51-994b-4c5ae012410b usage(in=200 out=20 cached=0 reasoning=0) {"status":"completed"}"#
    );
}

/// Starts a session whose thread `t1` is ready.
fn ready(permission_mode: &str) -> Harness {
    let (mut h, _) = Harness::new(config("s1", permission_mode, "build"));
    h.line(r#"{"id":"s1:1","result":{}}"#);
    h.line(r#"{"id":"s1:2","result":{"thread":{"id":"t1"},"model":"gpt-5.5"}}"#);
    h
}

fn approval(method: &str, id: u64, item: &str) -> String {
    json!({"method": method, "id": id, "params": {"threadId": "t1", "turnId": "u1", "itemId": item, "command": "rm -rf build"}}).to_string()
}

#[test]
fn replies_map_to_codex_decisions() {
    for (reply, decision, status) in [
        (PermissionReply::Once, "accept", "accept"),
        (
            PermissionReply::Always,
            "acceptForSession",
            "accept_for_session",
        ),
        (PermissionReply::Reject, "decline", "reject"),
    ] {
        let mut h = ready("default");
        h.send("run: rm -rf build");
        h.line(r#"{"id":"s1:3","result":{"turn":{"id":"u1"}}}"#);
        let asked = h.line(&approval("item/commandExecution/requestApproval", 7, "c1"));
        assert!(asked[0].starts_with("permission.requested perm_1 shell: rm -rf build requested"));
        let answered = render(&h.session.reply_permission("perm_1".into(), reply).unwrap());
        assert_eq!(
            answered[0],
            format!(
                r#"write-stdin app-server "{{\"id\":7,\"result\":{{\"decision\":\"{decision}\"}}}}\n""#
            )
        );
        assert!(answered[1].starts_with(&format!(
            "permission.resolved perm_1 shell: rm -rf build {status}"
        )));
        assert!(h.session.reply_permission("perm_1".into(), reply).is_err());
    }
}

#[test]
fn a_second_session_attaches_to_a_running_server() {
    let (mut h, _) = Harness::new(config("s2", "default", "build"));
    // Replayed banner of the first session: its response, a global notification.
    assert!(h
        .line(r#"{"id":"s1:1","result":{"userAgent":"x"}}"#)
        .is_empty());
    assert!(h
        .line(r#"{"method":"remoteControl/status/changed","params":{"status":"disabled"}}"#)
        .is_empty());
    // The server is initialized already: go on with thread/start, no `initialized`.
    let opened = h.line(r#"{"error":{"code":-32600,"message":"Already initialized"},"id":"s2:1"}"#);
    assert_eq!(opened.len(), 1);
    assert!(opened[0].contains(r#"\"id\":\"s2:2\",\"method\":\"thread/start\""#));
    assert_eq!(
        h.line(r#"{"id":"s2:2","result":{"thread":{"id":"t2"}}}"#),
        ["set-native-session-id t2"]
    );
    // Lines of another session's thread and requests are not ours.
    assert!(h
        .line(r#"{"method":"turn/started","params":{"threadId":"t1","turn":{"id":"u9"}}}"#)
        .is_empty());
    assert!(h
        .line(&approval("item/commandExecution/requestApproval", 3, "c9").replace("t1", "t9"))
        .is_empty());
    assert!(h
        .line(r#"{"id":"s1:3","result":{"turn":{"id":"u9"}}}"#)
        .is_empty());
}

#[test]
fn an_idle_exit_resumes_the_thread_on_the_next_message() {
    let mut h = ready("default");
    let exit = h.session.on_exit(
        "app-server".into(),
        ExitStatus {
            code: Some(0),
            signal: None,
        },
    );
    assert!(exit.is_empty());
    let sent = h.send("hello again");
    assert_eq!(
        sent[0],
        r#"spawn app-server ["codex", "app-server"] share="app-server""#
    );
    assert!(sent[1].contains(r#"\"id\":\"s1:3\",\"method\":\"initialize\""#));
    let resumed = h.line(r#"{"id":"s1:3","result":{}}"#);
    assert!(resumed[1].contains(r#"\"method\":\"thread/resume\""#));
    assert!(resumed[1].contains(r#"\"threadId\":\"t1\""#));
    let turn = h.line(r#"{"id":"s1:4","result":{"thread":{"id":"t1"}}}"#);
    assert_eq!(turn[0], "set-native-session-id t1");
    assert!(turn[1].contains(r#"\"method\":\"turn/start\""#));
}

#[test]
fn an_exit_during_a_turn_ends_the_session_with_the_exit_code() {
    let mut h = ready("default");
    h.send("slow: 20");
    let actions = h.session.on_exit(
        "app-server".into(),
        ExitStatus {
            code: Some(3),
            signal: None,
        },
    );
    assert_eq!(
        render(&actions),
        [
            r#"error "codex app-server exited with exit code 3 during a turn" code=agent_exited (synthetic)"#,
            "turn.started (synthetic)",
            r#"item.started itm_1 message/user in_progress [text "slow: 20"] (synthetic)"#,
            r#"item.completed itm_1 message/user completed [text "slow: 20"] (synthetic)"#,
            r#"turn.ended {"status":"failed"} (synthetic)"#,
            r#"session.ended error by agent "codex app-server exited with exit code 3 during a turn" (synthetic)"#,
        ]
    );
    let Some(Action::Emit(EmittedEvent {
        event: Event::SessionEnded(ended),
        ..
    })) = actions.last()
    else {
        panic!("no session.ended");
    };
    assert_eq!(ended.exit_code, Some(3));
}

#[test]
fn a_missing_binary_ends_the_session() {
    let (mut h, _) = Harness::new(config("s1", "default", "build"));
    let failed = render(&h.session.on_spawn_failed(
        "app-server".into(),
        "not in the install dir nor on PATH".into(),
    ));
    assert_eq!(
        failed,
        [
            r#"error "could not start `codex app-server`: not in the install dir nor on PATH" code=spawn_failed (synthetic)"#,
            r#"session.ended error by agent "could not start `codex app-server`: not in the install dir nor on PATH" (synthetic)"#,
        ]
    );
}

#[test]
fn cancel_interrupts_and_codex_ends_the_turn() {
    let mut h = ready("default");
    h.send("slow: 20");
    h.line(r#"{"id":"s1:3","result":{"turn":{"id":"u1"}}}"#);
    h.line(r#"{"method":"turn/started","params":{"threadId":"t1","turn":{"id":"u1"}}}"#);
    h.line(r#"{"method":"item/started","params":{"threadId":"t1","turnId":"u1","item":{"type":"agentMessage","id":"m1","text":""}}}"#);
    h.line(r#"{"method":"item/agentMessage/delta","params":{"threadId":"t1","turnId":"u1","itemId":"m1","delta":"tick 1 "}}"#);
    let cancel = render(&h.session.cancel_turn());
    assert_eq!(
        cancel,
        [
            r#"write-stdin app-server "{\"id\":\"s1:4\",\"method\":\"turn/interrupt\",\"params\":{\"threadId\":\"t1\",\"turnId\":\"u1\"}}\n""#,
            "set-timer cancel 5000ms",
        ]
    );
    let ended = testing::render_without_raw(h.session.on_stdout(
        "app-server".into(),
        r#"{"method":"turn/completed","params":{"threadId":"t1","turn":{"id":"u1","status":"interrupted","error":null}}}"#.into(),
    ));
    assert_eq!(
        ended,
        [
            "cancel-timer cancel",
            r#"item.completed itm_2 message/assistant failed [text "tick 1 "] (synthetic)"#,
            r#"turn.ended u1 {"cancelled":true,"status":"interrupted"}"#,
        ]
    );
    // The late interrupt response and timer change nothing.
    assert!(h.line(r#"{"id":"s1:4","result":{}}"#).is_empty());
    assert!(h.session.on_timer("cancel".into()).is_empty());
}

#[test]
fn a_cancel_codex_does_not_confirm_ends_on_the_timer() {
    let mut h = ready("default");
    h.send("slow: 20");
    h.session.cancel_turn();
    // The turn/start response comes after the cancel: interrupt it then.
    let late = h.line(r#"{"id":"s1:3","result":{"turn":{"id":"u1"}}}"#);
    assert!(late[0].contains(r#"\"method\":\"turn/interrupt\""#));
    let ended = render(&h.session.on_timer("cancel".into()));
    assert_eq!(
        ended.last().unwrap(),
        r#"turn.ended u1 {"cancelled":true,"status":"interrupted"} (synthetic)"#
    );
}

#[test]
fn a_cancel_before_the_server_is_ready_ends_the_turn_at_once() {
    let (mut h, _) = Harness::new(config("s1", "default", "build"));
    assert!(h.send("hello").is_empty());
    let ended = render(&h.session.cancel_turn());
    assert_eq!(
        ended.last().unwrap(),
        r#"turn.ended {"cancelled":true,"status":"interrupted"} (synthetic)"#
    );
    // Once the thread is open, no turn is sent.
    h.line(r#"{"id":"s1:1","result":{}}"#);
    assert_eq!(
        h.line(r#"{"id":"s1:2","result":{"thread":{"id":"t1"}}}"#),
        ["set-native-session-id t1"]
    );
}

#[test]
fn plan_mode_sends_the_plan_collaboration_mode_and_asks_questions() {
    let (mut h, _) = Harness::new(config("s1", "default", "plan"));
    h.line(r#"{"id":"s1:1","result":{}}"#);
    let opened = h.line(r#"{"id":"s1:2","result":{"thread":{"id":"t1"},"model":"gpt-5.5"}}"#);
    assert_eq!(opened[0], "set-native-session-id t1");
    let sent = h.send("ask: Proceed?");
    assert!(sent[0].contains(r#"\"collaborationMode\":{\"mode\":\"plan\",\"settings\":{\"developer_instructions\":null,\"model\":\"gpt-5.5\",\"reasoning_effort\":null}}"#), "{}", sent[0]);
    h.line(r#"{"id":"s1:3","result":{"turn":{"id":"u1"}}}"#);
    let asked = h.line(&json!({"method": "item/tool/requestUserInput", "id": 4, "params": {
        "threadId": "t1", "turnId": "u1", "itemId": "c1", "isBlocking": true,
        "questions": [{"id": "q1", "header": "Question", "question": "Proceed?", "isOther": true, "isSecret": false,
            "options": [{"label": "yes", "description": "Yes."}, {"label": "no", "description": "No."}]}]}}).to_string());
    assert!(
        asked[0].starts_with(r#"question.requested question_1 requested "Proceed?" ["yes", "no"]"#)
    );
    let answered = render(
        &h.session
            .reply_question("question_1".into(), vec![vec!["yes".into()]])
            .unwrap(),
    );
    assert_eq!(
        answered[0],
        r#"write-stdin app-server "{\"id\":4,\"result\":{\"answers\":{\"q1\":{\"answers\":[\"yes\"]}}}}\n""#
    );
    assert_eq!(
        answered[1],
        r#"question.resolved question_1 answered "Proceed?" ["yes", "no"] response="yes""#
    );
}

#[test]
fn changed_modes_reach_the_thread_with_the_next_turn_and_once() {
    let mut h = ready("default");
    let sent = h.send("hi");
    assert!(!sent[0].contains("sandboxPolicy") && !sent[0].contains("collaborationMode"));
    h.line(r#"{"id":"s1:3","result":{"turn":{"id":"u1"}}}"#);
    h.line(r#"{"method":"turn/completed","params":{"threadId":"t1","turn":{"id":"u1","status":"completed"}}}"#);
    // The host rebuilds the session with the new modes, as after a PUT .../modes.
    let planning = config("s1", "default", "plan");
    h.session = CodexSession::restore(planning, &h.session.snapshot()).unwrap();
    let sent = h.send("plan it");
    for part in [
        r#"\"approvalPolicy\":\"untrusted\""#,
        r#"\"sandboxPolicy\":{\"type\":\"readOnly\"}"#,
        r#"\"collaborationMode\":{\"mode\":\"plan\""#,
    ] {
        assert!(sent[0].contains(part), "{part} not in {}", sent[0]);
    }
    h.line(r#"{"id":"s1:4","result":{"turn":{"id":"u2"}}}"#);
    h.line(r#"{"method":"turn/completed","params":{"threadId":"t1","turn":{"id":"u2","status":"completed"}}}"#);
    // Back to building: the thread leaves the plan mode and its read-only sandbox.
    let bypass = config("s1", "bypass", "build");
    h.session = CodexSession::restore(bypass, &h.session.snapshot()).unwrap();
    let sent = h.send("build it");
    for part in [
        r#"\"approvalPolicy\":\"never\""#,
        r#"\"sandboxPolicy\":{\"type\":\"dangerFullAccess\"}"#,
        r#"\"collaborationMode\":{\"mode\":\"default\""#,
    ] {
        assert!(sent[0].contains(part), "{part} not in {}", sent[0]);
    }
}

#[test]
fn model_and_variant_go_with_every_turn() {
    let mut c = config("s1", "default", "build");
    c.model = Some("gpt-5.5".into());
    c.variant = Some("high".into());
    let (mut h, _) = Harness::new(c);
    let opened = h.line(r#"{"id":"s1:1","result":{}}"#);
    assert!(opened[1].contains(r#"\"model\":\"gpt-5.5\""#));
    h.line(r#"{"id":"s1:2","result":{"thread":{"id":"t1"}}}"#);
    let sent = h.send("hi");
    assert!(
        sent[0].contains(r#"\"effort\":\"high\""#) && sent[0].contains(r#"\"model\":\"gpt-5.5\""#)
    );
    assert!(!sent[0].contains("collaborationMode"));
    // The host rebuilds the session with another variant, as after a PUT
    // .../modes: the next turn goes at it.
    h.line(r#"{"id":"s1:3","result":{"turn":{"id":"u1"}}}"#);
    h.line(r#"{"method":"turn/completed","params":{"threadId":"t1","turn":{"id":"u1","status":"completed"}}}"#);
    let mut changed = h.session.config().clone();
    changed.variant = Some("low".into());
    h.session = CodexSession::restore(changed, &h.session.snapshot()).unwrap();
    let sent = h.send("again");
    assert!(sent[0].contains(r#"\"effort\":\"low\""#), "{}", sent[0]);
}

#[test]
fn unknown_output_is_kept_as_unparsed() {
    let mut h = ready("default");
    assert_eq!(
        h.line("not json"),
        [r#"agent.unparsed stdout "not a JSON-RPC message" raw="not json""#]
    );
    let late = r#"{"method":"item/agentMessage/delta","params":{"threadId":"t1","turnId":"u0","itemId":"m0","delta":"x"}}"#;
    assert_eq!(
        h.line(late),
        [format!(
            r#"agent.unparsed stdout "notification outside the running turn" raw={late}"#
        )]
    );
}

#[test]
fn a_restored_session_continues_mid_turn() {
    let mut h = ready("default");
    h.send("run: ls");
    h.line(r#"{"id":"s1:3","result":{"turn":{"id":"u1"}}}"#);
    h.line(&approval("item/commandExecution/requestApproval", 5, "c1"));
    let bytes = h.session.snapshot();
    let mut restored = CodexSession::restore(config("s1", "default", "build"), &bytes).unwrap();
    assert_eq!(restored.snapshot(), bytes);
    let answered = render(
        &restored
            .reply_permission("perm_1".into(), PermissionReply::Once)
            .unwrap(),
    );
    assert!(answered[0].contains(r#"{\"id\":5,\"result\":{\"decision\":\"accept\"}}"#));
}

#[test]
fn terminate_interrupts_and_unsubscribes() {
    let mut h = ready("default");
    h.send("slow: 20");
    h.line(r#"{"id":"s1:3","result":{"turn":{"id":"u1"}}}"#);
    let ended = render_events(&h.session.terminate());
    assert_eq!(ended.last().unwrap(), "session.ended terminated by daemon");
    let actions = render(&h.session.terminate());
    assert!(actions.is_empty());
}

#[test]
fn mcp_servers_go_in_the_threads_config() {
    let mut config = config("s1", "default", "build");
    config.mcp_servers = vec![sandbox_agent_adapter_kit::testing::local_mcp_server(
        "calc",
        &["node", "add.mjs"],
    )];
    let params = crate::settings::thread_params(&config, None);
    assert_eq!(
        params["config"]["mcp_servers"],
        serde_json::json!({ "calc": { "command": "node", "args": ["add.mjs"], "env": { "MCP_KEY": "v" } } })
    );
    let plain = crate::settings::thread_params(&config_without_mcp(), None);
    assert!(plain.get("config").is_none(), "{plain}");
}

pub(crate) fn config_without_mcp() -> SessionConfig {
    config("s1", "default", "build")
}

const MOVED_THREAD: &str = "01a23a88-efeb-71f2-8114-0a3216797448";

/// The start of a rollout recorded at home `/tmp/mig/codex/A` in `/tmp/mig/codex/C1`
/// (Codex 0.169.0, shortened).
const ROLLOUT: &str = concat!(
    r#"{"timestamp":"2026-12-03T06:13:02.114Z","type":"session_meta","payload":{"id":"01a23a88-efeb-71f2-8114-0a3216797448","timestamp":"2026-12-03T06:13:02.101Z","cwd":"/tmp/mig/codex/C1","originator":"codex_app_server","cli_version":"0.169.0","runtime_workspace_roots":["/tmp/mig/codex/C1"],"model_provider":"fake","history_mode":"paginated"}}"#,
    "\n",
    r#"{"timestamp":"2026-12-03T06:13:02.120Z","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<skills_instructions>\n- `r0` = `/tmp/mig/codex/A/.codex/skills/.system`\n</skills_instructions>"}]}}"#,
    "\n",
    r#"{"timestamp":"2026-12-03T06:13:02.121Z","type":"turn_context","payload":{"cwd":"/tmp/mig/codex/C1","approval_policy":"on-request","model":"gpt-5.5"}}"#,
    "\n",
);

#[test]
fn a_thread_is_the_rollout_ending_in_its_id_under_codex_home() {
    use sandbox_agent_adapter_kit::types::Guest;
    let search =
        |at: &Place| <crate::Codex as Guest>::native_session_files(MOVED_THREAD.into(), at.clone());
    let expected = |folder: &str| {
        Ok(vec![NativeSource::Search(FileSearch {
            folder: folder.into(),
            depth: 3,
            suffix: format!("-{MOVED_THREAD}.jsonl"),
        })])
    };
    assert_eq!(
        search(&place("/tmp/mig/codex/A", "/tmp/mig/codex/C1", &[])),
        expected("/tmp/mig/codex/A/.codex/sessions")
    );
    assert_eq!(
        search(&place("/home/a", "/w", &[("CODEX_HOME", "/data/codex/")])),
        expected("/data/codex/sessions")
    );
    assert!(<crate::Codex as Guest>::info()
        .capabilities
        .iter()
        .any(|name| name == "move"));
}

#[test]
fn a_rollout_moves_under_the_new_codex_home_with_its_paths_rewritten() {
    use sandbox_agent_adapter_kit::types::Guest;
    let relative = format!("sessions/2026/12/03/rollout-2026-12-03T06-13-02-{MOVED_THREAD}.jsonl");
    let from = place(
        "/tmp/mig/codex/A",
        "/tmp/mig/codex/C1",
        &[("CODEX_HOME", "/tmp/mig/codex/A/.codex")],
    );
    let to = place("/tmp/mig/codex/B", "/tmp/mig/codex/C2", &[]);
    let moved = <crate::Codex as Guest>::move_native_file(
        format!("/tmp/mig/codex/A/.codex/{relative}"),
        ROLLOUT.as_bytes().to_vec(),
        from.clone(),
        to.clone(),
    )
    .unwrap()
    .into_file()
    .unwrap();
    assert_eq!(moved.path, format!("/tmp/mig/codex/B/.codex/{relative}"));
    let text = String::from_utf8(moved.contents).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["type"], "session_meta");
    assert_eq!(lines[0]["payload"]["id"], MOVED_THREAD);
    assert_eq!(lines[0]["payload"]["cwd"], "/tmp/mig/codex/C2");
    assert_eq!(
        lines[0]["payload"]["runtime_workspace_roots"],
        json!(["/tmp/mig/codex/C2"])
    );
    assert!(lines[1]["payload"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("`/tmp/mig/codex/B/.codex/skills/.system`"));
    assert_eq!(lines[2]["payload"]["cwd"], "/tmp/mig/codex/C2");
    assert!(
        !text.contains("/tmp/mig/codex/A") && !text.contains("/C1"),
        "{text}"
    );

    // A `CODEX_HOME` outside the home at the new place: the rollout goes there.
    let elsewhere = place("/root", "/srv/p", &[("CODEX_HOME", "/data/codex")]);
    let moved = <crate::Codex as Guest>::move_native_file(
        format!("/tmp/mig/codex/A/.codex/{relative}"),
        ROLLOUT.as_bytes().to_vec(),
        from,
        elsewhere.clone(),
    )
    .unwrap()
    .into_file()
    .unwrap();
    assert_eq!(moved.path, format!("/data/codex/{relative}"));
    let text = String::from_utf8(moved.contents).unwrap();
    assert!(text.contains("`/data/codex/skills/.system`"), "{text}");
    assert!(text.contains(r#""cwd":"/srv/p""#), "{text}");

    // And back to a home without `CODEX_HOME`: under its `.codex`.
    let moved = <crate::Codex as Guest>::move_native_file(
        format!("/data/codex/{relative}"),
        ROLLOUT.as_bytes().to_vec(),
        elsewhere,
        to,
    )
    .unwrap()
    .into_file()
    .unwrap();
    assert_eq!(moved.path, format!("/tmp/mig/codex/B/.codex/{relative}"));
}

sandbox_agent_adapter_kit::fuzz_test!(crate::CodexSession, transcripts: ["transcripts"], captures: ["testdata"]);

#[test]
fn an_mcp_tools_image_is_an_image_part_of_its_result() {
    let mut h = ready("bypass");
    h.send("mcp: screenshot {}");
    h.line(r#"{"id":"s1:3","result":{"turn":{"id":"u1"}}}"#);
    h.line(r#"{"method":"turn/started","params":{"threadId":"t1","turn":{"id":"u1"}}}"#);
    h.line(r#"{"method":"item/started","params":{"threadId":"t1","turnId":"u1","item":{"type":"mcpToolCall","id":"call_2","server":"desktop","tool":"screenshot","arguments":{},"status":"inProgress","result":null,"error":null}}}"#);
    // As Codex reports an MCP tool's image (the bytes shortened).
    let completed = testing::render_without_raw(h.session.on_stdout(
        "app-server".into(),
        r#"{"method":"item/completed","params":{"threadId":"t1","turnId":"u1","item":{"type":"mcpToolCall","id":"call_2","server":"desktop","tool":"screenshot","arguments":{},"status":"completed","error":null,"result":{"_meta":null,"content":[{"data":"iVBORw0KGgo=","mimeType":"image/png","type":"image"},{"text":"the whole screen, 800x600 pixels","type":"text"}]}}}}"#.into(),
    ));
    let result = completed
        .iter()
        .find(|line| line.contains("tool_result/tool completed"))
        .unwrap_or_else(|| panic!("{completed:#?}"));
    assert!(
        result.contains(r#"image data:image/png;base64,iVBORw0KGgo= image/png"#),
        "{result}"
    );
}

/// A policy that allows every command and patch is Codex's own approval policy
/// `never`: the thread and each turn are started with it, the commands it runs
/// are reported as decided natively, and a policy replaced mid-turn that no
/// longer allows them stops the turn.
#[test]
fn a_policy_allowing_every_call_is_handed_as_never_and_revoked_mid_turn() {
    let all = ApprovalPolicy {
        rules: Vec::new(),
        default: PolicyDecision::Allow,
    };
    let mut config = config("s1", "default", "build");
    config.policy = Some(all);
    let (mut h, _) = Harness::new(config);
    let opened = h.line(r#"{"id":"s1:1","result":{}}"#);
    assert!(
        opened
            .iter()
            .any(|line| line.contains(r#"\"approvalPolicy\":\"never\""#)),
        "{opened:?}"
    );
    h.line(r#"{"id":"s1:2","result":{"thread":{"id":"t1"},"model":"gpt-5.5"}}"#);
    let sent = h.send("run: echo hello");
    assert!(
        sent.iter()
            .any(|line| line.contains("turn/start")
                && line.contains(r#"\"approvalPolicy\":\"never\""#)),
        "{sent:?}"
    );
    h.line(r#"{"id":"s1:3","result":{"turn":{"id":"u1"}}}"#);
    h.line(r#"{"method":"turn/started","params":{"threadId":"t1","turn":{"id":"u1"}}}"#);
    let item = |status: &str| {
        json!({"method": format!("item/{status}"), "params": {"threadId": "t1", "turnId": "u1", "item": {
            "type": "commandExecution", "id": "call_1", "command": "/bin/bash -lc 'echo hello'",
            "cwd": "/workspace", "status": if status == "started" { "inProgress" } else { "completed" },
            "commandActions": [], "aggregatedOutput": "hello\n", "exitCode": 0}}})
        .to_string()
    };
    h.line(&item("started"));
    h.line(&item("completed"));
    let decided = h.session.native_decisions();
    assert_eq!(decided.len(), 1, "{decided:?}");
    let shell = sandbox_agent_adapter_kit::tool_request::shell("echo hello");
    assert_eq!(decided[0].request, shell);
    assert_eq!(decided[0].decision, PolicyDecision::Allow);

    // Replaced by a policy that asks about commands: the running turn stops.
    let asks = ApprovalPolicy {
        rules: Vec::new(),
        default: PolicyDecision::Ask,
    };
    let stopped = render(&h.session.set_policy(Some(asks)));
    assert!(
        stopped[0].starts_with("error ") && stopped[0].contains("policy_replaced"),
        "{stopped:?}"
    );
    assert!(
        stopped.iter().any(|line| line.contains("turn/interrupt")),
        "{stopped:?}"
    );
    // The next turn asks again.
    h.line(r#"{"method":"turn/completed","params":{"threadId":"t1","turn":{"id":"u1","status":"interrupted","error":null}}}"#);
    let sent = h.send("run: echo again");
    assert!(
        sent.iter()
            .any(|line| line.contains(r#"\"approvalPolicy\":\"untrusted\""#)),
        "{sent:?}"
    );
}
