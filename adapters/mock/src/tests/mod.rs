//! The mock's script, checked as transcripts: a message (or a reply, a process line, a
//! timer tick) in, universal events and actions out, one rendered line each.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing::check;
use sandbox_agent_adapter_kit::transcript::render;

use crate::MockSession;

sandbox_agent_adapter_kit::facts_test!(crate::Mock, "../facts.json");

/// The opening of every turn: `turn.started` and the user's message as a synthetic item.
fn opening(turn: u64, item: u64, text: &str) -> [String; 3] {
    [
        format!("turn.started turn_{turn}"),
        format!("item.started itm_{item} message/user in_progress [text {text:?}] (synthetic)"),
        format!("item.completed itm_{item} message/user completed [text {text:?}] (synthetic)"),
    ]
}

/// The close of a turn the assistant answers: its message `text` as item `itm_<item>`,
/// then `turn.ended` of `turn_<turn>` with `usage` (`in=1 out=4`).
fn closing(item: u64, text: &str, turn: u64, usage: &str) -> [String; 3] {
    [
        format!("item.started itm_{item} message/assistant in_progress []"),
        format!("item.completed itm_{item} message/assistant completed [text {text:?}]"),
        format!("turn.ended turn_{turn} usage({usage})"),
    ]
}

/// Like [`check`] on the transcript without its deltas, before the turn's closing
/// lines (checked against `closing`).
#[track_caller]
fn check_closing(actual: Vec<String>, rest: &[&str], closing: [String; 3]) {
    let actual = without_deltas(actual);
    let split = actual.len().saturating_sub(3);
    assert_eq!(actual[split..], closing, "turn closing");
    check(actual[..split].to_vec(), rest);
}

/// A test session, started.
struct Harness {
    session: MockSession,
}

impl Harness {
    fn new() -> Self {
        Self::with(|_| {})
    }

    fn with(configure: impl FnOnce(&mut SessionConfig)) -> Self {
        let mut config = SessionConfig {
            session_id: "s1".into(),
            agent_mode: "build".into(),
            permission_mode: "default".into(),
            model: None,
            variant: None,
            directory: "/work".into(),
            agent_binary: None,
            env: vec![("MOCK_ENV".into(), "1".into())],
            resume_native_session_id: None,
            mcp_servers: Vec::new(),
            skills: Vec::new(),
            scratch_dir: String::new(),
            model_endpoints: Vec::new(),
            policy: None,
        };
        configure(&mut config);
        let mut session = MockSession::new(config);
        session.start();
        Self { session }
    }

    /// Sends `text` as turn `turn_<turn>` with user item `itm_<item>`, and checks the
    /// transcript: the turn's opening, then `rest`.
    #[track_caller]
    fn check_send(&mut self, text: &str, turn: u64, item: u64, rest: &[&str]) {
        check_turn(self.send(text), opening(turn, item, text), rest);
    }

    /// Sends `text`; the text the assistant's item `item` streams in answer.
    fn answer(&mut self, text: &str, item: &str) -> String {
        streamed_text(&self.send(text), item)
    }

    fn send(&mut self, text: &str) -> Vec<String> {
        self.send_parts(vec![MessagePart::Text(text.into())])
    }

    fn send_parts(&mut self, parts: Vec<MessagePart>) -> Vec<String> {
        render(&self.session.send_message(parts))
    }

    fn reply_permission(&mut self, id: &str, reply: PermissionReply) -> Vec<String> {
        render(
            &self
                .session
                .reply_permission(id.into(), reply)
                .expect("known permission id"),
        )
    }

    fn reply_question(&mut self, id: &str, answers: &[&[&str]]) -> Vec<String> {
        let answers = answers
            .iter()
            .map(|a| a.iter().map(|s| s.to_string()).collect())
            .collect();
        render(
            &self
                .session
                .reply_question(id.into(), answers)
                .expect("known question id"),
        )
    }

    fn reject_question(&mut self, id: &str) -> Vec<String> {
        render(
            &self
                .session
                .reject_question(id.into())
                .expect("known question id"),
        )
    }

    fn stdout(&mut self, process: &str, line: &str) -> Vec<String> {
        render(&self.session.on_stdout(process.into(), line.into()))
    }

    fn stderr(&mut self, process: &str, line: &str) -> Vec<String> {
        render(&self.session.on_stderr(process.into(), line.into()))
    }

    fn exit(&mut self, process: &str, code: i32) -> Vec<String> {
        render(&self.session.on_exit(
            process.into(),
            ExitStatus {
                code: Some(code),
                signal: None,
            },
        ))
    }

    fn timer(&mut self, id: &str) -> Vec<String> {
        render(&self.session.on_timer(id.into()))
    }

    fn cancel(&mut self) -> Vec<String> {
        render(&self.session.cancel_turn())
    }

    fn terminate(&mut self) -> Vec<String> {
        render(&self.session.terminate())
    }

    /// Replaces the session by one restored from its own snapshot.
    fn restart(&mut self) {
        let bytes = self.session.snapshot();
        let config = self.session.config().clone();
        self.session = MockSession::restore(config, &bytes).expect("snapshot restores");
        assert_eq!(
            self.session.snapshot(),
            bytes,
            "a restored session snapshots the same"
        );
    }
}

/// Like [`check`], after the turn's opening lines (checked against `opening`).
#[track_caller]
fn check_turn(actual: Vec<String>, opening: [String; 3], rest: &[&str]) {
    assert_eq!(actual[..3], opening, "turn opening");
    check(actual[3..].to_vec(), rest);
}

/// The transcript without its `item.delta` lines.
fn without_deltas(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .filter(|line| !line.starts_with("item.delta"))
        .collect()
}

/// The text the `item.delta` lines of `item` add up to.
fn streamed_text(lines: &[String], item: &str) -> String {
    let prefix = format!("item.delta {item} ");
    lines
        .iter()
        .filter_map(|line| line.strip_prefix(&prefix))
        .map(|quoted| serde_json::from_str::<String>(quoted).expect("a quoted delta"))
        .collect()
}

mod processes;
mod requests;
mod script;

sandbox_agent_adapter_kit::fuzz_test!(crate::MockSession, transcripts: ["transcripts"], captures: []);
