//! Permission and question requests and their replies, terminating, snapshots,
//! and the prompts of the shared agent test suite.

use super::*;

/// A rendered permission line: `event` (`requested`, `resolved`) of
/// `mock_<id>_permission` with `status`, asking to run `command`.
fn permission(event: &str, id: u64, status: &str, command: &str) -> String {
    let input = format!(r#"{{"command":"{command}","tool":"bash"}}"#);
    format!("permission.{event} mock_{id}_permission command_execution {status} {input}")
}

#[test]
fn a_permission_reply_resolves_it_and_the_agent_answers() {
    let once = "Permission granted once: I may run `echo mock`.";
    let always =
        "Permission granted for this session: I may run `git push`, and will not ask again.";
    let reject = "Permission rejected: I did not run `echo mock`.";
    let cases = [
        (
            "permission",
            PermissionReply::Once,
            "accept",
            once,
            "in=1 out=8",
        ),
        (
            "permission git push",
            PermissionReply::Always,
            "accept_for_session",
            always,
            "in=3 out=15",
        ),
        (
            "permission",
            PermissionReply::Reject,
            "reject",
            reject,
            "in=1 out=8",
        ),
    ];
    for (message, reply, status, answer, usage) in cases {
        let command = message.strip_prefix("permission ").unwrap_or("echo mock");
        let mut mock = Harness::new();
        mock.check_send(
            message,
            1,
            1,
            &[&permission("requested", 1, "requested", command)],
        );
        check_closing(
            mock.reply_permission("mock_1_permission", reply),
            &[&permission("resolved", 1, status, command)],
            closing(2, answer, 1, usage),
        );
    }
}

#[test]
fn permission_once_is_not_remembered() {
    let mut mock = Harness::new();
    mock.send("permission");
    mock.reply_permission("mock_1_permission", PermissionReply::Once);
    assert_eq!(
        mock.send("permission").last().unwrap(),
        &permission("requested", 2, "requested", "echo mock"),
        "the next request waits again"
    );
}

#[test]
fn permission_always_is_remembered_for_the_session() {
    let mut mock = Harness::new();
    mock.send("permission git push");
    mock.reply_permission("mock_1_permission", PermissionReply::Always);
    let answer =
        "Permission granted for this session: I may run `echo mock`, and will not ask again.";
    check_turn(
        without_deltas(mock.send("permission")),
        opening(2, 3, "permission"),
        &[
            &permission("requested", 2, "requested", "echo mock"),
            &permission("resolved", 2, "accept_for_session", "echo mock"),
            "item.started itm_4 message/assistant in_progress []",
            &format!(r#"item.completed itm_4 message/assistant completed [text "{answer}"]"#),
            "turn.ended turn_2 usage(in=1 out=15)",
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
    mock.check_send(
        "question",
        1,
        1,
        &[r#"question.requested mock_1_question requested "Choose a color" ["Red", "Blue"]"#],
    );
    check_closing(
        mock.reply_question("mock_1_question", &[&["Red", "Blue"]]),
        &[
            r#"question.resolved mock_1_question answered "Choose a color" ["Red", "Blue"] response="Red, Blue""#,
        ],
        closing(2, "You answered: Red, Blue.", 1, "in=1 out=4"),
    );
}

#[test]
fn question_reject_resolves_it_as_rejected() {
    let mut mock = Harness::new();
    mock.send("question");
    check_closing(
        mock.reject_question("mock_1_question"),
        &[r#"question.resolved mock_1_question rejected "Choose a color" ["Red", "Blue"]"#],
        closing(2, "You declined to answer.", 1, "in=1 out=4"),
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
    check_closing(
        mock.exit("shell_1", 0),
        &[r#"item.completed itm_5 tool_result/tool completed [tool_result call_1 "a\nb\n"]"#],
        closing(
            6,
            "`printf 'a\\nb\\n'` exited with code 0.",
            2,
            "in=3 out=6",
        ),
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
    assert_eq!(
        mock.answer("Reply with exactly the single word OK.", "itm_2"),
        "OK"
    );
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
