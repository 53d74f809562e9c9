//! [`TemplateSession`]: one session of the template agent, as a sans-IO state machine.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::snapshot;
use serde::{Deserialize, Serialize};

use crate::DEFAULT_BINARY;

/// Version of [`State`]'s snapshot format; bump it when the shape changes.
const STATE_VERSION: u32 = 1;

/// Everything the session remembers. The host may snapshot the session after any
/// call and rebuild it from this (see `restore`), so nothing lives outside it.
#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    /// Hands out `turn_1`, `itm_1`... (kept so a restored session never reuses ids).
    ids: IdCounter,
    /// The running turn, if any.
    turn: Option<RunningTurn>,
}

/// A turn whose process has not ended yet.
#[derive(Debug, Serialize, Deserialize)]
struct RunningTurn {
    /// The turn's id; also the id of its process.
    turn_id: String,
    /// The assistant message item the output streams into.
    answer_id: String,
    /// The text streamed so far.
    text: String,
    /// The client cancelled the turn; the process was killed.
    cancelled: bool,
}

/// How a turn ends.
enum Outcome {
    /// The process exited with code 0.
    Completed,
    /// The process failed or could not start; the message says how.
    Failed(String),
    /// The client cancelled the turn or terminated the session.
    Cancelled,
}

/// One session: the program to run and the [`State`].
pub struct TemplateSession {
    /// The agent program: the daemon's absolute path, or [`DEFAULT_BINARY`].
    binary: String,
    state: State,
}

impl SessionMachine for TemplateSession {
    fn new(config: SessionConfig) -> Self {
        Self {
            binary: config
                .agent_binary
                .unwrap_or_else(|| DEFAULT_BINARY.to_owned()),
            state: State::default(),
        }
    }

    fn restore(config: SessionConfig, state: &[u8]) -> Result<Self, String> {
        let mut session = Self::new(config);
        session.state = snapshot::decode(STATE_VERSION, state)?;
        Ok(session)
    }

    fn snapshot(&self) -> Vec<u8> {
        snapshot::encode(STATE_VERSION, &self.state)
    }

    fn start(&mut self) -> Vec<Action> {
        // Nothing runs between turns: the process starts with each message.
        let metadata = serde_json::json!({ "binary": self.binary }).to_string();
        Actions::one(event::session_started(Some(metadata)).synthetic())
    }

    fn send_message(&mut self, parts: Vec<MessagePart>) -> Vec<Action> {
        let turn_id = self.state.ids.next("turn");
        let user_id = self.state.ids.next("itm");
        let answer_id = self.state.ids.next("itm");
        let mut prompt = text::message_text(&parts);
        prompt.push('\n');
        let mut out = Actions::new();
        out.emit(event::turn_started(Turn::with_id(&turn_id)).synthetic())
            .emit_all(event::user_message(user_id, &parts))
            .emit(event::assistant_text_started(&answer_id).synthetic())
            .spawn(SpawnRequest::command(&turn_id, [self.binary.as_str()]))
            .write_stdin(&turn_id, prompt)
            .close_stdin(&turn_id);
        self.state.turn = Some(RunningTurn {
            turn_id,
            answer_id,
            text: String::new(),
            cancelled: false,
        });
        out.finish()
    }

    fn cancel_turn(&mut self) -> Vec<Action> {
        let Some(turn) = &mut self.state.turn else {
            return Vec::new();
        };
        // The process dies; `on_exit` then ends the turn.
        turn.cancelled = true;
        let mut out = Actions::new();
        out.kill(&turn.turn_id);
        out.finish()
    }

    fn terminate(&mut self) -> Vec<Action> {
        // No exit will be reported after this: end the turn now. The host kills the
        // process and records `session.ended` itself.
        self.finish_turn(Outcome::Cancelled)
    }

    fn on_stdout(&mut self, process_id: String, line: String) -> Vec<Action> {
        let raw = text::raw_json(&line);
        match &mut self.state.turn {
            Some(turn) if turn.turn_id == process_id => {
                let delta = format!("{line}\n");
                turn.text.push_str(&delta);
                Actions::one(event::item_delta(turn.answer_id.clone(), delta).with_raw(raw))
            }
            _ => Actions::one(event::unparsed(
                "output of a process that is not the running turn's",
                format!("stdout:{process_id}"),
                raw,
            )),
        }
    }

    fn on_exit(&mut self, process_id: String, status: ExitStatus) -> Vec<Action> {
        let Some(turn) = &self.state.turn else {
            return Vec::new();
        };
        if turn.turn_id != process_id {
            return Vec::new();
        }
        let outcome = if turn.cancelled {
            Outcome::Cancelled
        } else if status.success() {
            Outcome::Completed
        } else {
            Outcome::Failed(format!("{} ended with {}", self.binary, status.describe()))
        };
        self.finish_turn(outcome)
    }

    fn on_spawn_failed(&mut self, process_id: String, message: String) -> Vec<Action> {
        match &self.state.turn {
            Some(turn) if turn.turn_id == process_id => {
                let failure = format!("cannot start {}: {message}", self.binary);
                self.finish_turn(Outcome::Failed(failure))
            }
            _ => Vec::new(),
        }
    }
}

impl TemplateSession {
    /// Completes the running turn's assistant item and ends the turn (nothing when no
    /// turn runs).
    fn finish_turn(&mut self, outcome: Outcome) -> Vec<Action> {
        let Some(turn) = self.state.turn.take() else {
            return Vec::new();
        };
        let answer = item::assistant_text(turn.answer_id, turn.text);
        let mut ended = Turn::with_id(turn.turn_id);
        let mut out = Actions::new();
        match outcome {
            Outcome::Completed => {
                out.emit(event::item_completed(answer).synthetic());
            }
            Outcome::Failed(message) => {
                out.emit(event::error(message, Some("agent_failed")).synthetic())
                    .emit(event::item_completed(answer.failed()).synthetic());
            }
            Outcome::Cancelled => {
                out.emit(event::item_completed(answer.failed()).synthetic());
                ended = ended.with_metadata(r#"{"cancelled":true}"#);
            }
        }
        out.emit(event::turn_ended(ended).synthetic());
        out.finish()
    }
}
