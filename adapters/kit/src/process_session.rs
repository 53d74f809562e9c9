//! The lifecycle of a session that drives one long-lived agent process (Claude Code,
//! Pi, the ACP agents): the process starts with the session and stays up between
//! turns; its lines are the agent's output; a cancel asks the agent to stop and a
//! timer kills the process when it does not; `terminate` closes its stdin.
//!
//! The adapter implements [`ProcessSession`]: its state (which embeds a
//! [`ProcessState`](crate::process_state::ProcessState) for the live process), how
//! a line of it converts, what its exit means, how the running turn winds down.
//! [`process_handlers!`](crate::process_handlers) in its
//! [`SessionMachine`] impl then writes `terminate`, `on_stdout`, `on_exit`,
//! `on_spawn_failed` and `on_timer` with the bookkeeping every such session shares:
//! nothing once the session ended, nothing for a process that is not the live one
//! (output of a killed predecessor), a spawn failure that ends the session naming
//! the program.

use crate::process_state::WithProcess;
use crate::types::{Action, ExitStatus};
use crate::{event, Actions, Failure, SessionMachine};

/// Why the running turn winds down (see [`ProcessSession::wind_down`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindDown {
    /// The daemon terminates the session: the turn ends as cancelled.
    Terminated,
    /// The session fails: the turn ends with its open items failed.
    Failed,
    /// The agent did not end a cancelled turn in time: its process was killed.
    CancelTimedOut,
}

/// A session driving one long-lived agent process: what the kit's handlers need of it.
///
/// `S` is the session's state, which embeds a [`ProcessState`](crate::process_state::ProcessState)
/// ([`WithProcess`]); the bookkeeping (`ended`, `is_current`, `begin_cancel`...) reads
/// and writes it by default. `S` is a parameter rather than an associated type so
/// that a public session type can keep a crate-private state.
pub trait ProcessSession<S: WithProcess>: SessionMachine {
    /// The timer that gives up on a cancel the agent does not finish: when it fires
    /// during a cancel, the process is killed (the next message starts a new one) and
    /// the turn winds down ([`WindDown::CancelTimedOut`]).
    const CANCEL_TIMER: &'static str;

    /// How long the agent gets to end a cancelled turn.
    const CANCEL_TIMEOUT_MS: u32 = 10_000;

    /// The session's state.
    fn process_state(&self) -> &S;

    /// The session's state, to change.
    fn process_state_mut(&mut self) -> &mut S;

    /// True once `session.ended` was emitted.
    fn ended(&self) -> bool {
        self.process_state().header().ended
    }

    /// Notes that `session.ended` was emitted.
    fn set_ended(&mut self) {
        self.process_state_mut().header_mut().ended = true;
    }

    /// True when `process_id` is the live agent process.
    fn is_current(&self, process_id: &str) -> bool {
        self.process_state().header().is_current(process_id)
    }

    /// Forgets the live process; its id, when one ran.
    fn take_process(&mut self) -> Option<String> {
        self.process_state_mut().header_mut().take_process()
    }

    /// True while a cancel of the running turn is under way.
    fn cancelling(&self) -> bool {
        self.process_state().header().cancelling()
    }

    /// Marks the running turn as cancelling; false when no turn runs or a cancel is
    /// already under way.
    fn begin_cancel(&mut self) -> bool {
        self.process_state_mut().header_mut().begin_cancel()
    }

    /// The program process `process_id` runs, for a failure to start it.
    fn program(&self, process_id: &str) -> String;

    /// A stdout line of the live process.
    fn line(&mut self, out: &mut Actions, line: String);

    /// The live process exited (the adapter forgets it).
    fn exited(&mut self, out: &mut Actions, status: ExitStatus);

    /// Ends the running turn, if any, for `why`.
    fn wind_down(&mut self, out: &mut Actions, why: WindDown);

    /// A stdout line of another process of the session (a helper); ignored by default.
    fn other_line(&mut self, out: &mut Actions, process_id: String, line: String) {
        let _ = (out, process_id, line);
    }

    /// Another process of the session exited; ignored by default.
    fn other_exited(&mut self, out: &mut Actions, process_id: String, status: ExitStatus) {
        let _ = (out, process_id, status);
    }

    /// Another process of the session could not start; ignored by default.
    fn other_spawn_failed(&mut self, out: &mut Actions, process_id: String, message: String) {
        let _ = (out, process_id, message);
    }

    /// A timer other than [`ProcessSession::CANCEL_TIMER`] fired; ignored by default.
    fn other_timer(&mut self, out: &mut Actions, timer_id: &str) {
        let _ = (out, timer_id);
    }

    /// Ends the session with an error: `error`, the running turn wound down
    /// ([`WindDown::Failed`]), `session.ended` by the agent.
    fn fail(&mut self, out: &mut Actions, failure: Failure) {
        out.fail_session(failure, |out| self.wind_down(out, WindDown::Failed));
        self.set_ended();
    }
}

/// `terminate`: the running turn winds down, the process's stdin is closed (it
/// exits), and the session ends.
pub fn terminate<St: WithProcess, S: ProcessSession<St>>(session: &mut S) -> Vec<Action> {
    Actions::unless(session.ended(), |out| {
        session.wind_down(out, WindDown::Terminated);
        if let Some(process_id) = session.take_process() {
            out.close_stdin(process_id);
        }
        out.emit(event::session_terminated().synthetic());
        session.set_ended();
    })
}

/// What a process of the session reported.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A stdout line (`on_stdout`).
    Line(String),
    /// Its exit (`on_exit`).
    Exit(ExitStatus),
    /// It could not start (`on_spawn_failed`), for this reason.
    SpawnFailed(String),
}

/// `on_stdout`, `on_exit` and `on_spawn_failed`: hands `input` of process
/// `process_id` to the session as the live process's (a spawn failure of the agent
/// ends the session naming the program), or as another's; nothing once the session
/// ended.
pub fn on_process<St: WithProcess, S: ProcessSession<St>>(
    session: &mut S,
    process_id: String,
    input: Input,
) -> Vec<Action> {
    Actions::unless(session.ended(), |out| {
        match (session.is_current(&process_id), input) {
            (true, Input::Line(line)) => session.line(out, line),
            (true, Input::Exit(status)) => session.exited(out, status),
            (true, Input::SpawnFailed(message)) => {
                session.take_process();
                let program = session.program(&process_id);
                session.fail(out, Failure::spawn_failed(&program, &message));
            }
            (false, Input::Line(line)) => session.other_line(out, process_id, line),
            (false, Input::Exit(status)) => session.other_exited(out, process_id, status),
            (false, Input::SpawnFailed(message)) => {
                session.other_spawn_failed(out, process_id, message)
            }
        }
    })
}

/// `cancel_turn`: unless no turn runs or a cancel is under way, the turn is marked
/// cancelling and `interrupt` asks the agent to stop it; when that returns true (the
/// agent's answer ends the turn), [`ProcessSession::CANCEL_TIMER`] waits for the
/// answer.
pub fn cancel_turn<St: WithProcess, S: ProcessSession<St>>(
    session: &mut S,
    interrupt: impl FnOnce(&mut S, &mut Actions) -> bool,
) -> Vec<Action> {
    let mut out = Actions::new();
    if session.begin_cancel() && interrupt(session, &mut out) {
        out.set_timer(S::CANCEL_TIMER, S::CANCEL_TIMEOUT_MS);
    }
    out.finish()
}

/// `on_timer`: a cancel that timed out kills the process and winds the turn down.
pub fn on_timer<St: WithProcess, S: ProcessSession<St>>(
    session: &mut S,
    timer_id: String,
) -> Vec<Action> {
    Actions::unless(session.ended(), |out| {
        if timer_id != S::CANCEL_TIMER {
            session.other_timer(out, &timer_id);
        } else if session.cancelling() {
            if let Some(process_id) = session.take_process() {
                out.kill(process_id);
            }
            session.wind_down(out, WindDown::CancelTimedOut);
        }
    })
}

/// In the `impl SessionMachine` block of a [`ProcessSession`]: `terminate`,
/// `on_stdout`, `on_exit`, `on_spawn_failed` and `on_timer` from
/// [`process_session`](crate::process_session) ([`terminate`], [`on_process`],
/// [`on_timer`]).
#[macro_export]
macro_rules! process_handlers {
    () => {
        fn terminate(&mut self) -> ::std::vec::Vec<$crate::types::Action> {
            $crate::process_session::terminate(self)
        }

        fn on_timer(
            &mut self,
            timer_id: ::std::string::String,
        ) -> ::std::vec::Vec<$crate::types::Action> {
            $crate::process_session::on_timer(self, timer_id)
        }

        $crate::process_handlers!(on_stdout(line: ::std::string::String) => Line);
        $crate::process_handlers!(on_exit(status: $crate::types::ExitStatus) => Exit);
        $crate::process_handlers!(on_spawn_failed(message: ::std::string::String) => SpawnFailed);
    };
    ($handler:ident($arg:ident: $ty:ty) => $input:ident) => {
        fn $handler(
            &mut self,
            process_id: ::std::string::String,
            $arg: $ty,
        ) -> ::std::vec::Vec<$crate::types::Action> {
            let input = $crate::process_session::Input::$input($arg);
            $crate::process_session::on_process(self, process_id, input)
        }
    };
}
