//! [`MockSession`]: the mock's session state machine.
//!
//! This module owns the turn lifecycle (open, wait, settle, cancel), the state that
//! survives between calls, and the routing of replies, process output and timer ticks
//! to the turn that waits for them. What each command emits lives in
//! [`crate::commands`].

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::snapshot::Snapshotted;
use sandbox_agent_adapter_kit::tool_request;

use crate::commands::{self, Ctx, Flow};
use crate::state::{RunningTurn, State, TurnInfo, Waiting};

/// One mock session.
///
/// Everything but the configuration lives in one serializable state, which
/// [`SessionMachine::snapshot`] serializes whole: a restored session continues exactly
/// where it was, mid-turn included (a pending permission, a running `shell` command, a
/// `slow` stream).
pub struct MockSession {
    config: SessionConfig,
    state: State,
}

impl MockSession {
    /// The configuration the session was created with.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// Runs `f` with a command context for `info`, then settles the turn by the flow
    /// `f` returns: ends it, parks it until an input arrives, or ends the session.
    fn continue_turn(
        &mut self,
        mut info: TurnInfo,
        out: &mut Actions,
        f: impl FnOnce(&mut Ctx) -> Flow,
    ) {
        let flow = f(&mut Ctx {
            state: &mut self.state,
            config: &self.config,
            turn: &mut info,
            out,
        });
        match flow {
            Flow::Done => self.end_turn(info, None, out),
            Flow::Wait(waiting) => self.state.turn = Some(RunningTurn { info, waiting }),
            Flow::EndSession => {
                self.end_turn(info, None, out);
                out.emit(event::session_ended(
                    SessionEndReason::Completed,
                    TerminatedBy::Agent,
                    None,
                ));
                self.state.ended = true;
            }
        }
    }

    /// Emits `turn.ended` with the turn's usage and adds it to the session's totals.
    fn end_turn(&mut self, info: TurnInfo, metadata: Option<String>, out: &mut Actions) {
        let totals = &mut self.state.totals;
        let mut usage = Usage::tokens(info.input_tokens, info.output_tokens);
        if info.reasoning_tokens > 0 || info.full_usage {
            usage.reasoning_tokens = Some(info.reasoning_tokens);
        }
        if info.full_usage {
            // As if the conversation so far were served from a prompt cache, at a fake
            // price of one cent per thousand tokens.
            usage.cached_tokens = Some(totals.input_tokens);
            usage.cost_usd = Some((info.input_tokens + info.output_tokens) as f64 / 100_000.0);
        }
        totals.turns += 1;
        totals.input_tokens += info.input_tokens;
        totals.output_tokens += info.output_tokens;
        let turn = Turn {
            turn_id: Some(info.id),
            metadata,
            usage: Some(usage),
        };
        out.emit(event::turn_ended(turn));
    }

    /// Takes the running turn if `matches` accepts what it waits for.
    fn take_turn_if(&mut self, matches: impl FnOnce(&Waiting) -> bool) -> Option<RunningTurn> {
        match &self.state.turn {
            Some(turn) if matches(&turn.waiting) => self.state.turn.take(),
            _ => None,
        }
    }

    /// The running turn's `Shell` wait, if it is for `process_id`.
    fn shell_mut(&mut self, process_id: &str) -> Option<(&mut String, &mut String, &str)> {
        match &mut self.state.turn {
            Some(RunningTurn {
                waiting:
                    Waiting::Shell {
                        process_id: id,
                        stdout,
                        stderr,
                        item_id,
                        ..
                    },
                ..
            }) if id == process_id => Some((stdout, stderr, item_id.as_str())),
            _ => None,
        }
    }

    /// Interrupts the running turn: stops what it waits for, fails its in-progress
    /// item, and ends it with `{"cancelled":true}`.
    fn cancel(&mut self, out: &mut Actions) {
        let Some(RunningTurn { mut info, waiting }) = self.state.turn.take() else {
            return;
        };
        commands::abort(&mut info, waiting, out);
        self.end_turn(info, Some(r#"{"cancelled":true}"#.to_owned()), out);
    }

    /// The turn's `shell` process `process_id` exited (`Ok`) or could not start
    /// (`Err`): its result completes and the turn goes on.
    fn shell_finished(
        &mut self,
        process_id: &str,
        outcome: Result<ExitStatus, String>,
    ) -> Vec<Action> {
        let Some(RunningTurn { info, waiting }) = self.take_turn_if(|w| is_shell(w, process_id))
        else {
            return Vec::new();
        };
        let mut out = Actions::new();
        self.continue_turn(info, &mut out, |cx| {
            commands::shell_finished(cx, waiting, outcome)
        });
        out.finish()
    }
}

fn is_shell(waiting: &Waiting, process: &str) -> bool {
    matches!(waiting, Waiting::Shell { process_id, .. } if process_id == process)
}

impl Snapshotted<State> for MockSession {
    /// Format version of [`MockSession::snapshot`]; bump it when [`State`] changes shape.
    const STATE_VERSION: u32 = 1;

    fn from_parts(config: SessionConfig, state: State) -> Self {
        Self { config, state }
    }

    fn state(&self) -> &State {
        &self.state
    }
}

impl SessionMachine for MockSession {
    fn new(config: SessionConfig) -> Self {
        Self::fresh(config)
    }

    fn restore(config: SessionConfig, state: &[u8]) -> Result<Self, String> {
        Self::restore_state(config, state)
    }

    fn snapshot(&self) -> Vec<u8> {
        self.snapshot_state()
    }

    /// Records the native session id `mock-<session id>` and emits `session.started`
    /// with the session's configuration as metadata.
    fn start(&mut self) -> Vec<Action> {
        let config = &self.config;
        let metadata = config.launch_metadata("mock");
        let mut out = Actions::new();
        out.set_native_session_id(format!("mock-{}", config.session_id))
            .emit(event::session_started(Some(metadata.to_string())));
        out.finish()
    }

    /// Opens a turn (`turn.started`, the user item) and runs the message's command.
    fn send_message(&mut self, parts: Vec<MessagePart>) -> Vec<Action> {
        Actions::unless(self.state.ended, |out| {
            if self.state.turn.is_some() {
                out.emit(event::turn_running());
                return;
            }
            let number = self.state.ids.next_number("turn");
            let info = TurnInfo::new(number, text::word_count(&text::message_text(&parts)));
            out.emit(event::turn_started(Turn::with_id(info.id.clone())))
                .emit_all(event::user_message(self.state.ids.next("itm"), &parts));
            self.continue_turn(info, out, |cx| commands::run(cx, &parts));
        })
    }

    /// From the request's metadata: `{"tool": "bash", "command"}` is a command,
    /// `{"tool": "edit", "path"}` a file change.
    fn describe_permission(&self, permission_id: &str) -> Option<ToolRequest> {
        let waiting = match &self.state.turn {
            Some(RunningTurn {
                waiting: Waiting::Permission { permission, .. },
                ..
            }) if permission.permission_id == permission_id => Some(permission),
            _ => None,
        };
        let permission = waiting.or_else(|| self.state.detached_permissions.get(permission_id))?;
        let metadata: serde_json::Value =
            serde_json::from_str(permission.metadata.as_deref()?).ok()?;
        let text = |key: &str| metadata.get(key).and_then(serde_json::Value::as_str);
        Some(match (text("tool"), text("command"), text("path")) {
            (Some("bash"), Some(command), _) => tool_request::shell(command),
            (Some("edit"), _, Some(path)) => tool_request::write(path),
            _ => tool_request::other(),
        })
    }

    fn reply_permission(&mut self, permission_id: String, reply: PermissionReply) -> ReplyResult {
        let mut out = Actions::new();
        if let Some(permission) = self.state.detached_permissions.remove(&permission_id) {
            commands::resolve_permission(&mut self.state, &permission, reply, &mut out);
            return Ok(out.finish());
        }
        let waits_for_it = |w: &Waiting| matches!(w, Waiting::Permission { permission, .. } if permission.permission_id == permission_id);
        let Some(RunningTurn {
            info,
            waiting: Waiting::Permission { permission, then },
        }) = self.take_turn_if(waits_for_it)
        else {
            return Err(format!("unknown permission id: {permission_id}"));
        };
        commands::resolve_permission(&mut self.state, &permission, reply, &mut out);
        self.continue_turn(info, &mut out, |cx| {
            commands::after_permission(cx, reply, then)
        });
        Ok(out.finish())
    }

    /// Answers (`Some(answers)`) or rejects (`None`) a question, detached or pending.
    fn answer_question(&mut self, question_id: String, answers: Option<Answers>) -> ReplyResult {
        let mut out = Actions::new();
        if let Some(question) = self.state.detached_questions.remove(&question_id) {
            commands::resolve_question(&question, answers.as_deref(), &mut out);
            return Ok(out.finish());
        }
        let waits_for_it = |w: &Waiting| matches!(w, Waiting::Question { question } if question.question_id == question_id);
        let Some(RunningTurn {
            info,
            waiting: Waiting::Question { question },
        }) = self.take_turn_if(waits_for_it)
        else {
            return Err(format!("unknown question id: {question_id}"));
        };
        let resolved = commands::resolve_question(&question, answers.as_deref(), &mut out);
        self.continue_turn(info, &mut out, |cx| commands::after_question(cx, &resolved));
        Ok(out.finish())
    }

    fn cancel_turn(&mut self) -> Vec<Action> {
        Actions::build(|out| self.cancel(out))
    }

    /// Cancels the running turn, then emits `session.ended` (terminated by the daemon).
    fn terminate(&mut self) -> Vec<Action> {
        Actions::unless(self.state.ended, |out| {
            self.cancel(out);
            out.emit(event::session_terminated());
            self.state.ended = true;
        })
    }

    /// A `shell` command's output line: kept, and streamed as a delta of its result.
    fn on_stdout(&mut self, process_id: String, line: String) -> Vec<Action> {
        let Some((stdout, _, item_id)) = self.shell_mut(&process_id) else {
            // A process this session no longer waits for (killed by a cancel).
            return Vec::new();
        };
        let delta = format!("{line}\n");
        stdout.push_str(&delta);
        Actions::one(event::item_delta(item_id, delta))
    }

    fn on_stderr(&mut self, process_id: String, line: String) -> Vec<Action> {
        if let Some((_, stderr, _)) = self.shell_mut(&process_id) {
            stderr.push_str(&line);
            stderr.push('\n');
        }
        Vec::new()
    }

    fn on_exit(&mut self, process_id: String, status: ExitStatus) -> Vec<Action> {
        self.shell_finished(&process_id, Ok(status))
    }

    fn on_spawn_failed(&mut self, process_id: String, message: String) -> Vec<Action> {
        self.shell_finished(&process_id, Err(message))
    }

    fn on_timer(&mut self, timer_id: String) -> Vec<Action> {
        let waits_for_it =
            |w: &Waiting| matches!(w, Waiting::Slow { timer_id: id, .. } if *id == timer_id);
        let Some(RunningTurn { info, waiting }) = self.take_turn_if(waits_for_it) else {
            return Vec::new();
        };
        Actions::build(|out| self.continue_turn(info, out, |cx| commands::slow_tick(cx, waiting)))
    }
}
