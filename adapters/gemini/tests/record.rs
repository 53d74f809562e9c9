//! Records the transcripts in `transcripts/` from the real `gemini` CLI, driven
//! through the adapter's own state machine by a small native host (ignored by
//! default: it needs the CLI and the scripted model server). Adapted from the
//! Claude adapter's recorder (`adapters/claude/tests/record.rs`).
//!
//! ```sh
//! cargo run -p sandbox-agent-model-server -- --port 0     # prints its URL
//! GEMINI_RECORD_BIN=/path/to/node_modules/@google/gemini-cli/bundle/gemini.js \
//!   GEMINI_RECORD_MODEL_URL=http://127.0.0.1:PORT \
//!   cargo test --manifest-path adapters/Cargo.toml -p sandbox-agent-adapter-gemini \
//!   --test record -- --ignored --test-threads 1
//! ```
//!
//! `GEMINI_RECORD_ONLY=a,b` records only those scenarios. Each scenario runs in a
//! fresh working directory and `HOME` (with the `settings.json` that selects API-key
//! auth); their paths are rewritten to `/workspace` and `/home/user` in the recorded
//! lines. Every input the adapter receives is written to `transcripts/<name>.jsonl`
//! in the transcript format of `sandbox-agent adapters test`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use sandbox_agent_adapter_gemini::GeminiSession;
use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::transcript::render_event;
use serde_json::{json, Value};

/// How long one step may wait for the session.
const STEP_TIMEOUT: Duration = Duration::from_secs(60);

/// One thing the scripted client does.
#[derive(Clone, Copy)]
enum Step {
    /// Sends a message and waits until the turn ends or asks something.
    Send(&'static str),
    /// Sends a message and goes on at once.
    Begin(&'static str),
    /// Answers the pending permission request.
    Permission(PermissionReply),
    /// Waits until the wall clock's minute changes (the CLI's `session/load` only
    /// works in a later minute than the session's start: see README).
    NextMinute,
    /// Lets the session run this long, then cancels the turn and waits for its end.
    CancelAfter(u64),
    /// Lets the session run this long, then kills the agent process (a crash) and
    /// waits for its exit to be reported.
    KillAfter(u64),
    /// Terminates the session.
    Terminate,
}

/// A scenario: name, agent mode, permission mode, steps.
type Scenario = (&'static str, &'static str, &'static str, &'static [Step]);

const SCENARIOS: &[Scenario] = &[
    (
        "text-multi-turn",
        "build",
        "default",
        &[Step::Send("hello"), Step::Send("second message")],
    ),
    ("think", "build", "default", &[Step::Send("think: colors")]),
    (
        "permission-once",
        "build",
        "default",
        &[
            Step::Send("run: touch a.txt"),
            Step::Permission(PermissionReply::Once),
        ],
    ),
    (
        "permission-always",
        "build",
        "default",
        &[
            Step::Send("run: touch a.txt"),
            Step::Permission(PermissionReply::Always),
            Step::Send("run: touch a.txt"),
        ],
    ),
    (
        "permission-reject",
        "build",
        "default",
        &[
            Step::Send("run: touch a.txt"),
            Step::Permission(PermissionReply::Reject),
        ],
    ),
    (
        "bypass-run",
        "build",
        "bypass",
        &[Step::Send("run: printf 'tool-output-%d' 42")],
    ),
    (
        "file-changes",
        "build",
        "bypass",
        &[
            Step::Send("write: notes.txt: hello world"),
            Step::Send("read: notes.txt"),
            Step::Send("write: notes.txt: goodbye"),
        ],
    ),
    (
        "plan-mode",
        "plan",
        "default",
        &[Step::Send("write: notes.txt: hello")],
    ),
    (
        "cancel-streaming",
        "build",
        "default",
        &[
            Step::Send("hello"),
            Step::Begin("slow: 20"),
            Step::CancelAfter(1500),
            Step::Send("hello after cancel"),
        ],
    ),
    (
        "cancel-permission",
        "build",
        "default",
        &[
            Step::Send("run: touch a.txt"),
            Step::CancelAfter(200),
            Step::Send("hello after cancel"),
        ],
    ),
    (
        "api-error",
        "build",
        "default",
        &[Step::Send("fail: boom"), Step::Send("hello again")],
    ),
    (
        "crash-mid-turn",
        "build",
        "default",
        &[
            Step::Send("hello"),
            Step::Begin("slow: 20"),
            Step::KillAfter(1500),
        ],
    ),
    (
        "idle-exit-resume",
        "build",
        "default",
        &[
            Step::Send("hello"),
            Step::KillAfter(1000),
            Step::NextMinute,
            Step::Send("second message"),
        ],
    ),
    (
        "resume-same-minute",
        "build",
        "default",
        &[
            Step::Send("hello"),
            Step::KillAfter(1000),
            Step::Send("second message"),
        ],
    ),
    (
        "terminate",
        "build",
        "default",
        &[Step::Send("hello"), Step::Terminate],
    ),
    (
        "cancel-before-start",
        "build",
        "default",
        &[
            Step::Begin("slow: 20"),
            Step::CancelAfter(100),
            Step::Send("hello after cancel"),
        ],
    ),
];

#[test]
#[ignore = "needs the gemini CLI and the scripted model server"]
fn record_transcripts() {
    let (Ok(binary), Ok(model_url)) = (
        std::env::var("GEMINI_RECORD_BIN"),
        std::env::var("GEMINI_RECORD_MODEL_URL"),
    ) else {
        panic!("set GEMINI_RECORD_BIN and GEMINI_RECORD_MODEL_URL");
    };
    let only: Vec<String> = std::env::var("GEMINI_RECORD_ONLY")
        .map(|names| names.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    let out_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("transcripts");
    std::fs::create_dir_all(&out_dir).unwrap();
    for (name, mode, permission_mode, steps) in SCENARIOS {
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        eprintln!("=== {name}");
        let mut recorder = Recorder::new(name, &binary, &model_url, mode, permission_mode);
        for step in *steps {
            recorder.step(*step);
        }
        recorder.finish(&out_dir.join(format!("{name}.jsonl")));
    }
}

/// What the process threads report.
enum Message {
    Stdout(String, String),
    Stderr(String, String),
    /// Both pipes of the process closed.
    Closed(String),
}

struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
}

/// A minimal native host around one session that records its inputs.
struct Recorder {
    session: GeminiSession,
    binary: String,
    model_url: String,
    workdir: PathBuf,
    home: PathBuf,
    inputs: Vec<Value>,
    processes: BTreeMap<String, Process>,
    timers: BTreeMap<String, Instant>,
    tx: Sender<Message>,
    rx: Receiver<Message>,
    pending: BTreeSet<String>,
    turns_ended: usize,
    ended: bool,
}

impl Recorder {
    fn new(name: &str, binary: &str, model_url: &str, mode: &str, permission_mode: &str) -> Self {
        let root =
            std::env::temp_dir().join(format!("gemini-record-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let workdir = root.join("workspace");
        let home = root.join("home");
        std::fs::create_dir_all(&workdir).unwrap();
        std::fs::create_dir_all(home.join(".gemini")).unwrap();
        std::fs::write(
            home.join(".gemini/settings.json"),
            r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
        )
        .unwrap();
        let config = json!({
            "sessionId": "s1", "agentMode": mode, "permissionMode": permission_mode,
            "model": null, "variant": null, "directory": "/workspace", "agentBinary": null,
            "env": [], "resumeNativeSessionId": null,
        });
        let session = GeminiSession::new(SessionConfig {
            session_id: "s1".into(),
            agent_mode: mode.into(),
            permission_mode: permission_mode.into(),
            model: None,
            variant: None,
            // The real folder for the CLI; the transcript says `/workspace`.
            directory: workdir.display().to_string(),
            agent_binary: None,
            env: Vec::new(),
            resume_native_session_id: None,
        });
        let (tx, rx) = channel();
        let mut recorder = Self {
            session,
            binary: binary.to_owned(),
            model_url: model_url.to_owned(),
            workdir,
            home,
            inputs: vec![json!({ "input": "create", "config": config })],
            processes: BTreeMap::new(),
            timers: BTreeMap::new(),
            tx,
            rx,
            pending: BTreeSet::new(),
            turns_ended: 0,
            ended: false,
        };
        recorder.input(json!({ "input": "start" }), |s| s.start());
        recorder
    }

    /// Records `input`, runs it, and carries out the actions.
    fn input(&mut self, input: Value, run: impl FnOnce(&mut GeminiSession) -> Vec<Action>) {
        self.inputs.push(input);
        let actions = run(&mut self.session);
        self.apply(actions);
    }

    fn step(&mut self, step: Step) {
        if self.ended {
            return;
        }
        match step {
            Step::Send(text) | Step::Begin(text) => {
                let parts = vec![MessagePart::Text(text.to_owned())];
                self.input(json!({ "input": "sendMessage", "text": text }), |s| {
                    s.send_message(parts)
                });
                if matches!(step, Step::Send(_)) {
                    self.settle();
                }
            }
            Step::Permission(reply) => {
                let id = self
                    .pending
                    .iter()
                    .next()
                    .cloned()
                    .expect("a pending permission");
                let name = match reply {
                    PermissionReply::Once => "once",
                    PermissionReply::Always => "always",
                    PermissionReply::Reject => "reject",
                };
                self.input(
                    json!({ "input": "replyPermission", "id": id, "reply": name }),
                    |s| {
                        s.reply_permission(id.clone(), reply)
                            .expect("known permission")
                    },
                );
                self.settle();
            }
            Step::NextMinute => {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_secs();
                self.pump_for(Duration::from_secs(61 - now % 60));
            }
            Step::CancelAfter(ms) => {
                self.pump_for(Duration::from_millis(ms));
                // The turn may end at once (a prompt not sent yet).
                let turns = self.turns_ended;
                self.input(json!({ "input": "cancelTurn" }), |s| s.cancel_turn());
                self.pump_until(|r| r.turns_ended > turns || r.ended);
            }
            Step::KillAfter(ms) => {
                self.pump_for(Duration::from_millis(ms));
                let before = self.processes.len();
                for process in self.processes.values_mut() {
                    let _ = process.child.kill();
                }
                self.pump_until(|r| r.processes.len() < before || r.ended);
            }
            Step::Terminate => {
                self.input(json!({ "input": "terminate" }), |s| s.terminate());
                self.ended = true;
            }
        }
    }

    /// Runs until the turn ends, the client is asked something, or the session ends.
    fn settle(&mut self) {
        let turns = self.turns_ended;
        self.pump_until(|r| r.turns_ended > turns || !r.pending.is_empty() || r.ended);
    }

    fn pump_for(&mut self, duration: Duration) {
        let until = Instant::now() + duration;
        self.pump_until(|_| Instant::now() >= until);
    }

    fn pump_until(&mut self, done: impl Fn(&Self) -> bool) {
        let deadline = Instant::now() + STEP_TIMEOUT;
        while !done(self) {
            assert!(
                Instant::now() < deadline,
                "the session did not settle in time"
            );
            let next_timer = self.timers.values().min().copied();
            let wait = next_timer
                .map(|at| at.saturating_duration_since(Instant::now()))
                .unwrap_or(Duration::from_millis(50))
                .min(Duration::from_millis(50));
            match self.rx.recv_timeout(wait) {
                Ok(message) => self.deliver(message),
                Err(RecvTimeoutError::Timeout) => self.fire_timers(),
                Err(RecvTimeoutError::Disconnected) => unreachable!("the recorder holds a sender"),
            }
        }
    }

    fn fire_timers(&mut self) {
        let now = Instant::now();
        let due: Vec<String> = self
            .timers
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(id, _)| id.clone())
            .collect();
        for id in due {
            self.timers.remove(&id);
            self.input(json!({ "input": "timer", "timer": id }), |s| {
                s.on_timer(id.clone())
            });
        }
    }

    fn deliver(&mut self, message: Message) {
        match message {
            Message::Stdout(process, line) => {
                let line = self.rewrite(&line);
                eprintln!("  < {}", truncate(&line));
                self.input(
                    json!({ "input": "stdout", "process": process, "line": line }),
                    |s| s.on_stdout(process.clone(), line.clone()),
                );
            }
            Message::Stderr(process, line) => {
                let line = self.rewrite(&line);
                eprintln!("  ! {line}");
                self.input(
                    json!({ "input": "stderr", "process": process, "line": line }),
                    |s| s.on_stderr(process.clone(), line.clone()),
                );
            }
            Message::Closed(process) => {
                let Some(mut entry) = self.processes.remove(&process) else {
                    return;
                };
                let status = entry.child.wait().expect("the process ends");
                let code = status.code();
                let signal = std::os::unix::process::ExitStatusExt::signal(&status);
                let exit = ExitStatus { code, signal };
                self.input(
                    json!({ "input": "exit", "process": process, "code": code, "signal": signal }),
                    |s| s.on_exit(process.clone(), exit),
                );
            }
        }
    }

    fn rewrite(&self, line: &str) -> String {
        line.replace(self.workdir.to_str().unwrap(), "/workspace")
            .replace(self.home.to_str().unwrap(), "/home/user")
    }

    fn apply(&mut self, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::Emit(event) => self.observe(&event),
                Action::Spawn(spawn) => self.spawn(spawn),
                Action::WriteStdin(write) => {
                    eprintln!("  > {}", truncate(&String::from_utf8_lossy(&write.data)));
                    if let Some(stdin) = self
                        .processes
                        .get_mut(&write.process_id)
                        .and_then(|p| p.stdin.as_mut())
                    {
                        let _ = stdin.write_all(&write.data);
                        let _ = stdin.flush();
                    }
                }
                Action::CloseStdin(id) => {
                    if let Some(process) = self.processes.get_mut(&id) {
                        process.stdin = None;
                    }
                }
                Action::Kill(id) => {
                    if let Some(process) = self.processes.get_mut(&id) {
                        let _ = process.child.kill();
                    }
                }
                Action::SetTimer(timer) => {
                    let at = Instant::now() + Duration::from_millis(timer.delay_ms.into());
                    self.timers.insert(timer.timer_id, at);
                }
                Action::CancelTimer(id) => {
                    self.timers.remove(&id);
                }
                Action::SetNativeSessionId(_) => {}
                other => panic!("unexpected action {other:?}"),
            }
        }
    }

    fn observe(&mut self, event: &EmittedEvent) {
        eprintln!(
            "  = {}",
            truncate(&render_event(&EmittedEvent {
                raw: None,
                ..event.clone()
            }))
        );
        match &event.event {
            Event::PermissionRequested(p) => {
                self.pending.insert(p.permission_id.clone());
            }
            Event::PermissionResolved(p) => {
                self.pending.remove(&p.permission_id);
            }
            Event::QuestionRequested(q) => {
                self.pending.insert(q.question_id.clone());
            }
            Event::QuestionResolved(q) => {
                self.pending.remove(&q.question_id);
            }
            Event::TurnEnded(_) => self.turns_ended += 1,
            Event::SessionEnded(_) => self.ended = true,
            _ => {}
        }
    }

    fn spawn(&mut self, spawn: SpawnRequest) {
        let mut argv = spawn.argv.clone();
        if argv[0] == "gemini" {
            argv[0] = self.binary.clone();
        }
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .envs(spawn.env.iter().map(|(k, v)| (k, v)))
            .env("HOME", &self.home)
            .env("GOOGLE_GEMINI_BASE_URL", &self.model_url)
            .env("GEMINI_API_KEY", "dummy-key")
            .current_dir(&self.workdir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the gemini CLI starts");
        let id = spawn.process_id.clone();
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let out_reader = reader(stdout, id.clone(), self.tx.clone(), Message::Stdout);
        let err_reader = reader(stderr, id.clone(), self.tx.clone(), Message::Stderr);
        let tx = self.tx.clone();
        thread::spawn(move || {
            let _ = out_reader.join();
            let _ = err_reader.join();
            let _ = tx.send(Message::Closed(id));
        });
        let stdin = child.stdin.take();
        self.processes
            .insert(spawn.process_id, Process { child, stdin });
    }

    /// Writes the transcript, after killing what is left (as the host does).
    fn finish(mut self, path: &Path) {
        for process in self.processes.values_mut() {
            let _ = process.child.kill();
            let _ = process.child.wait();
        }
        let mut text = String::new();
        for input in &self.inputs {
            text.push_str(&input.to_string());
            text.push('\n');
        }
        std::fs::write(path, text).unwrap();
        eprintln!("wrote {}", path.display());
    }
}

fn reader(
    pipe: impl std::io::Read + Send + 'static,
    id: String,
    tx: Sender<Message>,
    wrap: fn(String, String) -> Message,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if tx.send(wrap(id.clone(), line)).is_err() {
                break;
            }
        }
    })
}

fn truncate(text: &str) -> String {
    let text = text.trim_end();
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}
