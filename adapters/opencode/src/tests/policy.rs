//! The permission rules a session with an approval policy gets, and the calls
//! OpenCode decides by them.

use sandbox_agent_adapter_kit::native_rules::NativeRules;
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

use super::{config, ready};
use crate::api;

#[test]
fn a_policy_has_every_permission_it_decides_ruled_outright_or_asked() {
    let rules_of = |config: &SessionConfig| -> Vec<(String, String)> {
        let rules = NativeRules::new(config.policy.clone());
        api::create_session(config, &rules)["permission"]
            .as_array()
            .unwrap()
            .iter()
            .map(|rule| {
                let text = |key: &str| rule[key].as_str().unwrap().to_owned();
                (text("permission"), text("action"))
            })
            .collect()
    };
    let mut with_policy = config(None);
    assert!(!rules_of(&with_policy)
        .iter()
        .any(|(name, _)| name == "read"));
    // Reads allowed whatever their path, fetches denied, commands by a glob.
    with_policy.policy = Some(ApprovalPolicy {
        rules: vec![
            PolicyRule {
                tool: Some(ToolKind::Read),
                command: None,
                path: None,
                mcp: None,
                decision: PolicyDecision::Allow,
            },
            PolicyRule {
                tool: Some(ToolKind::Fetch),
                command: None,
                path: None,
                mcp: None,
                decision: PolicyDecision::Deny,
            },
            PolicyRule {
                tool: Some(ToolKind::Shell),
                command: Some("rm *".into()),
                path: None,
                mcp: None,
                decision: PolicyDecision::Deny,
            },
        ],
        default: PolicyDecision::Ask,
    });
    let rules = rules_of(&with_policy);
    let action = |name: &str| {
        let found = rules.iter().find(|(permission, _)| permission == name);
        found
            .map(|(_, action)| action.as_str())
            .unwrap_or_default()
            .to_owned()
    };
    for (name, expected) in [
        ("bash", "ask"),
        ("edit", "ask"),
        ("read", "allow"),
        ("list", "allow"),
        ("glob", "allow"),
        ("grep", "allow"),
        ("webfetch", "deny"),
        ("websearch", "deny"),
        ("codesearch", "deny"),
    ] {
        assert_eq!(action(name), expected, "{name}: {rules:?}");
    }
}

#[test]
fn calls_opencode_decided_by_its_rules_are_reported_and_a_new_policy_reaches_it() {
    let mut session = ready();
    session.send_message(vec![MessagePart::Text("hi".into())]);
    let allow_reads = ApprovalPolicy {
        rules: vec![PolicyRule {
            tool: Some(ToolKind::Read),
            command: None,
            path: None,
            mcp: None,
            decision: PolicyDecision::Allow,
        }],
        default: PolicyDecision::Ask,
    };
    let actions = session.set_policy(Some(allow_reads));
    let [Action::HttpRequest(patch)] = actions.as_slice() else {
        panic!("{actions:?}");
    };
    assert_eq!(patch.method, "PATCH");
    assert!(patch.url.contains("/session/ses_1?"), "{}", patch.url);
    let body: Value = serde_json::from_slice(&patch.body).unwrap();
    let read = serde_json::json!({"permission": "read", "pattern": "*", "action": "allow"});
    let bash = serde_json::json!({"permission": "bash", "pattern": "*", "action": "ask"});
    let rules = body["permission"].as_array().unwrap();
    assert!(rules.contains(&read) && rules.contains(&bash), "{body}");
    let part = |call: &str, tool: &str, status: &str, input: serde_json::Value| {
        SseEvent {
        stream_id: "events".into(),
        event: "message".into(),
        id: None,
        data: serde_json::json!({"type": "message.part.updated", "properties": {"sessionID": "ses_1", "part": {
            "id": format!("prt_{call}"), "sessionID": "ses_1", "messageID": "msg_9",
            "type": "tool", "callID": call, "tool": tool,
            "state": {"status": status, "input": input, "output": "ok"}}}})
        .to_string(),
    }
    };
    let read = serde_json::json!({"filePath": "a.txt"});
    session.on_sse_event(part("c1", "read", "running", read.clone()));
    assert!(
        session.native_decisions().is_empty(),
        "decided once it ends"
    );
    session.on_sse_event(part("c1", "read", "completed", read));
    // A command is asked about: the daemon decides it, not OpenCode.
    let ls = serde_json::json!({"command": "ls"});
    session.on_sse_event(part("c2", "bash", "running", ls.clone()));
    session.on_sse_event(part("c2", "bash", "completed", ls));
    // A read OpenCode asked about (outside the project): the daemon's to decide.
    let asked = SseEvent {
        stream_id: "events".into(),
        event: "message".into(),
        id: None,
        data: serde_json::json!({"type": "permission.asked", "properties": {
            "sessionID": "ses_1", "id": "per_1", "permission": "external_directory",
            "patterns": ["/etc/*"], "metadata": {}, "tool": {"messageID": "msg_9", "callID": "c3"}}})
        .to_string(),
    };
    let hosts = serde_json::json!({"filePath": "/etc/hosts"});
    session.on_sse_event(part("c3", "read", "running", hosts.clone()));
    session.on_sse_event(asked);
    session.on_sse_event(part("c3", "read", "completed", hosts));
    let decided: Vec<_> = session
        .native_decisions()
        .into_iter()
        .map(|d| (d.call_id, d.request, d.decision))
        .collect();
    assert_eq!(
        decided,
        [(
            "c1".to_owned(),
            sandbox_agent_adapter_kit::tool_request::read("a.txt"),
            PolicyDecision::Allow
        )]
    );
}

#[test]
fn changed_modes_give_the_session_their_rules_before_the_next_prompt() {
    use sandbox_agent_adapter_kit::transcript::render;
    let http = |id: &str| HttpResponse {
        request_id: id.into(),
        status: 200,
        headers: Vec::new(),
        body: b"{}".to_vec(),
    };
    let mut session = ready();
    let sent = render(&session.send_message(vec![MessagePart::Text("hi".into())]));
    assert!(sent
        .iter()
        .any(|line| line.starts_with("http-request prompt-1 POST")));
    for data in [
        r#"{"type":"session.status","properties":{"sessionID":"ses_1","status":{"type":"busy"}}}"#,
        r#"{"type":"session.idle","properties":{"sessionID":"ses_1"}}"#,
    ] {
        session.on_sse_event(SseEvent {
            stream_id: "events".into(),
            event: "message".into(),
            data: data.into(),
            id: None,
        });
    }
    // The host rebuilds the session with the new modes, as after a PUT .../modes.
    let mut bypass = config(None);
    bypass.permission_mode = "bypass".into();
    let mut session = crate::OpenCodeSession::restore(bypass, &session.snapshot()).unwrap();
    let sent = render(&session.send_message(vec![MessagePart::Text("go".into())]));
    let patch = sent
        .iter()
        .find(|line| line.starts_with("http-request modes PATCH"))
        .unwrap_or_else(|| panic!("{sent:#?}"));
    assert!(patch.contains("/session/ses_1?"), "{patch}");
    assert!(
        !sent.iter().any(|line| line.contains("prompt_async")),
        "{sent:#?}"
    );
    // The prompt goes once the rules are in, and the modes are not given again.
    let answered = render(&session.on_http_response(http("modes")));
    assert!(
        answered[0].starts_with("http-request prompt-2 POST"),
        "{answered:#?}"
    );
    let body = session.snapshot();
    let state: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        state["state"]["given_modes"],
        serde_json::json!(["build", "bypass"])
    );
    // Plan: the plan agent's own rules (the session's are emptied).
    let mut plan = config(None);
    plan.agent_mode = "plan".into();
    assert!(api::permission_rules(&plan, &NativeRules::new(None)).is_none());
}
