//! Replays transcript inputs (the format of `sandbox-agent adapters test`) through a
//! session, snapshotting and restoring it after every input.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::transcript::render;
use serde_json::Value;

use crate::ClaudeSession;

/// One input and the actions it returned.
pub(super) struct Step {
    pub input: Value,
    pub actions: Vec<Action>,
}

/// The transcript inputs of `transcripts/<name>.jsonl`.
pub(super) fn inputs(name: &str) -> Vec<Value> {
    let path = format!("{}/transcripts/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(|line| serde_json::from_str(line).expect("a JSON input line"))
        .collect()
}

/// The names of every transcript in `transcripts/`.
pub(super) fn names() -> Vec<String> {
    let dir = format!("{}/transcripts", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the transcripts folder")
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".jsonl")?;
            (!stem.ends_with(".expected")).then(|| stem.to_owned())
        })
        .collect();
    names.sort();
    names
}

/// Replays transcript `name`.
pub(super) fn replay(name: &str) -> Vec<Step> {
    replay_inputs(inputs(name))
}

/// Replays `inputs` (a `create` line first, or the default configuration).
pub(super) fn replay_inputs(inputs: Vec<Value>) -> Vec<Step> {
    let mut inputs = inputs.into_iter().peekable();
    let config = match inputs.peek() {
        Some(first) if first["input"] == "create" => {
            config_of(&inputs.next().expect("peeked")["config"])
        }
        _ => config_of(&Value::Null),
    };
    let mut session = ClaudeSession::new(config.clone());
    let mut steps = Vec::new();
    for input in inputs {
        let actions = feed(&mut session, &input);
        let bytes = session.snapshot();
        session = ClaudeSession::restore(config.clone(), &bytes).expect("the snapshot restores");
        assert_eq!(
            session.snapshot(),
            bytes,
            "a restored session snapshots the same"
        );
        steps.push(Step { input, actions });
    }
    steps
}

/// A session configuration from a `create` line's camelCase `config` (defaults for
/// what it leaves out).
pub(super) fn config_of(config: &Value) -> SessionConfig {
    let text = |key: &str, default: &str| config[key].as_str().unwrap_or(default).to_owned();
    let optional = |key: &str| config[key].as_str().map(str::to_owned);
    SessionConfig {
        session_id: text("sessionId", "s1"),
        agent_mode: text("agentMode", "build"),
        permission_mode: text("permissionMode", "default"),
        model: optional("model"),
        variant: optional("variant"),
        directory: text("directory", "/workspace"),
        agent_binary: optional("agentBinary"),
        env: Vec::new(),
        resume_native_session_id: optional("resumeNativeSessionId"),
    }
}

/// Runs one input.
pub(super) fn feed(session: &mut ClaudeSession, input: &Value) -> Vec<Action> {
    let text = |key: &str| input[key].as_str().unwrap_or_default().to_owned();
    let process = text("process");
    let reply = |result: Result<Vec<Action>, String>| result.expect("the reply is accepted");
    match input["input"].as_str().unwrap_or_default() {
        "start" => session.start(),
        "sendMessage" => session.send_message(vec![MessagePart::Text(text("text"))]),
        "replyPermission" => {
            let answer = match text("reply").as_str() {
                "once" => PermissionReply::Once,
                "always" => PermissionReply::Always,
                _ => PermissionReply::Reject,
            };
            reply(session.reply_permission(text("id"), answer))
        }
        "replyQuestion" => {
            let answers = serde_json::from_value(input["answers"].clone()).expect("answers");
            reply(session.reply_question(text("id"), answers))
        }
        "rejectQuestion" => reply(session.reject_question(text("id"))),
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
        "timer" => session.on_timer(text("timer")),
        other => panic!("unknown input {other}"),
    }
}

/// Every action of the replay, rendered, with raw payloads left out.
pub(super) fn rendered(steps: &[Step]) -> Vec<String> {
    let actions: Vec<Action> = steps
        .iter()
        .flat_map(|step| step.actions.iter().cloned())
        .map(without_raw)
        .collect();
    render(&actions)
}

/// The rendered actions that start with one of `prefixes`.
pub(super) fn only(steps: &[Step], prefixes: &[&str]) -> Vec<String> {
    rendered(steps)
        .into_iter()
        .filter(|line| prefixes.iter().any(|p| line.starts_with(p)))
        .collect()
}

/// The emitted events of the replay.
pub(super) fn events(steps: &[Step]) -> Vec<&EmittedEvent> {
    steps
        .iter()
        .flat_map(|step| step.actions.iter())
        .filter_map(|action| match action {
            Action::Emit(event) => Some(event),
            _ => None,
        })
        .collect()
}

fn without_raw(action: Action) -> Action {
    match action {
        Action::Emit(event) => Action::Emit(EmittedEvent { raw: None, ..event }),
        other => other,
    }
}

/// Compares line lists, printing both in full when they differ.
#[track_caller]
pub(super) fn check(actual: Vec<String>, expected: &[&str]) {
    if actual != expected {
        panic!(
            "transcript differs\n--- actual:\n{}\n--- expected:\n{}\n",
            actual.join("\n"),
            expected.join("\n")
        );
    }
}
