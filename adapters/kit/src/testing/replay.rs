//! Replays recorded transcripts through a session natively.
//!
//! A transcript is `transcripts/NAME.jsonl` in the adapter's crate: one JSON input a
//! line, in the format of `sandbox-agent adapters test` (`{"input":"create",...}`
//! first or not at all, then `start`, `sendMessage`, `stdout`...). [`replay`] feeds
//! every input to a fresh session and, after each, snapshots the session and
//! restores it from the snapshot, so a transcript also proves that the state
//! survives a restart at any point.
//!
//! ```no_run
//! use sandbox_agent_adapter_kit::testing::replay::{self, Transcripts};
//! # use sandbox_agent_adapter_kit::reply::ReplySession;
//! # struct Echo;
//! # impl sandbox_agent_adapter_kit::reply::Replier for Echo {
//! #     fn reply(text: &str) -> sandbox_agent_adapter_kit::reply::Reply {
//! #         sandbox_agent_adapter_kit::reply::Reply::Text(text.to_owned())
//! #     }
//! # }
//! # type MySession = ReplySession<Echo>;
//! let transcripts = Transcripts::of_crate(env!("CARGO_MANIFEST_DIR"));
//! for name in transcripts.names() {
//!     let steps = transcripts.replay::<MySession>(&name);
//!     println!("{name}: {:?}", replay::rendered(&steps));
//! }
//! ```

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::types::{
    Action, EmittedEvent, ExitStatus, HttpResponse, MessagePart, PermissionReply, SessionConfig,
    SseEvent,
};
use crate::SessionMachine;

/// One input of a replay and the actions the session returned for it.
#[derive(Debug, Clone)]
pub struct Step {
    /// The input line as written.
    pub input: Value,
    /// What the session returned.
    pub actions: Vec<Action>,
}

/// The folder of an adapter's recorded transcripts.
#[derive(Debug, Clone)]
pub struct Transcripts {
    dir: PathBuf,
}

impl Transcripts {
    /// The transcripts in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The `transcripts/` folder of the crate at `manifest_dir` (pass
    /// `env!("CARGO_MANIFEST_DIR")`).
    pub fn of_crate(manifest_dir: &str) -> Self {
        Self::new(Path::new(manifest_dir).join("transcripts"))
    }

    /// The names of every transcript (`NAME` of `NAME.jsonl`, not the
    /// `.expected.jsonl` files), sorted.
    pub fn names(&self) -> Vec<String> {
        let entries =
            std::fs::read_dir(&self.dir).unwrap_or_else(|e| panic!("{}: {e}", self.dir.display()));
        let mut names: Vec<String> = entries
            .filter_map(|entry| {
                let name = entry.ok()?.file_name().into_string().ok()?;
                let stem = name.strip_suffix(".jsonl")?;
                (!stem.ends_with(".expected")).then(|| stem.to_owned())
            })
            .collect();
        names.sort();
        names
    }

    /// The input lines of transcript `name`, parsed (blank lines skipped).
    pub fn inputs(&self, name: &str) -> Vec<Value> {
        let path = self.dir.join(format!("{name}.jsonl"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        text.lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| serde_json::from_str(line).expect("a JSON input line"))
            .collect()
    }

    /// Replays transcript `name` through a new `S` (see [`replay`]).
    pub fn replay<S: SessionMachine>(&self, name: &str) -> Vec<Step> {
        replay::<S>(self.inputs(name))
    }
}

/// Replays `inputs` through a new `S`: its configuration from a first `create` line
/// (the defaults of [`config_of`] without one), then every other input in order.
/// After each input the session is snapshotted and restored from the snapshot, and
/// the restored session must snapshot the same bytes.
pub fn replay<S: SessionMachine>(inputs: Vec<Value>) -> Vec<Step> {
    let mut inputs = inputs.into_iter().peekable();
    let config = match inputs.peek() {
        Some(first) if first["input"] == "create" => {
            config_of(&inputs.next().expect("peeked")["config"])
        }
        _ => config_of(&Value::Null),
    };
    let mut session = S::new(config.clone());
    let mut steps = Vec::new();
    for input in inputs {
        let actions = feed(&mut session, &input);
        let bytes = session.snapshot();
        session = S::restore(config.clone(), &bytes).expect("the snapshot restores");
        assert_eq!(
            session.snapshot(),
            bytes,
            "a restored session snapshots the same"
        );
        steps.push(Step { input, actions });
    }
    steps
}

/// A session configuration from a `create` line's camelCase `config`, with the
/// defaults of `sandbox-agent adapters test` for what it leaves out (session `s1`,
/// mode `build`, permission mode `default`, directory `/workspace`).
pub fn config_of(config: &Value) -> SessionConfig {
    let text = |key: &str, default: &str| config[key].as_str().unwrap_or(default).to_owned();
    let optional = |key: &str| config[key].as_str().map(str::to_owned);
    let env = serde_json::from_value(config["env"].clone()).unwrap_or_default();
    SessionConfig {
        session_id: text("sessionId", "s1"),
        agent_mode: text("agentMode", "build"),
        permission_mode: text("permissionMode", "default"),
        model: optional("model"),
        variant: optional("variant"),
        directory: text("directory", "/workspace"),
        agent_binary: optional("agentBinary"),
        env,
        resume_native_session_id: optional("resumeNativeSessionId"),
        mcp_servers: Vec::new(),
        skills: Vec::new(),
        scratch_dir: optional("scratchDir").unwrap_or_default(),
        model_endpoints: Vec::new(),
        policy: None,
    }
}

/// Runs one transcript input (any kind but `create`) on `session`. Panics on an
/// unknown kind and when the session refuses a reply.
pub fn feed<S: SessionMachine>(session: &mut S, input: &Value) -> Vec<Action> {
    try_feed(session, input).expect("the reply is accepted")
}

/// [`feed`] that returns the session's refusal of a reply (or of a reply's
/// malformed `answers`) instead of panicking. Panics on an unknown kind.
pub fn try_feed<S: SessionMachine>(session: &mut S, input: &Value) -> Result<Vec<Action>, String> {
    let text = |key: &str| input[key].as_str().unwrap_or_default().to_owned();
    let optional = |key: &str| input[key].as_str().map(str::to_owned);
    let process = text("process");
    Ok(match input["input"].as_str().unwrap_or_default() {
        "start" => session.start(),
        "sendMessage" => session.send_message(vec![MessagePart::Text(text("text"))]),
        "replyPermission" => {
            let answer = match text("reply").as_str() {
                "once" => PermissionReply::Once,
                "always" => PermissionReply::Always,
                _ => PermissionReply::Reject,
            };
            session.reply_permission(text("id"), answer)?
        }
        "replyQuestion" => {
            let answers = serde_json::from_value(input["answers"].clone())
                .map_err(|e| format!("answers: {e}"))?;
            session.reply_question(text("id"), answers)?
        }
        "rejectQuestion" => session.reject_question(text("id"))?,
        "cancelTurn" => session.cancel_turn(),
        "terminate" => session.terminate(),
        "stdout" => session.on_stdout(process, text("line")),
        "stderr" => session.on_stderr(process, text("line")),
        "exit" => {
            let number = |key: &str| input[key].as_i64().map(|n| n as i32);
            let status = ExitStatus {
                code: number("code"),
                signal: number("signal"),
            };
            session.on_exit(process, status)
        }
        "spawnFailed" => session.on_spawn_failed(process, text("message")),
        "httpResponse" => session.on_http_response(HttpResponse {
            request_id: text("request"),
            status: input["status"].as_u64().unwrap_or_default() as u16,
            headers: serde_json::from_value(input["headers"].clone()).unwrap_or_default(),
            body: text("body").into_bytes(),
        }),
        "httpError" => session.on_http_error(text("request"), text("message")),
        "sseEvent" => session.on_sse_event(SseEvent {
            stream_id: text("stream"),
            event: optional("event").unwrap_or_else(|| "message".to_owned()),
            data: text("data"),
            id: optional("id"),
        }),
        "sseClosed" => session.on_sse_closed(text("stream"), optional("error")),
        "timer" => session.on_timer(text("timer")),
        other => panic!("unknown input {other}"),
    })
}

/// In a crate's tests: `names()`, the names of the transcripts in its
/// `transcripts/` folder, and `replay(name)`, one of them replayed ([`Transcripts`])
/// through session type `$session`.
#[macro_export]
macro_rules! replay_transcripts {
    ($session:ty) => {
        /// The names of every transcript in the crate's `transcripts/`.
        pub(crate) fn names() -> ::std::vec::Vec<::std::string::String> {
            $crate::testing::replay::Transcripts::of_crate(env!("CARGO_MANIFEST_DIR")).names()
        }

        /// Replays transcript `name` of the crate's `transcripts/`.
        pub(crate) fn replay(name: &str) -> ::std::vec::Vec<$crate::testing::replay::Step> {
            $crate::testing::replay::Transcripts::of_crate(env!("CARGO_MANIFEST_DIR"))
                .replay::<$session>(name)
        }
    };
}

/// Every action of the replay, rendered, with raw payloads left out.
pub fn rendered(steps: &[Step]) -> Vec<String> {
    super::render_without_raw(steps.iter().flat_map(|step| step.actions.iter().cloned()))
}

/// The rendered actions ([`rendered`]) that start with one of `prefixes`.
pub fn only(steps: &[Step], prefixes: &[&str]) -> Vec<String> {
    rendered(steps)
        .into_iter()
        .filter(|line| prefixes.iter().any(|p| line.starts_with(p)))
        .collect()
}

/// The events the replay emitted, in order.
pub fn events(steps: &[Step]) -> Vec<&EmittedEvent> {
    steps
        .iter()
        .flat_map(|step| step.actions.iter())
        .filter_map(|action| match action {
            Action::Emit(event) => Some(event),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::{Replier, Reply, ReplySession};
    use serde_json::json;

    struct Echo;

    impl Replier for Echo {
        fn reply(text: &str) -> Reply {
            Reply::Text(format!("Echo: {text}"))
        }
    }

    #[test]
    fn a_replay_feeds_every_input_and_keeps_the_create_config() {
        let inputs = vec![
            json!({"input":"create","config":{"sessionId":"s9","permissionMode":"bypass"}}),
            json!({"input":"start"}),
            json!({"input":"sendMessage","text":"hi"}),
        ];
        let steps = replay::<ReplySession<Echo>>(inputs);
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[1].input["text"], "hi");
        assert!(only(&steps, &["item.completed"])
            .iter()
            .any(|line| line.contains("Echo: hi")));
        assert!(!events(&steps).is_empty());
        let config = config_of(&json!({"sessionId":"s9","env":[["A","1"]]}));
        assert_eq!(config.session_id, "s9");
        assert_eq!(config.env, [("A".to_owned(), "1".to_owned())]);
        assert_eq!(config.agent_mode, "build");
    }
}
