//! [`PiSession`]: one sandbox-agent session driving one `pi --mode rpc` process.
//!
//! The process starts with the session and stays up between turns; the adapter asks
//! it for its state right away to learn Pi's session id. When the process exits while
//! no turn runs, the session stays: the next message starts a new process with
//! `--session <id>`, so the conversation goes on. When it exits during a turn, the
//! session ends with an error and the exit code.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::process_session::{self, ProcessSession, WindDown};
use sandbox_agent_adapter_kit::process_state::{LiveProcess, RunningTurn};
use sandbox_agent_adapter_kit::snapshot::Snapshotted;
use serde_json::json;

use crate::dialogs;
use crate::gateway;
use crate::images;
use crate::launch;
use crate::output::Output;
use crate::protocol;
use crate::state::{Process, State, TurnState};

/// What Pi prints on stderr (then exits 1) when `--session` names no session file.
const NO_SESSION: &str = "No session found matching";

/// One Pi session.
pub struct PiSession {
    config: SessionConfig,
    state: State,
}

impl PiSession {
    /// Starts a Pi process (resuming the native session when Pi has saved it, with
    /// the extension that points it at the daemon's model endpoints when the session
    /// has them) and asks for its state.
    fn launch(&mut self, out: &mut Actions) {
        if let Some(extension) = gateway::extension(&self.config) {
            out.write_file(gateway::EXTENSION_FILE, extension);
        }
        let id = format!("pi_{}", self.state.header.ids.next_number("process"));
        let resume = self
            .state
            .header
            .native_session_id
            .clone()
            .filter(|_| self.state.persisted);
        out.spawn(launch::spawn(&self.config, &id, resume.as_deref()));
        let request = self.state.header.ids.next("req");
        out.write_line(id.clone(), &protocol::get_state(&request));
        self.state.header.process = Some(LiveProcess {
            id,
            data: Process {
                resumed: resume,
                ready: false,
                resume_missing: false,
                model: self.config.chosen_model().map(str::to_owned),
                variant: self.config.chosen_variant().map(str::to_owned),
                tools: launch::tools(&self.config).map(str::to_owned),
            },
        });
    }

    /// Starts Pi again, on the same native session, when the session's tool set
    /// is not the one the running Pi was started with (its permission mode changed
    /// to or from `plan`): Pi takes its tools only at launch (`--tools`). Called
    /// between turns, so the conversation Pi saved goes on in the new process; the
    /// old one is killed (its output and exit are no longer the live process's).
    /// True when it did.
    fn follow_tools(&mut self, out: &mut Actions) -> bool {
        let wanted = launch::tools(&self.config);
        let Some(process) = self.state.header.process.as_ref() else {
            return false;
        };
        if process.data.tools.as_deref() == wanted {
            return false;
        }
        out.kill(process.id.clone());
        self.state.header.process = None;
        self.launch(out);
        true
    }

    /// Tells a running Pi the session's model when the session names another
    /// than it runs (a Pi started later gets it as `--model`). Pi's `set_model`
    /// takes a provider and a model: a name that is not `provider/model` is
    /// said once (an `error` coded `model_refused`) and Pi keeps its model.
    fn follow_model(&mut self, out: &mut Actions) {
        let Some(process) = self.state.header.process.as_mut() else {
            return;
        };
        let Some(wanted) = self.config.model_to_tell(&mut process.data.model) else {
            return;
        };
        let id = process.id.clone();
        match wanted.split_once('/') {
            Some((provider, model)) => {
                let request = self.state.header.ids.next("req");
                out.write_line(id, &protocol::set_model(&request, provider, model));
            }
            None => {
                let message = format!(
                    "Pi changes models by provider/model; {wanted} is not one, so it keeps its model"
                );
                out.emit(event::error(message, Some("model_refused")));
            }
        }
    }

    /// Tells a running Pi the session's thinking level when the session names
    /// another than it runs (a Pi started later gets it as `--thinking`).
    fn follow_variant(&mut self, out: &mut Actions) {
        let config = &self.config;
        let to_tell = |process: &mut Process| config.variant_to_tell(&mut process.variant);
        self.state
            .header
            .tell_live(out, to_tell, protocol::set_thinking_level);
    }

    /// True when `process_id` reads an image of the running turn's prompt.
    fn is_image_reader(&self, process_id: &str) -> bool {
        self.prompt_images()
            .any(|image| image.process_id == process_id)
    }

    fn prompt_images(&self) -> impl Iterator<Item = &crate::state::Image> {
        self.state
            .header
            .turn
            .as_ref()
            .and_then(|turn| turn.prompt.as_ref())
            .into_iter()
            .flat_map(|prompt| prompt.images.iter())
    }

    /// Writes the turn's prompt once its images are read.
    fn send_prompt(&mut self, out: &mut Actions) {
        let Some(process) = &self.state.header.process else {
            return;
        };
        let Some(prompt) = self
            .state
            .header
            .turn
            .as_mut()
            .and_then(|t| t.prompt.as_mut())
        else {
            return;
        };
        if prompt.sent || !images::all_read(prompt) {
            return;
        }
        prompt.sent = true;
        out.write_line(process.id.clone(), &protocol::prompt(prompt));
    }

    /// Kills the helpers still reading images and forgets the prompt.
    fn drop_prompt(&mut self, out: &mut Actions) {
        let Some(prompt) = self
            .state
            .header
            .turn
            .as_mut()
            .and_then(|t| t.prompt.take())
        else {
            return;
        };
        for image in prompt.images.iter().filter(|image| image.data.is_none()) {
            out.kill(image.process_id.clone());
        }
    }

    /// An image could not be read: the turn fails without reaching Pi.
    fn image_failed(&mut self, out: &mut Actions, process_id: &str, reason: String) {
        let path = self
            .prompt_images()
            .find(|image| image.process_id == process_id)
            .map(|image| image.path.clone())
            .unwrap_or_default();
        if let Some(prompt) = self
            .state
            .header
            .turn
            .as_mut()
            .and_then(|t| t.prompt.as_mut())
        {
            prompt.images.retain(|image| image.process_id != process_id);
        }
        self.drop_prompt(out);
        if let Some(turn) = self.state.header.turn.as_mut() {
            turn.errored = true;
        }
        let message = format!("could not read the image {path}: {reason}");
        out.emit(event::error(message, Some("attachment_unreadable")).synthetic());
        self.output(out).end_turn();
    }

    /// An output for synthetic events.
    fn output<'a>(&'a mut self, out: &'a mut Actions) -> Output<'a> {
        Output::new(
            &mut self.state,
            out,
            &self.config.directory,
            Origin::Synthetic,
        )
    }

    /// The process exited; it was the live one.
    fn process_exited(&mut self, out: &mut Actions, process: Process, status: ExitStatus) {
        if let (Some(id), true, false) = (&process.resumed, process.resume_missing, process.ready) {
            // Pi never saved that session: start a new one, and send the prompt again.
            let message = format!("Pi has no saved session {id} to resume: a new session starts");
            out.emit(event::error(message, Some("resume_failed")).synthetic());
            self.state.header.native_session_id = None;
            self.state.persisted = false;
            self.launch(out);
            if let Some(prompt) = self
                .state
                .header
                .turn
                .as_mut()
                .and_then(|t| t.prompt.as_mut())
            {
                prompt.sent = false;
            }
            self.send_prompt(out);
            return;
        }
        if self.state.header.turn.is_some() {
            if let Some(turn) = self.state.header.turn.as_mut() {
                turn.errored = true;
            }
            self.fail(out, Failure::exited_during_turn("Pi", &status));
        } else if !process.ready {
            let message = format!("Pi exited at start with {}", status.describe());
            self.fail(out, Failure::exited(message, &status));
        }
    }
}

impl Snapshotted<State> for PiSession {
    /// The format version of the snapshot; bump it when [`State`] changes shape.
    const STATE_VERSION: u32 = 1;

    fn from_parts(config: SessionConfig, state: State) -> Self {
        Self { config, state }
    }

    fn state(&self) -> &State {
        &self.state
    }
}

impl SessionMachine for PiSession {
    fn new(config: SessionConfig) -> Self {
        let resume = config.resume_native_session_id.clone();
        let mut state = State {
            persisted: resume.is_some(),
            ..State::default()
        };
        state.header.native_session_id = resume;
        Self { config, state }
    }

    fn restore(config: SessionConfig, state: &[u8]) -> Result<Self, String> {
        Self::restore_state(config, state)
    }

    fn snapshot(&self) -> Vec<u8> {
        self.snapshot_state()
    }

    /// `session.started` with the launch settings, then the Pi process.
    fn start(&mut self) -> Vec<Action> {
        let config = &self.config;
        let metadata = json!({
            "agent": "pi",
            "permissionMode": config.permission_mode,
            "tools": launch::tools(config),
            "model": config.model,
            "variant": config.variant,
        });
        let resumed = self.state.header.native_session_id.clone();
        Actions::start_session(resumed, &metadata, |out| self.launch(out))
    }

    /// Opens a turn (`turn.started`, the user's message), starts Pi again when it
    /// exited, reads the images, and writes the prompt. A turn Pi opened by itself
    /// (output outside any prompt, which the daemon does not wait for) ends first:
    /// turns do not nest.
    fn send_message(&mut self, parts: Vec<MessagePart>) -> Vec<Action> {
        Actions::unless(self.state.header.ended, |out| {
            self.output(out).end_turn();
            let id = out.open_turn(&mut self.state.header.ids, &parts);
            if self.state.header.process.is_none() {
                self.launch(out);
            } else if !self.follow_tools(out) {
                self.follow_model(out);
                self.follow_variant(out);
            }
            let request = self.state.header.ids.next("req");
            let prompt = images::prompt(request, &parts, &mut self.state.header.ids);
            for reader in images::readers(&prompt) {
                out.spawn(reader);
            }
            self.state.header.turn = Some(RunningTurn {
                id,
                cancelling: false,
                data: TurnState {
                    prompt: Some(prompt),
                    ..TurnState::default()
                },
            });
            self.send_prompt(out);
        })
    }

    fn answer_question(&mut self, question_id: String, answers: Option<Answers>) -> ReplyResult {
        let mut out = Actions::new();
        let mut o = Output::new(
            &mut self.state,
            &mut out,
            &self.config.directory,
            Origin::Adapter,
        );
        dialogs::answer(&mut o, &question_id, answers.as_deref())?;
        Ok(out.finish())
    }

    /// Sends Pi an `abort`; its `agent_end` ends the turn as cancelled. Open dialogs
    /// are declined. A timer kills the process if Pi does not finish. A turn whose
    /// images are still being read ends at once.
    fn cancel_turn(&mut self) -> Vec<Action> {
        process_session::cancel_turn(self, |session, out| {
            let turn = session.state.header.turn.as_ref();
            if turn
                .and_then(|turn| turn.prompt.as_ref())
                .is_some_and(|p| !p.sent)
            {
                session.drop_prompt(out);
                session.output(out).end_turn();
                return false;
            }
            let request = session.state.header.ids.next("req");
            let mut o = Output::new(
                &mut session.state,
                out,
                &session.config.directory,
                Origin::Adapter,
            );
            o.write(&protocol::abort(&request));
            dialogs::decline_all(&mut o);
            true
        })
    }

    sandbox_agent_adapter_kit::process_handlers!();

    /// Notes a failed resume; the daemon keeps the stderr lines itself (for a
    /// `session.ended` error).
    fn on_stderr(&mut self, process_id: String, line: String) -> Vec<Action> {
        if let Some(process) = self
            .state
            .header
            .process
            .as_mut()
            .filter(|p| p.id == process_id)
        {
            if line.contains(NO_SESSION) {
                process.resume_missing = true;
            }
        }
        Vec::new()
    }
}

impl ProcessSession<State> for PiSession {
    const CANCEL_TIMER: &'static str = protocol::ABORT_TIMER;

    fn process_state(&self) -> &State {
        &self.state
    }

    fn process_state_mut(&mut self) -> &mut State {
        &mut self.state
    }

    fn program(&self, _process_id: &str) -> String {
        self.config.program(launch::PROGRAM).to_owned()
    }

    /// A line of Pi: it started.
    fn line(&mut self, out: &mut Actions, line: String) {
        if let Some(process) = self.state.header.process.as_mut() {
            process.ready = true;
        }
        Output::new(
            &mut self.state,
            out,
            &self.config.directory,
            Origin::Line(&line),
        )
        .line(&line);
    }

    fn exited(&mut self, out: &mut Actions, status: ExitStatus) {
        if let Some(process) = self.state.header.process.take() {
            self.process_exited(out, process.data, status);
        }
    }

    /// The prompt is dropped (unless a cancel timed out) and the turn ends
    /// (cancelled when terminated).
    fn wind_down(&mut self, out: &mut Actions, why: WindDown) {
        if let (WindDown::Terminated, Some(turn)) = (why, self.state.header.turn.as_mut()) {
            turn.cancelling = true;
        }
        if why != WindDown::CancelTimedOut {
            self.drop_prompt(out);
        }
        self.output(out).end_turn();
    }

    /// A line of an image reader: the image, in base64.
    fn other_line(&mut self, _out: &mut Actions, process_id: String, line: String) {
        let images = self
            .state
            .header
            .turn
            .as_mut()
            .and_then(|t| t.prompt.as_mut());
        if let Some(image) = images
            .into_iter()
            .flat_map(|prompt| prompt.images.iter_mut())
            .find(|image| image.process_id == process_id)
        {
            image.data = Some(line.trim().to_owned());
        }
    }

    /// An image reader exited: the prompt goes out once every image is read, or the
    /// turn fails.
    fn other_exited(&mut self, out: &mut Actions, process_id: String, status: ExitStatus) {
        if !self.is_image_reader(&process_id) {
            return;
        }
        let read = self
            .prompt_images()
            .any(|image| image.process_id == process_id && image.data.is_some());
        if status.success() && read {
            self.send_prompt(out);
        } else {
            self.image_failed(out, &process_id, status.describe());
        }
    }

    fn other_spawn_failed(&mut self, out: &mut Actions, process_id: String, message: String) {
        if self.is_image_reader(&process_id) {
            let reason = format!("could not start node: {message}");
            self.image_failed(out, &process_id, reason);
        }
    }
}
