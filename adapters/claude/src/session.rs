//! [`ClaudeSession`]: one sandbox-agent session driving one `claude` process.
//!
//! The process starts with the session and stays up between turns. When it exits
//! while no turn runs, the session stays: the next message starts a new process with
//! `--resume <native session id>`, so the conversation goes on. When it exits during
//! a turn, the session ends with an error and the exit code.

use sandbox_agent_adapter_kit::native_rules::NativeRules;
use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::process_session::{self, ProcessSession, WindDown};
use sandbox_agent_adapter_kit::process_state::LiveProcess;
use sandbox_agent_adapter_kit::snapshot::Snapshotted;
use serde_json::json;

use crate::launch;
use crate::output::Output;
use crate::protocol;
use crate::requests;
use crate::state::{Process, State};

/// One Claude Code session.
pub struct ClaudeSession {
    config: SessionConfig,
    state: State,
}

impl ClaudeSession {
    /// Starts a CLI process (resuming the native session when there is one) and
    /// sends it the control-protocol handshake.
    fn launch(&mut self, out: &mut Actions) {
        let id = format!("claude_{}", self.state.header.ids.next_number("process"));
        let resume = self.state.header.native_session_id.as_deref();
        let files = [
            launch::mcp_config(&self.config),
            launch::skills_plugin(&self.config),
        ];
        for (path, contents) in files.into_iter().flatten() {
            out.write_file(path, contents);
        }
        out.spawn(launch::spawn(&self.config, &id, resume));
        let request = self.state.header.ids.next("req");
        out.write_line(id.clone(), &protocol::initialize(&request));
        if self.state.native.has_policy() {
            self.hand_rules(out, &id);
        }
        self.state.header.process = Some(LiveProcess {
            id,
            data: Process {
                cost_usd: 0.0,
                permission_mode: Some(launch::permission_mode(&self.config).to_owned()),
                model: self.config.chosen_model().map(str::to_owned),
                variant: self.config.chosen_variant().map(str::to_owned),
            },
        });
    }

    /// Tells a running CLI the session's permission mode when the session's
    /// modes changed since it started (a CLI started later gets it as a flag).
    /// The CLI takes `bypassPermissions` only as a flag: for it, the CLI is
    /// started again with it, resuming the session.
    fn follow_mode(&mut self, out: &mut Actions) {
        let wanted = launch::permission_mode(&self.config);
        let Some(process) = self.state.header.process.as_mut() else {
            return;
        };
        if process
            .data
            .permission_mode
            .as_deref()
            .is_none_or(|mode| mode == wanted)
        {
            return;
        }
        let id = process.id.clone();
        if wanted == launch::BYPASS {
            // Its exit is another process's from here on, which the session ignores.
            out.kill(id);
            self.state.header.process = None;
            return self.launch(out);
        }
        process.data.permission_mode = Some(wanted.to_owned());
        let request = self.state.header.ids.next("req");
        out.write_line(id, &protocol::set_permission_mode(&request, wanted));
    }

    /// Tells a running CLI the session's model when the session names another
    /// than the one it runs (a CLI started later gets it as a flag).
    fn follow_model(&mut self, out: &mut Actions) {
        let config = &self.config;
        let to_tell = |process: &mut Process| config.model_to_tell(&mut process.model);
        self.state
            .header
            .tell_live(out, to_tell, protocol::set_model);
    }

    /// Tells a running CLI the session's effort level when the session names
    /// another than the one it runs (a CLI started later gets it as a flag).
    fn follow_variant(&mut self, out: &mut Actions) {
        let config = &self.config;
        let to_tell = |process: &mut Process| config.variant_to_tell(&mut process.variant);
        self.state
            .header
            .tell_live(out, to_tell, protocol::set_effort);
    }

    /// Hands CLI process `process` the permission rules of the session's policy
    /// (none without one: its earlier ones go).
    fn hand_rules(&mut self, out: &mut Actions, process: &str) {
        let request = self.state.header.ids.next("req");
        let permissions = launch::permissions(&self.state.native);
        out.write_line(
            process.to_owned(),
            &protocol::apply_permissions(&request, permissions),
        );
    }
}

impl ProcessSession<State> for ClaudeSession {
    const CANCEL_TIMER: &'static str = protocol::INTERRUPT_TIMER;

    fn process_state(&self) -> &State {
        &self.state
    }

    fn process_state_mut(&mut self) -> &mut State {
        &mut self.state
    }

    fn program(&self, _process_id: &str) -> String {
        self.config.program(launch::PROGRAM).to_owned()
    }

    fn line(&mut self, out: &mut Actions, line: String) {
        Output::new(&mut self.state, out, Origin::Line(&line)).line(&line);
    }

    /// An exit during a turn ends the session with an error and the exit code; an
    /// idle one leaves it (the next message resumes the session in a new process).
    fn exited(&mut self, out: &mut Actions, status: ExitStatus) {
        self.state.header.process = None;
        if let Some(turn) = self.state.header.turn.as_mut() {
            turn.errored = true;
            self.fail(out, Failure::exited_during_turn("Claude Code", &status));
        }
    }

    /// The turn ends (cancelled when terminated); its open items fail.
    fn wind_down(&mut self, out: &mut Actions, why: WindDown) {
        if let (WindDown::Terminated, Some(turn)) = (why, self.state.header.turn.as_mut()) {
            turn.cancelling = true;
        }
        Output::new(&mut self.state, out, Origin::Synthetic).end_turn(None);
    }
}

impl Snapshotted<State> for ClaudeSession {
    /// The format version of the snapshot; bump it when [`State`] changes shape.
    const STATE_VERSION: u32 = 1;

    fn from_parts(config: SessionConfig, mut state: State) -> Self {
        state.native = NativeRules::new(config.policy.clone());
        Self { config, state }
    }

    fn state(&self) -> &State {
        &self.state
    }
}

impl SessionMachine for ClaudeSession {
    /// A new session, resuming the native session the host names.
    fn new(config: SessionConfig) -> Self {
        let mut session = Self::fresh(config);
        session.state.header.native_session_id = session.config.resume_native_session_id.clone();
        session
    }

    fn restore(config: SessionConfig, state: &[u8]) -> Result<Self, String> {
        Self::restore_state(config, state)
    }

    fn snapshot(&self) -> Vec<u8> {
        self.snapshot_state()
    }

    /// `session.started` with the launch settings, then the CLI process.
    fn start(&mut self) -> Vec<Action> {
        let mut metadata = self.config.launch_metadata("claude");
        metadata["permissionMode"] = json!(launch::permission_mode(&self.config));
        let resumed = self.state.header.native_session_id.clone();
        Actions::start_session(resumed, &metadata, |out| self.launch(out))
    }

    /// Opens a turn (`turn.started`, the user's message) and writes the message to
    /// the CLI, starting it again first when it exited (else telling it the
    /// session's permission mode, model and effort first when they changed).
    fn send_message(&mut self, parts: Vec<MessagePart>) -> Vec<Action> {
        Actions::unless(self.state.header.ended, |out| {
            if self.state.header.process.is_none() {
                self.launch(out);
            } else {
                self.follow_mode(out);
                self.follow_model(out);
                self.follow_variant(out);
            }
            self.state.header.turn_or_start(out);
            out.emit_all(event::user_message(
                self.state.header.ids.next("itm"),
                &parts,
            ));
            let mut o = Output::new(&mut self.state, out, Origin::Adapter);
            o.write(&protocol::user_message(&parts));
        })
    }

    fn reply_permission(&mut self, permission_id: String, reply: PermissionReply) -> ReplyResult {
        let mut out = Actions::new();
        let mut o = Output::new(&mut self.state, &mut out, Origin::Adapter);
        requests::reply_permission(&mut o, &permission_id, reply)?;
        Ok(out.finish())
    }

    fn describe_permission(&self, permission_id: &str) -> Option<ToolRequest> {
        requests::describe_permission(&self.state.pending, permission_id)
    }

    /// Hands a running CLI the new policy's permission rules; a CLI started
    /// later gets them in its settings.
    fn set_policy(&mut self, policy: Option<ApprovalPolicy>) -> Vec<Action> {
        self.config.policy = policy.clone();
        self.state.native.set(policy);
        let Some(process) = self.state.header.process.as_ref().map(|p| p.id.clone()) else {
            return Vec::new();
        };
        let mut out = Actions::new();
        self.hand_rules(&mut out, &process);
        out.finish()
    }

    fn native_decisions(&mut self) -> Vec<NativeDecision> {
        self.state.native.take()
    }

    fn answer_question(&mut self, question_id: String, answers: Option<Answers>) -> ReplyResult {
        let mut out = Actions::new();
        let mut o = Output::new(&mut self.state, &mut out, Origin::Adapter);
        requests::reply_question(&mut o, &question_id, answers)?;
        Ok(out.finish())
    }

    /// Sends the CLI an `interrupt`; its `result` ends the turn as cancelled. What
    /// the client was asked resolves as rejected now (the CLI withdraws it). A timer
    /// kills the process if the CLI does not answer.
    fn cancel_turn(&mut self) -> Vec<Action> {
        process_session::cancel_turn(self, |session, out| {
            let request = session.state.header.ids.next("req");
            let mut o = Output::new(&mut session.state, out, Origin::Adapter);
            o.write(&protocol::interrupt(&request));
            requests::reject_all(&mut o);
            true
        })
    }

    sandbox_agent_adapter_kit::process_handlers!();
}
