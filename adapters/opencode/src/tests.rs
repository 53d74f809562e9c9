//! The adapter against recordings of the real `opencode serve` 1.18.33: the cases in
//! `transcripts/` (event streams and HTTP answers recorded with a scripted model
//! server) replayed natively, one rendered line per action, plus focused cases.

use sandbox_agent_adapter_kit::native_rules::NativeRules;
use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing::{self, check};
use sandbox_agent_adapter_kit::transcript::render;
use serde_json::Value;

use crate::{api, OpenCodeSession};

mod policy;

sandbox_agent_adapter_kit::facts_test!(crate::OpenCode, "facts.json");

/// A session config as the transcripts' `create` line spells it.
pub(crate) fn config(line: Option<&Value>) -> SessionConfig {
    testing::replay::config_of(line.map_or(&Value::Null, |l| &l["config"]))
}

/// Replays a transcript case, returning the rendered actions of every input (inputs
/// answered with `Err` render as `error: ...`).
fn replay(case: &str) -> Vec<String> {
    let lines: Vec<Value> = case
        .lines()
        .map(|l| serde_json::from_str(l).expect("input line"))
        .collect();
    let create = lines.iter().find(|l| l["input"] == "create");
    let mut session = OpenCodeSession::new(config(create));
    let mut rendered = Vec::new();
    for line in &lines {
        let text = |name: &str| line[name].as_str().unwrap_or_default().to_owned();
        let actions = match line["input"].as_str().unwrap_or_default() {
            "create" => continue,
            "start" => Ok(session.start()),
            "sendMessage" => Ok(session.send_message(vec![MessagePart::Text(text("text"))])),
            "replyPermission" => {
                let reply = match line["reply"].as_str() {
                    Some("once") => PermissionReply::Once,
                    Some("always") => PermissionReply::Always,
                    _ => PermissionReply::Reject,
                };
                session.reply_permission(text("id"), reply)
            }
            "cancelTurn" => Ok(session.cancel_turn()),
            "terminate" => Ok(session.terminate()),
            "stdout" => Ok(session.on_stdout(text("process"), text("line"))),
            "exit" => Ok(session.on_exit(
                text("process"),
                ExitStatus {
                    code: line["code"].as_i64().map(|c| c as i32),
                    signal: None,
                },
            )),
            "httpResponse" => Ok(session.on_http_response(HttpResponse {
                request_id: text("request"),
                status: line["status"].as_u64().unwrap_or(0) as u16,
                headers: Vec::new(),
                body: text("body").into_bytes(),
            })),
            "sseEvent" => Ok(session.on_sse_event(SseEvent {
                stream_id: text("stream"),
                event: text("event"),
                data: text("data"),
                id: None,
            })),
            other => panic!("input {other} not replayed by these tests"),
        };
        match actions {
            Ok(actions) => rendered.extend(render(&actions)),
            Err(error) => rendered.push(format!("error: {error}")),
        }
        // Every state must survive a snapshot.
        let bytes = session.snapshot();
        session = OpenCodeSession::restore(config(create), &bytes).expect("snapshot restores");
    }
    rendered
}

/// The rendered lines without raw payloads (they repeat the inputs) and without deltas.
fn events(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|line| !line.starts_with("item.delta"))
        .map(|line| match line.find(" raw=") {
            Some(at) => {
                let synthetic = line.ends_with(" (synthetic)");
                format!(
                    "{}{}",
                    &line[..at],
                    if synthetic { " (synthetic)" } else { "" }
                )
            }
            None => line.clone(),
        })
        .collect()
}

/// The start of every case: the server spawned, its URL read, the stream opened and
/// the native session created.
fn check_start(lines: &[String]) {
    assert!(
        lines[0].starts_with("session.started {\"agent\":\"opencode\""),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with("spawn server [\"opencode\", \"serve\", \"--hostname\", \"127.0.0.1\", \"--port\", \"0\"]"), "{}", lines[1]);
    assert!(lines[1].contains("share=\"opencode-serve-"), "{}", lines[1]);
    assert_eq!(
        lines[2],
        "open-sse events http://127.0.0.1:4096/event?directory=/workspace"
    );
    assert_eq!(
        lines[3],
        "http-request create POST http://127.0.0.1:4096/session?directory=/workspace"
    );
    assert!(
        lines[4].starts_with("set-native-session-id ses_"),
        "{}",
        lines[4]
    );
}

#[test]
fn text_turn_streams_and_reports_usage() {
    let lines = events(&replay(include_str!("../transcripts/text_echo.jsonl")));
    check_start(&lines);
    let sid = lines[4].trim_start_matches("set-native-session-id ");
    check(
        lines[5..].to_vec(),
        &[
            "turn.started turn_1 (synthetic)",
            "item.started itm_1 message/user in_progress [text \"hello there\"] (synthetic)",
            "item.completed itm_1 message/user completed [text \"hello there\"] (synthetic)",
            &format!("http-request prompt-1 POST http://127.0.0.1:4096/session/{sid}/prompt_async?directory=/workspace"),
            "item.started itm_2 message/assistant in_progress []",
            "item.completed itm_2 message/assistant completed [text \"Echo: hello there\"]",
            "turn.ended turn_1 usage(in=100 out=10 cached=0 reasoning=0 cost=$0)",
            "close-sse events",
            "session.ended terminated by daemon",
        ],
    );
}

/// The recorded cases, by name.
const CASES: &[(&str, &str)] = &[
    ("text_echo", include_str!("../transcripts/text_echo.jsonl")),
    (
        "permission_once",
        include_str!("../transcripts/permission_once.jsonl"),
    ),
    (
        "permission_always",
        include_str!("../transcripts/permission_always.jsonl"),
    ),
    (
        "permission_reject",
        include_str!("../transcripts/permission_reject.jsonl"),
    ),
    (
        "write_files",
        include_str!("../transcripts/write_files.jsonl"),
    ),
    (
        "write_permission",
        include_str!("../transcripts/write_permission.jsonl"),
    ),
    ("reasoning", include_str!("../transcripts/reasoning.jsonl")),
    ("read_file", include_str!("../transcripts/read_file.jsonl")),
    (
        "provider_error",
        include_str!("../transcripts/provider_error.jsonl"),
    ),
    (
        "cancel_slow",
        include_str!("../transcripts/cancel_slow.jsonl"),
    ),
    (
        "plan_agent",
        include_str!("../transcripts/plan_agent.jsonl"),
    ),
    (
        "shared_directory_a",
        include_str!("../transcripts/shared_directory_a.jsonl"),
    ),
    (
        "shared_directory_b",
        include_str!("../transcripts/shared_directory_b.jsonl"),
    ),
];

/// The rendered events of a case.
fn case(name: &str) -> Vec<String> {
    let (_, text) = CASES.iter().find(|(n, _)| *n == name).expect("known case");
    events(&replay(text))
}

/// Lines that start with one of `prefixes`, in order.
fn only(lines: &[String], prefixes: &[&str]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| prefixes.iter().any(|p| l.starts_with(p)))
        .cloned()
        .collect()
}

#[test]
fn every_recording_has_the_universal_shape() {
    for (name, text) in CASES {
        let lines = events(&replay(text));
        check_start(&lines);
        assert!(
            !lines.iter().any(|l| l.starts_with("agent.unparsed")),
            "{name}: {lines:#?}"
        );
        let started = lines
            .iter()
            .filter(|l| l.starts_with("turn.started"))
            .count();
        let ended = lines.iter().filter(|l| l.starts_with("turn.ended")).count();
        assert_eq!(
            (started, ended),
            (started, started),
            "{name}: every turn ends"
        );
        assert_eq!(
            lines.last().map(String::as_str),
            Some("session.ended terminated by daemon"),
            "{name}"
        );
    }
}

#[test]
fn permission_replies_map_to_opencode_replies() {
    for (name, status) in [
        ("permission_once", "accept"),
        ("permission_always", "accept_for_session"),
        ("permission_reject", "reject"),
    ] {
        let lines = only(&case(name), &["permission.", "http-request permission"]);
        assert_eq!(lines.len(), 3, "{name}: {lines:#?}");
        assert!(
            lines[0].contains(" bash: echo hello requested {"),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].contains(&format!(" bash: echo hello {status} {{")),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].starts_with(
                "http-request permission_1 POST http://127.0.0.1:4096/permission/per_"
            ),
            "{}",
            lines[2]
        );
    }
    // A rejected call fails its result and OpenCode ends the turn.
    let rejected = only(&case("permission_reject"), &["item.completed itm_4"]);
    check(rejected, &["item.completed itm_4 tool_result/tool failed parent=itm_3 [tool_result call_1 \"The user rejected permission to use this specific tool call.\"]"]);
    // `always` covers the next matching command: no second request.
    let always = case("permission_always");
    assert_eq!(
        always
            .iter()
            .filter(|l| l.starts_with("permission.requested"))
            .count(),
        1
    );
}

#[test]
fn commands_become_tool_calls_with_streamed_output() {
    let lines = replay(CASES[1].1);
    let tool: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("itm_3") || l.contains("itm_4"))
        .collect();
    assert!(
        tool[0].starts_with(
            "item.started itm_3 tool_call/assistant in_progress [tool_call call_1 bash {}]"
        ),
        "{}",
        tool[0]
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("item.delta itm_4 \"hello\\n\"")),
        "{lines:#?}"
    );
    let done = only(
        &case("permission_once"),
        &["item.completed itm_3", "item.completed itm_4"],
    );
    check(
        done,
        &[
            "item.completed itm_3 tool_call/assistant completed [tool_call call_1 bash {\"command\":\"echo hello\",\"description\":\"Run the command\"}]",
            "item.completed itm_4 tool_result/tool completed parent=itm_3 [tool_result call_1 \"hello\\n\"]",
        ],
    );
}

#[test]
fn file_tools_carry_file_refs_and_diffs() {
    let written = only(&case("write_permission"), &["item.completed itm_4"]);
    assert!(
        written[0].contains("file_ref write /workspace/a.txt diff=\"Index: /workspace/a.txt\\n"),
        "{}",
        written[0]
    );
    let bypass = only(&case("write_files"), &["item.completed itm_4"]);
    assert!(
        bypass[0].ends_with("file_ref write /workspace/hello.txt]"),
        "{}",
        bypass[0]
    );
    let read = only(&case("read_file"), &["item.completed itm_3"]);
    assert!(read[0].ends_with("file_ref read notes.txt]"), "{}", read[0]);
}

#[test]
fn reasoning_is_its_own_item() {
    let lines = only(
        &case("reasoning"),
        &["item.completed itm_2", "item.completed itm_3"],
    );
    check(
        lines,
        &[
            "item.completed itm_2 message/assistant completed [reasoning public \"Let me think about rust.\"]",
            "item.completed itm_3 message/assistant completed [text \"Thought about rust.\"]",
        ],
    );
}

#[test]
fn provider_errors_end_the_turn_and_the_session_goes_on() {
    let lines = only(
        &case("provider_error"),
        &["error", "turn.", "item.completed itm_3"],
    );
    assert_eq!(lines.len(), 6, "{lines:#?}");
    assert!(
        lines[1].starts_with("error \"bad request here\" code=api_error {"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "turn.ended turn_1");
    assert_eq!(
        lines[4],
        "item.completed itm_3 message/assistant completed [text \"Echo: hello again\"]"
    );
}

#[test]
fn cancel_aborts_and_ends_the_turn_at_once() {
    let lines = case("cancel_slow");
    let at = lines
        .iter()
        .position(|l| l.starts_with("http-request abort_1"))
        .expect("abort sent");
    assert!(lines[at].ends_with("/abort?directory=/workspace"));
    check(
        lines[at + 1..at + 3].to_vec(),
        &[
            "item.completed itm_2 message/assistant failed [text \"tick 0 tick 1 tick 2 \"] (synthetic)",
            "turn.ended turn_1 {\"cancelled\":true} (synthetic)",
        ],
    );
    // OpenCode's late abort error, idle and final text of the cancelled turn are ignored.
    assert_eq!(lines[at + 3], "turn.started turn_2 (synthetic)");
    assert!(lines.contains(
        &"item.completed itm_4 message/assistant completed [text \"Echo: hello after abort\"]"
            .to_owned()
    ));
}

#[test]
fn two_sessions_in_one_directory_keep_their_own_events() {
    for (name, text) in [
        (
            "shared_directory_a",
            "tick 0 tick 1 tick 2 tick 3 tick 4 tick 5 ",
        ),
        ("shared_directory_b", "Echo: hello from b"),
    ] {
        let lines = only(&case(name), &["item.completed itm_2", "turn.ended"]);
        assert_eq!(
            lines[0],
            format!("item.completed itm_2 message/assistant completed [text {text:?}]"),
            "{name}"
        );
        assert_eq!(lines.len(), 2, "{name}: {lines:#?}");
    }
}

#[test]
fn plan_mode_runs_the_plan_agent_without_session_rules() {
    let plan = config(Some(
        &serde_json::json!({"config": {"agentMode": "plan", "permissionMode": "plan"}}),
    ));
    assert_eq!(api::agent(&plan), "plan");
    assert_eq!(
        api::create_session(&plan, &NativeRules::default()).get("permission"),
        None
    );
    let body = api::prompt(&plan, &[MessagePart::Text("hi".into())]);
    assert_eq!(body["agent"], "plan");
    let bypass = config(Some(
        &serde_json::json!({"config": {"permissionMode": "bypass", "model": "fake/fake-model", "variant": "high"}}),
    ));
    assert_eq!(
        api::create_session(&bypass, &NativeRules::default())["permission"],
        serde_json::json!([{"permission": "*", "pattern": "*", "action": "allow"}])
    );
    let body = api::prompt(&bypass, &[MessagePart::Text("hi".into())]);
    assert_eq!(
        body["model"],
        serde_json::json!({"providerID": "fake", "modelID": "fake-model"})
    );
    assert_eq!(
        (body["agent"].as_str(), body["variant"].as_str()),
        (Some("build"), Some("high"))
    );
    let default = api::create_session(&config(None), &NativeRules::default());
    assert_eq!(
        default["permission"][0],
        serde_json::json!({"permission": "bash", "pattern": "*", "action": "ask"})
    );
}

/// A started session whose server listens and whose native session exists.
/// A reply OpenCode answers "not found" (it settled the request itself, as when it
/// rejects a session's other pending requests along with a rejected one) is no
/// error of the session; any other failed reply still is.
#[test]
fn a_reply_to_a_request_opencode_settled_itself_is_no_error() {
    let mut session = ready();
    let answer = |session: &mut OpenCodeSession, status: u16, body: &str| {
        let asked = serde_json::json!({"id": "evt_1", "type": "permission.asked", "properties": {
            "id": "per_1", "sessionID": "ses_1", "permission": "bash",
            "patterns": ["echo hi"], "metadata": {}, "always": []}});
        session.on_sse_event(SseEvent {
            stream_id: "events".into(),
            event: "message".into(),
            data: asked.to_string(),
            id: None,
        });
        let replied = render(
            &session
                .reply_permission("per_1".into(), PermissionReply::Once)
                .unwrap(),
        );
        let request = replied
            .iter()
            .find(|l| l.starts_with("http-request permission_"))
            .unwrap();
        let request_id = request.split(' ').nth(1).unwrap().to_owned();
        render(&session.on_http_response(HttpResponse {
            request_id,
            status,
            headers: Vec::new(),
            body: body.as_bytes().to_vec(),
        }))
    };
    let not_found = r#"{"_tag":"PermissionNotFoundError","requestID":"per_1","message":"Permission request not found: per_1"}"#;
    assert_eq!(answer(&mut session, 404, not_found), Vec::<String>::new());
    for (status, body) in [(500, not_found), (404, "<html>Not Found</html>")] {
        let lines = answer(&mut session, status, body);
        assert_eq!(lines.len(), 1, "{lines:#?}");
        assert!(
            lines[0].starts_with("error ") && lines[0].contains("request_failed"),
            "{lines:#?}"
        );
    }
}

fn ready() -> OpenCodeSession {
    let mut session = OpenCodeSession::new(config(None));
    session.start();
    session.on_stdout(
        "server".into(),
        "opencode server listening on http://127.0.0.1:4096".into(),
    );
    session.on_http_response(HttpResponse {
        request_id: "create".into(),
        status: 200,
        headers: Vec::new(),
        body: br#"{"id":"ses_1","directory":"/workspace"}"#.to_vec(),
    });
    session
}

fn exit(session: &mut OpenCodeSession, code: i32) -> Vec<String> {
    render(&session.on_exit(
        "server".into(),
        ExitStatus {
            code: Some(code),
            signal: None,
        },
    ))
}

#[test]
fn the_server_dying_mid_turn_ends_the_session() {
    let mut session = ready();
    session.send_message(vec![MessagePart::Text("hi".into())]);
    check(
        exit(&mut session, 1),
        &[
            "error \"opencode serve exited during a turn with exit code 1\" code=agent_exited (synthetic)",
            "session.ended error by agent \"opencode serve exited during a turn with exit code 1\" (synthetic)",
        ],
    );
}

#[test]
fn the_server_exiting_between_turns_restarts_with_the_same_native_session() {
    let mut session = ready();
    assert!(exit(&mut session, 0).is_empty());
    let sent = render(&session.send_message(vec![MessagePart::Text("again".into())]));
    assert!(sent[3].starts_with("spawn server "), "{sent:#?}");
    let connected = render(&session.on_stdout(
        "server".into(),
        "opencode server listening on http://127.0.0.1:5000".into(),
    ));
    check(
        connected,
        &[
            "open-sse events http://127.0.0.1:5000/event?directory=/workspace",
            "http-request prompt-1 POST http://127.0.0.1:5000/session/ses_1/prompt_async?directory=/workspace",
        ],
    );
}

#[test]
fn a_missing_binary_ends_the_session() {
    let mut session = OpenCodeSession::new(config(None));
    session.start();
    check(
        render(&session.on_spawn_failed("server".into(), "No such file or directory".into())),
        &[
            "error \"could not start opencode: No such file or directory\" code=spawn_failed (synthetic)",
            "session.ended error by agent \"could not start opencode: No such file or directory\" (synthetic)",
        ],
    );
}

#[test]
fn resuming_skips_session_creation() {
    let mut resumed = config(None);
    resumed.resume_native_session_id = Some("ses_old".into());
    let mut session = OpenCodeSession::new(resumed);
    assert_eq!(render(&session.start())[0], "set-native-session-id ses_old");
    let connected = render(&session.on_stdout(
        "server".into(),
        "opencode server listening on http://127.0.0.1:4096".into(),
    ));
    assert_eq!(
        connected,
        ["open-sse events http://127.0.0.1:4096/event?directory=/workspace"]
    );
}

#[test]
fn opencode_names_four_formats_pointed_by_the_adapter() {
    let apis = <crate::OpenCode as Adapter>::model_apis();
    let formats: std::collections::BTreeSet<_> =
        apis.iter().map(|api| format!("{:?}", api.format)).collect();
    assert_eq!(formats.len(), 4, "{formats:?}");
    assert!(apis
        .iter()
        .all(|api| api.pointing == ModelApiPointing::Adapter));
    let providers: Vec<_> = apis.iter().map(|api| api.provider.as_str()).collect();
    assert_eq!(
        providers,
        [
            "anthropic",
            "custom",
            "openai",
            "custom",
            "openrouter",
            "custom",
            "google",
            "custom"
        ],
        "each built-in provider before the custom one of its format"
    );
    assert_eq!(
        apis[2].base_url_env,
        ["AGENTPLEX_OPENCODE_OPENAI_BASE_URL", "OPENAI_BASE_URL"]
    );
    assert_eq!(
        apis[2].key_env,
        ["AGENTPLEX_OPENCODE_OPENAI_API_KEY", "OPENAI_API_KEY"],
        "a configured apiKey wins, as in OpenCode"
    );
}

#[test]
fn the_configuration_is_read_in_the_order_opencode_merges_it() {
    let at = Locations::new(
        Some("/home/u".into()),
        vec![
            ("XDG_CONFIG_HOME".into(), "/cfg".into()),
            ("OPENCODE_CONFIG".into(), "/etc/oc.json".into()),
            ("OPENCODE_CONFIG_DIR".into(), "/ocdir".into()),
            ("PWD".into(), "/work/app".into()),
        ],
    );
    let files = <crate::OpenCode as Adapter>::credential_files(at);
    let mut expected = vec![
        "/home/u/.local/share/opencode/auth.json".to_owned(),
        "env:OPENCODE_CONFIG_CONTENT".to_owned(),
    ];
    for dir in [
        "/ocdir",
        "/home/u/.opencode",
        "/.opencode",
        "/work/.opencode",
        "/work/app/.opencode",
        "/work/app",
        "/work",
        "",
    ] {
        expected.extend(["opencode.jsonc", "opencode.json"].map(|name| format!("{dir}/{name}")));
    }
    expected.extend(
        [
            "/etc/oc.json",
            "/cfg/opencode/opencode.jsonc",
            "/cfg/opencode/opencode.json",
            "/cfg/opencode/config.json",
        ]
        .map(str::to_owned),
    );
    for dir in ["/work/app", "/work", ""] {
        expected.extend([".git", ".git/HEAD"].map(|name| format!("{dir}/{name}")));
    }
    for name in &mut expected[1..] {
        *name = format!("merge:{name}");
    }
    assert_eq!(files, expected);
    let auth = r#"{"anthropic": {"type": "api", "key": "sk-ant"}}"#;
    let read = <crate::OpenCode as Adapter>::parse_credentials(files[0].clone(), auth.into());
    assert_eq!(read.found[0].env.as_deref(), Some("ANTHROPIC_API_KEY"));
}

/// Found by fuzzing: an empty id in OpenCode's answer to `POST /session` (`[""]`
/// reads as one) was passed on as the native session id, which the host refuses,
/// ending the session with a vague error.
#[test]
fn a_created_session_without_an_id_fails_clearly() {
    for body in [r#"{"id":""}"#, r#"[""]"#] {
        let mut case = String::new();
        for line in include_str!("../transcripts/text_echo.jsonl").lines() {
            let mut input: Value = serde_json::from_str(line).expect("input line");
            let create = input["input"] == "httpResponse" && input["request"] == "create";
            if create {
                input["body"] = body.into();
            }
            case.push_str(&format!("{input}\n"));
            if create {
                break;
            }
        }
        let lines = replay(&case);
        assert!(
            !lines.iter().any(|l| l.starts_with("set-native-session-id")),
            "{body}: {lines:#?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.contains("POST /session without a session")),
            "{body}: {lines:#?}"
        );
    }
}

sandbox_agent_adapter_kit::fuzz_test!(crate::OpenCodeSession, transcripts: ["transcripts"], captures: ["captures"]);

#[test]
fn a_tools_images_are_image_parts_of_its_result() {
    // The recorded call, its completion given an image as OpenCode attaches an MCP
    // tool's image (`state.attachments`, a `data:` URL).
    let (_, text) = CASES.iter().find(|(n, _)| *n == "permission_once").unwrap();
    let title = r#"\"title\":\"echo hello\""#;
    let attached = format!(
        r#"\"attachments\":[{{\"type\":\"file\",\"mime\":\"image/png\",\"url\":\"data:image/png;base64,iVBORw0KGgo=\"}},{{\"type\":\"file\",\"mime\":\"text/plain\",\"url\":\"data:text/plain;base64,aGk=\"}}],{title}"#
    );
    assert!(text.contains(title));
    let lines = events(&replay(&text.replace(title, &attached)));
    let done = only(&lines, &["item.completed itm_4"]);
    assert!(
        done[0].ends_with(
            r#"[tool_result call_1 "hello\n", image data:image/png;base64,iVBORw0KGgo= image/png]"#
        ),
        "{}",
        done[0]
    );
}

#[test]
fn a_model_that_is_not_provider_slash_model_is_said_once_and_left_out() {
    let mut session = OpenCodeSession::new(config(Some(
        &serde_json::json!({"config": {"model": "opus"}}),
    )));
    session.start();
    let said = |actions: Vec<Action>| {
        render(&actions)
            .into_iter()
            .filter(|line| line.contains("model_refused"))
            .count()
    };
    assert_eq!(
        said(session.send_message(vec![MessagePart::Text("hi".into())])),
        1
    );
    let opus = config(Some(&serde_json::json!({"config": {"model": "opus"}})));
    let body = api::prompt(&opus, &[MessagePart::Text("hi".into())]);
    assert_eq!(body.get("model"), None, "{body}");
}
