//! [`OpenCodeSession`]: one sandbox-agent session driving one OpenCode session on the
//! shared server.
//!
//! Life of a session: `start` spawns (or attaches to) `opencode serve`; the URL it
//! prints opens the directory's event stream and creates the native session
//! (`POST /session`, or the session to resume). Each message starts a turn
//! (`turn.started` and the user's item, synthetic) and sends `prompt_async`; the
//! stream's events of this native session become items, permissions, questions and
//! errors, and `session.idle` ends the turn with its usage. A cancel aborts the native
//! turn and ends ours at once. When the server exits between turns the session stays:
//! the next message starts a server again and continues the same native session.

use sandbox_agent_adapter_kit::native_rules::NativeRules;
use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::snapshot::Snapshotted;
use sandbox_agent_adapter_kit::text::raw_json;
use serde_json::{json, Value};

use crate::api::{self, ServerLine, EVENTS, SERVER};
use crate::native::{
    CreatedSession, Envelope, MessageUpdated, PartDelta, PartUpdated, PermissionAsked,
    PermissionReplied, QuestionAsked, QuestionSettled, SessionError, SessionStatus,
};
use crate::state::{Server, State};
use crate::turn::{Emitter, RunningTurn};

/// The request id of `POST /session`.
const CREATE: &str = "create";

/// The timer that reopens a failed event stream.
const REOPEN: &str = "reopen-events";

/// The prefix of the ids of permission replies' requests.
const PERMISSION_REPLY: &str = "permission";

/// The prefix of the ids of the requests that replace the native session's
/// permission rules.
const POLICY: &str = "policy";

/// The id of the request that replaces the native session's permission rules
/// when the session's modes changed.
const MODES: &str = "modes";

/// Event-stream failures in a row after which the session ends.
const MAX_STREAM_FAILURES: u32 = 5;

/// Events of this native session that carry nothing for the transcript: session
/// metadata, diffs, todo lists, removals (and OpenCode's experimental `session.next.*`
/// family, which repeats the events above).
const IGNORED: &[&str] = &[
    "session.created",
    "session.updated",
    "session.deleted",
    "session.diff",
    "session.compacted",
    "message.removed",
    "message.part.removed",
    "todo.updated",
    "command.executed",
];

/// One OpenCode session.
pub struct OpenCodeSession {
    config: SessionConfig,
    state: State,
}

impl OpenCodeSession {
    /// Says once that the session's model is not one OpenCode can take (its
    /// models are `provider/model`): the prompt goes without it, and OpenCode
    /// runs its own default.
    fn tell_unusable_model(&mut self, out: &mut Actions) {
        let Some(model) = self.config.chosen_model() else {
            return;
        };
        if model.contains('/') || self.state.unusable_model.as_deref() == Some(model) {
            return;
        }
        self.state.unusable_model = Some(model.to_owned());
        let message = format!(
            "OpenCode names its models provider/model; {model} is not one, so it runs its \
             default model"
        );
        out.emit(event::error(message, Some("model_refused")));
    }

    /// Spawns the shared server (or attaches to it).
    fn launch(&mut self, out: &mut Actions) {
        self.state.server = Server::Starting;
        out.spawn(api::spawn_server(&self.config));
    }

    /// The server listens at `base`: opens the event stream, then creates the native
    /// session or sends the waiting prompt.
    fn connected(&mut self, base: &str, out: &mut Actions) {
        self.state.server = Server::Up(base.to_owned());
        self.state.stream_failures = 0;
        out.open_sse(api::open_events(base, &self.config.directory));
        self.proceed(out);
    }

    /// Creates the native session when there is none yet, else sends the queued prompt.
    fn proceed(&mut self, out: &mut Actions) {
        let Some(base) = self.state.base_url().map(str::to_owned) else {
            return;
        };
        let base = base.as_str();
        let directory = &self.config.directory;
        let Some(native_id) = &self.state.native_id else {
            if !self.state.creating {
                self.state.creating = true;
                self.state.given_modes = Some(self.config.modes());
                let body = api::create_session(&self.config, &self.state.native).to_string();
                out.http_request(api::post(CREATE, base, "/session", directory, body));
            }
            return;
        };
        if self.state.changing_modes || self.state.queued_prompt.is_none() {
            return;
        }
        let current = self.config.modes();
        if self
            .state
            .given_modes
            .as_ref()
            .is_some_and(|given| *given != current)
        {
            // The prompt waits for the rules of the new modes (the plan agent's own: none).
            self.state.changing_modes = true;
            let rules = api::permission_rules(&self.config, &self.state.native);
            let body = json!({ "permission": rules.unwrap_or_else(|| json!([])) });
            let path = format!("/session/{native_id}");
            out.http_request(api::patch(MODES, base, &path, directory, body.to_string()));
            return;
        }
        let (Some(body), Some(turn)) = (self.state.queued_prompt.take(), &self.state.turn) else {
            return;
        };
        let path = format!("/session/{native_id}/prompt_async");
        let request_id = format!("prompt-{}", turn.number);
        out.http_request(api::post(request_id, base, &path, directory, body));
    }

    /// The request for the new modes' rules was answered: the waiting prompt goes.
    fn modes_given(&mut self, out: &mut Actions) {
        self.state.changing_modes = false;
        self.state.given_modes = Some(self.config.modes());
        self.proceed(out);
    }

    /// Ends the running turn: closes its open items and emits `turn.ended` with its
    /// usage (native when `raw` is OpenCode's `session.idle`, else synthetic).
    fn end_turn(&mut self, out: &mut Actions, interrupted: bool, raw: Option<&str>) {
        let Some(mut turn) = self.state.turn.take() else {
            return;
        };
        self.state.queued_prompt = None;
        turn.close_items(interrupted, out);
        let mut data = Turn::with_id(turn.id);
        data.usage = turn.usage;
        if interrupted {
            data = data.with_metadata(r#"{"cancelled":true}"#);
        }
        let ended = event::turn_ended(data);
        out.emit(match raw {
            Some(raw) => ended.with_raw(raw),
            None => ended.synthetic(),
        });
    }

    /// Interrupts the running turn: rejects what waits for the client, aborts the
    /// native turn (unless its prompt was never sent) and ends the turn.
    fn interrupt(&mut self, out: &mut Actions) {
        if self.state.turn.is_none() {
            return;
        }
        for (id, permission) in std::mem::take(&mut self.state.permissions) {
            out.emit(
                event::permission_resolved(permission.resolved(PermissionReply::Reject))
                    .synthetic(),
            );
            self.request(
                out,
                "permission",
                &format!("/permission/{id}/reply"),
                json!({ "reply": "reject" }),
            );
        }
        for (id, question) in std::mem::take(&mut self.state.questions) {
            out.emit(event::question_resolved(question.rejected()).synthetic());
            self.request(
                out,
                "question",
                &format!("/question/{id}/reject"),
                json!({}),
            );
        }
        let prompt_sent = self.state.queued_prompt.is_none();
        if let (true, Some(native_id)) = (prompt_sent, self.state.native_id.clone()) {
            self.request(
                out,
                "abort",
                &format!("/session/{native_id}/abort"),
                json!({}),
            );
        }
        self.end_turn(out, true, None);
    }

    /// Sends a request whose answer only matters when it fails (replies, abort);
    /// nothing when the server is not listening.
    fn request(&mut self, out: &mut Actions, kind: &str, path: &str, body: Value) {
        let Some(base) = self.state.base_url().map(str::to_owned) else {
            return;
        };
        let request_id = self.state.ids.next(kind);
        out.http_request(api::post(
            request_id,
            &base,
            path,
            &self.config.directory,
            body.to_string(),
        ));
    }

    /// Ends the session with an error (`error` then `session.ended`), by the agent.
    fn fail(&mut self, out: &mut Actions, failure: Failure) {
        out.fail_session(failure, |_| {});
        self.state.ended = true;
    }

    /// A failed request: the error, and the end of the turn when it was its prompt.
    fn request_failed(&mut self, out: &mut Actions, request_id: &str, message: String, raw: &str) {
        if request_id == MODES {
            let error = event::error(
                format!("OpenCode kept the session's earlier permission rules: {message}"),
                Some("request_failed"),
            );
            out.emit(error.with_raw(raw));
            return self.modes_given(out);
        }
        if request_id == CREATE {
            self.state.creating = false;
            if self.state.turn.is_some() {
                self.fail(
                    out,
                    Failure::new(
                        format!("OpenCode could not create a session: {message}"),
                        "session_create_failed",
                    ),
                );
            }
            return;
        }
        let error = event::error(
            format!("OpenCode request {request_id} failed: {message}"),
            Some("request_failed"),
        );
        out.emit(error.with_raw(raw));
        let is_prompt = |turn: &RunningTurn| request_id == format!("prompt-{}", turn.number);
        if self.state.turn.as_ref().is_some_and(is_prompt) {
            self.end_turn(out, false, None);
        }
    }

    /// One event of the stream.
    fn on_event(
        &mut self,
        envelope: Envelope,
        raw: &str,
        out: &mut Actions,
    ) -> Result<(), serde_json::Error> {
        let kind = envelope.kind.as_str();
        if IGNORED.contains(&kind) || kind.starts_with("session.next.") {
            return Ok(());
        }
        // The part events, most of a busy stream, name their session beside the
        // part: parsed once, the session read from them, not in a pass of its own.
        let (mut part, mut delta) = (None, None);
        let about = match kind {
            "message.part.updated" => envelope.parse::<PartUpdated>().map(|updated| {
                part = Some(updated.part);
                updated.session_id
            }),
            "message.part.delta" => envelope.parse::<PartDelta>().map(|parsed| {
                let session = parsed.session_id.clone();
                delta = Some(parsed);
                session
            }),
            _ => Ok(envelope.session_id().map(|id| id.into_owned())),
        };
        // Other sessions' events, and the server's own (plugins, heartbeats, files);
        // what does not parse matters only when it is this session's.
        let mine =
            |about: Option<&str>| about.is_some() && about == self.state.native_id.as_deref();
        match about {
            Ok(about) if mine(about.as_deref()) => {}
            Err(error) if mine(envelope.session_id().as_deref()) => return Err(error),
            _ => return Ok(()),
        }
        let mut em = Emitter { out, raw };
        let state = &mut self.state;
        match kind {
            "message.updated" => {
                let info = envelope.parse::<MessageUpdated>()?.info;
                if let Some(turn) = &mut state.turn {
                    if info.role == "user" && turn.user_message.is_none() && turn.owns(&info.id) {
                        turn.user_message = Some(info.id.clone());
                        turn.armed = true;
                    }
                }
                state.saw_message(&info.id);
            }
            "message.part.updated" => {
                if let (Some(turn), Some(part)) = (&mut state.turn, part) {
                    turn.on_part(&mut state.ids, part, &mut em);
                    for (call_id, tool, input) in turn.ended_calls.drain(..) {
                        let request = crate::policy::call_request(&tool, &input);
                        if let Some(request) = request.filter(|_| !turn.asked.contains(&call_id)) {
                            state.native.note_call(&call_id, request);
                        }
                    }
                }
            }
            "message.part.delta" => {
                if let (Some(turn), Some(delta)) = (&mut state.turn, delta) {
                    turn.on_delta(delta, &mut em);
                }
            }
            "session.status" => {
                let status = envelope.parse::<SessionStatus>()?.status;
                if let (Some(turn), "busy") = (&mut state.turn, status.kind.as_str()) {
                    turn.armed = true;
                }
            }
            "session.idle" => {
                if state.turn.as_ref().is_some_and(|turn| turn.armed) {
                    self.end_turn(out, false, Some(raw));
                }
            }
            "session.error" => match envelope.parse::<SessionError>()?.error {
                // A cancelled turn's (already ended), or one aborted elsewhere.
                Some(error) if error.is_abort() => {}
                Some(error) => {
                    let details = envelope
                        .parse::<Value>()?
                        .get("error")
                        .map(Value::to_string);
                    em.emit(event::error_with_details(
                        error.message(),
                        Some(error.code()),
                        details,
                    ));
                }
                None => em.emit(event::error(
                    "OpenCode reported an error",
                    Some("agent_error"),
                )),
            },
            "permission.asked" => {
                self.permission_asked(envelope.parse()?, &envelope.parse()?, raw, out)
            }
            "permission.replied" => {
                let replied = envelope.parse::<PermissionReplied>()?;
                if let Some(permission) = state.permissions.remove(&replied.request_id) {
                    let reply = match replied.reply.as_str() {
                        "once" => PermissionReply::Once,
                        "always" => PermissionReply::Always,
                        _ => PermissionReply::Reject,
                    };
                    em.emit(event::permission_resolved(permission.resolved(reply)));
                }
            }
            "question.asked" => {
                let asked = envelope.parse::<QuestionAsked>()?;
                let prompt: Vec<&str> = asked
                    .questions
                    .iter()
                    .map(|q| q.question.as_str())
                    .collect();
                let options = asked
                    .questions
                    .iter()
                    .flat_map(|q| q.options.iter().map(|o| o.label.clone()));
                let question = Question::requested(&asked.id, prompt.join("\n"), options);
                state.questions.insert(asked.id, question.clone());
                em.emit(event::question_requested(question));
            }
            "question.replied" | "question.rejected" => {
                let settled = envelope.parse::<QuestionSettled>()?;
                if let Some(question) = state.questions.remove(&settled.request_id) {
                    let resolved = if envelope.kind == "question.rejected" {
                        question.rejected()
                    } else {
                        question.answered(&[])
                    };
                    em.emit(event::question_resolved(resolved));
                }
            }
            kind => em.emit(event::unparsed(
                "unknown event type",
                format!("sse:{kind}"),
                raw,
            )),
        }
        Ok(())
    }

    /// `permission.asked`: a pending request for the client (its diff kept for the
    /// file change it is about).
    fn permission_asked(
        &mut self,
        asked: PermissionAsked,
        properties: &Value,
        raw: &str,
        out: &mut Actions,
    ) {
        let action = match asked.patterns.is_empty() {
            true => asked.permission.clone(),
            false => format!("{}: {}", asked.permission, asked.patterns.join(", ")),
        };
        if let (Some(turn), Some(tool)) = (&mut self.state.turn, &asked.tool) {
            turn.asked.insert(tool.call_id.clone());
        }
        let diff = asked.metadata.get("diff").and_then(Value::as_str);
        if let (Some(turn), Some(tool), Some(diff)) = (&mut self.state.turn, &asked.tool, diff) {
            turn.diffs.insert(tool.call_id.clone(), diff.to_owned());
        }
        let permission = Permission::requested(&asked.id, action, Some(properties.to_string()));
        self.state.permissions.insert(asked.id, permission.clone());
        out.emit(event::permission_requested(permission).with_raw(raw));
    }
}

/// Whether `response` answers a permission reply with OpenCode's "not found": the
/// request was settled by OpenCode itself before the reply reached it (when one
/// request of a session is rejected it rejects the session's other pending ones,
/// and an aborted turn drops them). Nothing failed: the reply's resolution is in
/// the transcript already, and the tool's result says what became of the call.
fn withdrawn_before_the_reply(response: &HttpResponse, body: &str) -> bool {
    response.status == 404
        && response.request_id.starts_with(PERMISSION_REPLY)
        && serde_json::from_str::<Value>(body)
            .is_ok_and(|error| error["_tag"] == "PermissionNotFoundError")
}

impl Snapshotted<State> for OpenCodeSession {
    /// The format version of the snapshot (see `state`).
    const STATE_VERSION: u32 = crate::state::STATE_VERSION;

    fn from_parts(config: SessionConfig, mut state: State) -> Self {
        let policy = config.policy.clone();
        state.native = NativeRules::new(policy.filter(|_| api::takes_policy_rules(&config)));
        Self { config, state }
    }

    fn state(&self) -> &State {
        &self.state
    }
}

impl SessionMachine for OpenCodeSession {
    /// A new session, resuming the native session the host names.
    fn new(config: SessionConfig) -> Self {
        let mut session = Self::fresh(config);
        session.state.native_id = session.config.resume_native_session_id.clone();
        session
    }

    fn restore(config: SessionConfig, state: &[u8]) -> Result<Self, String> {
        Self::restore_state(config, state)
    }

    fn snapshot(&self) -> Vec<u8> {
        self.snapshot_state()
    }

    /// Records the session to resume (if any), emits `session.started` and starts the
    /// server.
    fn start(&mut self) -> Vec<Action> {
        let mut metadata = self.config.launch_metadata("opencode");
        metadata["directory"] = json!(self.config.directory);
        let resumed = self.state.native_id.clone();
        Actions::start_session(resumed, &metadata, |out| self.launch(out))
    }

    fn send_message(&mut self, parts: Vec<MessagePart>) -> Vec<Action> {
        Actions::unless(self.state.ended, |out| {
            if self.state.turn.is_some() {
                out.emit(event::turn_running());
                return;
            }
            let number = self.state.ids.next_number("turn");
            let turn = RunningTurn::new(number, self.state.newest_message.clone());
            out.emit(event::turn_started(Turn::with_id(turn.id.clone())).synthetic())
                .emit_all(event::user_message(self.state.ids.next("itm"), &parts));
            self.state.turn = Some(turn);
            self.tell_unusable_model(out);
            self.state.queued_prompt = Some(api::prompt(&self.config, &parts).to_string());
            match self.state.server {
                Server::Down => self.launch(out),
                Server::Starting => {}
                Server::Up(_) => self.proceed(out),
            }
        })
    }

    fn reply_permission(&mut self, permission_id: String, reply: PermissionReply) -> ReplyResult {
        let Some(permission) = self.state.permissions.remove(&permission_id) else {
            return Err(format!("unknown permission id: {permission_id}"));
        };
        let mut out = Actions::new();
        out.emit(event::permission_resolved(permission.resolved(reply)));
        let reply = match reply {
            PermissionReply::Once => "once",
            PermissionReply::Always => "always",
            PermissionReply::Reject => "reject",
        };
        let path = format!("/permission/{permission_id}/reply");
        self.request(&mut out, PERMISSION_REPLY, &path, json!({ "reply": reply }));
        Ok(out.finish())
    }

    fn describe_permission(&self, permission_id: &str) -> Option<ToolRequest> {
        let permission = self.state.permissions.get(permission_id)?;
        let properties: Value = serde_json::from_str(permission.metadata.as_deref()?).ok()?;
        let call = properties["tool"]["callID"].as_str();
        let call = call.and_then(|id| self.state.turn.as_ref()?.call(id));
        let call = call.as_ref().map(|(tool, input)| (tool.as_str(), input));
        Some(crate::policy::request(&properties, call))
    }

    /// Hands the native session the new policy's permission rules (appended to
    /// its own: OpenCode's last matching rule wins); a session created later gets
    /// them at creation.
    fn set_policy(&mut self, policy: Option<ApprovalPolicy>) -> Vec<Action> {
        self.config.policy = policy.clone();
        if !api::takes_policy_rules(&self.config) {
            return Vec::new();
        }
        self.state.native.set(policy);
        let request_id = self.state.ids.next(POLICY);
        let (Some(base), Some(native_id)) = (self.state.base_url(), &self.state.native_id) else {
            return Vec::new();
        };
        let body = json!({ "permission": api::policy_rules(&self.state.native) });
        let path = format!("/session/{native_id}");
        let mut out = Actions::new();
        let directory = &self.config.directory;
        out.http_request(api::patch(
            request_id,
            base,
            &path,
            directory,
            body.to_string(),
        ));
        out.finish()
    }

    fn native_decisions(&mut self) -> Vec<NativeDecision> {
        self.state.native.take()
    }

    fn reply_question(&mut self, question_id: String, answers: Answers) -> ReplyResult {
        let Some(question) = self.state.questions.remove(&question_id) else {
            return Err(format!("unknown question id: {question_id}"));
        };
        let mut out = Actions::new();
        out.emit(event::question_resolved(question.answered(&answers)));
        let path = format!("/question/{question_id}/reply");
        self.request(&mut out, "question", &path, json!({ "answers": answers }));
        Ok(out.finish())
    }

    fn reject_question(&mut self, question_id: String) -> ReplyResult {
        let Some(question) = self.state.questions.remove(&question_id) else {
            return Err(format!("unknown question id: {question_id}"));
        };
        let mut out = Actions::new();
        out.emit(event::question_resolved(question.rejected()));
        self.request(
            &mut out,
            "question",
            &format!("/question/{question_id}/reject"),
            json!({}),
        );
        Ok(out.finish())
    }

    fn cancel_turn(&mut self) -> Vec<Action> {
        Actions::build(|out| self.interrupt(out))
    }

    /// Cancels the running turn, closes the event stream and ends the session (the
    /// host detaches it from the shared server).
    fn terminate(&mut self) -> Vec<Action> {
        Actions::unless(self.state.ended, |out| {
            self.interrupt(out);
            out.close_sse(EVENTS).emit(event::session_terminated());
            self.state.ended = true;
        })
    }

    fn on_stdout(&mut self, process_id: String, line: String) -> Vec<Action> {
        Actions::unless(process_id != SERVER || self.state.ended, |out| {
            match api::server_line(&line) {
                // Attaching to a running server replays its banner: already known.
                ServerLine::Listening(url) if self.state.base_url() == Some(url) => {}
                ServerLine::Listening(url) => self.connected(url, out),
                ServerLine::Notice => {}
                ServerLine::Other => {
                    out.emit(event::unparsed(
                        "unexpected output",
                        "stdout:server",
                        raw_json(&line),
                    ));
                }
            }
        })
    }

    fn on_exit(&mut self, process_id: String, status: ExitStatus) -> Vec<Action> {
        Actions::unless(process_id != SERVER || self.state.ended, |out| {
            self.state.server = Server::Down;
            self.state.creating = false;
            if self.state.turn.is_some() {
                let failure = Failure::exited_during_turn("opencode serve", &status);
                self.fail(out, failure);
            }
        })
    }

    fn on_spawn_failed(&mut self, process_id: String, message: String) -> Vec<Action> {
        Actions::unless(process_id != SERVER || self.state.ended, |out| {
            self.state.server = Server::Down;
            let program = api::program(&self.config);
            self.fail(out, Failure::spawn_failed(&program, &message));
        })
    }

    fn on_http_response(&mut self, response: HttpResponse) -> Vec<Action> {
        Actions::unless(self.state.ended, |out| {
            let body = String::from_utf8_lossy(&response.body).into_owned();
            let raw = raw_json(&body);
            if withdrawn_before_the_reply(&response, &body) {
                return;
            }
            if !(200..300).contains(&response.status) {
                let message = format!("HTTP {}: {body}", response.status);
                self.request_failed(out, &response.request_id, message, &raw);
                return;
            }
            if response.request_id == MODES {
                return self.modes_given(out);
            }
            if response.request_id == CREATE {
                self.state.creating = false;
                let created = serde_json::from_str::<CreatedSession>(&body)
                    .map_err(|error| error.to_string())
                    .and_then(|created| match created.id.is_empty() {
                        true => Err("empty session id".to_owned()),
                        false => Ok(created),
                    });
                match created {
                    Ok(created) => {
                        out.set_native_session_id(created.id.clone());
                        self.state.native_id = Some(created.id);
                        self.proceed(out);
                    }
                    Err(error) => {
                        out.emit(event::unparsed(error, "http:create", raw));
                        self.fail(
                            out,
                            Failure::new(
                                "OpenCode answered POST /session without a session",
                                "session_create_failed",
                            ),
                        );
                    }
                }
            }
        })
    }

    fn on_http_error(&mut self, request_id: String, message: String) -> Vec<Action> {
        Actions::unless(self.state.ended, |out| {
            let raw = raw_json(&message);
            self.request_failed(out, &request_id, message, &raw);
        })
    }

    fn on_sse_event(&mut self, sse_event: SseEvent) -> Vec<Action> {
        Actions::unless(sse_event.stream_id != EVENTS || self.state.ended, |out| {
            self.state.stream_failures = 0;
            let data = sse_event.data;
            let parsed = serde_json::from_str::<Envelope>(&data)
                .and_then(|envelope| self.on_event(envelope, &data, out));
            if let Err(error) = parsed {
                out.emit(event::unparsed(
                    error.to_string(),
                    format!("sse:{}", sse_event.event),
                    raw_json(&data),
                ));
            }
        })
    }

    /// The stream ended while the server runs: reopened after a second, up to
    /// [`MAX_STREAM_FAILURES`] times in a row, then the session ends.
    fn on_sse_closed(&mut self, stream_id: String, error: Option<String>) -> Vec<Action> {
        Actions::unless(
            stream_id != EVENTS || self.state.ended || self.state.base_url().is_none(),
            |out| {
                self.state.stream_failures += 1;
                if self.state.stream_failures > MAX_STREAM_FAILURES {
                    let reason = error.unwrap_or_else(|| "closed by the server".to_owned());
                    self.fail(
                        out,
                        Failure::new(
                            format!("the OpenCode event stream keeps failing: {reason}"),
                            "stream_failed",
                        ),
                    );
                } else {
                    out.set_timer(REOPEN, 1000);
                }
            },
        )
    }

    fn on_timer(&mut self, timer_id: String) -> Vec<Action> {
        let mut out = Actions::new();
        if let (REOPEN, false, Some(base)) =
            (timer_id.as_str(), self.state.ended, self.state.base_url())
        {
            out.open_sse(api::open_events(base, &self.config.directory));
        }
        out.finish()
    }
}
