//! Records transcripts from the real agent: a small native host that drives an
//! adapter's own session against the agent's binary and a scripted model server, and
//! writes every input the session received to `transcripts/NAME.jsonl` (the format
//! of `sandbox-agent adapters test`).
//!
//! An adapter's `tests/record.rs` says how its agent records the scenarios every
//! agent shares ([`Shared`]) and lists its own [`Scenario`]s, describes how its agent
//! is pointed at the model server ([`Agent`]), and calls [`record_all`] from an
//! ignored test. The environment chooses the binary and the server: `{ID}_RECORD_BIN`,
//! `{ID}_RECORD_MODEL_URL`, and optionally `{ID}_RECORD_ONLY=a,b` to record only
//! those scenarios (`ID` is the agent id in upper case).
//!
//! Each scenario runs in a fresh working directory and `HOME` under the system's
//! temporary folder; their paths are rewritten to `/workspace` and `/home/user` in
//! the recorded lines.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::transcript::render_event;
use crate::types::{
    Action, EmittedEvent, Event, ExitStatus, MessagePart, PermissionReply, SessionConfig,
    SpawnRequest,
};
use crate::SessionMachine;

/// How long one step may wait for the session.
const STEP_TIMEOUT: Duration = Duration::from_secs(60);

/// One thing the scripted client does.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    /// Sends a message and waits until the turn ends or asks something.
    Send(&'static str),
    /// Sends a message and goes on at once.
    Begin(&'static str),
    /// Answers the pending permission request.
    Permission(PermissionReply),
    /// Answers the pending question with one option.
    Answer(&'static str),
    /// Declines the pending question.
    Decline,
    /// Waits until the wall clock's minute changes (for agents whose sessions can
    /// only be loaded in a later minute than they started).
    NextMinute,
    /// Lets the session run this long (ms), then cancels the turn and waits for its
    /// end.
    CancelAfter(u64),
    /// Lets the session run this long (ms), then kills the agent's processes (a crash)
    /// and waits for an exit to be reported.
    KillAfter(u64),
    /// Terminates the session.
    Terminate,
}

/// A scenario: the transcript's name, the agent mode and permission mode of the
/// session, the steps.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The transcript's name (`transcripts/NAME.jsonl`).
    pub name: &'static str,
    /// The session's agent mode.
    pub mode: &'static str,
    /// The session's permission mode.
    pub permission_mode: &'static str,
    /// What the client does.
    pub steps: Vec<Step>,
}

impl Scenario {
    /// `steps` in agent mode `build` with permission mode `default`.
    pub fn new(name: &'static str, steps: &[Step]) -> Self {
        Self {
            name,
            mode: "build",
            permission_mode: "default",
            steps: steps.to_vec(),
        }
    }

    /// The same in agent mode `plan`.
    pub fn plan(self) -> Self {
        Self {
            mode: "plan",
            ..self
        }
    }

    /// The same with permission mode `bypass`.
    pub fn bypass(self) -> Self {
        Self {
            permission_mode: "bypass",
            ..self
        }
    }
}

/// How one agent records the scenarios every agent's recordings share.
#[derive(Debug, Clone, Copy)]
pub struct Shared {
    /// The command `permission-always` sends after the client allowed the first one
    /// for good.
    always_again: &'static str,
    /// The command `bypass-run` sends.
    bypass_command: &'static str,
    /// `cancel-streaming` and `crash-mid-turn` begin with a plain turn.
    warm_up: bool,
    /// `idle-exit-resume` waits for the next minute; `resume-same-minute` does not.
    resume_next_minute: bool,
}

impl Shared {
    /// The shared scenarios with `always_again`, the command `permission-always`
    /// sends after the client allowed the first one for good, and `bypass_command`,
    /// the command `bypass-run` sends.
    pub fn new(always_again: &'static str, bypass_command: &'static str) -> Self {
        Self {
            always_again,
            bypass_command,
            warm_up: false,
            resume_next_minute: false,
        }
    }

    /// `cancel-streaming` and `crash-mid-turn` begin with a plain turn, so the agent
    /// is up when the slow turn starts.
    pub fn warmed_up(self) -> Self {
        Self {
            warm_up: true,
            ..self
        }
    }

    /// For an agent that loads a session only in a later minute than it started:
    /// `idle-exit-resume` waits for the next minute, and `resume-same-minute`
    /// records the resume without waiting.
    pub fn resumed_a_minute_later(self) -> Self {
        Self {
            resume_next_minute: true,
            ..self
        }
    }

    /// The shared scenarios, as this agent records them.
    pub fn scenarios(&self) -> Vec<Scenario> {
        let warm_up = if self.warm_up {
            &[Step::Send("hello")][..]
        } else {
            &[]
        };
        let then = |steps: &[Step]| [warm_up, steps].concat();
        let resume = |next_minute: bool| {
            let wait = if next_minute {
                &[Step::NextMinute][..]
            } else {
                &[]
            };
            [
                &[Step::Send("hello"), Step::KillAfter(1000)][..],
                wait,
                &[Step::Send("second message")],
            ]
            .concat()
        };
        let mut scenarios = vec![
            Scenario::new(
                "text-multi-turn",
                &[Step::Send("hello"), Step::Send("second message")],
            ),
            Scenario::new("think", &[Step::Send("think: colors")]),
            Scenario::new("permission-once", &permission(PermissionReply::Once)),
            Scenario::new(
                "permission-always",
                &[
                    permission(PermissionReply::Always).as_slice(),
                    &[Step::Send(self.always_again)],
                ]
                .concat(),
            ),
            Scenario::new("permission-reject", &permission(PermissionReply::Reject)),
            Scenario::new("bypass-run", &[Step::Send(self.bypass_command)]).bypass(),
            Scenario::new(
                "file-changes",
                &[
                    Step::Send("write: notes.txt: hello world"),
                    Step::Send("read: notes.txt"),
                    Step::Send("write: notes.txt: goodbye"),
                ],
            )
            .bypass(),
            Scenario::new(
                "cancel-streaming",
                &then(&[
                    Step::Begin("slow: 20"),
                    Step::CancelAfter(1500),
                    Step::Send("hello after cancel"),
                ]),
            ),
            Scenario::new(
                "cancel-permission",
                &[
                    Step::Send("run: touch a.txt"),
                    Step::CancelAfter(200),
                    Step::Send("hello after cancel"),
                ],
            ),
            Scenario::new(
                "api-error",
                &[Step::Send("fail: boom"), Step::Send("hello again")],
            ),
            Scenario::new(
                "crash-mid-turn",
                &then(&[Step::Begin("slow: 20"), Step::KillAfter(1500)]),
            ),
            Scenario::new("idle-exit-resume", &resume(self.resume_next_minute)),
            Scenario::new("terminate", &[Step::Send("hello"), Step::Terminate]),
        ];
        if self.resume_next_minute {
            scenarios.push(Scenario::new("resume-same-minute", &resume(false)));
        }
        scenarios
    }
}

/// `run: touch a.txt`, answered with `reply`.
fn permission(reply: PermissionReply) -> Vec<Step> {
    vec![Step::Send("run: touch a.txt"), Step::Permission(reply)]
}

/// How to run one agent for recording.
#[derive(Debug, Clone, Copy)]
pub struct Agent {
    /// The agent id: the bare program name the adapter spawns (replaced by
    /// `{ID}_RECORD_BIN`), and the prefix of the environment variables.
    pub id: &'static str,
    /// The variable that points the agent at the model server's URL.
    pub base_url_var: &'static str,
    /// The variable of its API key (a dummy one: the model server takes any).
    pub api_key_var: &'static str,
    /// Prepares the fresh `HOME` (settings files the agent needs), or does nothing.
    pub prepare_home: fn(&Path),
    /// True when the session gets the real working directory; the transcript's
    /// `create` line says `/workspace` either way.
    pub real_directory: bool,
}

/// Records every scenario (or those named by `{ID}_RECORD_ONLY`) into
/// `transcripts/` of the crate at `manifest_dir`, with session type `S`. Panics when
/// `{ID}_RECORD_BIN` or `{ID}_RECORD_MODEL_URL` is not set.
pub fn record_all<S: SessionMachine>(agent: &Agent, scenarios: &[Scenario], manifest_dir: &str) {
    let var = |suffix: &str| std::env::var(format!("{}_RECORD_{suffix}", agent.id.to_uppercase()));
    let (Ok(binary), Ok(model_url)) = (var("BIN"), var("MODEL_URL")) else {
        let prefix = agent.id.to_uppercase();
        panic!("set {prefix}_RECORD_BIN and {prefix}_RECORD_MODEL_URL");
    };
    let only: Vec<String> = var("ONLY")
        .map(|names| names.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    let out_dir = Path::new(manifest_dir).join("transcripts");
    std::fs::create_dir_all(&out_dir).unwrap();
    for scenario in scenarios {
        let name = scenario.name;
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        eprintln!("=== {name}");
        let host = Host {
            agent: *agent,
            binary: binary.clone(),
            model_url: model_url.clone(),
        };
        let mut recorder = Recorder::<S>::new(host, scenario);
        for step in &scenario.steps {
            recorder.step(*step);
        }
        recorder.finish(&out_dir.join(format!("{name}.jsonl")));
    }
}

/// What the recorder runs the agent with.
struct Host {
    agent: Agent,
    binary: String,
    model_url: String,
}

/// What the process threads report.
enum Message {
    Stdout(String, String),
    Stderr(String, String),
    /// Both pipes of the process closed.
    Closed(String),
}

/// A running agent process.
struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
}

/// A minimal native host around one session that records its inputs.
struct Recorder<S> {
    session: S,
    host: Host,
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

impl<S: SessionMachine> Recorder<S> {
    fn new(host: Host, scenario: &Scenario) -> Self {
        let (name, mode, permission_mode) =
            (scenario.name, scenario.mode, scenario.permission_mode);
        let dir = format!("{}-record-{}-{name}", host.agent.id, std::process::id());
        let root = std::env::temp_dir().join(dir);
        let _ = std::fs::remove_dir_all(&root);
        let workdir = root.join("workspace");
        let home = root.join("home");
        std::fs::create_dir_all(&workdir).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        (host.agent.prepare_home)(&home);
        let config = json!({
            "sessionId": "s1", "agentMode": mode, "permissionMode": permission_mode,
            "model": null, "variant": null, "directory": "/workspace", "agentBinary": null,
            "env": [], "resumeNativeSessionId": null,
        });
        let directory = if host.agent.real_directory {
            workdir.display().to_string()
        } else {
            "/workspace".to_owned()
        };
        let session = S::new(SessionConfig {
            directory,
            ..super::replay::config_of(&config)
        });
        let (tx, rx) = channel();
        let mut recorder = Self {
            session,
            host,
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
    fn input(&mut self, input: Value, run: impl FnOnce(&mut S) -> Vec<Action>) {
        self.inputs.push(input);
        let actions = run(&mut self.session);
        self.apply(actions);
    }

    /// The first request the client was asked and has not answered.
    fn pending(&self, what: &str) -> String {
        self.pending
            .iter()
            .next()
            .cloned()
            .unwrap_or_else(|| panic!("a pending {what}"))
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
                let id = self.pending("permission");
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
            Step::Answer(option) => {
                let id = self.pending("question");
                self.input(
                    json!({ "input": "replyQuestion", "id": id, "answers": [[option]] }),
                    |s| {
                        s.reply_question(id.clone(), vec![vec![option.to_owned()]])
                            .expect("known question")
                    },
                );
                self.settle();
            }
            Step::Decline => {
                let id = self.pending("question");
                self.input(json!({ "input": "rejectQuestion", "id": id }), |s| {
                    s.reject_question(id.clone()).expect("known question")
                });
                self.settle();
            }
            Step::NextMinute => {
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
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

    /// `line` with the scenario's folders replaced by the transcripts' paths.
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
        if argv[0] == self.host.agent.id {
            argv[0] = self.host.binary.clone();
        }
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .envs(spawn.env.iter().map(|(k, v)| (k, v)))
            .env("HOME", &self.home)
            .env(self.host.agent.base_url_var, &self.host.model_url)
            .env(self.host.agent.api_key_var, "dummy-key")
            .current_dir(&self.workdir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{} does not start: {e}", argv[0]));
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

/// A thread that sends every line of `pipe` as `wrap(id, line)`.
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

/// `text` cut to 200 characters for the log.
fn truncate(text: &str) -> String {
    let text = text.trim_end();
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}
