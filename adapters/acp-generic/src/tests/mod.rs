//! The launch and the static facts; the session itself is the kit's ACP session,
//! run for real against registry agents by the conformance suite.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing;
use sandbox_agent_adapter_kit::transcript::render;

use crate::GenericSession;

sandbox_agent_adapter_kit::facts_test!(crate::Generic, "../facts.json");

mod options;

#[test]
fn starts_the_installed_launcher_alone_and_opens_acp() {
    let config = SessionConfig {
        agent_binary: Some("/opt/agents/some-agent".into()),
        ..testing::config()
    };
    let started = render(&GenericSession::new(config).start());
    assert!(
        started[1].contains(r#"["/opt/agents/some-agent"]"#),
        "{started:?}"
    );
    assert!(
        started[2].starts_with("write-stdin acp_1") && started[2].contains("initialize"),
        "{started:?}"
    );
}

#[test]
fn without_a_binary_it_names_itself() {
    let started = render(&GenericSession::new(testing::config()).start());
    assert!(started[1].contains(r#"["acp-generic"]"#), "{started:?}");
}

/// A session in `mode` whose agent answered `initialize` and `session/new`
/// (`native-1`), with `prompt` sent; its agent process id.
fn prompted(mode: &str, prompt: &str) -> (GenericSession, String) {
    let config = SessionConfig {
        permission_mode: mode.into(),
        ..testing::config()
    };
    let mut session = GenericSession::new(config);
    session.start();
    let process = "acp_1".to_owned();
    session.on_stdout(process.clone(), reply(1, r#"{"protocolVersion":1}"#));
    session.on_stdout(process.clone(), reply(2, r#"{"sessionId":"native-1"}"#));
    session.send_message(vec![MessagePart::Text(prompt.into())]);
    (session, process)
}

/// A permission request in `bypass` mode is allowed by the session at once (the
/// agent's "always" option), and none in `default` mode is.
#[test]
fn bypass_allows_what_the_agent_asks_and_default_asks_the_client() {
    for (mode, answered) in [("bypass", true), ("default", false)] {
        let (mut session, process) = prompted(mode, "run: touch x");
        let request = r#"{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"native-1","toolCall":{"toolCallId":"t1","title":"touch x","kind":"execute"},"options":[{"optionId":"yes","name":"Yes","kind":"allow_once"},{"optionId":"always","name":"Always","kind":"allow_always"},{"optionId":"no","name":"No","kind":"reject_once"}]}}"#;
        let lines = render(&session.on_stdout(process.clone(), request.into()));
        let allowed = lines
            .iter()
            .any(|line| line.contains(r#"\"optionId\":\"always\""#) && line.contains("selected"));
        let asked = lines
            .iter()
            .any(|line| line.contains("permission.requested"));
        assert_eq!(
            (allowed, asked),
            (answered, !answered),
            "{mode}: {lines:#?}"
        );
    }
}

/// A tool call's `rawInput` is in its arguments, and an update that gives its
/// output only as `rawOutput` (as Codex's ACP build does) has it in the result.
#[test]
fn raw_input_and_raw_output_are_shown() {
    let (mut session, process) = prompted("default", "run: printf x");
    let call = update(
        r#"{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Run printf x","kind":"execute","status":"in_progress","rawInput":{"command":["printf","x"]}}"#,
    );
    let started = testing::render_without_raw(session.on_stdout(process.clone(), call));
    assert!(
        started
            .iter()
            .any(|l| l.contains("rawInput") && l.contains("printf")),
        "{started:#?}"
    );
    let done = update(
        r#"{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","rawOutput":{"stdout":"out-42","exit_code":0}}"#,
    );
    let finished = testing::render_without_raw(session.on_stdout(process, done));
    assert!(
        finished
            .iter()
            .any(|l| l.contains("tool_result") && l.contains("out-42")),
        "{finished:#?}"
    );
}

/// An `edit` call that completes without a diff (Pi's ACP build writing a new
/// file) still reports the file it names as written; the session's details and
/// configuration options are updates shown as nothing, not as unparsed.
#[test]
fn an_edit_without_a_diff_names_its_file_and_detail_updates_are_silent() {
    let (mut session, process) = prompted("default", "write: notes.txt: hi");
    for silent in [
        r#"{"sessionUpdate":"session_info_update","title":"Notes"}"#,
        r#"{"sessionUpdate":"config_option_update","configOptions":[]}"#,
    ] {
        let shown = testing::render_without_raw(session.on_stdout(process.clone(), update(silent)));
        assert!(shown.is_empty(), "{silent}: {shown:#?}");
    }
    let call = update(
        r#"{"sessionUpdate":"tool_call","toolCallId":"w1","title":"write","kind":"edit","status":"pending","locations":[{"path":"/work/notes.txt"}]}"#,
    );
    session.on_stdout(process.clone(), call);
    let failed = update(
        r#"{"sessionUpdate":"tool_call","toolCallId":"w2","title":"write","kind":"edit","status":"pending","locations":[{"path":"/work/other.txt"}]}"#,
    );
    session.on_stdout(process.clone(), failed);
    let results = |id: &str, status: &str| {
        update(&format!(
            r#"{{"sessionUpdate":"tool_call_update","toolCallId":"{id}","status":"{status}","content":[{{"type":"content","content":{{"type":"text","text":"done"}}}}]}}"#
        ))
    };
    let written =
        testing::render_without_raw(session.on_stdout(process.clone(), results("w1", "completed")));
    assert!(
        written.iter().any(|l| l.contains("file_ref")
            && l.contains("/work/notes.txt")
            && l.contains("write")),
        "{written:#?}"
    );
    let unwritten =
        testing::render_without_raw(session.on_stdout(process, results("w2", "failed")));
    assert!(
        !unwritten.iter().any(|l| l.contains("file_ref")),
        "{unwritten:#?}"
    );
}

/// The agent's answer to request `id`.
fn reply(id: u64, result: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

/// The lines of `rendered` actions that write to the agent.
fn writes(rendered: Vec<String>) -> Vec<String> {
    let rendered = rendered.into_iter();
    rendered.filter(|l| l.starts_with("write-stdin")).collect()
}

/// The `session/update` notification of session `native-1` carrying `body`.
fn update(body: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"native-1","update":{body}}}}}"#
    )
}

/// What a session sends its agent before and with its first prompt, when the
/// agent's `session/new` answer is `answer`: the methods, in order.
fn first_calls(config: SessionConfig, answer: &str) -> Vec<String> {
    let mut session = GenericSession::new(config);
    session.start();
    session.on_stdout("acp_1".into(), reply(1, r#"{"protocolVersion":1}"#));
    session.on_stdout("acp_1".into(), reply(2, answer));
    let sent = render(&session.send_message(vec![MessagePart::Text("hi".into())]));
    sent.iter()
        .filter(|line| line.starts_with("write-stdin") || line.starts_with("error "))
        .map(|line| {
            let method = line.split(r#"\"method\":\""#).nth(1);
            match method.and_then(|rest| rest.split('\\').next()) {
                Some(method) => format!("{method} {}", params_of(line)),
                None => line.clone(),
            }
        })
        .collect()
}

/// The `modeId` or `modelId` a written request names, or its `configId=value`,
/// if any.
fn params_of(line: &str) -> String {
    let named = |key: &str| {
        let rest = line.split(&format!(r#"\"{key}\":\""#)).nth(1)?;
        Some(rest.split('\\').next()?.to_owned())
    };
    if let (Some(id), Some(value)) = (named("configId"), named("value")) {
        return format!("{id}={value}");
    }
    ["modeId", "modelId"]
        .iter()
        .find_map(|key| named(key))
        .unwrap_or_default()
}

#[test]
fn the_permission_mode_picks_among_the_modes_the_agent_offers() {
    let claude_like = r#"{"sessionId":"n1","modes":{"currentModeId":"default","availableModes":[{"id":"default","name":"Default"},{"id":"acceptEdits","name":"Accept"},{"id":"plan","name":"Plan"},{"id":"bypassPermissions","name":"Bypass"}]}}"#;
    let codex_like = r#"{"sessionId":"n1","modes":{"currentModeId":"auto","availableModes":[{"id":"read-only","name":"Read only"},{"id":"auto","name":"Auto"},{"id":"full-access","name":"Full"}]}}"#;
    let config = |mode: &str| SessionConfig {
        permission_mode: mode.into(),
        ..testing::config()
    };
    for (answer, mode, expected) in [
        (
            claude_like,
            "bypass",
            vec!["session/set_mode bypassPermissions", "session/prompt "],
        ),
        (
            claude_like,
            "acceptEdits",
            vec!["session/set_mode acceptEdits", "session/prompt "],
        ),
        // The mode it opened the session in: nothing to set; `plan` asks as it does.
        (claude_like, "default", vec!["session/prompt "]),
        (claude_like, "plan", vec!["session/prompt "]),
        (
            codex_like,
            "bypass",
            vec!["session/set_mode full-access", "session/prompt "],
        ),
        (codex_like, "acceptEdits", vec!["session/prompt "]),
        // No modes offered: the agent keeps its own.
        (r#"{"sessionId":"n1"}"#, "bypass", vec!["session/prompt "]),
    ] {
        let calls = first_calls(config(mode), answer);
        assert_eq!(calls, expected, "{mode} with {answer}");
    }
}

/// An agent mode that is one of the agent's own (a client picked it among
/// those it offered) is the agent's mode, whatever the permission mode.
#[test]
fn an_agent_mode_the_agent_offered_is_its_mode() {
    let codex_like = r#"{"sessionId":"n1","modes":{"currentModeId":"auto","availableModes":[{"id":"read-only","name":"Read only"},{"id":"auto","name":"Auto"},{"id":"full-access","name":"Full"}]}}"#;
    let config = |agent_mode: &str, permission_mode: &str| SessionConfig {
        agent_mode: agent_mode.into(),
        permission_mode: permission_mode.into(),
        ..testing::config()
    };
    for (agent_mode, permission_mode, expected) in [
        (
            "read-only",
            "bypass",
            vec!["session/set_mode read-only", "session/prompt "],
        ),
        ("auto", "bypass", vec!["session/prompt "]),
        // Not one of the agent's: the permission mode picks.
        (
            "build",
            "bypass",
            vec!["session/set_mode full-access", "session/prompt "],
        ),
    ] {
        let calls = first_calls(config(agent_mode, permission_mode), codex_like);
        assert_eq!(calls, expected, "{agent_mode} in {permission_mode}");
    }
}

#[test]
fn the_sessions_model_reaches_an_agent_that_offers_models_and_only_it() {
    let config = SessionConfig {
        model: Some("opus".into()),
        ..testing::config()
    };
    let offering = r#"{"sessionId":"n1","models":{"currentModelId":"sonnet","availableModels":[{"modelId":"sonnet","name":"Sonnet"},{"modelId":"opus","name":"Opus"}]}}"#;
    assert_eq!(
        first_calls(config.clone(), offering),
        ["session/set_model opus", "session/prompt "]
    );
    let calls = first_calls(config, r#"{"sessionId":"n1"}"#);
    assert_eq!(calls.len(), 2, "{calls:#?}");
    assert!(
        calls[0].contains("offers no choice of model over ACP") && calls[0].contains("opus"),
        "{calls:#?}"
    );
    assert_eq!(calls[1], "session/prompt ");
}

#[test]
fn back_from_bypass_the_agent_returns_to_the_mode_it_opened_in() {
    let bypass = SessionConfig {
        permission_mode: "bypass".into(),
        ..testing::config()
    };
    let mut session = GenericSession::new(bypass.clone());
    session.start();
    session.on_stdout("acp_1".into(), reply(1, r#"{"protocolVersion":1}"#));
    let opened = r#"{"sessionId":"n1","modes":{"currentModeId":"default","availableModes":[{"id":"default","name":"Default"},{"id":"bypassPermissions","name":"Bypass"}]}}"#;
    session.on_stdout("acp_1".into(), reply(2, opened));
    session.send_message(vec![MessagePart::Text("hi".into())]);
    session.on_stdout("acp_1".into(), reply(3, "{}"));
    session.on_stdout("acp_1".into(), reply(4, r#"{"stopReason":"end_turn"}"#));
    // The host rebuilds the session with `plan`, as after a PUT .../modes.
    let plan = SessionConfig {
        permission_mode: "plan".into(),
        ..bypass
    };
    let mut session = GenericSession::restore(plan, &session.snapshot()).unwrap();
    let writes = writes(render(
        &session.send_message(vec![MessagePart::Text("again".into())]),
    ));
    assert_eq!(writes.len(), 2, "{writes:#?}");
    assert!(
        writes[0].contains(r#"\"modeId\":\"default\""#),
        "{}",
        writes[0]
    );
}

#[test]
fn what_the_agent_offers_is_reported_once_per_answer() {
    let offering = |models: &str| {
        format!(
            r#"{{"sessionId":"n1","modes":{{"currentModeId":"default","availableModes":[{{"id":"default","name":"Default","description":"Asks"}},{{"id":"plan"}}]}},"models":{{"currentModelId":"sonnet","availableModels":[{models}]}}}}"#
        )
    };
    let two = r#"{"modelId":"sonnet","name":"Sonnet"},{"modelId":"opus","name":"Opus","description":"big"}"#;
    let mut session = GenericSession::new(testing::config());
    session.start();
    assert_eq!(session.agent_offer(), None, "nothing offered yet");
    session.on_stdout(
        "acp_1".into(),
        reply(
            1,
            r#"{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}"#,
        ),
    );
    session.on_stdout("acp_1".into(), reply(2, &offering(two)));
    let offer = session.agent_offer().expect("the offer of session/new");
    let ids = |choices: Vec<String>| choices.join(" ");
    assert_eq!(
        ids(offer.models.iter().map(|m| m.id.clone()).collect()),
        "sonnet opus"
    );
    assert_eq!(offer.models[1].name.as_deref(), Some("Opus"));
    assert_eq!(offer.current_model.as_deref(), Some("sonnet"));
    assert_eq!(
        ids(offer.modes.iter().map(|m| m.id.clone()).collect()),
        "default plan"
    );
    assert_eq!(
        (
            offer.modes[0].description.as_str(),
            offer.modes[1].name.as_str()
        ),
        ("Asks", "plan")
    );
    assert_eq!(offer.current_mode.as_deref(), Some("default"));
    assert_eq!(session.agent_offer(), None, "told once");

    // Each later answer is reported too, as it is (the host keeps only a
    // changed one); a snapshot carries nothing untold.
    let mut session = GenericSession::restore(testing::config(), &session.snapshot()).unwrap();
    assert_eq!(session.agent_offer(), None, "nothing in the snapshot");
    session.on_exit(
        "acp_1".into(),
        ExitStatus {
            code: Some(0),
            signal: None,
        },
    );
    for (models, count) in [
        (two, 2),
        (&format!("{two},{{\"modelId\":\"haiku\"}}")[..], 3),
    ] {
        let sent = render(&session.send_message(vec![MessagePart::Text("hi".into())]));
        let process = sent
            .iter()
            .find_map(|line| line.strip_prefix("spawn ")?.split_whitespace().next())
            .expect("a relaunch")
            .to_owned();
        session.on_stdout(
            process.clone(),
            reply(
                1,
                r#"{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}"#,
            ),
        );
        session.on_stdout(process.clone(), reply(2, &offering(models)));
        let offer = session.agent_offer().expect("the answer's offer");
        assert_eq!(offer.models.len(), count, "{models}: {offer:?}");
        assert_eq!(session.agent_offer(), None, "told once");
        // The replay's quiet time is over: the prompt goes out.
        session.on_timer("replay".into());
        session.on_stdout(process.clone(), reply(3, r#"{"stopReason":"end_turn"}"#));
        session.on_exit(
            process,
            ExitStatus {
                code: Some(0),
                signal: None,
            },
        );
    }
}
