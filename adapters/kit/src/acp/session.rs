//! [`AcpSession`]: one ACP agent process per session.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use serde_json::{json, Value};

use serde::Deserialize;

use super::native::{NewSession, Offered, PermissionRequest, PromptResult, ToolCall};
use super::options::Setters;
use super::state::{Call, PendingPermission, Phase, Process, Setting, State, TurnState};
use super::{updates, AcpAgent};
use crate::jsonrpc::{self, Framing, Message, RpcError};
use crate::prelude::*;
use crate::process_session::{ProcessSession, WindDown};
use crate::process_state::{LiveProcess, RunningTurn};

/// ACP lines carry the `jsonrpc` member.
const RPC: Framing = Framing::JSONRPC;

/// Version of the snapshot format.
const STATE_VERSION: u32 = 1;

/// Fires when the CLI has not ended a cancelled turn in time.
const CANCEL_TIMER: &str = "cancel";
/// How long a cancelled turn may take to end before the process is killed.
const CANCEL_TIMEOUT_MS: u32 = 10_000;
/// Fires when the CLI's replay of a loaded session is over.
const REPLAY_TIMER: &str = "replay";
/// How long the CLI gets to replay a loaded conversation (which it sends after
/// answering `session/load`) before the next prompt goes out.
const REPLAY_MS: u32 = 500;

/// A session of the ACP agent `A`.
pub struct AcpSession<A> {
    pub(super) config: SessionConfig,
    pub(super) state: State,
    agent: PhantomData<A>,
}

impl<A: AcpAgent> SessionMachine for AcpSession<A> {
    fn new(config: SessionConfig) -> Self {
        let mut state = State::default();
        state.header.native_session_id = config.resume_native_session_id.clone();
        Self {
            config,
            state,
            agent: PhantomData,
        }
    }

    fn restore(config: SessionConfig, state: &[u8]) -> Result<Self, String> {
        Ok(Self {
            config,
            state: crate::snapshot::decode(STATE_VERSION, state)?,
            agent: PhantomData,
        })
    }

    fn snapshot(&self) -> Vec<u8> {
        crate::snapshot::encode(STATE_VERSION, &self.state)
    }

    fn start(&mut self) -> Vec<Action> {
        let mut out = Actions::new();
        let metadata = A::session_metadata(&self.config).map(|metadata| metadata.to_string());
        out.emit(event::session_started(metadata).synthetic());
        self.launch(&mut out);
        out.finish()
    }

    fn send_message(&mut self, parts: Vec<MessagePart>) -> Vec<Action> {
        let mut out = Actions::new();
        let turn_id = out.open_turn(&mut self.state.header.ids, &parts);
        self.state.header.turn = Some(RunningTurn {
            id: turn_id,
            cancelling: false,
            data: TurnState {
                unsent: Some(prompt_text(&parts)),
                ..TurnState::default()
            },
        });
        match &self.state.header.process {
            None => self.launch(&mut out),
            Some(process) if process.phase == Phase::Ready => self.send_prompt(&mut out),
            Some(_) => {} // Sent once the native session is open.
        }
        out.finish()
    }

    fn reply_permission(&mut self, permission_id: String, reply: PermissionReply) -> ReplyResult {
        let pending = self
            .state
            .pending
            .remove(&permission_id)
            .ok_or_else(|| format!("unknown permission id: {permission_id}"))?;
        let option = |kinds: &[&str]| {
            kinds
                .iter()
                .find_map(|kind| pending.options.get(*kind).map(String::as_str))
        };
        let chosen = match reply {
            PermissionReply::Once => option(&["allow_once"]),
            PermissionReply::Always => option(&["allow_always", "allow_once"]),
            PermissionReply::Reject => option(&["reject_once", "reject_always"]),
        };
        let mut out = Actions::new();
        self.write(
            &mut out,
            &RPC.result(&pending.request_id, super::permission_outcome(chosen)),
        );
        out.emit(event::permission_resolved(pending.permission.resolved(reply)).synthetic());
        if reply == PermissionReply::Reject {
            self.fail_tool_call(&mut out, &pending.tool_call_id, "rejected by the user");
        }
        Ok(out.finish())
    }

    fn describe_permission(&self, permission_id: &str) -> Option<ToolRequest> {
        let pending = self.state.pending.get(permission_id)?;
        let metadata: Value = serde_json::from_str(pending.permission.metadata.as_deref()?).ok()?;
        Some(super::policy::request(&metadata["toolCall"]))
    }

    /// What the agent offers, after each answer or update that said it
    /// (the host keeps only a changed offer).
    fn agent_offer(&mut self) -> Option<AgentOffer> {
        if !std::mem::take(&mut self.state.offer_untold) {
            return None;
        }
        self.state.offered.as_ref().map(Offered::to_offer)
    }

    fn cancel_turn(&mut self) -> Vec<Action> {
        let mut out = Actions::new();
        let Some(turn) = self.state.header.turn.as_mut() else {
            return out.finish();
        };
        turn.cancelling = true;
        if turn.unsent.is_some() {
            // Nothing reached the CLI yet: the turn ends here.
            self.end_turn(&mut out, None, None);
            return out.finish();
        }
        self.reject_pending(&mut out);
        if let Some(session_id) = self.state.header.native_session_id.clone() {
            self.write(
                &mut out,
                &RPC.notification("session/cancel", json!({ "sessionId": session_id })),
            );
        }
        out.set_timer(CANCEL_TIMER, CANCEL_TIMEOUT_MS);
        out.finish()
    }

    crate::process_handlers!();
}

impl<A: AcpAgent> ProcessSession<State> for AcpSession<A> {
    const CANCEL_TIMER: &'static str = CANCEL_TIMER;

    fn process_state(&self) -> &State {
        &self.state
    }

    fn process_state_mut(&mut self) -> &mut State {
        &mut self.state
    }

    fn program(&self, process_id: &str) -> String {
        let spawn = A::spawn(&self.config, process_id);
        spawn
            .argv
            .first()
            .map_or(A::NAME, String::as_str)
            .to_owned()
    }

    fn line(&mut self, out: &mut Actions, line: String) {
        match jsonrpc::parse(&line) {
            Some(Message::Response { id, outcome }) => self.on_response(out, id, outcome, &line),
            Some(Message::Notification { method, params }) if method == "session/update" => {
                self.note_update(&params["update"]);
                let replaying = self
                    .state
                    .header
                    .process
                    .as_ref()
                    .is_some_and(|p| p.phase == Phase::Replaying);
                // The replay of a loaded session is history, already in the transcript.
                if !replaying {
                    updates::apply(&mut self.state, out, &params["update"], &line);
                }
            }
            Some(Message::Request { id, method, params })
                if method == "session/request_permission" =>
            {
                self.on_permission_request(out, id, &params, &line);
            }
            Some(Message::Request { id, method, .. }) => {
                let message = format!("method not supported by sandbox-agent: {method}");
                self.write(out, &RPC.error(&id, -32601, &message));
                if !A::QUIET_REQUESTS.contains(&method.as_str()) {
                    out.emit(event::unparsed("unsupported ACP request", "stdout", line));
                }
            }
            Some(Message::Notification { .. }) => {
                out.emit(event::unparsed("unknown ACP notification", "stdout", line));
            }
            None => {
                out.emit(event::unparsed(
                    "not a JSON-RPC message",
                    "stdout",
                    text::raw_json(&line),
                ));
            }
        }
    }

    /// An exit during a turn, or before the native session opened, ends the session
    /// with an error; after an idle exit, the next message relaunches and loads the
    /// native session.
    fn exited(&mut self, out: &mut Actions, status: ExitStatus) {
        let phase = self.state.header.process.take().map(|p| p.data.phase);
        if self.state.header.turn.is_some() {
            self.fail(out, Failure::exited_during_turn(A::NAME, &status));
        } else if phase == Some(Phase::Starting) {
            let message = format!(
                "{} exited before its session started, with {}",
                A::NAME,
                status.describe()
            );
            self.fail(out, Failure::exited(message, &status));
        }
    }

    /// The turn ends: cancelled, with what waits for the client rejected, when
    /// terminated; with its open items failed when the session fails.
    fn wind_down(&mut self, out: &mut Actions, why: WindDown) {
        match why {
            WindDown::Terminated => {
                let Some(turn) = self.state.header.turn.as_mut() else {
                    return;
                };
                turn.cancelling = true;
                self.reject_pending(out);
            }
            WindDown::Failed => {
                if let Some(turn) = self.state.header.turn.as_mut() {
                    turn.errored = true;
                }
                self.state.pending.clear();
            }
            WindDown::CancelTimedOut => {}
        }
        self.end_turn(out, None, None);
    }

    /// The replay of a loaded session is over: the prompt goes out.
    fn other_timer(&mut self, out: &mut Actions, timer_id: &str) {
        if timer_id == REPLAY_TIMER {
            if let Some(process) = self.state.header.process.as_mut() {
                process.phase = Phase::Ready;
                self.send_prompt(out);
            }
        }
    }
}

impl<A: AcpAgent> AcpSession<A> {
    /// Starts an agent process and its ACP handshake.
    fn launch(&mut self, out: &mut Actions) {
        let id = self.state.header.ids.next(A::PROCESS);
        out.spawn(A::spawn(&self.config, &id));
        self.state.header.process = Some(LiveProcess {
            id,
            data: Process {
                last_request: 0,
                requests: BTreeMap::new(),
                phase: Phase::Starting,
                mode: A::mode_id(&self.config, &[]),
                model: (self.config.chosen_model())
                    .filter(|_| A::MODEL_CHANGE)
                    .map(str::to_owned),
                offered_modes: Vec::new(),
                opening_mode: None,
                offers_models: false,
                config_options: Setters::default(),
                variant: None,
            },
        });
        self.request(
            out,
            "initialize",
            super::initialize_params(),
            Call::Initialize,
        );
    }

    /// Writes one line to the live process.
    fn write(&self, out: &mut Actions, line: &str) {
        if let Some(process) = &self.state.header.process {
            out.write_line(&process.id, line);
        }
    }

    /// Sends a request to the live process and remembers what it was.
    pub(super) fn request(&mut self, out: &mut Actions, method: &str, params: Value, call: Call) {
        let Some(process) = self.state.header.process.as_mut() else {
            return;
        };
        process.last_request += 1;
        let id = process.last_request;
        process.requests.insert(id, call);
        out.write_line(&process.id, &RPC.request(id, method, params));
    }

    /// Sends the running turn's prompt, if it is still unsent and the session open.
    pub(super) fn send_prompt(&mut self, out: &mut Actions) {
        let (Some(session_id), Some(turn)) = (
            self.state.header.native_session_id.clone(),
            self.state.header.turn.as_mut(),
        ) else {
            return;
        };
        if turn.unsent.is_none() {
            return;
        }
        self.follow_mode(out, &session_id);
        self.follow_model(out, &session_id);
        // A model set as a configuration option comes with its own thought
        // levels: the variant, and the prompt, wait for the answer that says them.
        if self.awaits(Call::SetConfigOption(Setting::Model)) {
            return;
        }
        self.follow_variant(out, &session_id);
        let Some(text) = self
            .state
            .header
            .turn
            .as_mut()
            .and_then(|t| t.unsent.take())
        else {
            return;
        };
        let params = super::prompt_params(&session_id, &text);
        self.request(out, "session/prompt", params, Call::Prompt);
    }

    /// Whether the agent has not answered a request `call` yet.
    pub(super) fn awaits(&self, call: Call) -> bool {
        let process = self.state.header.process.as_ref();
        process.is_some_and(|process| process.requests.values().any(|sent| *sent == call))
    }

    /// The answer to one of the adapter's requests.
    fn on_response(
        &mut self,
        out: &mut Actions,
        id: Value,
        outcome: Result<Value, RpcError>,
        line: &str,
    ) {
        let call = id.as_u64().and_then(|id| {
            self.state
                .header
                .process
                .as_mut()
                .and_then(|p| p.requests.remove(&id))
        });
        match (call, outcome) {
            (Some(Call::Initialize), Ok(_)) => match self.state.header.native_session_id.clone() {
                Some(native) => {
                    let params = super::load_session_params(&native, &self.config);
                    self.request(out, "session/load", params, Call::LoadSession(native));
                }
                None => self.new_session(out),
            },
            (Some(Call::NewSession), Ok(result)) => {
                self.note_offered(&result);
                let native = crate::native::read::<NewSession>(&result).session_id;
                let Some(native) = native.filter(|id| !id.is_empty()) else {
                    let message = "session/new answered without a sessionId".to_owned();
                    self.fail(out, Failure::new(message, "agent_failed"));
                    return;
                };
                out.set_native_session_id(&native);
                self.state.header.native_session_id = Some(native);
                self.set_phase(Phase::Ready);
                self.send_prompt(out);
            }
            (Some(Call::LoadSession(_)), Ok(result)) => {
                self.note_offered(&result);
                self.set_phase(Phase::Replaying);
                out.set_timer(REPLAY_TIMER, REPLAY_MS);
            }
            (Some(Call::LoadSession(native)), Err(error)) => {
                let message = format!(
                    "could not resume {} session {native} ({}); continuing in a new \
                     session without the earlier conversation",
                    A::NAME,
                    error.describe().trim_end_matches('.')
                );
                out.emit(event::error(message, Some("resume_failed")).with_raw(line));
                self.state.header.native_session_id = None;
                self.new_session(out);
            }
            (Some(Call::Prompt), Ok(result)) => self.on_prompt_result(out, &result, line),
            (Some(Call::Prompt), Err(error)) => {
                let details = json!({"code": error.code, "message": error.message}).to_string();
                if let Some(turn) = self.state.header.turn.as_mut() {
                    turn.errored = true;
                }
                out.emit(
                    event::error_with_details(error.describe(), Some("api_error"), Some(details))
                        .with_raw(line),
                );
                self.end_turn(out, None, None);
            }
            (Some(Call::SetMode | Call::SetModel), Ok(_)) => {}
            (Some(Call::SetConfigOption(setting)), Ok(result)) => {
                self.note_config_options(&result["configOptions"]);
                if setting == Setting::Model {
                    self.send_prompt(out);
                }
            }
            (
                Some(call @ (Call::SetMode | Call::SetModel | Call::SetConfigOption(_))),
                Err(error),
            ) => {
                let (what, code) = match call {
                    Call::SetModel => Setting::Model.refusal(),
                    Call::SetConfigOption(setting) => setting.refusal(),
                    _ => Setting::Mode.refusal(),
                };
                let message = format!(
                    "{} kept its earlier {what}: {}",
                    A::NAME,
                    error.describe().trim_end_matches('.')
                );
                out.emit(event::error(message, Some(code)).with_raw(line));
                if call == Call::SetConfigOption(Setting::Model) {
                    self.send_prompt(out);
                }
            }
            (Some(Call::Initialize | Call::NewSession), Err(error)) => {
                let message = format!("{} could not open a session: {}", A::NAME, error.describe());
                self.fail(out, Failure::new(message, "agent_failed"));
                if let Some(process) = self.state.header.process.take() {
                    out.kill(process.id);
                }
            }
            (None, _) => {
                out.emit(event::unparsed("answer to no request", "stdout", line));
            }
        }
    }

    fn new_session(&mut self, out: &mut Actions) {
        let params = super::new_session_params(&self.config);
        self.request(out, "session/new", params, Call::NewSession);
    }

    fn set_phase(&mut self, phase: Phase) {
        if let Some(process) = self.state.header.process.as_mut() {
            process.phase = phase;
        }
    }

    /// `session/prompt` answered: the turn is over.
    fn on_prompt_result(&mut self, out: &mut Actions, result: &Value, line: &str) {
        let reported = self
            .state
            .header
            .turn
            .as_mut()
            .and_then(|turn| turn.usage.take());
        let usage = A::usage(result).or(reported);
        let stop = crate::native::read::<PromptResult>(result).stop_reason;
        let stop = stop.as_deref().unwrap_or("end_turn");
        let metadata = match stop {
            "end_turn" => None,
            "cancelled" => Some(json!({"cancelled": true})),
            other => Some(json!({ "stopReason": other })),
        };
        self.end_turn(out, usage, Some((metadata, line)));
    }

    /// Ends the running turn: open items completed (failed when cancelled), calls
    /// without a result failed, `turn.ended` (native with the prompt's answer when
    /// `native` has it, else synthetic).
    fn end_turn(
        &mut self,
        out: &mut Actions,
        usage: Option<Usage>,
        native: Option<(Option<Value>, &str)>,
    ) {
        let Some(mut turn) = self.state.header.turn.take() else {
            return;
        };
        let interrupted = turn.cancelling || turn.errored;
        updates::close_open(&mut turn, out, interrupted);
        let open_calls: Vec<String> = turn
            .tools
            .iter()
            .filter(|(_, call)| !call.done)
            .map(|(id, _)| id.clone())
            .collect();
        for call_id in open_calls {
            updates::fail_tool_call(
                &mut self.state.header.ids,
                &mut turn,
                out,
                &call_id,
                "interrupted",
            );
        }
        let mut data = Turn::with_id(&turn.id);
        if let Some(usage) = usage {
            data = data.with_usage(usage);
        }
        let ended = match native {
            Some((metadata, line)) => {
                if let Some(metadata) = metadata {
                    data = data.with_metadata(metadata.to_string());
                }
                event::turn_ended(data).with_raw(line)
            }
            None => {
                if turn.cancelling {
                    data = data.with_metadata(json!({"cancelled": true}).to_string());
                }
                event::turn_ended(data).synthetic()
            }
        };
        if turn.cancelling {
            out.cancel_timer(CANCEL_TIMER);
        }
        out.emit(ended);
    }

    /// `session/request_permission`: the tool call it is about, and the request.
    fn on_permission_request(&mut self, out: &mut Actions, id: Value, params: &Value, line: &str) {
        let request: PermissionRequest = crate::native::read(params);
        let tool_call = ToolCall::deserialize(&request.tool_call).unwrap_or_default();
        let Some(turn) = self.state.header.turn.as_mut().filter(|t| !t.cancelling) else {
            // Nothing to ask the client about: refuse.
            self.write(out, &RPC.result(&id, super::permission_outcome(None)));
            out.emit(event::unparsed(
                "permission request outside a turn",
                "stdout",
                line,
            ));
            return;
        };
        updates::close_open(turn, out, false);
        updates::open_tool_call(&mut self.state.header.ids, turn, out, &tool_call, line);
        let mut options = BTreeMap::new();
        for (kind, option_id) in request.option_ids() {
            options.entry(kind).or_insert(option_id);
        }
        if A::ALLOWS_IN_BYPASS && self.config.permission_mode == "bypass" {
            let allow = ["allow_always", "allow_once"]
                .iter()
                .find_map(|kind| options.get(*kind).map(String::as_str));
            self.write(out, &RPC.result(&id, super::permission_outcome(allow)));
            return;
        }
        let action = format!(
            "{}: {}",
            tool_call.kind.as_str().unwrap_or("tool"),
            tool_call.title.as_str().unwrap_or("")
        );
        let metadata = json!({"toolCall": request.tool_call, "options": request.options});
        let permission = Permission::requested(
            self.state.header.ids.next("perm"),
            action,
            Some(metadata.to_string()),
        );
        out.emit(event::permission_requested(permission.clone()).with_raw(line));
        self.state.pending.insert(
            permission.permission_id.clone(),
            PendingPermission {
                request_id: id,
                permission,
                options,
                tool_call_id: tool_call.tool_call_id,
            },
        );
    }

    /// Answers every pending permission request as cancelled (a cancel or terminate)
    /// and resolves it as rejected.
    fn reject_pending(&mut self, out: &mut Actions) {
        for (_, pending) in std::mem::take(&mut self.state.pending) {
            self.write(
                out,
                &RPC.result(&pending.request_id, super::permission_outcome(None)),
            );
            out.emit(
                event::permission_resolved(pending.permission.resolved(PermissionReply::Reject))
                    .synthetic(),
            );
            self.fail_tool_call(out, &pending.tool_call_id, "cancelled");
        }
    }

    fn fail_tool_call(&mut self, out: &mut Actions, call_id: &str, output: &str) {
        if let Some(turn) = self.state.header.turn.as_mut() {
            updates::fail_tool_call(&mut self.state.header.ids, turn, out, call_id, output);
        }
    }
}

/// The prompt for the agent: the message's text, then the paths of its attachments
/// (ACP would take their contents, which the adapter cannot read).
fn prompt_text(parts: &[MessagePart]) -> String {
    let mut prompt = text::message_text(parts);
    let paths = text::attachment_paths(parts);
    if !paths.is_empty() {
        prompt.push_str("\n\nAttached files:");
        for path in paths {
            prompt.push_str(&format!("\n- {path}"));
        }
    }
    prompt
}
