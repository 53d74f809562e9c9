//! Tests: the static facts (`facts.json`), the launch recipe (`info`), the recorded
//! transcripts of the real CLI replayed through the session (`recorded`), and single native
//! lines the recordings do not have (`lines`); moving the CLI's own session files
//! (`native_files`). `replay` is the harness they share.

mod info;
mod lines;
mod native_files;
mod recorded;
mod replay;

sandbox_agent_adapter_kit::facts_test!(crate::Claude, "../facts.json");

/// `rules`: a shell glob, every read allowed, every fetch denied, the rest asked.
fn mixed_policy() -> sandbox_agent_adapter_kit::types::ApprovalPolicy {
    use sandbox_agent_adapter_kit::types::{ApprovalPolicy, PolicyDecision, PolicyRule, ToolKind};
    let rule = |tool, command: Option<&str>, decision| PolicyRule {
        tool: Some(tool),
        command: command.map(str::to_owned),
        path: None,
        mcp: None,
        decision,
    };
    ApprovalPolicy {
        rules: vec![
            rule(ToolKind::Shell, Some("rm *"), PolicyDecision::Deny),
            rule(ToolKind::Read, None, PolicyDecision::Allow),
            rule(ToolKind::Fetch, None, PolicyDecision::Deny),
        ],
        default: PolicyDecision::Ask,
    }
}

#[test]
fn a_policy_reaches_the_cli_as_rules_for_what_it_fixes_and_asks_for_the_rest() {
    use sandbox_agent_adapter_kit::native_rules::NativeRules;
    use sandbox_agent_adapter_kit::prelude::*;
    assert_eq!(crate::launch::permissions(&NativeRules::new(None)), None);
    assert_eq!(
        crate::launch::permissions(&NativeRules::new(Some(mixed_policy()))).unwrap(),
        serde_json::json!({
            "allow": ["Read", "Glob", "Grep", "LS"],
            "deny": ["WebFetch", "WebSearch"],
            "ask": ["Bash", "Edit", "MultiEdit", "Write", "NotebookEdit"],
        })
    );
    // At launch, right after the handshake, as inline flag settings.
    let mut config = replay::config_of(&serde_json::Value::Null);
    config.policy = Some(mixed_policy());
    let mut session = crate::ClaudeSession::new(config);
    let written: Vec<String> = session
        .start()
        .into_iter()
        .filter_map(|action| match action {
            Action::WriteStdin(write) => Some(String::from_utf8(write.data).unwrap()),
            _ => None,
        })
        .collect();
    assert_eq!(written.len(), 2, "{written:?}");
    let applied: serde_json::Value = serde_json::from_str(written[1].trim()).unwrap();
    assert_eq!(applied["request"]["subtype"], "apply_flag_settings");
    assert_eq!(
        applied["request"]["settings"]["permissions"]["deny"],
        serde_json::json!(["WebFetch", "WebSearch"])
    );
    let spawn = crate::launch::spawn(&replay::config_of(&serde_json::Value::Null), "c", None);
    assert!(!spawn.argv.iter().any(|arg| arg == "--settings"));
}

#[test]
fn calls_the_cli_decided_by_its_rules_are_reported_and_a_new_policy_reaches_it() {
    use sandbox_agent_adapter_kit::prelude::*;
    use sandbox_agent_adapter_kit::testing::render_without_raw;
    let mut config = replay::config_of(&serde_json::Value::Null);
    config.policy = Some(mixed_policy());
    let mut session = crate::ClaudeSession::new(config);
    session.start();
    session.send_message(vec![MessagePart::Text("hi".into())]);
    // A call the CLI ran (or refused) unasked: its `tool_use`, then its result.
    let tool_use = |session: &mut crate::ClaudeSession,
                    id: &str,
                    name: &str,
                    input: serde_json::Value| {
        let call = serde_json::json!({"type": "assistant", "message": {"id": format!("m_{id}"), "content": [
            {"type": "tool_use", "id": id, "name": name, "input": input}
        ]}});
        session.on_stdout("claude_1".into(), call.to_string());
        let result = serde_json::json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "ok"}
        ]}});
        session.on_stdout("claude_1".into(), result.to_string());
    };
    tool_use(
        &mut session,
        "t1",
        "Read",
        serde_json::json!({"file_path": "a.txt"}),
    );
    tool_use(
        &mut session,
        "t2",
        "Bash",
        serde_json::json!({"command": "ls"}),
    );
    tool_use(
        &mut session,
        "t3",
        "WebFetch",
        serde_json::json!({"url": "https://x"}),
    );
    let decided: Vec<_> = session
        .native_decisions()
        .into_iter()
        .map(|d| (d.call_id, d.request.kind, d.decision))
        .collect();
    assert_eq!(
        decided,
        [
            ("t1".to_owned(), ToolKind::Read, PolicyDecision::Allow),
            ("t3".to_owned(), ToolKind::Fetch, PolicyDecision::Deny),
        ]
    );
    assert!(session.native_decisions().is_empty());
    // A call the CLI asked about is the daemon's to decide, not a native one.
    let asked = serde_json::json!({"type": "control_request", "request_id": "r1", "request": {
        "subtype": "can_use_tool", "tool_name": "Read", "input": {"file_path": "/etc/x"},
        "tool_use_id": "t6"}});
    let call = serde_json::json!({"type": "assistant", "message": {"id": "m_t6", "content": [
        {"type": "tool_use", "id": "t6", "name": "Read", "input": {"file_path": "/etc/x"}}]}});
    session.on_stdout("claude_1".into(), call.to_string());
    session.on_stdout("claude_1".into(), asked.to_string());
    tool_use(
        &mut session,
        "t6",
        "Read",
        serde_json::json!({"file_path": "/etc/x"}),
    );
    assert!(session.native_decisions().is_empty());

    // A replaced policy is applied to the running CLI's flag settings.
    let written = render_without_raw(session.set_policy(Some(
        sandbox_agent_adapter_kit::types::ApprovalPolicy {
            rules: Vec::new(),
            default: PolicyDecision::Allow,
        },
    )));
    assert_eq!(written.len(), 1, "{written:?}");
    assert!(
        written[0].starts_with("write-stdin claude_1"),
        "{written:?}"
    );
    assert!(written[0].contains("apply_flag_settings"), "{written:?}");
    assert!(written[0].contains(r#"\"allow\":[\"Bash\""#), "{written:?}");
    tool_use(
        &mut session,
        "t4",
        "Bash",
        serde_json::json!({"command": "ls"}),
    );
    assert_eq!(
        session.native_decisions()[0].decision,
        PolicyDecision::Allow
    );
    // Removed: the CLI's rules go, nothing more is decided natively.
    let written = render_without_raw(session.set_policy(None));
    assert!(
        written[0].contains(r#"\"permissions\":null"#),
        "{written:?}"
    );
    tool_use(
        &mut session,
        "t5",
        "Read",
        serde_json::json!({"file_path": "a.txt"}),
    );
    assert!(session.native_decisions().is_empty());
}

#[test]
fn mcp_servers_reach_the_cli_in_a_file_never_on_its_command_line() {
    let mut config = sandbox_agent_adapter_kit::testing::config();
    config.scratch_dir = "/data/scratch/s1/".into();
    config.mcp_servers = vec![sandbox_agent_adapter_kit::testing::local_mcp_server(
        "calc",
        &["node", "add.mjs"],
    )];
    let spawn = crate::launch::spawn(&config, "turn-1", None);
    let at = spawn
        .argv
        .iter()
        .position(|arg| arg == "--mcp-config")
        .expect("--mcp-config");
    assert_eq!(spawn.argv[at + 1], "/data/scratch/s1/mcp-servers.json");
    assert!(!spawn.argv.iter().any(|arg| arg.contains("MCP_KEY")));
    let (path, contents) = crate::launch::mcp_config(&config).unwrap();
    assert_eq!(path, "mcp-servers.json");
    let servers: serde_json::Value = serde_json::from_slice(&contents).unwrap();
    assert_eq!(
        servers,
        serde_json::json!({ "mcpServers": { "calc": {
            "type": "stdio", "command": "node", "args": ["add.mjs"], "env": { "MCP_KEY": "v" },
        }}})
    );
    let without = sandbox_agent_adapter_kit::testing::config();
    assert!(crate::launch::mcp_config(&without).is_none());
    let spawn = crate::launch::spawn(&without, "turn-1", None);
    assert!(!spawn.argv.iter().any(|arg| arg == "--mcp-config"));
}

#[test]
fn skills_reach_the_cli_as_a_plugin_made_of_the_scratch_folder() {
    let mut config = sandbox_agent_adapter_kit::testing::config();
    config.scratch_dir = "/data/scratch/s1".into();
    assert!(crate::launch::skills_plugin(&config).is_none());
    config.skills = vec![sandbox_agent_adapter_kit::types::Skill {
        name: "greet".into(),
        path: "/skills/greet".into(),
    }];
    let (path, manifest) = crate::launch::skills_plugin(&config).unwrap();
    assert_eq!(path, ".claude-plugin/plugin.json");
    let manifest: serde_json::Value = serde_json::from_slice(&manifest).unwrap();
    assert_eq!(manifest["name"], "sandbox-agent-session");
    let spawn = crate::launch::spawn(&config, "turn-1", None);
    let at = spawn
        .argv
        .iter()
        .position(|arg| arg == "--plugin-dir")
        .expect("--plugin-dir");
    assert_eq!(spawn.argv[at + 1], "/data/scratch/s1");
}

sandbox_agent_adapter_kit::fuzz_test!(crate::ClaudeSession, transcripts: ["transcripts"], captures: []);

#[test]
fn changed_modes_reach_a_running_cli_before_the_next_message_and_once() {
    use sandbox_agent_adapter_kit::prelude::*;
    let written = |actions: Vec<Action>| -> Vec<String> {
        actions
            .into_iter()
            .filter_map(|action| match action {
                Action::WriteStdin(write) => Some(String::from_utf8(write.data).unwrap()),
                _ => None,
            })
            .collect()
    };
    let config = replay::config_of(&serde_json::Value::Null);
    let mut session = crate::ClaudeSession::new(config.clone());
    session.start();
    let text = || vec![MessagePart::Text("hi".into())];
    // Unchanged: only the message.
    assert_eq!(written(session.send_message(text())).len(), 1);
    // The host rebuilds the session with the new modes, as after a PUT .../modes.
    let mut changed = config;
    changed.agent_mode = "plan".into();
    let mut session = crate::ClaudeSession::restore(changed, &session.snapshot()).unwrap();
    let lines = written(session.send_message(text()));
    assert_eq!(lines.len(), 2, "{lines:?}");
    let request: serde_json::Value = serde_json::from_str(lines[0].trim()).unwrap();
    assert_eq!(request["type"], "control_request");
    assert_eq!(
        request["request"],
        serde_json::json!({"subtype": "set_permission_mode", "mode": "plan"})
    );
    assert!(lines[1].contains(r#""type":"user""#), "{}", lines[1]);
    // Told once: the next message goes alone.
    assert_eq!(written(session.send_message(text())).len(), 1);
}

#[test]
fn a_change_to_bypass_starts_the_cli_again_with_the_flag_resuming_the_session() {
    use sandbox_agent_adapter_kit::prelude::*;
    let config = replay::config_of(&serde_json::Value::Null);
    let mut session = crate::ClaudeSession::new(config.clone());
    session.start();
    session.send_message(vec![MessagePart::Text("hi".into())]);
    session.on_stdout(
        "claude_1".into(),
        r#"{"type":"system","subtype":"init","session_id":"native-1","tools":[],"model":"m"}"#
            .into(),
    );
    session.on_stdout(
        "claude_1".into(),
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"native-1","result":"ok","total_cost_usd":0}"#.into(),
    );
    let mut changed = config;
    changed.permission_mode = "bypass".into();
    let mut session = crate::ClaudeSession::restore(changed, &session.snapshot()).unwrap();
    let actions = session.send_message(vec![MessagePart::Text("go".into())]);
    let killed = actions
        .iter()
        .any(|a| matches!(a, Action::Kill(id) if id == "claude_1"));
    assert!(killed, "{actions:?}");
    let spawn = actions
        .iter()
        .find_map(|a| match a {
            Action::Spawn(spawn) => Some(spawn),
            _ => None,
        })
        .expect("a new CLI");
    assert_eq!(spawn.process_id, "claude_2");
    let argv = spawn.argv.join(" ");
    assert!(
        argv.contains("--permission-mode bypassPermissions") && argv.contains("--resume native-1"),
        "{argv}"
    );
    // The killed CLI's exit leaves the new one, and the turn, alone.
    let after = session.on_exit(
        "claude_1".into(),
        ExitStatus {
            code: None,
            signal: Some(9),
        },
    );
    assert!(after.is_empty(), "{after:?}");
}

/// The JSON lines `actions` write to the CLI.
fn written(actions: Vec<sandbox_agent_adapter_kit::prelude::Action>) -> Vec<serde_json::Value> {
    use sandbox_agent_adapter_kit::prelude::*;
    actions
        .into_iter()
        .filter_map(|action| match action {
            Action::WriteStdin(write) => serde_json::from_slice(&write.data).ok(),
            _ => None,
        })
        .collect()
}

#[test]
fn a_changed_model_reaches_a_running_cli_as_set_model_once() {
    use sandbox_agent_adapter_kit::prelude::*;
    let mut config = replay::config_of(&serde_json::Value::Null);
    config.model = Some("sonnet".into());
    let mut session = crate::ClaudeSession::new(config.clone());
    session.start();
    let text = || vec![MessagePart::Text("hi".into())];
    // The model it was started with: only the message.
    assert_eq!(written(session.send_message(text())).len(), 1);
    // The host rebuilds the session with the new model, as after a PUT .../modes.
    let mut changed = config;
    changed.model = Some("opus".into());
    let mut session = crate::ClaudeSession::restore(changed, &session.snapshot()).unwrap();
    let lines = written(session.send_message(text()));
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["type"], "control_request");
    assert_eq!(
        lines[0]["request"],
        serde_json::json!({"subtype": "set_model", "model": "opus"})
    );
    assert_eq!(lines[1]["type"], "user");
    // Told once: the next message goes alone.
    assert_eq!(written(session.send_message(text())).len(), 1);
}

#[test]
fn a_changed_effort_reaches_a_running_cli_as_flag_settings_once_and_a_new_one_as_the_flag() {
    use sandbox_agent_adapter_kit::prelude::*;
    let text = || vec![MessagePart::Text("hi".into())];
    let config = replay::config_of(&serde_json::Value::Null);
    let mut session = crate::ClaudeSession::new(config.clone());
    session.start();
    // No effort named: the CLI runs its own, and is told none.
    assert_eq!(written(session.send_message(text())).len(), 1);
    let rebuilt = |session: &crate::ClaudeSession, variant: &str| {
        let mut changed = config.clone();
        changed.variant = Some(variant.into());
        crate::ClaudeSession::restore(changed, &session.snapshot()).unwrap()
    };
    for effort in ["high", "low"] {
        session = rebuilt(&session, effort);
        let lines = written(session.send_message(text()));
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(
            lines[0]["request"],
            serde_json::json!({"subtype": "apply_flag_settings", "settings": {"effortLevel": effort}})
        );
        assert_eq!(lines[1]["type"], "user");
        assert_eq!(written(session.send_message(text())).len(), 1, "told once");
    }
    // A CLI started again (after it exited between turns) gets the session's
    // effort as its flag.
    session.on_stdout(
        "claude_1".into(),
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"native-1","result":"ok","total_cost_usd":0}"#.into(),
    );
    session.on_exit(
        "claude_1".into(),
        ExitStatus {
            code: Some(0),
            signal: None,
        },
    );
    let actions = session.send_message(text());
    let argv = actions
        .iter()
        .find_map(|a| match a {
            Action::Spawn(spawn) => Some(spawn.argv.join(" ")),
            _ => None,
        })
        .expect("a new CLI");
    assert!(argv.contains("--effort low"), "{argv}");
    assert_eq!(
        written(actions).len(),
        2,
        "the handshake and the message alone"
    );
}
