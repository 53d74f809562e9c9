//! Records transcripts from the real `codex app-server` (ignored by default).
//!
//! A small host written for this test carries out the adapter's actions against the
//! real binary (one shared app-server, replaying its first 64 lines to sessions that
//! attach later, as the daemon does) and writes every input each session received as
//! a transcript case (`transcripts/NAME.jsonl`, the format `sandbox-agent adapters
//! test` replays).
//!
//! ```sh
//! CODEX_LIVE_BIN=/path/to/codex CODEX_LIVE_HOME=/tmp/codex-home \
//! CODEX_LIVE_OUT=adapters/codex/transcripts \
//!   cargo test --manifest-path adapters/Cargo.toml -p sandbox-agent-adapter-codex \
//!   --test live -- --ignored --test-threads 1
//! ```
//!
//! `CODEX_LIVE_HOME` is a `CODEX_HOME` whose `config.toml` points Codex at the scripted
//! model server (`model_provider`, `[model_providers.<name>]` with `base_url`,
//! `env_key`, `wire_api = "responses"`); `CODEX_LIVE_EXTRA_HOME`, when set, one whose
//! model server also answers `ask: Q` with Codex's `request_user_input` tool (plan
//! mode), `patch: PATH` with an `apply_patch` update of `file content here` and
//! `delete: PATH` with an `apply_patch` deletion.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use sandbox_agent_adapter_codex::CodexSession;
use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::transcript::render_event;
use serde_json::{json, Value};

/// The sessions' working directory (created when missing).
const WORKSPACE: &str = "/workspace";

/// Lines a late subscriber gets replayed, as the daemon does.
const REPLAYED: usize = 64;

/// One input for one session.
enum Input {
    Stdout(String),
    Exit(Option<i32>, Option<i32>),
}

/// The shared process.
struct Shared {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Option<String>>,
    first: Vec<String>,
    subscribers: Vec<String>,
}

/// One session under test.
struct Sess {
    machine: CodexSession,
    record: Vec<Value>,
    events: Vec<String>,
    timers: BTreeMap<String, Instant>,
    ended: bool,
}

/// The test host.
struct Host {
    bin: String,
    home: String,
    dir: String,
    shared: Option<Shared>,
    sessions: BTreeMap<String, Sess>,
    queue: VecDeque<(String, Input)>,
}

impl Host {
    fn new(home: &str) -> Self {
        let dir = PathBuf::from(WORKSPACE);
        std::fs::create_dir_all(&dir).unwrap();
        Self {
            bin: std::env::var("CODEX_LIVE_BIN").expect("CODEX_LIVE_BIN"),
            home: home.to_owned(),
            dir: dir.to_string_lossy().into_owned(),
            shared: None,
            sessions: BTreeMap::new(),
            queue: VecDeque::new(),
        }
    }

    fn config(&self, id: &str, permission_mode: &str, agent_mode: &str) -> SessionConfig {
        SessionConfig {
            session_id: id.into(),
            agent_mode: agent_mode.into(),
            permission_mode: permission_mode.into(),
            model: None,
            variant: None,
            directory: WORKSPACE.into(),
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

    /// Creates and starts a session.
    fn create(&mut self, config: SessionConfig) {
        let id = config.session_id.clone();
        let create = json!({"input": "create", "config": {
            "sessionId": config.session_id, "agentMode": config.agent_mode,
            "permissionMode": config.permission_mode, "model": config.model,
            "variant": config.variant, "directory": config.directory,
            "agentBinary": null, "env": [], "resumeNativeSessionId": config.resume_native_session_id,
        }});
        let sess = Sess {
            machine: CodexSession::new(config),
            record: vec![create],
            events: Vec::new(),
            timers: BTreeMap::new(),
            ended: false,
        };
        self.sessions.insert(id.clone(), sess);
        self.call(&id, json!({"input": "start"}), |m| m.start());
    }

    /// Records `input`, calls the machine and carries out its actions.
    fn call(&mut self, id: &str, input: Value, f: impl FnOnce(&mut CodexSession) -> Vec<Action>) {
        let sess = self.sessions.get_mut(id).unwrap();
        if sess.ended {
            return;
        }
        sess.record.push(input);
        let actions = f(&mut sess.machine);
        self.perform(id, actions);
    }

    fn perform(&mut self, id: &str, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::Emit(event) => {
                    let line = render_event(&event);
                    println!("[{id}] {}", line.chars().take(300).collect::<String>());
                    let sess = self.sessions.get_mut(id).unwrap();
                    sess.events.push(line);
                    if matches!(event.event, Event::SessionEnded(_)) {
                        sess.ended = true;
                        self.detach(id);
                        return;
                    }
                }
                Action::Spawn(spawn) => self.spawn(id, spawn),
                Action::WriteStdin(write) => {
                    println!(
                        "[{id}] >> {}",
                        String::from_utf8_lossy(&write.data).trim_end()
                    );
                    if let Some(stdin) = self.shared.as_mut().and_then(|s| s.stdin.as_mut()) {
                        let _ = stdin.write_all(&write.data);
                        let _ = stdin.flush();
                    }
                }
                Action::CloseStdin(_) => {
                    if let Some(shared) = &mut self.shared {
                        shared.stdin = None;
                    }
                }
                Action::Kill(_) => self.detach(id),
                Action::SetTimer(timer) => {
                    let deadline = Instant::now() + Duration::from_millis(timer.delay_ms.into());
                    self.sessions
                        .get_mut(id)
                        .unwrap()
                        .timers
                        .insert(timer.timer_id, deadline);
                }
                Action::CancelTimer(timer) => {
                    self.sessions.get_mut(id).unwrap().timers.remove(&timer);
                }
                Action::SetNativeSessionId(native) => println!("[{id}] native session {native}"),
                other => panic!("unexpected action {other:?}"),
            }
        }
    }

    fn spawn(&mut self, id: &str, spawn: SpawnRequest) {
        assert_eq!(spawn.share_key.as_deref(), Some("app-server"));
        if let Some(shared) = &mut self.shared {
            shared.subscribers.push(id.to_owned());
            for line in shared.first.clone() {
                self.queue.push_back((id.to_owned(), Input::Stdout(line)));
            }
            return;
        }
        let mut argv = spawn.argv.clone();
        argv[0] = self.bin.clone();
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .env("CODEX_HOME", &self.home)
            .env("OPENAI_API_KEY", "dummy")
            .current_dir(&self.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("codex starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(Some(line)).is_err() {
                    return;
                }
            }
            let _ = tx.send(None);
        });
        self.shared = Some(Shared {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            first: Vec::new(),
            subscribers: vec![id.to_owned()],
        });
    }

    fn detach(&mut self, id: &str) {
        let Some(shared) = &mut self.shared else {
            return;
        };
        shared.subscribers.retain(|s| s != id);
        if shared.subscribers.is_empty() {
            let _ = shared.child.kill();
            let _ = shared.child.wait();
            self.shared = None;
        }
    }

    /// Kills the shared process (a crash); its exit reaches every subscriber.
    fn crash(&mut self) {
        if let Some(shared) = &mut self.shared {
            let _ = shared.child.kill();
        }
    }

    /// Delivers inputs until `done` holds for the session's events.
    fn until(&mut self, id: &str, timeout_ms: u64, done: impl Fn(&[String]) -> bool) {
        let deadline = Instant::now() + Duration::from_millis(timeout_ms);
        while !done(&self.sessions[id].events) {
            assert!(Instant::now() < deadline, "timed out waiting in {id}");
            self.step();
        }
    }

    /// Delivers whatever arrives within `ms`.
    fn settle(&mut self, ms: u64) {
        let deadline = Instant::now() + Duration::from_millis(ms);
        while Instant::now() < deadline {
            self.step();
        }
    }

    fn step(&mut self) {
        if let Some((id, input)) = self.queue.pop_front() {
            return self.deliver(&id, input);
        }
        let now = Instant::now();
        let due: Vec<(String, String)> = self
            .sessions
            .iter()
            .flat_map(|(id, s)| {
                s.timers
                    .iter()
                    .filter(|(_, at)| **at <= now)
                    .map(|(t, _)| (id.clone(), t.clone()))
            })
            .collect();
        for (id, timer) in due {
            self.sessions.get_mut(&id).unwrap().timers.remove(&timer);
            let t = timer.clone();
            self.call(&id, json!({"input": "timer", "timer": timer}), |m| {
                m.on_timer(t)
            });
        }
        let Some(shared) = &mut self.shared else {
            std::thread::sleep(Duration::from_millis(10));
            return;
        };
        match shared.lines.recv_timeout(Duration::from_millis(10)) {
            Ok(Some(line)) => {
                if shared.first.len() < REPLAYED {
                    shared.first.push(line.clone());
                }
                for id in shared.subscribers.clone() {
                    self.queue.push_back((id, Input::Stdout(line.clone())));
                }
            }
            Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                let status = shared.child.wait().unwrap();
                use std::os::unix::process::ExitStatusExt;
                for id in shared.subscribers.clone() {
                    self.queue
                        .push_back((id, Input::Exit(status.code(), status.signal())));
                }
                self.shared = None;
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
    }

    fn deliver(&mut self, id: &str, input: Input) {
        match input {
            Input::Stdout(line) => {
                let record = json!({"input": "stdout", "process": "app-server", "line": line});
                self.call(id, record, |m| m.on_stdout("app-server".into(), line));
            }
            Input::Exit(code, signal) => {
                let record = json!({"input": "exit", "process": "app-server", "code": code, "signal": signal});
                self.call(id, record, |m| {
                    m.on_exit("app-server".into(), ExitStatus { code, signal })
                });
            }
        }
    }

    fn send(&mut self, id: &str, text: &str) {
        let t = text.to_owned();
        self.call(id, json!({"input": "sendMessage", "text": text}), |m| {
            m.send_message(vec![MessagePart::Text(t)])
        });
    }

    fn reply(&mut self, id: &str, permission: &str, reply: PermissionReply) {
        let name = match reply {
            PermissionReply::Once => "once",
            PermissionReply::Always => "always",
            PermissionReply::Reject => "reject",
        };
        let p = permission.to_owned();
        self.call(
            id,
            json!({"input": "replyPermission", "id": permission, "reply": name}),
            |m| m.reply_permission(p, reply).expect("known permission"),
        );
    }

    fn answer(&mut self, id: &str, question: &str, answers: Vec<Vec<String>>) {
        let q = question.to_owned();
        let a = answers.clone();
        self.call(
            id,
            json!({"input": "replyQuestion", "id": question, "answers": answers}),
            |m| m.reply_question(q, a).expect("known question"),
        );
    }

    fn cancel(&mut self, id: &str) {
        self.call(id, json!({"input": "cancelTurn"}), |m| m.cancel_turn());
    }

    fn terminate(&mut self, id: &str) {
        self.call(id, json!({"input": "terminate"}), |m| m.terminate());
        self.detach(id);
    }

    /// Writes each session's inputs as `<name>.jsonl` (`<name>-<session>.jsonl` when
    /// there are several) and ends the processes.
    fn save(mut self, name: &str) {
        let out = PathBuf::from(std::env::var("CODEX_LIVE_OUT").expect("CODEX_LIVE_OUT"));
        std::fs::create_dir_all(&out).unwrap();
        let several = self.sessions.len() > 1;
        for (id, sess) in &self.sessions {
            let file = if several {
                format!("{name}-{id}.jsonl")
            } else {
                format!("{name}.jsonl")
            };
            let mut text = String::new();
            for line in &sess.record {
                text.push_str(&line.to_string());
                text.push('\n');
            }
            std::fs::write(out.join(file), text).unwrap();
        }
        if let Some(shared) = &mut self.shared {
            let _ = shared.child.kill();
            let _ = shared.child.wait();
        }
    }
}

fn has(events: &[String], prefix: &str) -> bool {
    events.iter().any(|e| e.starts_with(prefix))
}

fn count(events: &[String], prefix: &str) -> usize {
    events.iter().filter(|e| e.starts_with(prefix)).count()
}

/// The id of the last `permission.requested` or `question.requested`.
fn last_request(events: &[String], kind: &str) -> String {
    let line = events
        .iter()
        .rev()
        .find(|e| e.starts_with(kind))
        .expect("a request");
    line.split_whitespace().nth(1).unwrap().to_owned()
}

fn home() -> String {
    std::env::var("CODEX_LIVE_HOME").expect("CODEX_LIVE_HOME")
}

/// A default session that runs `message` and answers its permission with `reply`.
fn run_with(name: &str, message: &str, reply: PermissionReply) {
    let mut host = Host::new(&home());
    let config = host.config("s1", "default", "build");
    host.create(config);
    host.send("s1", message);
    host.until("s1", 30_000, |e| has(e, "permission.requested"));
    let permission = last_request(&host.sessions["s1"].events, "permission.requested");
    host.reply("s1", &permission, reply);
    host.until("s1", 30_000, |e| has(e, "turn.ended"));
    host.save(name);
}

#[test]
#[ignore]
fn echo() {
    let mut host = Host::new(&home());
    let config = host.config("s1", "default", "build");
    host.create(config);
    host.send("s1", "hello there");
    host.until("s1", 30_000, |e| has(e, "turn.ended"));
    host.send("s1", "and again");
    host.until("s1", 30_000, |e| count(e, "turn.ended") == 2);
    host.save("echo");
}

#[test]
#[ignore]
fn run_once() {
    run_with("run-once", "run: echo hello", PermissionReply::Once);
}

#[test]
#[ignore]
fn run_always() {
    run_with("run-always", "run: echo hello", PermissionReply::Always);
}

#[test]
#[ignore]
fn run_reject() {
    run_with("run-reject", "run: echo hello", PermissionReply::Reject);
}

#[test]
#[ignore]
fn write_once() {
    run_with(
        "write-once",
        "write: hello.txt: hello from codex",
        PermissionReply::Once,
    );
}

#[test]
#[ignore]
fn bypass_run() {
    let mut host = Host::new(&home());
    let config = host.config("s1", "bypass", "build");
    host.create(config);
    host.send("s1", "run: echo hello");
    host.until("s1", 30_000, |e| has(e, "turn.ended"));
    host.save("bypass-run");
}

#[test]
#[ignore]
fn think() {
    let mut host = Host::new(&home());
    let mut config = host.config("s1", "default", "build");
    config.model = Some("gpt-5.5".into());
    config.variant = Some("high".into());
    host.create(config);
    host.send("s1", "think: colors");
    host.until("s1", 30_000, |e| has(e, "turn.ended"));
    host.save("think");
}

#[test]
#[ignore]
fn fail() {
    let mut host = Host::new(&home());
    let config = host.config("s1", "default", "build");
    host.create(config);
    host.send("s1", "fail: boom");
    host.until("s1", 60_000, |e| has(e, "turn.ended"));
    host.save("fail");
}

#[test]
#[ignore]
fn slow_cancel() {
    let mut host = Host::new(&home());
    let config = host.config("s1", "default", "build");
    host.create(config);
    host.send("s1", "slow: 20");
    host.until("s1", 30_000, |e| count(e, "item.delta") >= 3);
    host.cancel("s1");
    host.until("s1", 10_000, |e| has(e, "turn.ended"));
    host.send("s1", "hello after cancel");
    host.until("s1", 30_000, |e| count(e, "turn.ended") == 2);
    host.save("slow-cancel");
}

#[test]
#[ignore]
fn cancel_permission() {
    let mut host = Host::new(&home());
    let config = host.config("s1", "default", "build");
    host.create(config);
    host.send("s1", "run: echo hello");
    host.until("s1", 30_000, |e| has(e, "permission.requested"));
    host.cancel("s1");
    host.until("s1", 10_000, |e| has(e, "turn.ended"));
    host.settle(500);
    host.save("cancel-permission");
}

#[test]
#[ignore]
fn two_sessions() {
    let mut host = Host::new(&home());
    let one = host.config("s1", "default", "build");
    host.create(one);
    host.send("s1", "hello from one");
    host.until("s1", 30_000, |e| has(e, "turn.ended"));
    let two = host.config("s2", "bypass", "build");
    host.create(two);
    host.send("s2", "run: echo two");
    host.send("s1", "slow: 4");
    host.until("s2", 30_000, |e| has(e, "turn.ended"));
    host.until("s1", 30_000, |e| count(e, "turn.ended") == 2);
    host.save("two-sessions");
}

#[test]
#[ignore]
fn restart_resume() {
    let mut host = Host::new(&home());
    let config = host.config("s1", "default", "build");
    host.create(config);
    host.send("s1", "remember me");
    host.until("s1", 30_000, |e| has(e, "turn.ended"));
    host.crash();
    host.settle(1_000);
    host.send("s1", "after restart");
    host.until("s1", 30_000, |e| count(e, "turn.ended") == 2);
    host.save("restart-resume");
}

#[test]
#[ignore]
fn exit_mid_turn() {
    let mut host = Host::new(&home());
    let config = host.config("s1", "default", "build");
    host.create(config);
    host.send("s1", "slow: 20");
    host.until("s1", 30_000, |e| count(e, "item.delta") >= 2);
    host.crash();
    host.until("s1", 10_000, |e| has(e, "session.ended"));
    host.save("exit-mid-turn");
}

#[test]
#[ignore]
fn terminate_mid_turn() {
    let mut host = Host::new(&home());
    let config = host.config("s1", "default", "build");
    host.create(config);
    host.send("s1", "slow: 20");
    host.until("s1", 30_000, |e| count(e, "item.delta") >= 2);
    host.terminate("s1");
    host.save("terminate-mid-turn");
}

#[test]
#[ignore]
fn plan_ask() {
    let Ok(extra_home) = std::env::var("CODEX_LIVE_EXTRA_HOME") else {
        return;
    };
    let mut host = Host::new(&extra_home);
    let config = host.config("s1", "default", "plan");
    host.create(config);
    host.send("s1", "ask: Proceed?");
    host.until("s1", 30_000, |e| has(e, "question.requested"));
    let question = last_request(&host.sessions["s1"].events, "question.requested");
    host.answer("s1", &question, vec![vec!["yes".into()]]);
    host.until("s1", 30_000, |e| has(e, "turn.ended"));
    host.save("plan-ask");
}

#[test]
#[ignore]
fn patch_delete() {
    let Ok(extra_home) = std::env::var("CODEX_LIVE_EXTRA_HOME") else {
        return;
    };
    std::fs::create_dir_all(WORKSPACE).unwrap();
    std::fs::write(
        format!("{WORKSPACE}/notes.txt"),
        "file content here\nline2\n",
    )
    .unwrap();
    let mut host = Host::new(&extra_home);
    let config = host.config("s1", "bypass", "build");
    host.create(config);
    host.send("s1", "patch: notes.txt");
    host.until("s1", 30_000, |e| has(e, "turn.ended"));
    host.send("s1", "delete: notes.txt");
    host.until("s1", 30_000, |e| count(e, "turn.ended") == 2);
    host.save("patch-delete");
}
