//! [`Actions`]: the list an adapter returns from each input, built one step at a time.

use crate::types::{
    Action, EmittedEvent, ExitStatus, FileWrite, HttpRequest, MessagePart, SpawnRequest,
    SseRequest, StdinWrite, TimerRequest, Turn,
};
use crate::IdCounter;

/// A builder for the actions one input produces, in the order the host must carry
/// them out.
///
/// Every method appends one action and returns `&mut Self`, so a handler reads like the
/// transcript it produces:
///
/// ```
/// use sandbox_agent_adapter_kit::prelude::*;
///
/// let mut out = Actions::new();
/// out.emit(event::turn_started(Turn::with_id("turn_1")))
///     .emit(event::item_delta("itm_2", "Hello"))
///     .set_timer("tick", 100);
/// let actions: Vec<Action> = out.into();
/// assert_eq!(actions.len(), 3);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Actions {
    list: Vec<Action>,
}

impl Actions {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// A list of one emitted event, as a `Vec` (for handlers with a single answer).
    pub fn one(event: EmittedEvent) -> Vec<Action> {
        vec![Action::Emit(event)]
    }

    /// Appends any action.
    pub fn push(&mut self, action: Action) -> &mut Self {
        self.list.push(action);
        self
    }

    /// Publishes an event in the session's transcript.
    pub fn emit(&mut self, event: EmittedEvent) -> &mut Self {
        self.push(Action::Emit(event))
    }

    /// Publishes several events, in order.
    pub fn emit_all(&mut self, events: impl IntoIterator<Item = EmittedEvent>) -> &mut Self {
        self.list.extend(events.into_iter().map(Action::Emit));
        self
    }

    /// Records the agent's own session or thread id.
    pub fn set_native_session_id(&mut self, id: impl Into<String>) -> &mut Self {
        self.push(Action::SetNativeSessionId(id.into()))
    }

    /// Starts a process (see [`SpawnRequest::command`] for a short constructor).
    pub fn spawn(&mut self, request: SpawnRequest) -> &mut Self {
        self.push(Action::Spawn(request))
    }

    /// Writes bytes to a process's stdin.
    pub fn write_stdin(
        &mut self,
        process_id: impl Into<String>,
        data: impl Into<Vec<u8>>,
    ) -> &mut Self {
        self.push(Action::WriteStdin(StdinWrite {
            process_id: process_id.into(),
            data: data.into(),
        }))
    }

    /// Writes one line (a `\n` is appended) to a process's stdin: the usual framing of
    /// JSON-lines protocols.
    pub fn write_line(&mut self, process_id: impl Into<String>, line: &str) -> &mut Self {
        let mut data = Vec::with_capacity(line.len() + 1);
        data.extend_from_slice(line.as_bytes());
        data.push(b'\n');
        self.write_stdin(process_id, data)
    }

    /// Closes a process's stdin.
    pub fn close_stdin(&mut self, process_id: impl Into<String>) -> &mut Self {
        self.push(Action::CloseStdin(process_id.into()))
    }

    /// Kills a process and its process group.
    pub fn kill(&mut self, process_id: impl Into<String>) -> &mut Self {
        self.push(Action::Kill(process_id.into()))
    }

    /// Sends an HTTP request to a loopback server.
    pub fn http_request(&mut self, request: HttpRequest) -> &mut Self {
        self.push(Action::HttpRequest(request))
    }

    /// Opens a Server-Sent-Events stream from a loopback server.
    pub fn open_sse(&mut self, request: SseRequest) -> &mut Self {
        self.push(Action::OpenSse(request))
    }

    /// Closes an SSE stream.
    pub fn close_sse(&mut self, stream_id: impl Into<String>) -> &mut Self {
        self.push(Action::CloseSse(stream_id.into()))
    }

    /// Asks for `on-timer(timer_id)` after `delay_ms` milliseconds.
    pub fn set_timer(&mut self, timer_id: impl Into<String>, delay_ms: u32) -> &mut Self {
        self.push(Action::SetTimer(TimerRequest {
            timer_id: timer_id.into(),
            delay_ms,
        }))
    }

    /// `start` of a session: the native session id it resumes (when it resumes one),
    /// a synthetic `session.started` with the launch settings in `metadata`, then
    /// what `launch` adds (the agent's process, a probe, a server).
    pub fn start_session(
        resumed: Option<String>,
        metadata: &serde_json::Value,
        launch: impl FnOnce(&mut Actions),
    ) -> Vec<Action> {
        let mut out = Actions::new();
        if let Some(id) = resumed {
            out.set_native_session_id(id);
        }
        out.emit(crate::event::session_started(Some(metadata.to_string())).synthetic());
        launch(&mut out);
        out.finish()
    }

    /// The actions `build` adds, or none when `skip`: an input the session no longer
    /// handles (it has ended, or the input is about a process it does not follow).
    pub fn unless(skip: bool, build: impl FnOnce(&mut Actions)) -> Vec<Action> {
        match skip {
            true => Vec::new(),
            false => Actions::build(build),
        }
    }

    /// The actions `build` adds to an empty list.
    pub fn build(build: impl FnOnce(&mut Actions)) -> Vec<Action> {
        let mut out = Actions::new();
        build(&mut out);
        out.finish()
    }

    /// Opens a turn for a user message: a synthetic `turn.started` with the next
    /// `turn_<n>` of `ids`, then the message as a completed synthetic `user` item
    /// ([`crate::event::user_message`], the next `itm_<n>`). Returns the turn's id.
    pub fn open_turn(&mut self, ids: &mut IdCounter, parts: &[MessagePart]) -> String {
        let turn = self.start_turn(ids);
        self.emit_all(crate::event::user_message(ids.next("itm"), parts));
        turn
    }

    /// Starts a turn: a synthetic `turn.started` with the next `turn_<n>` of `ids`,
    /// whose id it returns.
    pub fn start_turn(&mut self, ids: &mut IdCounter) -> String {
        let id = ids.next("turn");
        self.emit(crate::event::turn_started(Turn::with_id(id.clone())).synthetic());
        id
    }

    /// Asks the host to write a file in the session's scratch folder
    /// (`SessionConfig::scratch_dir`), before it carries out the actions after this one.
    pub fn write_file(
        &mut self,
        path: impl Into<String>,
        contents: impl Into<Vec<u8>>,
    ) -> &mut Self {
        self.push(Action::WriteFile(FileWrite {
            path: path.into(),
            contents: contents.into(),
            executable: false,
        }))
    }

    /// Cancels a pending timer (unknown ids are ignored by the host).
    pub fn cancel_timer(&mut self, timer_id: impl Into<String>) -> &mut Self {
        self.push(Action::CancelTimer(timer_id.into()))
    }

    /// Appends every action of `other`.
    pub fn append(&mut self, other: impl Into<Vec<Action>>) -> &mut Self {
        self.list.extend(other.into());
        self
    }

    /// The actions so far.
    pub fn as_slice(&self) -> &[Action] {
        &self.list
    }

    /// True when nothing was added.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The finished list, for returning to the host.
    pub fn finish(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.list)
    }
}

impl From<Actions> for Vec<Action> {
    fn from(actions: Actions) -> Self {
        actions.list
    }
}

impl Extend<Action> for Actions {
    fn extend<T: IntoIterator<Item = Action>>(&mut self, iter: T) {
        self.list.extend(iter);
    }
}

impl SpawnRequest {
    /// A process with the session's working directory and the daemon's environment.
    pub fn command<S: Into<String>>(
        process_id: impl Into<String>,
        argv: impl IntoIterator<Item = S>,
    ) -> Self {
        Self {
            process_id: process_id.into(),
            argv: argv.into_iter().map(Into::into).collect(),
            env: Vec::new(),
            cwd: None,
            share_key: None,
        }
    }

    /// Adds environment variables (on top of the daemon's environment).
    pub fn with_env(mut self, env: impl IntoIterator<Item = (String, String)>) -> Self {
        self.env.extend(env);
        self
    }

    /// Runs the process in `cwd` instead of the session's directory.
    pub fn with_cwd(mut self, cwd: impl Into<String>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// Shares one process among every session of this adapter that uses `key`.
    pub fn shared(mut self, key: impl Into<String>) -> Self {
        self.share_key = Some(key.into());
        self
    }
}

impl ExitStatus {
    /// True when the process exited normally with code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// A short description: `exit code 1`, `signal 9`.
    pub fn describe(&self) -> String {
        match (self.code, self.signal) {
            (Some(code), _) => format!("exit code {code}"),
            (None, Some(signal)) => format!("signal {signal}"),
            (None, None) => "an unknown status".to_owned(),
        }
    }
}
