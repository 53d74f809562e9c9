//! Commands that wait for the host: real processes (`shell`), timer ticks (`slow`),
//! and cancelling them.

use super::*;

#[test]
fn shell_runs_a_real_process_and_streams_its_output() {
    let mut mock = Harness::new();
    let spawn = r#"spawn shell_1 ["sh", "-c", "ls -1"]"#;
    mock.check_send(
        "shell ls -1",
        1,
        1,
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
    check_closing(
        mock.exit("shell_1", 1),
        &[
            r#"item.completed itm_3 tool_result/tool failed [tool_result call_1 ""]"#,
        ],
        closing(4, "`cat missing` failed with exit code 1.\n\nstderr:\ncat: missing: No such file or directory", 1, "in=3 out=15"),
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
    check_closing(
        lines,
        &[r#"item.completed itm_3 tool_result/tool failed [tool_result call_1 "sh: not found"]"#],
        closing(4, "`true` could not start: sh: not found", 1, "in=2 out=7"),
    );
}

#[test]
fn slow_streams_one_delta_per_timer_tick() {
    let mut mock = Harness::new();
    mock.check_send(
        "slow 3",
        1,
        1,
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
