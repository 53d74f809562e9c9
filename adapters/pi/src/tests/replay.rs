//! Replays transcript inputs (the format of `sandbox-agent adapters test`) through a
//! session, snapshotting and restoring it after every input.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::transcript::render;
use serde_json::Value;

use crate::PiSession;

/// One input and the actions it returned.
pub(super) struct Step {
    pub input: Value,
    pub actions: Vec<Action>,
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

/// Replays transcript `name` (its `create` line first).
pub(super) fn replay(name: &str) -> Vec<Step> {
    let path = format!("{}/transcripts/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut inputs = text
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("a JSON input line"))
        .peekable();
    let config = match inputs.peek() {
        Some(first) if first["input"] == "create" => config_of(&inputs.next().unwrap()["config"]),
        _ => config_of(&Value::Null),
    };
    let mut session = PiSession::new(config.clone());
    let mut steps = Vec::new();
    for input in inputs {
        let actions = feed(&mut session, &input);
        let bytes = session.snapshot();
        session = PiSession::restore(config.clone(), &bytes).expect("the snapshot restores");
        assert_eq!(
            session.snapshot(),
            bytes,
            "a restored session snapshots the same"
        );
        steps.push(Step { input, actions });
    }
    steps
}

/// A session configuration from a `create` line's camelCase `config`.
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
fn feed(session: &mut PiSession, input: &Value) -> Vec<Action> {
    let text = |key: &str| input[key].as_str().unwrap_or_default().to_owned();
    let process = text("process");
    match input["input"].as_str().unwrap_or_default() {
        "start" => session.start(),
        "sendMessage" => session.send_message(vec![MessagePart::Text(text("text"))]),
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
        .collect();
    render_without_raw(actions)
}

/// `actions` rendered, with raw payloads left out.
pub(super) fn render_without_raw(actions: Vec<Action>) -> Vec<String> {
    let actions: Vec<Action> = actions
        .into_iter()
        .map(|action| match action {
            Action::Emit(event) => Action::Emit(EmittedEvent { raw: None, ..event }),
            other => other,
        })
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
