//! `questions` and `permissions` replies.

use super::*;

#[test]
fn questions_reply_with_answer_flags() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "q1");
    let events = send_stream(&daemon, "q1", "question");
    let requested = events.last().unwrap();
    assert_eq!(requested["type"], "question.requested");
    let id = requested["data"]["question_id"].as_str().unwrap();
    assert_eq!(id, "mock_1_question");
    let output = cli(
        &daemon,
        &[
            "questions",
            "reply",
            "q1",
            id,
            "--answer",
            "Red",
            "--answer",
            "Blue",
        ],
    );
    assert_eq!(json_ok(&output), json!({ "ok": true }));
    let events = wait_for_events(&daemon, "q1", "turn.ended", |e| has_type(e, "turn.ended"));
    let resolved = last_of(&events, "question.resolved");
    assert_eq!(resolved["data"]["status"], "answered", "{resolved}");
    assert_eq!(resolved["data"]["response"], "Red, Blue", "{resolved}");
    assert_eq!(last_assistant_text(&events), "You answered: Red, Blue.");
    // It is not pending any more. (The daemon answers 404 request_not_found;
    // docs/mock-agent.md still says 400 invalid_request.)
    problem_failure(
        &cli(
            &daemon,
            &["questions", "reply", "q1", id, "--answer", "Red"],
        ),
        "request_not_found",
        404,
    );
}

#[test]
fn questions_reply_with_answers_json() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "q2");
    send_stream(&daemon, "q2", "question");
    let output = cli(
        &daemon,
        &[
            "questions",
            "reply",
            "q2",
            "mock_1_question",
            "--answers",
            r#"[["Blue"]]"#,
        ],
    );
    assert_eq!(json_ok(&output), json!({ "ok": true }));
    let events = wait_for_events(&daemon, "q2", "turn.ended", |e| has_type(e, "turn.ended"));
    assert_eq!(
        last_of(&events, "question.resolved")["data"]["response"],
        "Blue"
    );
    assert_eq!(last_assistant_text(&events), "You answered: Blue.");

    // Malformed --answers is refused before anything is sent.
    send_stream(&daemon, "q2", "question");
    let output = cli(
        &daemon,
        &[
            "questions",
            "reply",
            "q2",
            "mock_2_question",
            "--answers",
            r#"["Blue"]"#,
        ],
    );
    let failure = expect_failure(&output);
    assert!(failure.problem.is_none(), "{}", failure.stderr);
    assert!(
        failure.error_line.contains("--answers"),
        "{}",
        failure.error_line
    );
    assert!(!has_type(
        &http_events(&daemon, "q2")[events.len()..],
        "question.resolved"
    ));
    // --answer and --answers together are refused by the parser.
    let output = cli(
        &daemon,
        &[
            "questions",
            "reply",
            "q2",
            "mock_2_question",
            "--answer",
            "Red",
            "--answers",
            r#"[["Red"]]"#,
        ],
    );
    assert!(!output.status.success(), "{}", describe(&output));
}

#[test]
fn questions_reject_declines() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "q3");
    send_stream(&daemon, "q3", "question");
    assert_eq!(
        json_ok(&cli(
            &daemon,
            &["questions", "reject", "q3", "mock_1_question"]
        )),
        json!({ "ok": true })
    );
    let events = wait_for_events(&daemon, "q3", "turn.ended", |e| has_type(e, "turn.ended"));
    let resolved = last_of(&events, "question.resolved");
    assert_eq!(resolved["data"]["status"], "rejected", "{resolved}");
    assert!(
        resolved["data"].get("response").is_none_or(Value::is_null),
        "{resolved}"
    );
    assert_eq!(last_assistant_text(&events), "You declined to answer.");
    // Unknown question ids are refused.
    problem_failure(
        &cli(&daemon, &["questions", "reject", "q3", "no-such-question"]),
        "request_not_found",
        404,
    );
}

/// Asks for a permission in a new session, replies `reply` with the CLI, and
/// returns the turn's events.
fn permission_round(daemon: &Daemon, session: &str, reply: &str) -> Vec<Value> {
    create_mock_session(daemon, session);
    let events = send_stream(daemon, session, "permission ls -la");
    let requested = events.last().unwrap();
    assert_eq!(
        requested["type"],
        "permission.requested",
        "{:?}",
        types(&events)
    );
    assert_eq!(requested["data"]["metadata"]["command"], "ls -la");
    let id = requested["data"]["permission_id"].as_str().unwrap();
    assert_eq!(
        json_ok(&cli(daemon, &["permissions", "reply", session, id, reply])),
        json!({ "ok": true })
    );
    wait_for_events(daemon, session, "turn.ended", |e| has_type(e, "turn.ended"))
}

#[test]
fn permissions_reply_once() {
    let daemon = start_daemon();
    let events = permission_round(&daemon, "p-once", "once");
    assert_eq!(
        last_of(&events, "permission.resolved")["data"]["status"],
        "accept"
    );
    assert_eq!(
        last_assistant_text(&events),
        "Permission granted once: I may run `ls -la`."
    );
}

#[test]
fn permissions_reply_always() {
    let daemon = start_daemon();
    let events = permission_round(&daemon, "p-always", "always");
    assert_eq!(
        last_of(&events, "permission.resolved")["data"]["status"],
        "accept_for_session"
    );
    assert_eq!(
        last_assistant_text(&events),
        "Permission granted for this session: I may run `ls -la`, and will not ask again."
    );
}

#[test]
fn permissions_reply_reject() {
    let daemon = start_daemon();
    let events = permission_round(&daemon, "p-reject", "reject");
    assert_eq!(
        last_of(&events, "permission.resolved")["data"]["status"],
        "reject"
    );
    assert_eq!(
        last_assistant_text(&events),
        "Permission rejected: I did not run `ls -la`."
    );
}

#[test]
fn permissions_reply_refuses_bad_input() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "p-bad");
    // Not a reply clap knows: refused before sending, with the choices listed.
    let output = cli(
        &daemon,
        &[
            "permissions",
            "reply",
            "p-bad",
            "mock_1_permission",
            "maybe",
        ],
    );
    assert!(!output.status.success(), "{}", describe(&output));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("once") && stderr.contains("always") && stderr.contains("reject"),
        "{stderr}"
    );
    // Nothing pending under that id.
    problem_failure(
        &cli(
            &daemon,
            &["permissions", "reply", "p-bad", "mock_1_permission", "once"],
        ),
        "request_not_found",
        404,
    );
}
