//! The session on single inputs: probe, launches, lines, exits, cancel.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing::assert_has;
use sandbox_agent_adapter_kit::transcript::render;

use super::config;
use crate::AmpSession;

const OLD_HELP: &str = include_str!("../../testdata/help-0.0.1767830505.txt");
const INIT: &str = r#"{"type":"system","subtype":"init","cwd":"/workspace","session_id":"T-1","tools":["Bash"],"mcp_servers":[]}"#;
const ECHO: &str = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null,"session_id":"T-1"}"#;

/// A started session whose probe printed `help` and exited.
fn probed(help: &str) -> AmpSession {
    let mut session = AmpSession::new(config());
    session.start();
    for line in help.lines() {
        assert!(session.on_stdout("probe_1".into(), line.into()).is_empty());
    }
    let exited = session.on_exit("probe_1".into(), ok());
    assert!(exited.is_empty(), "{:?}", render(&exited));
    session
}

fn ok() -> ExitStatus {
    ExitStatus {
        code: Some(0),
        signal: None,
    }
}

fn send(session: &mut AmpSession, text: &str) -> Vec<String> {
    render(&session.send_message(vec![MessagePart::Text(text.into())]))
}

/// Sends `text` and panics unless the turn starts process `spawn` (rendered).
#[track_caller]
fn assert_turn_spawns(session: &mut AmpSession, text: &str, spawn: &str) {
    assert_has(&send(session, text), spawn);
}

fn stdout(session: &mut AmpSession, process: &str, line: &str) -> Vec<String> {
    render(&session.on_stdout(process.into(), line.into()))
}

#[test]
fn start_announces_the_session_and_probes_the_flags() {
    let mut session = AmpSession::new(config());
    let lines = render(&session.start());
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("session.started"), "{lines:?}");
    assert_eq!(lines[1], r#"spawn probe_1 ["amp", "--help"]"#);
}

#[test]
fn a_message_sent_during_the_probe_waits_for_it() {
    let mut session = AmpSession::new(config());
    session.start();
    let lines = send(&mut session, "hi");
    assert!(lines.iter().all(|l| !l.starts_with("spawn")), "{lines:?}");
    session.on_stdout("probe_1".into(), "  --stream-json".into());
    let lines = render(&session.on_exit("probe_1".into(), ok()));
    assert_eq!(
        lines,
        [
            r#"spawn amp_1 ["amp", "--execute", "--stream-json"]"#,
            r#"write-stdin amp_1 "hi\n""#,
            "close-stdin amp_1",
        ]
    );
}

#[test]
fn the_second_turn_continues_the_thread_of_the_first() {
    let mut session = probed(OLD_HELP);
    assert_turn_spawns(
        &mut session,
        "hi",
        r#"spawn amp_1 ["amp", "--execute", "--stream-json"]"#,
    );
    assert_eq!(
        stdout(&mut session, "amp_1", INIT),
        ["set-native-session-id T-1"]
    );
    assert!(stdout(&mut session, "amp_1", ECHO).is_empty());
    let result = r#"{"type":"result","subtype":"success","duration_ms":1,"is_error":false,"num_turns":1,"result":"","session_id":"T-1"}"#;
    let lines = stdout(&mut session, "amp_1", result);
    assert!(lines[0].starts_with("turn.ended turn_1"), "{lines:?}");
    assert!(render(&session.on_exit("amp_1".into(), ok())).is_empty());

    // A snapshot taken between turns keeps the thread and the flags.
    let mut session = AmpSession::restore(config(), &session.snapshot()).unwrap();
    assert_turn_spawns(
        &mut session,
        "again",
        r#"spawn amp_2 ["amp", "threads", "continue", "T-1", "--execute", "--stream-json"]"#,
    );
}

/// The host applies a changed permission mode or model by rebuilding the session
/// from its snapshot with them in its configuration: the next turn's process is
/// launched with them, the thread going on.
#[test]
fn changed_modes_and_model_reach_the_next_turn() {
    let help = include_str!("../../testdata/help-0.0.1790142911.txt");
    let mut session = probed(help);
    let lines = send(&mut session, "hi");
    let first = lines.iter().find(|l| l.starts_with("spawn amp_1")).unwrap();
    assert!(!first.contains("--dangerously-allow-all"), "{first}");
    assert!(!first.contains("--mode"), "{first}");
    stdout(&mut session, "amp_1", INIT);
    let result = r#"{"type":"result","subtype":"success","duration_ms":1,"is_error":false,"num_turns":1,"result":"","session_id":"T-1"}"#;
    stdout(&mut session, "amp_1", result);
    session.on_exit("amp_1".into(), ok());

    let mut changed = config();
    changed.permission_mode = "bypass".into();
    changed.model = Some("rush".into());
    let mut session = AmpSession::restore(changed, &session.snapshot()).unwrap();
    let lines = send(&mut session, "again");
    let second = lines.iter().find(|l| l.starts_with("spawn amp_2")).unwrap();
    assert!(
        second.contains(r#""threads", "continue", "T-1""#),
        "{second}"
    );
    assert!(second.contains(r#""--dangerously-allow-all""#), "{second}");
    assert!(second.contains(r#""--mode", "rush""#), "{second}");
}

#[test]
fn a_session_resumed_by_id_continues_that_thread() {
    let mut config = config();
    config.resume_native_session_id = Some("T-9".into());
    let mut session = AmpSession::new(config);
    let lines = render(&session.start());
    assert_eq!(lines[0], "set-native-session-id T-9");
    session.on_exit("probe_1".into(), ok());
    assert_turn_spawns(
        &mut session,
        "hi",
        r#"spawn amp_1 ["amp", "threads", "continue", "T-9", "--execute", "--stream-json"]"#,
    );
}

#[test]
fn an_exit_without_a_result_ends_the_session_with_the_code() {
    let mut session = probed(OLD_HELP);
    send(&mut session, "hi");
    let failed = ExitStatus {
        code: Some(1),
        signal: None,
    };
    let lines = render(&session.on_exit("amp_1".into(), failed));
    assert!(lines[0].starts_with("error"), "{lines:?}");
    assert!(lines[1].starts_with("turn.ended turn_1"), "{lines:?}");
    assert!(lines[2].starts_with("session.ended error"), "{lines:?}");
    assert!(send(&mut session, "more").is_empty());
}

#[test]
fn cancel_kills_the_turn_process_and_ends_the_turn() {
    let mut session = probed(OLD_HELP);
    send(&mut session, "slow: 10");
    let lines = render(&session.cancel_turn());
    assert_eq!(lines[0], "kill amp_1");
    assert!(lines[1].starts_with("turn.ended turn_1"), "{lines:?}");
    // The killed process's last lines and exit are ignored.
    assert!(stdout(&mut session, "amp_1", INIT).is_empty());
    let killed = ExitStatus {
        code: None,
        signal: Some(9),
    };
    assert!(session.on_exit("amp_1".into(), killed).is_empty());
    assert!(send(&mut session, "next")
        .iter()
        .any(|l| l.starts_with("spawn amp_2")));
}

#[test]
fn unknown_lines_and_blocks_are_kept_as_unparsed() {
    let mut session = probed(OLD_HELP);
    send(&mut session, "hi");
    let lines = stdout(&mut session, "amp_1", "Warning: something");
    assert!(lines[0].starts_with("agent.unparsed"), "{lines:?}");
    let lines = stdout(&mut session, "amp_1", r#"{"type":"telemetry","x":1}"#);
    assert!(lines[0].starts_with("agent.unparsed"), "{lines:?}");
    let block = r#"{"type":"assistant","message":{"content":[{"type":"redacted_thinking","data":"x"}]},"parent_tool_use_id":null,"session_id":"T-1"}"#;
    let lines = stdout(&mut session, "amp_1", block);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[1].starts_with("agent.unparsed"), "{lines:?}");
}

#[test]
fn a_missing_binary_ends_the_session_naming_it() {
    let mut session = AmpSession::new(config());
    session.start();
    let lines = render(&session.on_spawn_failed("probe_1".into(), "not found".into()));
    assert!(lines[0].contains("could not start amp"), "{lines:?}");
    assert!(
        lines.last().unwrap().starts_with("session.ended error"),
        "{lines:?}"
    );
}
