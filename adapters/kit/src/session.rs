//! The traits an adapter implements, and their bridge to the generated ones.
//!
//! The generated `Guest`/`GuestSession` traits mirror the WIT exactly: session methods
//! take `&self` (the component model hands out shared references to resources), and
//! every input must be handled. [`Adapter`] and [`SessionMachine`] are what adapter
//! authors implement instead: `&mut self` methods, and defaults for the inputs a given
//! agent never receives (an agent driven over stdio gets no SSE events). A blanket
//! implementation turns every [`Adapter`] into a `Guest`, and [`SessionResource`] wraps
//! a [`SessionMachine`] into the `session` resource.

use std::cell::RefCell;

use crate::credentials::CredentialFiles;
use crate::event;
use crate::install::{Checksums, Installer, VersionProbe};
use crate::native_session::NativeSessions;
use crate::text::raw_json;
use crate::types::{
    Action, AdapterInfo, AgentOffer, ApprovalPolicy, CredentialRead, ExitStatus, Guest,
    GuestSession, HttpResponse, InstallRecipe, Landing, MessagePart, ModelApi, NativeDecision,
    NativeSource, PermissionReply, Place, Platform, Session, SessionConfig, SseEvent, ToolKind,
    ToolRequest,
};
use crate::Actions;

/// What a handler of a client's reply returns: the actions, or why the reply is
/// refused (the client gets HTTP 400 and the session goes on).
pub type ReplyResult = Result<Vec<Action>, String>;

/// A client's answers to a question: the options chosen for each of its prompts.
pub type Answers = Vec<Vec<String>>;

/// An adapter: static facts about the agent plus its session type.
///
/// Implement it on a unit struct and register that struct with
/// [`crate::export!`]. Only [`Adapter::info`] is required. How the agent is
/// installed, how it prints its version and where it keeps credentials are plain
/// data ([`Adapter::INSTALLER`], [`Adapter::VERSION`], [`Adapter::CREDENTIALS`]) that
/// the default methods use; they default to "nothing to install, no version to probe,
/// no credential files", which is right for built-in agents. An adapter that needs
/// more overrides a method itself.
pub trait Adapter: 'static {
    /// The session state machine.
    type Session: SessionMachine;

    /// The adapter's static facts (WIT `info`). Called once when the component loads.
    fn info() -> AdapterInfo;

    /// How the agent is installed: its recipe, its latest version, its checksums.
    /// `None` (the default): nothing to install, which is right for built-in agents.
    const INSTALLER: Option<Installer> = None;

    /// How the agent prints its version; `None` (the default): no version to probe.
    const VERSION: Option<VersionProbe> = None;

    /// The agent's credential files (see [`crate::credentials`]); `None` (the
    /// default): none.
    const CREDENTIALS: Option<CredentialFiles> = None;

    /// Where the agent keeps its own sessions and how they move to another sandbox
    /// (see [`crate::native_session`]); `None` (the default): they cannot move.
    /// With them the adapter has the capability `move`.
    const NATIVE_SESSIONS: Option<NativeSessions> = None;

    /// Why the agent's own sessions cannot move, when [`Adapter::NATIVE_SESSIONS`]
    /// is `None`: an export says it as what stays behind.
    const STAYS_BEHIND: &'static str = crate::native_session::CANNOT_MOVE;

    /// The wire formats of the agent's model calls, where they go by default and
    /// how the agent is pointed elsewhere (WIT `model-apis`; see
    /// [`crate::model_api`]): the daemon can then carry and meter them. None (the
    /// default): the agent's calls go where it sends them.
    fn model_apis() -> Vec<ModelApi> {
        Vec::new()
    }

    /// The kinds of action the agent asks permission for before it acts (WIT
    /// `asks-for`): an approval policy can decide those, and only those. None (the
    /// default): the host knows of none, and says the policy cannot stop anything.
    fn asks_for() -> Vec<ToolKind> {
        Vec::new()
    }

    /// How to install the agent on `target` (WIT `install-plan`); `None` when it cannot
    /// be installed there or needs no installation. By default
    /// [`Adapter::INSTALLER`]'s recipe.
    fn install_plan(target: Platform, version: Option<String>) -> Option<InstallRecipe> {
        Self::INSTALLER.and_then(|installer| (installer.recipe)(&target, version.as_deref()))
    }

    /// The version named by the body of `InstallRecipe::latest_version_url`. By
    /// default as [`Adapter::INSTALLER`] reads it.
    fn parse_latest_version(body: String) -> Option<String> {
        Self::INSTALLER.and_then(|installer| (installer.latest_version)(&body))
    }

    /// Arguments that make the agent print its version, or `None` when it has none.
    /// By default [`Adapter::VERSION`]'s.
    fn version_args() -> Option<Vec<String>> {
        let probe = Self::VERSION?;
        Some(probe.args.iter().map(|arg| (*arg).to_owned()).collect())
    }

    /// The version in what [`Adapter::version_args`] printed. By default as
    /// [`Adapter::VERSION`] reads it.
    fn parse_version(output: String) -> Option<String> {
        Self::VERSION.and_then(|probe| (probe.parse)(&output))
    }

    /// The SHA-256 of `file_name` in the body of an install source's
    /// `checksum_url` (`url`). By default as [`Adapter::INSTALLER`]'s
    /// [`Checksums`] say, and `sha256sum` output without an installer
    /// ([`crate::checksum::sha256sum`]).
    fn parse_checksum(url: String, body: String, file_name: String) -> Result<String, String> {
        let _ = url;
        let checksums = Self::INSTALLER.map_or(Checksums::Sha256Sum, |i| i.checksums);
        checksums.parse(&body, &file_name)
    }

    /// The files the agent keeps credentials in (see [`crate::credentials`]). By
    /// default [`Adapter::CREDENTIALS`]'s, none without them.
    fn credential_files(locations: crate::credentials::Locations) -> Vec<String> {
        Self::CREDENTIALS.map_or_else(Vec::new, |credentials| (credentials.files)(&locations))
    }

    /// The credentials in one of [`Adapter::credential_files`]. By default as
    /// [`Adapter::CREDENTIALS`] reads them, nothing without them.
    fn parse_credentials(path: String, text: String) -> CredentialRead {
        match Self::CREDENTIALS {
            Some(credentials) => (credentials.parse)(&path, &text),
            None => CredentialRead {
                found: Vec::new(),
                problems: Vec::new(),
            },
        }
    }
}

/// One agent session as a sans-IO state machine.
///
/// The host calls exactly one method at a time. Each returns the actions for the host
/// to carry out, in order. Required: construction, [`SessionMachine::restore`] and
/// [`SessionMachine::snapshot`], [`SessionMachine::start`] and
/// [`SessionMachine::send_message`]. The other inputs have defaults that suit an
/// adapter which never asked for them:
///
/// - replies to permissions and questions answer `Err` (unknown id);
/// - `cancel-turn` and `terminate` do nothing (the host kills the processes and emits
///   `session.ended` itself after `terminate`);
/// - a stdout line, HTTP response or SSE event becomes `agent.unparsed` with the raw
///   payload kept, so nothing the agent printed is lost;
/// - stderr lines, exits, failures, closed streams and timers are ignored (the host
///   captures stderr itself).
pub trait SessionMachine: Sized + 'static {
    /// A new session for `config`. No I/O yet: that starts with [`SessionMachine::start`].
    fn new(config: SessionConfig) -> Self;

    /// Rebuilds a session from the bytes [`SessionMachine::snapshot`] returned
    /// (see [`crate::snapshot`] for a versioned encoding).
    fn restore(config: SessionConfig, state: &[u8]) -> Result<Self, String>;

    /// The session's state as an opaque blob for [`SessionMachine::restore`].
    fn snapshot(&self) -> Vec<u8>;

    /// Right after creation: emit `session.started`, spawn what the agent needs.
    fn start(&mut self) -> Vec<Action>;

    /// A user message starts a turn. Only called when no turn is running.
    fn send_message(&mut self, parts: Vec<MessagePart>) -> Vec<Action>;

    /// The client answered a permission request; `Err` rejects the client's request.
    fn reply_permission(&mut self, permission_id: String, reply: PermissionReply) -> ReplyResult {
        let _ = reply;
        Err(format!("unknown permission id: {permission_id}"))
    }

    /// The client answered a question (one list of chosen options per prompt). By
    /// default [`SessionMachine::answer_question`] with `Some(answers)`.
    fn reply_question(&mut self, question_id: String, answers: Answers) -> ReplyResult {
        self.answer_question(question_id, Some(answers))
    }

    /// The client declined to answer a question. By default
    /// [`SessionMachine::answer_question`] with `None`.
    fn reject_question(&mut self, question_id: String) -> ReplyResult {
        self.answer_question(question_id, None)
    }

    /// One handler for both answers to a question: the client's choices (one list
    /// per prompt), or `None` when it declined. By default the id is unknown.
    fn answer_question(&mut self, question_id: String, answers: Option<Answers>) -> ReplyResult {
        let _ = answers;
        Err(format!("unknown question id: {question_id}"))
    }

    /// What the pending permission request `permission_id` asks for, for the
    /// session's approval policy (WIT `describe-permission`). `None` (the default):
    /// the adapter cannot tell, and the request goes to the client.
    fn describe_permission(&self, permission_id: &str) -> Option<ToolRequest> {
        let _ = permission_id;
        None
    }

    /// The session's approval policy was replaced (`None`: removed; WIT
    /// `set-policy`). An adapter that hands its agent native rules
    /// ([`crate::native_rules`]) hands it the new ones; by default nothing.
    fn set_policy(&mut self, policy: Option<ApprovalPolicy>) -> Vec<Action> {
        let _ = policy;
        Vec::new()
    }

    /// The calls the agent decided by its native rules since the host last
    /// asked, oldest first (WIT `native-decisions`); by default none.
    fn native_decisions(&mut self) -> Vec<NativeDecision> {
        Vec::new()
    }

    /// What the agent offers its session to choose from (its own modes and
    /// models), when it said something new since the host last asked (WIT
    /// `agent-offer`; asked only of adapters declaring
    /// [`crate::Capabilities::agent_offer`]); by default nothing.
    fn agent_offer(&mut self) -> Option<AgentOffer> {
        None
    }

    /// Interrupt the running turn and keep the session; should end with `turn.ended`.
    fn cancel_turn(&mut self) -> Vec<Action> {
        Vec::new()
    }

    /// End the session.
    fn terminate(&mut self) -> Vec<Action> {
        Vec::new()
    }

    /// A line a process printed on stdout.
    fn on_stdout(&mut self, process_id: String, line: String) -> Vec<Action> {
        let location = format!("stdout:{process_id}");
        Actions::one(event::unparsed(
            "unexpected output",
            location,
            raw_json(&line),
        ))
    }

    /// A line a process printed on stderr.
    fn on_stderr(&mut self, process_id: String, line: String) -> Vec<Action> {
        let _ = (process_id, line);
        Vec::new()
    }

    /// A process ended, after all its output was delivered.
    fn on_exit(&mut self, process_id: String, status: ExitStatus) -> Vec<Action> {
        let _ = (process_id, status);
        Vec::new()
    }

    /// A spawn failed.
    fn on_spawn_failed(&mut self, process_id: String, message: String) -> Vec<Action> {
        let _ = (process_id, message);
        Vec::new()
    }

    /// The response to an `http-request`.
    fn on_http_response(&mut self, response: HttpResponse) -> Vec<Action> {
        let location = format!("http:{}", response.request_id);
        let body = String::from_utf8_lossy(&response.body);
        Actions::one(event::unparsed(
            "unexpected HTTP response",
            location,
            raw_json(&body),
        ))
    }

    /// An `http-request` failed without a response.
    fn on_http_error(&mut self, request_id: String, message: String) -> Vec<Action> {
        let _ = (request_id, message);
        Vec::new()
    }

    /// An event arrived on an SSE stream.
    fn on_sse_event(&mut self, sse_event: SseEvent) -> Vec<Action> {
        let location = format!("sse:{}", sse_event.event);
        let raw = raw_json(&sse_event.data);
        Actions::one(event::unparsed("unexpected SSE event", location, raw))
    }

    /// An SSE stream ended.
    fn on_sse_closed(&mut self, stream_id: String, error: Option<String>) -> Vec<Action> {
        let _ = (stream_id, error);
        Vec::new()
    }

    /// A timer fired.
    fn on_timer(&mut self, timer_id: String) -> Vec<Action> {
        let _ = timer_id;
        Vec::new()
    }
}

/// The `session` resource for a [`SessionMachine`]: what the generated bindings export.
///
/// The component model gives resource methods `&self`; this wrapper keeps the machine
/// in a `RefCell` and hands it `&mut self`. The host never calls into a session
/// re-entrantly, so the borrow never fails.
pub struct SessionResource<S> {
    machine: RefCell<S>,
}

impl<S: SessionMachine> SessionResource<S> {
    /// Wraps a machine.
    pub fn new(machine: S) -> Self {
        Self {
            machine: RefCell::new(machine),
        }
    }

    /// Runs `f` on the machine.
    fn with<R>(&self, f: impl FnOnce(&mut S) -> R) -> R {
        f(&mut self.machine.borrow_mut())
    }
}

impl<S: SessionMachine> GuestSession for SessionResource<S> {
    fn new(config: SessionConfig) -> Self {
        Self::new(S::new(config))
    }

    fn restore(config: SessionConfig, state: Vec<u8>) -> Result<Session, String> {
        S::restore(config, &state).map(|machine| Session::new(Self::new(machine)))
    }

    fn start(&self) -> Vec<Action> {
        self.with(|s| s.start())
    }

    fn send_message(&self, parts: Vec<MessagePart>) -> Vec<Action> {
        self.with(|s| s.send_message(parts))
    }

    fn reply_permission(&self, permission_id: String, reply: PermissionReply) -> ReplyResult {
        self.with(|s| s.reply_permission(permission_id, reply))
    }

    fn reply_question(&self, question_id: String, answers: Answers) -> ReplyResult {
        self.with(|s| s.reply_question(question_id, answers))
    }

    fn reject_question(&self, question_id: String) -> ReplyResult {
        self.with(|s| s.reject_question(question_id))
    }

    fn cancel_turn(&self) -> Vec<Action> {
        self.with(|s| s.cancel_turn())
    }

    fn terminate(&self) -> Vec<Action> {
        self.with(|s| s.terminate())
    }

    fn on_stdout(&self, process_id: String, line: String) -> Vec<Action> {
        self.with(|s| s.on_stdout(process_id, line))
    }

    fn on_stderr(&self, process_id: String, line: String) -> Vec<Action> {
        self.with(|s| s.on_stderr(process_id, line))
    }

    fn on_exit(&self, process_id: String, status: ExitStatus) -> Vec<Action> {
        self.with(|s| s.on_exit(process_id, status))
    }

    fn on_spawn_failed(&self, process_id: String, message: String) -> Vec<Action> {
        self.with(|s| s.on_spawn_failed(process_id, message))
    }

    fn on_http_response(&self, response: HttpResponse) -> Vec<Action> {
        self.with(|s| s.on_http_response(response))
    }

    fn on_http_error(&self, request_id: String, message: String) -> Vec<Action> {
        self.with(|s| s.on_http_error(request_id, message))
    }

    fn on_sse_event(&self, sse_event: SseEvent) -> Vec<Action> {
        self.with(|s| s.on_sse_event(sse_event))
    }

    fn on_sse_closed(&self, stream_id: String, error: Option<String>) -> Vec<Action> {
        self.with(|s| s.on_sse_closed(stream_id, error))
    }

    fn on_timer(&self, timer_id: String) -> Vec<Action> {
        self.with(|s| s.on_timer(timer_id))
    }

    fn snapshot(&self) -> Vec<u8> {
        self.with(|s| s.snapshot())
    }

    fn describe_permission(&self, permission_id: String) -> Option<ToolRequest> {
        self.with(|s| s.describe_permission(&permission_id))
    }

    fn set_policy(&self, policy: Option<ApprovalPolicy>) -> Vec<Action> {
        self.with(|s| s.set_policy(policy))
    }

    fn native_decisions(&self) -> Vec<NativeDecision> {
        self.with(|s| s.native_decisions())
    }

    fn agent_offer(&self) -> Option<AgentOffer> {
        self.with(|s| s.agent_offer())
    }
}

impl<A: Adapter> Guest for A {
    type Session = SessionResource<A::Session>;

    fn info() -> AdapterInfo {
        let mut info = A::info();
        if let Some(sessions) = A::NATIVE_SESSIONS {
            let mut names = vec!["move"];
            if sessions.before_resume {
                names.push("move-before-resume");
            }
            for name in names {
                if !info.capabilities.iter().any(|known| known == name) {
                    info.capabilities.push(name.to_owned());
                }
            }
        }
        info
    }

    fn install_plan(target: Platform, version: Option<String>) -> Option<InstallRecipe> {
        A::install_plan(target, version)
    }

    fn parse_latest_version(body: String) -> Option<String> {
        A::parse_latest_version(body)
    }

    fn version_args() -> Option<Vec<String>> {
        A::version_args()
    }

    fn parse_version(output: String) -> Option<String> {
        A::parse_version(output)
    }

    fn parse_checksum(url: String, body: String, file_name: String) -> Result<String, String> {
        A::parse_checksum(url, body, file_name)
    }

    fn credential_files(home: Option<String>, env: Vec<(String, String)>) -> Vec<String> {
        A::credential_files(crate::credentials::Locations::new(home, env))
    }

    fn parse_credentials(path: String, text: String) -> CredentialRead {
        A::parse_credentials(path, text)
    }

    fn model_apis() -> Vec<ModelApi> {
        A::model_apis()
    }

    fn asks_for() -> Vec<ToolKind> {
        A::asks_for()
    }

    fn native_session_files(
        native_session_id: String,
        at: Place,
    ) -> Result<Vec<NativeSource>, String> {
        A::NATIVE_SESSIONS
            .ok_or_else(|| A::STAYS_BEHIND.to_owned())
            .map(|sessions| (sessions.files)(&native_session_id, &at))
    }

    fn move_native_file(
        path: String,
        contents: Vec<u8>,
        from: Place,
        to: Place,
    ) -> Result<Landing, String> {
        let sessions = A::NATIVE_SESSIONS.ok_or_else(|| A::STAYS_BEHIND.to_owned())?;
        sessions.land(&path, contents, &from, &to)
    }
}
