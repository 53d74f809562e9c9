//! [`CodexSession`]: the session state machine.
//!
//! This module owns the connection to the shared app-server (spawn or attach,
//! `initialize`, `thread/start` or `thread/resume`), routes the server's lines to this
//! session (responses by request id, notifications and server requests by thread id),
//! and runs the turn lifecycle: start, cancel, process exit, terminate. The events of a
//! turn are built in [`crate::turn`], server requests in [`crate::requests`].

use sandbox_agent_adapter_kit::native;
use sandbox_agent_adapter_kit::native_rules::NativeRules;
use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::snapshot::Snapshotted;
use sandbox_agent_adapter_kit::text::raw_json;
use serde_json::{json, Value};

use crate::native::{
    DeltaParams, ItemParams, PlanParams, Resolved, Scope, ThreadOpened, TurnParams, Warning,
};
use crate::requests::{self, Handling};
use crate::settings;
use crate::state::{Ask, Call, Link, State, TurnState};
use crate::RPC;
use sandbox_agent_adapter_kit::jsonrpc::{self, Message, RpcError};

/// The share key of the app-server process: one for every Codex session.
pub const SHARE_KEY: &str = "app-server";

/// This session's name for the app-server process.
const PROCESS: &str = "app-server";

/// The timer that ends a cancelled turn if Codex does not confirm the interrupt.
const CANCEL_TIMER: &str = "cancel";

/// How long Codex gets to confirm an interrupt.
const CANCEL_GRACE_MS: u32 = 5_000;

/// Notifications that repeat state the transcript already has (thread status, read
/// markers, the turn's aggregated diff, per-file patch updates) or that concern the
/// account rather than a session; they are understood and not shown.
const QUIET: [&str; 15] = [
    "thread/started",
    "thread/status/changed",
    "thread/settings/updated",
    "thread/readState/changed",
    "thread/name/updated",
    "thread/compacted",
    "thread/goal/cleared",
    "turn/diff/updated",
    "item/reasoning/summaryPartAdded",
    "item/fileChange/patchUpdated",
    "item/commandExecution/terminalInteraction",
    "account/rateLimits/updated",
    "account/updated",
    "remoteControl/status/changed",
    "mcpServer/startupStatus/updated",
];

/// Notifications Codex sends to warn the user; shown as `warning` status items.
const WARNINGS: [&str; 4] = [
    "warning",
    "configWarning",
    "deprecationNotice",
    "guardianWarning",
];

/// One Codex session: one thread on the shared app-server.
pub struct CodexSession {
    config: SessionConfig,
    state: State,
}

impl CodexSession {
    /// The configuration the session was created with.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// Sends a request with a fresh id (`<session id>:<n>`) and remembers what it was.
    fn call(&mut self, out: &mut Actions, call: Call, method: &str, params: Value) {
        let number = self.state.ids.next_number("rpc");
        let id = format!("{}:{number}", self.config.session_id);
        self.state.calls.insert(id.clone(), call);
        out.write_line(PROCESS, &RPC.request(id.as_str(), method, params));
    }

    /// Spawns the shared app-server (or attaches to the running one) and initializes
    /// this session's use of it. A server that is already initialized answers
    /// `Already initialized`, which is fine: the connection is shared.
    fn connect(&mut self, out: &mut Actions) {
        let binary = self.config.program("codex");
        out.spawn(SpawnRequest::command(PROCESS, [binary, "app-server"]).shared(SHARE_KEY));
        self.state.link = Link::Initializing;
        let params = json!({
            "clientInfo": {
                "name": "sandbox-agent",
                "title": "sandbox-agent",
                "version": env!("CARGO_PKG_VERSION"),
            },
            "capabilities": {
                "experimentalApi": true,
                "optOutNotificationMethods": [
                    "account/rateLimits/updated",
                    "thread/readState/changed",
                ],
            },
        });
        self.call(out, Call::Initialize, "initialize", params);
    }

    /// Starts this session's thread, or resumes it when it has one (after the server
    /// was restarted, or for a resumed session).
    fn open_thread(&mut self, out: &mut Actions) {
        self.state.link = Link::Opening;
        let thread = self.state.thread.clone();
        let params = settings::thread_params(&self.config, thread.as_deref());
        self.state.given_modes = Some(self.config.modes());
        let (method, resume) = match thread {
            Some(_) => ("thread/resume", true),
            None => ("thread/start", false),
        };
        self.call(out, Call::OpenThread { resume }, method, params);
    }

    /// Sends the waiting turn once the thread is ready.
    fn send_turn(&mut self, out: &mut Actions) {
        let (Link::Ready, Some(thread)) = (self.state.link, self.state.thread.clone()) else {
            return;
        };
        let Some(turn) = &mut self.state.turn else {
            return;
        };
        if turn.sent {
            return;
        }
        turn.sent = true;
        turn.never_asks = settings::hands_never(&self.config);
        let input = crate::input::user_input(&turn.parts);
        let modes = self.config.modes();
        let changed = (self.state.given_modes.as_ref()).is_some_and(|given| *given != modes);
        self.state.given_modes = Some(modes);
        let thread_model = self.state.model.as_deref();
        let params = settings::turn_params(&self.config, &thread, input, thread_model, changed);
        self.call(out, Call::StartTurn, "turn/start", params);
    }

    /// Asks Codex to interrupt the running turn, once its id is known.
    fn interrupt(&mut self, out: &mut Actions) {
        let (Some(thread), Some(turn)) = (
            self.state.thread.clone(),
            self.state.turn.as_ref().and_then(|t| t.native_id.clone()),
        ) else {
            return;
        };
        let params = json!({ "threadId": thread, "turnId": turn });
        self.call(out, Call::Interrupt, "turn/interrupt", params);
    }

    /// Ends the session with an error (`code`: `agent_exited`, `spawn_failed`,
    /// `agent_failed`): `error`, the end of the running turn, `session.ended` by the
    /// agent with the exit code. Synthetic: the adapter concludes them from an exit or
    /// a refusal (the host adds the captured stderr).
    fn fail(&mut self, out: &mut Actions, failure: Failure) {
        out.fail_session(failure, |out| {
            self.state.end_turn(out, None, None, "failed");
        });
        self.state.ended = true;
    }

    /// A response to one of this session's requests (others' are ignored).
    fn on_response(
        &mut self,
        out: &mut Actions,
        id: &Value,
        outcome: Result<Value, RpcError>,
        raw: &str,
    ) {
        let Some(call) = id.as_str().and_then(|id| self.state.calls.remove(id)) else {
            return;
        };
        match (call, outcome) {
            (Call::Initialize, Ok(_)) => {
                out.write_line(PROCESS, &RPC.notification("initialized", Value::Null));
                self.connected(out);
            }
            (Call::Initialize, Err(error)) if error.message.contains("Already initialized") => {
                self.connected(out);
            }
            (Call::Initialize, Err(error)) => {
                let message = format!("codex app-server refused to initialize: {}", error.message);
                self.fail(out, Failure::new(message, "agent_failed"));
            }
            (Call::OpenThread { .. }, Ok(result)) => {
                let ThreadOpened { thread, model } = native::read(&result);
                let thread = thread.id;
                if thread.is_empty() {
                    out.emit(event::unparsed(
                        "thread response without a thread id",
                        "stdout",
                        raw,
                    ));
                    return;
                }
                out.set_native_session_id(&thread);
                self.state.thread = Some(thread);
                self.state.model = model;
                self.state.link = Link::Ready;
                self.send_turn(out);
            }
            (Call::OpenThread { resume: true }, Err(error)) => {
                let thread = self.state.thread.take().unwrap_or_default();
                let message = format!(
                    "could not resume Codex thread {thread}: {}; starting a new thread",
                    error.message
                );
                out.emit(event::error(message, Some("resume_failed")).with_raw(raw));
                self.open_thread(out);
            }
            (Call::OpenThread { resume: false }, Err(error)) => {
                let message = format!("codex could not start a thread: {}", error.message);
                self.fail(out, Failure::new(message, "agent_failed"));
            }
            (Call::StartTurn, Ok(result)) => {
                let started = native::read::<TurnParams>(&result).turn;
                let turn_id = started.map(|turn| turn.id).unwrap_or_default();
                let Some(turn) = &mut self.state.turn else {
                    return;
                };
                if turn.native_id.is_none() && !turn_id.is_empty() {
                    turn.native_id = Some(turn_id);
                }
                if turn.cancelling {
                    self.interrupt(out);
                }
            }
            (Call::StartTurn, Err(error)) => {
                if let Some(turn) = &mut self.state.turn {
                    turn.error_reported = true;
                }
                self.state.open_turn(out, None);
                out.emit(
                    event::error(
                        format!("codex refused the turn: {}", error.message),
                        Some("turn_failed"),
                    )
                    .with_raw(raw),
                );
                self.state.end_turn(out, None, None, "failed");
            }
            (Call::Interrupt | Call::Unsubscribe, _) => {}
        }
    }

    /// `initialize` done: open the thread.
    fn connected(&mut self, out: &mut Actions) {
        self.state.link = Link::Connected;
        self.open_thread(out);
    }

    /// A server request: handled when it is for this session's thread.
    fn on_request(
        &mut self,
        out: &mut Actions,
        id: Value,
        method: &str,
        params: &Value,
        raw: &str,
    ) {
        if !self.is_mine(&native::read(params)) {
            return;
        }
        let ids = &mut self.state.ids;
        match requests::handle(id, method, params, self.state.turn.as_ref(), |prefix| {
            ids.next(prefix)
        }) {
            Handling::Ask { id, pending, event } => {
                let item = params.get("itemId").and_then(Value::as_str);
                if let (Some(turn), Some(item)) = (&mut self.state.turn, item) {
                    turn.asked.insert(item.to_owned());
                }
                self.state.requests.insert(id, pending);
                out.emit(event.with_raw(raw));
            }
            Handling::Refuse(line) => {
                out.write_line(PROCESS, &line);
                out.emit(event::unparsed(
                    "unsupported server request, refused",
                    "stdout",
                    raw,
                ));
            }
        }
    }

    /// True when a turn runs and `scope` does not name another turn (a late line of a
    /// turn the adapter already ended).
    fn is_current_turn(&self, scope: &Scope) -> bool {
        let Some(turn) = &self.state.turn else {
            return false;
        };
        match (scope.turn_id.as_deref(), &turn.native_id) {
            (Some(named), Some(current)) => named == current,
            _ => true,
        }
    }

    /// True when `scope` names this session's thread.
    fn is_mine(&self, scope: &Scope) -> bool {
        let thread = scope.thread_id.as_deref();
        thread.is_some() && thread == self.state.thread.as_deref()
    }

    /// A notification: warnings for everyone, the rest only for this session's thread.
    fn on_notification(&mut self, out: &mut Actions, method: &str, params: &Value, raw: &str) {
        let scope: Scope = native::read(params);
        if WARNINGS.contains(&method) {
            if scope.thread_id.is_none() || self.is_mine(&scope) {
                self.warning(out, params, raw);
            }
            return;
        }
        if QUIET.contains(&method) || !self.is_mine(&scope) {
            return;
        }
        if method == "error" {
            return self.state.turn_error(out, &native::read(params), raw);
        }
        if method == "thread/closed" {
            if self.state.link == Link::Ready {
                self.state.link = Link::Connected;
            }
            return;
        }
        if method == "serverRequest/resolved" {
            return self.resolved_by_codex(out, params, raw);
        }
        if !self.is_current_turn(&scope) {
            out.emit(event::unparsed(
                "notification outside the running turn",
                "stdout",
                raw,
            ));
            return;
        }
        match method {
            "turn/started" => {
                let started = native::read::<TurnParams>(params).turn;
                let turn_id = started.map(|turn| turn.id).unwrap_or_default();
                if let Some(turn) = &mut self.state.turn {
                    if turn.native_id.is_none() && !turn_id.is_empty() {
                        turn.native_id = Some(turn_id);
                    }
                }
                self.state.open_turn(out, Some(raw));
            }
            "turn/completed" => {
                if self.state.turn.as_ref().is_some_and(|t| t.cancelling) {
                    out.cancel_timer(CANCEL_TIMER);
                }
                let turn = native::read::<TurnParams>(params).turn;
                self.state
                    .end_turn(out, turn.as_ref(), Some(raw), "completed");
            }
            "item/started" => {
                let ItemParams { item } = native::read(params);
                self.state.item_started(out, &item, raw)
            }
            "item/completed" => {
                let ItemParams { item } = native::read(params);
                self.state.item_completed(out, &item, raw)
            }
            "item/agentMessage/delta"
            | "item/plan/delta"
            | "item/reasoning/summaryTextDelta"
            | "item/reasoning/textDelta"
            | "item/commandExecution/outputDelta"
            | "item/fileChange/outputDelta" => {
                let delta: DeltaParams = native::read(params);
                self.state
                    .item_delta(out, &delta.item_id, &delta.delta, raw);
            }
            "item/mcpToolCall/progress" => {
                let progress: DeltaParams = native::read(params);
                let text = format!("{}\n", progress.message);
                self.state.item_delta(out, &progress.item_id, &text, raw);
            }
            "thread/tokenUsage/updated" => self.state.usage_updated(&native::read(params)),
            "turn/plan/updated" => self.plan_updated(out, params, raw),
            _ => {
                out.emit(event::unparsed("unknown notification", "stdout", raw));
            }
        }
    }

    /// Codex dropped one of this session's pending requests itself (an interrupt).
    fn resolved_by_codex(&mut self, out: &mut Actions, params: &Value, raw: &str) {
        let Some(request_id) = native::read::<Resolved>(params).request_id else {
            return;
        };
        let id = self
            .state
            .requests
            .iter()
            .find(|(_, pending)| pending.rpc_id == request_id)
            .map(|(id, _)| id.clone());
        if let Some(pending) = id.and_then(|id| self.state.requests.remove(&id)) {
            out.emit(requests::rejected(&pending).with_raw(raw));
        }
    }

    /// A warning, shown as a `warning` status item in the running or next turn.
    fn warning(&mut self, out: &mut Actions, params: &Value, raw: &str) {
        let Warning { message, summary } = native::read(params);
        let message = if message.is_empty() { summary } else { message };
        self.state.notice(out, message, raw);
    }

    /// `turn/plan/updated`: the agent's to-do list as a `plan` status item, one step a
    /// line (`[completed] Write tests`).
    fn plan_updated(&mut self, out: &mut Actions, params: &Value, raw: &str) {
        let PlanParams { explanation, plan } = native::read(params);
        let mut lines: Vec<String> = explanation.into_iter().collect();
        for step in plan {
            let step = step.or_default();
            lines.push(format!("[{}] {}", step.status, step.step));
        }
        let id = self.state.ids.next("itm");
        let plan = item::status(&id, "plan", Some(lines.join("\n")));
        out.emit(event::item_started(plan.clone().in_progress()).with_raw(raw))
            .emit(event::item_completed(plan).with_raw(raw));
    }

    /// Rejects every pending request (the turn is cancelled; Codex drops them itself).
    fn reject_pending(&mut self, out: &mut Actions) {
        for (_, pending) in std::mem::take(&mut self.state.requests) {
            out.emit(requests::rejected(&pending).synthetic());
        }
    }
}

impl Snapshotted<State> for CodexSession {
    /// The format version of the snapshot (see `state`).
    const STATE_VERSION: u32 = crate::state::STATE_VERSION;

    fn from_parts(config: SessionConfig, mut state: State) -> Self {
        state.native = NativeRules::new(config.policy.clone());
        Self { config, state }
    }

    fn state(&self) -> &State {
        &self.state
    }
}

impl SessionMachine for CodexSession {
    fn new(config: SessionConfig) -> Self {
        Self::fresh(config)
    }

    fn restore(config: SessionConfig, state: &[u8]) -> Result<Self, String> {
        Self::restore_state(config, state)
    }

    fn snapshot(&self) -> Vec<u8> {
        self.snapshot_state()
    }

    /// Emits `session.started`, then spawns (or attaches to) the app-server and opens
    /// the thread: a new one, or `resume-native-session-id`'s.
    fn start(&mut self) -> Vec<Action> {
        let metadata = self.config.launch_metadata("codex");
        Actions::start_session(None, &metadata, |out| {
            self.state.thread = self.config.resume_native_session_id.clone();
            self.connect(out);
        })
    }

    /// Starts a turn: at once when the thread is ready, after (re)connecting otherwise.
    /// `turn.started` and the user item come from Codex's own notifications.
    fn send_message(&mut self, parts: Vec<MessagePart>) -> Vec<Action> {
        Actions::unless(self.state.ended, |out| {
            if self.state.turn.is_some() {
                out.emit(event::turn_running());
                return;
            }
            self.state.turn = Some(TurnState::new(parts));
            match self.state.link {
                Link::Down => self.connect(out),
                Link::Connected => self.open_thread(out),
                Link::Ready => self.send_turn(out),
                Link::Initializing | Link::Opening => {}
            }
        })
    }

    fn reply_permission(&mut self, permission_id: String, reply: PermissionReply) -> ReplyResult {
        let answer = self
            .state
            .requests
            .get(&permission_id)
            .and_then(|pending| requests::answer_permission(pending, reply));
        let Some((line, event)) = answer else {
            return Err(format!("unknown permission id: {permission_id}"));
        };
        self.state.requests.remove(&permission_id);
        let mut out = Actions::new();
        out.write_line(PROCESS, &line).emit(event);
        Ok(out.finish())
    }

    fn describe_permission(&self, permission_id: &str) -> Option<ToolRequest> {
        let pending = self.state.requests.get(permission_id)?;
        match pending.ask {
            Ask::Approval(_) | Ask::Permissions { .. } => pending.request.clone(),
            Ask::Question { .. } => None,
        }
    }

    /// Answers (`Some`) or rejects (`None`) a pending question.
    fn answer_question(&mut self, question_id: String, answers: Option<Answers>) -> ReplyResult {
        let answer = self
            .state
            .requests
            .get(&question_id)
            .and_then(|pending| requests::answer_question(pending, answers.as_deref()));
        let Some((line, event)) = answer else {
            return Err(format!("unknown question id: {question_id}"));
        };
        self.state.requests.remove(&question_id);
        let mut out = Actions::new();
        out.write_line(PROCESS, &line).emit(event);
        Ok(out.finish())
    }

    /// Interrupts the turn with `turn/interrupt` (as soon as Codex named the turn) and
    /// rejects its pending requests; Codex ends the turn with status `interrupted`. A
    /// turn Codex never received ends at once; one Codex does not end within
    /// [`CANCEL_GRACE_MS`] is ended by the adapter.
    /// Codex takes a replaced policy with its next turn. A turn running with
    /// approval policy `never` that the new policy no longer allows is stopped:
    /// Codex cannot be told mid-turn, and would go on running what the new
    /// policy asks about or denies.
    fn set_policy(&mut self, policy: Option<ApprovalPolicy>) -> Vec<Action> {
        self.config.policy = policy.clone();
        self.state.native.set(policy);
        let revoked = self.state.turn.as_ref().is_some_and(|turn| turn.never_asks)
            && !settings::hands_never(&self.config);
        if !revoked {
            return Vec::new();
        }
        let mut actions = Actions::one(event::error(
            "the approval policy was replaced while Codex ran this turn allowed every command \
             and patch; Codex cannot be told mid-turn, so the turn is stopped",
            Some("policy_replaced"),
        ));
        actions.extend(self.cancel_turn());
        actions
    }

    fn native_decisions(&mut self) -> Vec<NativeDecision> {
        self.state.native.take()
    }

    fn cancel_turn(&mut self) -> Vec<Action> {
        let mut out = Actions::new();
        let Some(turn) = &mut self.state.turn else {
            return Vec::new();
        };
        turn.cancelling = true;
        let sent = turn.sent;
        self.reject_pending(&mut out);
        if sent {
            self.interrupt(&mut out);
            out.set_timer(CANCEL_TIMER, CANCEL_GRACE_MS);
        } else {
            self.state.end_turn(&mut out, None, None, "interrupted");
        }
        out.finish()
    }

    /// Interrupts a running turn and ends it, unsubscribes from the thread (the shared
    /// server keeps running for the other sessions; the host detaches this one), and
    /// emits `session.ended`.
    fn terminate(&mut self) -> Vec<Action> {
        Actions::unless(self.state.ended, |out| {
            if let Some(turn) = &mut self.state.turn {
                turn.cancelling = true;
                self.interrupt(out);
                self.state.end_turn(out, None, None, "interrupted");
                out.cancel_timer(CANCEL_TIMER);
            }
            if let (Link::Ready, Some(thread)) = (self.state.link, self.state.thread.clone()) {
                let params = json!({ "threadId": thread });
                self.call(out, Call::Unsubscribe, "thread/unsubscribe", params);
            }
            out.emit(event::session_terminated());
            self.state.ended = true;
        })
    }

    fn on_stdout(&mut self, process_id: String, line: String) -> Vec<Action> {
        Actions::unless(self.state.ended, |out| {
            if process_id != PROCESS {
                out.emit(event::unparsed(
                    "output of an unknown process",
                    format!("stdout:{process_id}"),
                    raw_json(&line),
                ));
                return;
            }
            match jsonrpc::parse(&line) {
                Some(Message::Response { id, outcome }) => {
                    self.on_response(out, &id, outcome, &line)
                }
                Some(Message::Request { id, method, params }) => {
                    self.on_request(out, id, &method, &params, &line)
                }
                Some(Message::Notification { method, params }) => {
                    self.on_notification(out, &method, &params, &line)
                }
                None => {
                    out.emit(event::unparsed(
                        "not a JSON-RPC message",
                        "stdout",
                        raw_json(&line),
                    ));
                }
            }
        })
    }

    /// The app-server exited. During a turn the session ends with an error; between
    /// turns it stays: the next message starts a new server and resumes the thread.
    fn on_exit(&mut self, process_id: String, status: ExitStatus) -> Vec<Action> {
        Actions::unless(process_id != PROCESS || self.state.ended, |out| {
            self.state.link = Link::Down;
            self.state.calls.clear();
            if self.state.turn.is_some() {
                let message = format!(
                    "codex app-server exited with {} during a turn",
                    status.describe()
                );
                self.fail(out, Failure::exited(message, &status));
            } else {
                self.state.requests.clear();
            }
        })
    }

    /// The binary could not be started: the session ends with an error naming it.
    fn on_spawn_failed(&mut self, process_id: String, message: String) -> Vec<Action> {
        Actions::unless(process_id != PROCESS || self.state.ended, |out| {
            self.state.link = Link::Down;
            self.state.calls.clear();
            let binary = self.config.program("codex");
            let program = format!("`{binary} app-server`");
            self.fail(out, Failure::spawn_failed(&program, &message));
        })
    }

    /// Codex did not confirm an interrupt in time: the turn ends here.
    fn on_timer(&mut self, timer_id: String) -> Vec<Action> {
        let mut out = Actions::new();
        if timer_id == CANCEL_TIMER && self.state.turn.as_ref().is_some_and(|t| t.cancelling) {
            self.state.end_turn(&mut out, None, None, "interrupted");
        }
        out.finish()
    }
}
