//! The state machine, run natively: inputs in, rendered actions out.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::transcript::render;

use crate::{first_version_number, TemplateAdapter, TemplateSession};

/// A started session whose agent binary is `/bin/sh`.
fn started() -> TemplateSession {
    let mut session = TemplateSession::new(SessionConfig {
        session_id: "s1".into(),
        agent_mode: "build".into(),
        permission_mode: "default".into(),
        model: None,
        variant: None,
        directory: "/workspace".into(),
        agent_binary: Some("/bin/sh".into()),
        env: Vec::new(),
        resume_native_session_id: None,
        mcp_servers: Vec::new(),
        skills: Vec::new(),
        scratch_dir: String::new(),
        model_endpoints: Vec::new(),
        policy: None,
    });
    assert_eq!(
        render(&session.start()),
        [r#"session.started {"binary":"/bin/sh"} (synthetic)"#]
    );
    session
}

fn exit(code: i32) -> ExitStatus {
    ExitStatus {
        code: Some(code),
        signal: None,
    }
}

fn send(session: &mut TemplateSession, text: &str) -> Vec<String> {
    render(&session.send_message(vec![MessagePart::Text(text.into())]))
}

#[test]
fn a_turn_runs_the_program_and_streams_its_lines() {
    let mut session = started();
    assert_eq!(
        send(&mut session, "echo hi"),
        [
            "turn.started turn_1 (synthetic)",
            r#"item.started itm_1 message/user in_progress [text "echo hi"] (synthetic)"#,
            r#"item.completed itm_1 message/user completed [text "echo hi"] (synthetic)"#,
            "item.started itm_2 message/assistant in_progress [] (synthetic)",
            r#"spawn turn_1 ["/bin/sh"]"#,
            r#"write-stdin turn_1 "echo hi\n""#,
            "close-stdin turn_1",
        ]
    );
    assert_eq!(
        render(&session.on_stdout("turn_1".into(), "hi".into())),
        [r#"item.delta itm_2 "hi\n" raw="hi""#]
    );
    assert_eq!(
        render(&session.on_exit("turn_1".into(), exit(0))),
        [
            r#"item.completed itm_2 message/assistant completed [text "hi\n"] (synthetic)"#,
            "turn.ended turn_1 (synthetic)",
        ]
    );
    // The next turn gets new ids and a new process.
    assert!(send(&mut session, "x").contains(&r#"spawn turn_2 ["/bin/sh"]"#.to_owned()));
}

#[test]
fn a_failing_program_ends_the_turn_with_an_error() {
    let mut session = started();
    send(&mut session, "exit 3");
    assert_eq!(
        render(&session.on_exit("turn_1".into(), exit(3))),
        [
            r#"error "/bin/sh ended with exit code 3" code=agent_failed (synthetic)"#,
            r#"item.completed itm_2 message/assistant failed [text ""] (synthetic)"#,
            "turn.ended turn_1 (synthetic)",
        ]
    );
    send(&mut session, "again");
    assert_eq!(
        render(&session.on_spawn_failed("turn_2".into(), "not found".into()))[0],
        r#"error "cannot start /bin/sh: not found" code=agent_failed (synthetic)"#
    );
}

#[test]
fn cancel_kills_the_process_and_the_exit_ends_the_turn() {
    let mut session = started();
    send(&mut session, "sleep 10");
    assert_eq!(render(&session.cancel_turn()), ["kill turn_1"]);
    let signal = ExitStatus {
        code: None,
        signal: Some(9),
    };
    assert_eq!(
        render(&session.on_exit("turn_1".into(), signal)),
        [
            r#"item.completed itm_2 message/assistant failed [text ""] (synthetic)"#,
            r#"turn.ended turn_1 {"cancelled":true} (synthetic)"#,
        ]
    );
    assert!(session.cancel_turn().is_empty(), "no turn runs any more");
}

#[test]
fn terminate_ends_the_running_turn_at_once() {
    let mut session = started();
    send(&mut session, "sleep 10");
    assert_eq!(render(&session.terminate()).len(), 2);
    assert!(session.terminate().is_empty());
}

#[test]
fn lines_of_another_process_are_unparsed_with_their_raw_text() {
    let mut session = started();
    assert_eq!(
        render(&session.on_stdout("turn_9".into(), "stray".into())),
        [
            r#"agent.unparsed stdout:turn_9 "output of a process that is not the running turn's" raw="stray""#
        ]
    );
}

#[test]
fn a_restored_session_continues_the_turn_and_its_ids() {
    let mut session = started();
    send(&mut session, "echo hi");
    session.on_stdout("turn_1".into(), "hi".into());
    let config = SessionConfig {
        agent_binary: Some("/bin/sh".into()),
        ..TemplateSession::default_config()
    };
    let mut restored = TemplateSession::restore(config, &session.snapshot()).unwrap();
    assert_eq!(
        render(&restored.on_exit("turn_1".into(), exit(0)))[0],
        r#"item.completed itm_2 message/assistant completed [text "hi\n"] (synthetic)"#
    );
    assert!(send(&mut restored, "x").contains(&"turn.started turn_2 (synthetic)".to_owned()));
    assert!(TemplateSession::restore(TemplateSession::default_config(), b"{}").is_err());
}

#[test]
fn info_and_version_probe() {
    let info = <TemplateAdapter as Adapter>::info();
    assert_eq!(info.id, "template");
    assert!(!info.builtin);
    assert!(info.modes.iter().any(|m| m.id == info.default_mode));
    let linux = Platform {
        os: Os::Linux,
        arch: Arch::X8664,
        libc: Some(Libc::Gnu),
    };
    assert_eq!(
        <TemplateAdapter as Adapter>::install_plan(linux, None).map(|r| r.binary_name),
        Some("cat".to_owned())
    );
    assert_eq!(
        first_version_number("cat (GNU coreutils) 9.4\nCopyright (C) 2023"),
        Some("9.4".to_owned())
    );
    assert_eq!(
        first_version_number("v2.1.197 (Claude Code)").as_deref(),
        Some("2.1.197")
    );
    assert_eq!(first_version_number("no version here"), None);
}

impl TemplateSession {
    /// The config `adapters test` uses when a case has no `create` line.
    fn default_config() -> SessionConfig {
        SessionConfig {
            session_id: "s1".into(),
            agent_mode: "build".into(),
            permission_mode: "default".into(),
            model: None,
            variant: None,
            directory: "/workspace".into(),
            agent_binary: None,
            env: Vec::new(),
            resume_native_session_id: None,
            mcp_servers: Vec::new(),
            skills: Vec::new(),
            scratch_dir: String::new(),
            model_endpoints: Vec::new(),
            policy: None,
        }
    }
}
