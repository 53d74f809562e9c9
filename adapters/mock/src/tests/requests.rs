//! Permission and question requests and their replies, terminating, snapshots,
//! and the prompts of the shared agent test suite.

use super::*;

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
