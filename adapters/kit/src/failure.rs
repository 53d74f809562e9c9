//! [`Failure`]: why a session ends with an error, and [`Actions::fail_session`], the
//! events that report it.

use crate::event;
use crate::types::ExitStatus;
use crate::Actions;

/// A session's failure: what its `error` event and its `session.ended` (reason
/// `error`, by the agent) say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What the client reads, in both events.
    pub message: String,
    /// The `error` event's code (`agent_exited`, `spawn_failed`...).
    pub code: &'static str,
    /// The agent process's exit code, when it exited.
    pub exit_code: Option<i32>,
}

impl Failure {
    /// A failure with `message` and `code`, no process exit.
    pub fn new(message: impl Into<String>, code: &'static str) -> Self {
        Self {
            message: message.into(),
            code,
            exit_code: None,
        }
    }

    /// The agent's process exited with `status` while a turn ran
    /// (`Pi exited during a turn with exit code 1`, code `agent_exited`).
    pub fn exited_during_turn(agent: &str, status: &ExitStatus) -> Self {
        Self::exited(
            format!("{agent} exited during a turn with {}", status.describe()),
            status,
        )
    }

    /// The agent's process exited with `status`, as `message` says (code
    /// `agent_exited`, with the exit code).
    pub fn exited(message: String, status: &ExitStatus) -> Self {
        Self {
            exit_code: status.code,
            ..Self::new(message, "agent_exited")
        }
    }

    /// The agent's `program` could not be started, for `reason` (the host's message
    /// to `on-spawn-failed`; code `spawn_failed`).
    pub fn spawn_failed(program: &str, reason: &str) -> Self {
        Self::new(
            format!("could not start {program}: {reason}"),
            "spawn_failed",
        )
    }
}

impl Actions {
    /// Reports `failure`: its synthetic `error` event, then what `end_turn` emits (the
    /// end of the running turn, its open items failed), then its synthetic
    /// `session.ended`. The session is over: nothing follows.
    pub fn fail_session(
        &mut self,
        failure: Failure,
        end_turn: impl FnOnce(&mut Actions),
    ) -> &mut Self {
        self.emit(event::error(failure.message.clone(), Some(failure.code)).synthetic());
        end_turn(self);
        self.emit(event::session_failed(failure.message, failure.exit_code).synthetic())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::render;

    #[test]
    fn an_error_the_end_of_the_turn_and_the_end_of_the_session() {
        let status = ExitStatus {
            code: Some(3),
            signal: None,
        };
        let mut out = Actions::new();
        out.fail_session(Failure::exited_during_turn("Tool", &status), |out| {
            out.set_timer("end-of-turn", 1);
        });
        let lines = render(&out.finish());
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert!(lines[0].contains("Tool exited during a turn with exit code 3"));
        assert!(lines[0].contains("agent_exited"));
        assert!(lines[1].contains("end-of-turn"));
        assert!(lines[2].contains("session.ended"));
        let spawn = Failure::spawn_failed("tool", "not found");
        assert_eq!(spawn.message, "could not start tool: not found");
        assert_eq!((spawn.code, spawn.exit_code), ("spawn_failed", None));
    }
}
