//! Approval policies end to end with the mock agent: the daemon decides what the
//! policy allows or denies before the client sees it, leaves `ask` to the
//! client (denied past its time), records every decision, takes a new policy,
//! refuses a policy it cannot use naming the field, and takes a daemon-wide one.

use super::*;

/// The mock asks permission to run `command`; the events until the turn ends or
/// the client is asked.
fn ask(api: &Api, id: &str, command: &str) -> Vec<Value> {
    let offset = api.last_sequence(id);
    api.send(id, &format!("permission {command}"));
    api.wait_for(id, offset, &format!("{command:?} decided"), |e| {
        e["type"] == "turn.ended"
            || (e["type"] == "permission.decided" && e["data"]["decision"] == "ask")
    })
}

fn policy() -> Value {
    json!({
        "rules": [
            {"tool": "shell", "command": "rm *", "decision": "deny"},
            {"tool": "shell", "command": "echo *", "decision": "allow"},
            {"tool": "write", "path": "/etc/**", "decision": "deny"}
        ],
        "default": "ask"
    })
}

#[test]
fn the_policy_decides_before_the_client_and_records_every_decision() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    ok_json(api.post_json(
        "/v1/sessions/pol",
        json!({"agent": "mock", "policy": policy()}),
    ));
    assert_eq!(api.session_info("pol")["policy"], policy());

    // Allowed by a rule: answered at once, the turn goes on.
    let events = ask(&api, "pol", "echo hi");
    let decided = decisions(&events);
    assert_eq!(decided.len(), 1, "{}", pretty(&events));
    assert_eq!(decided[0]["decision"], "allow");
    assert_eq!(
        (&decided[0]["by"], &decided[0]["rule"]),
        (&json!("rule"), &json!(1))
    );
    assert_eq!(decided[0]["tool"], "shell");
    assert_eq!(decided[0]["input"]["command"], "echo hi");
    let resolved = find(&events, "permission.resolved");
    assert_eq!(resolved["data"]["status"], "accept");
    assert_eq!(
        assistant_texts(&events),
        ["Permission granted once: I may run `echo hi`."]
    );
    let kinds = types(&events);
    let at = |t: &str| kinds.iter().position(|k| k == t).unwrap();
    assert!(at("permission.requested") < at("permission.decided"));
    assert!(at("permission.decided") < at("permission.resolved"));

    // Denied, also when only a part of the line is: the reason is in the transcript.
    for line in ["rm -rf build", "echo ok && rm -rf ~"] {
        let events = ask(&api, "pol", line);
        let decided = decisions(&events);
        assert_eq!(decided[0]["decision"], "deny", "{line}");
        assert_eq!(decided[0]["rule"], 0, "{line}");
        let reason = decided[0]["reason"].as_str().unwrap();
        assert!(reason.contains("rules[0]"), "{reason}");
        assert_eq!(
            find(&events, "permission.resolved")["data"]["status"],
            "reject"
        );
        assert_eq!(
            assistant_texts(&events),
            [format!("Permission rejected: I did not run `{line}`.")]
        );
    }

    // Left to the client: asked as before, and its answer is recorded too.
    let events = ask(&api, "pol", "ls -la");
    let decided = decisions(&events);
    assert_eq!(
        (&decided[0]["decision"], &decided[0]["by"]),
        (&json!("ask"), &json!("default"))
    );
    api.wait_for_info("pol", "awaiting input", |i| i["status"] == "awaiting_input");
    let id = find(&events, "permission.requested")["data"]["permission_id"].clone();
    let offset = api.last_sequence("pol");
    expect_no_content(
        api.post_json(
            &format!(
                "/v1/sessions/pol/permissions/{}/reply",
                id.as_str().unwrap()
            ),
            json!({"reply": "once"}),
        ),
        "reply",
    );
    let rest = api.wait_for_type("pol", offset, "turn.ended");
    let decided = decisions(&rest);
    assert_eq!(
        (&decided[0]["decision"], &decided[0]["by"]),
        (&json!("allow"), &json!("client"))
    );
    assert_eq!(decided[0]["input"]["command"], "ls -la");
    assert_eq!(decided[0]["permission_id"], id);

    // A new policy decides what is asked from now on.
    let allow_all = json!({"rules": [], "default": "allow"});
    assert_eq!(
        ok_json(api.put_json("/v1/sessions/pol/policy", allow_all.clone())),
        allow_all
    );
    let events = ask(&api, "pol", "ls -la");
    assert_eq!(decisions(&events)[0]["by"], "default");
    assert_eq!(decisions(&events)[0]["decision"], "allow");
    assert_eq!(api.session_info("pol")["policy"], allow_all);

    // Each answer the policy gave itself was timed, and only those.
    let transcript = api.events("pol");
    let answered = decisions(&transcript)
        .iter()
        .filter(|d| d["by"] != "client" && d["decision"] != "ask")
        .count();
    assert!(answered >= 3, "{transcript:#?}");
    let metrics = api.get("/metrics").text().unwrap();
    let count =
        format!("agentplex_policy_decision_duration_seconds_count{{agent=\"mock\"}} {answered}\n");
    assert!(metrics.contains(&count), "{count}in\n{metrics}");
}

#[test]
fn an_ask_nobody_answers_is_denied_after_the_policys_time() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    let policy = json!({"rules": [], "default": "ask", "askTimeoutSecs": 1});
    ok_json(api.post_json(
        "/v1/sessions/slow",
        json!({"agent": "mock", "policy": policy}),
    ));
    let offset = api.last_sequence("slow");
    api.send("slow", "permission ls");
    let events = api.wait_for_type("slow", offset, "turn.ended");
    let decided = decisions(&events);
    assert_eq!(decided.len(), 2, "{}", pretty(&events));
    assert_eq!(decided[0]["decision"], "ask");
    assert_eq!(
        (&decided[1]["decision"], &decided[1]["by"]),
        (&json!("deny"), &json!("timeout"))
    );
    assert_eq!(
        find(&events, "permission.resolved")["data"]["status"],
        "reject"
    );
}

#[test]
fn a_policy_that_cannot_be_used_is_refused_naming_the_rule_and_field() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    for (policy, field) in [
        (
            json!({"rules": [{"tool": "shel", "decision": "deny"}]}),
            "policy.rules[0].tool",
        ),
        (
            json!({"rules": [{"tool": "read", "command": "ls *", "decision": "deny"}]}),
            "policy.rules[0].command",
        ),
        (json!({"rules": [], "default": "maybe"}), "policy.default"),
        (
            json!({"rules": [{"tool": "shell"}]}),
            "policy.rules[0].decision",
        ),
    ] {
        let response = api.post_json(
            "/v1/sessions/bad",
            json!({"agent": "mock", "policy": policy}),
        );
        let problem = expect_problem(response, 400, "invalid_request");
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.starts_with(field), "{detail}");
    }
    api.create("good", "mock");
    let response = api.put_json("/v1/sessions/good/policy", json!({"rules": 3}));
    let problem = expect_problem(response, 400, "invalid_request");
    assert!(
        problem["detail"].as_str().unwrap().contains("policy.rules"),
        "{problem}"
    );
    let response = api.put_json("/v1/sessions/nope/policy", json!({"rules": []}));
    expect_problem(response, 404, "session_not_found");
}

#[test]
fn the_daemons_policy_decides_for_sessions_without_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policy.json");
    std::fs::write(&file, policy().to_string()).unwrap();
    let daemon = Daemon::start_with(common::Options {
        args: vec!["--policy".into(), file.display().to_string()],
        ..common::Options::default()
    });
    let api = Api::new(&daemon);
    api.create("inherits", "mock");
    assert_eq!(api.session_info("inherits")["policy"], policy());
    let events = ask(&api, "inherits", "rm x");
    assert_eq!(decisions(&events)[0]["decision"], "deny");
    // A session's own policy wins.
    ok_json(api.post_json(
        "/v1/sessions/own",
        json!({"agent": "mock", "policy": {"rules": [], "default": "allow"}}),
    ));
    let events = ask(&api, "own", "rm x");
    assert_eq!(decisions(&events)[0]["decision"], "allow");
}

#[test]
fn a_policy_file_that_does_not_read_stops_the_daemon_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policy.json");
    std::fs::write(
        &file,
        "{\"rules\": [\n  {\"tool\": \"shell\",\n   \"decision\": deny}\n]}",
    )
    .unwrap();
    let output = std::process::Command::new(common::binary())
        .args(["server", "--no-token", "--port", "0", "--policy"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--policy") && stderr.contains("line 3"),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

#[test]
fn each_agent_says_what_a_policy_can_decide_for_it() {
    let daemon = Daemon::start();
    let agents = Api::new(&daemon).get_ok("/v1/agents");
    let asks_for = |id: &str| {
        let agent = agents["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == id);
        agent.unwrap()["capabilities"]["asksFor"].clone()
    };
    assert_eq!(asks_for("mock"), json!(["shell", "write"]));
    assert_eq!(
        asks_for("claude"),
        json!(["shell", "read", "write", "fetch", "mcp"])
    );
    assert_eq!(asks_for("pi"), json!([]));
}
