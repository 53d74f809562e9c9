//! [`AmpSession`]: one sandbox-agent session, one `amp` process per turn.
//!
//! `start` runs `amp --help` once (the probe) to pick the flags of this version. Each
//! message then starts `amp --execute --stream-json` with the prompt on stdin; the
//! first turn creates an Amp thread, whose id (`session_id` of the output) the later
//! turns continue (`threads continue <id>` or `--continue <id>`). A message sent
//! before the probe ends waits for it.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::snapshot::Snapshotted;
use serde_json::json;

use crate::launch;
use crate::output;
use crate::state::{Probe, State, TurnState};

/// One Amp session.
pub struct AmpSession {
    config: SessionConfig,
    state: State,
}

impl AmpSession {
    /// Starts the `amp --help` probe.
    fn probe(&mut self, out: &mut Actions) {
        let id = format!("probe_{}", self.state.ids.next_number("probe"));
        out.spawn(launch::probe(&self.config, &id));
        self.state.probe = Some(Probe {
            id,
            scan: Default::default(),
        });
    }

    /// Starts the turn's `amp` process and hands it `prompt`.
    fn launch(&mut self, out: &mut Actions, prompt: &str) {
        let Some(flags) = &self.state.flags else {
            return;
        };
        let id = format!("amp_{}", self.state.ids.next_number("process"));
        let thread = self.state.thread.as_deref();
        if let Some((path, contents)) = launch::mcp_config_file(&self.config) {
            out.write_file(path, contents);
        }
        out.spawn(launch::turn(&self.config, flags, &id, thread));
        out.write_stdin(id.clone(), prompt.as_bytes().to_vec());
        out.close_stdin(id.clone());
        self.state.process = Some(id);
    }

    /// Ends the running turn without a `result`: `turn.ended` with what the turn
    /// counted, plus `metadata` (`{"cancelled":true}`...).
    fn end_turn(&mut self, out: &mut Actions, metadata: Option<serde_json::Value>) {
        let Some(turn) = self.state.turn.take() else {
            return;
        };
        let mut ended = Turn::with_id(turn.id);
        if let Some(tokens) = turn.tokens {
            ended = ended.with_usage(tokens.usage());
        }
        if let Some(metadata) = metadata {
            ended = ended.with_metadata(metadata.to_string());
        }
        out.emit(event::turn_ended(ended).synthetic());
    }

    /// Ends the session with an error: `error`, the end of the running turn,
    /// `session.ended` by the agent with the exit code.
    fn fail(&mut self, out: &mut Actions, failure: Failure) {
        out.fail_session(failure, |out| self.end_turn(out, None));
        self.state.ended = true;
        self.state.process = None;
        self.state.probe = None;
    }

    /// The probe ended: pick the flags and start the turn that waited for them.
    fn probe_done(&mut self, out: &mut Actions) {
        let Some(probe) = self.state.probe.take() else {
            return;
        };
        self.state.flags = Some(probe.scan.flags());
        let waiting = self.state.turn.as_mut().and_then(|t| t.waiting.take());
        if let Some(prompt) = waiting {
            self.launch(out, &prompt);
        }
    }

    /// True when `process_id` is the running probe.
    fn is_probe(&self, process_id: &str) -> bool {
        self.state
            .probe
            .as_ref()
            .is_some_and(|p| p.id == process_id)
    }

    /// True when `process_id` is the running turn's process.
    fn is_turn_process(&self, process_id: &str) -> bool {
        self.state.process.as_deref() == Some(process_id)
    }
}

impl Snapshotted<State> for AmpSession {
    /// The format version of the snapshot; bump it when [`State`] changes shape.
    const STATE_VERSION: u32 = 1;

    fn from_parts(config: SessionConfig, state: State) -> Self {
        Self { config, state }
    }

    fn state(&self) -> &State {
        &self.state
    }
}

impl SessionMachine for AmpSession {
    /// A new session, resuming the native session the host names.
    fn new(config: SessionConfig) -> Self {
        let mut session = Self::fresh(config);
        session.state.thread = session.config.resume_native_session_id.clone();
        session
    }

    fn restore(config: SessionConfig, state: &[u8]) -> Result<Self, String> {
        Self::restore_state(config, state)
    }

    fn snapshot(&self) -> Vec<u8> {
        self.snapshot_state()
    }

    /// `session.started` with the launch settings, then the probe.
    fn start(&mut self) -> Vec<Action> {
        let metadata = self.config.launch_metadata("amp");
        let resumed = self.state.thread.clone();
        Actions::start_session(resumed, &metadata, |out| self.probe(out))
    }

    /// Opens a turn (`turn.started`, the user's message) and starts its `amp`
    /// process, or waits for the probe.
    fn send_message(&mut self, parts: Vec<MessagePart>) -> Vec<Action> {
        Actions::unless(self.state.ended, |out| {
            let id = out.open_turn(&mut self.state.ids, &parts);
            let prompt = launch::prompt(&parts);
            self.state.turn = Some(TurnState {
                id,
                ..TurnState::default()
            });
            if self.state.flags.is_some() {
                self.launch(out, &prompt);
            } else {
                if self.state.probe.is_none() {
                    self.probe(out);
                }
                if let Some(turn) = self.state.turn.as_mut() {
                    turn.waiting = Some(prompt);
                }
            }
        })
    }

    /// Execute mode has no interrupt: the turn's process is killed and the turn ends
    /// as cancelled. The thread stays; the next message continues it.
    fn cancel_turn(&mut self) -> Vec<Action> {
        let mut out = Actions::new();
        if self.state.turn.is_none() {
            return out.finish();
        }
        if let Some(process) = self.state.process.take() {
            out.kill(process);
        }
        self.end_turn(&mut out, Some(json!({ "cancelled": true })));
        out.finish()
    }

    /// Ends the running turn as cancelled (killing its process) and the session.
    fn terminate(&mut self) -> Vec<Action> {
        Actions::unless(self.state.ended, |out| {
            if let Some(process) = self.state.process.take() {
                out.kill(process);
            }
            if let Some(probe) = self.state.probe.take() {
                out.kill(probe.id);
            }
            self.end_turn(out, Some(json!({ "cancelled": true })));
            out.emit(event::session_terminated().synthetic());
            self.state.ended = true;
        })
    }

    fn on_stdout(&mut self, process_id: String, line: String) -> Vec<Action> {
        Actions::unless(self.state.ended, |out| {
            if let Some(probe) = self.state.probe.as_mut().filter(|p| p.id == process_id) {
                probe.scan.line(&line);
            } else if self.is_turn_process(&process_id) {
                output::line(&mut self.state, out, &line);
            }
        })
    }

    /// The probe's stderr counts as help text too (some versions print it there);
    /// the daemon keeps the turn processes' stderr itself.
    fn on_stderr(&mut self, process_id: String, line: String) -> Vec<Action> {
        if let Some(probe) = self.state.probe.as_mut().filter(|p| p.id == process_id) {
            probe.scan.line(&line);
        }
        Vec::new()
    }

    fn on_exit(&mut self, process_id: String, status: ExitStatus) -> Vec<Action> {
        Actions::unless(self.state.ended, |out| {
            if self.is_probe(&process_id) {
                self.probe_done(out);
            } else if self.is_turn_process(&process_id) {
                self.state.process = None;
                if self.state.turn.is_none() {
                    // The `result` ended the turn.
                } else if status.success() {
                    self.end_turn(out, None);
                } else {
                    self.fail(out, Failure::exited_during_turn("Amp", &status));
                }
            }
        })
    }

    fn on_spawn_failed(&mut self, process_id: String, message: String) -> Vec<Action> {
        let ours = self.is_probe(&process_id) || self.is_turn_process(&process_id);
        Actions::unless(self.state.ended || !ours, |out| {
            let program = self.config.program(launch::PROGRAM);
            self.fail(out, Failure::spawn_failed(program, &message));
        })
    }
}
