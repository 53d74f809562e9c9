//! The task that runs one session: it owns the adapter instance, feeds it every
//! input in order, and carries out the actions it returns.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use sandbox_agent_host::{
    Action, AdapterSession, EmittedEvent, ExitStatus, FileWrite, HostError, Input, MessagePart,
};
use sandbox_agent_universal::{
    AgentUnparsedData, ContentPart, ErrorData, ItemEventData, ItemKind, ItemRole, ItemStatus,
    PermissionStatus, QuestionStatus, SessionEndReason, SessionEndedData, TerminatedBy,
    TurnEventData, TurnPhase, UniversalEventData, UniversalEventType, UniversalItem,
};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::oneshot;
use tokio::task::AbortHandle;

use super::incoming::{Delivery, Inbox, Incoming};
use super::processes::{self, ProcessEntry, SpawnContext, Subscriber};
use super::queue::Queued;
use super::shared::SharedProcesses;
use super::stderr::StderrCapture;
use super::{loopback, SessionShared};
use crate::error::ApiError;
use crate::store::{Checkpoint, Commit, ProcessMark, Store};

/// Most inputs already waiting (process output, timers, responses) handled
/// before their events are committed together.
const INPUTS_PER_COMMIT: usize = 64;

/// What a restarted daemon found about a session it carries on.
pub struct Resumption {
    /// Processes that were running and died with the previous daemon.
    pub lost_processes: Vec<String>,
    /// Timers the adapter had set that had not fired.
    pub timers: Vec<String>,
    /// The running turn died with its process: the adapter is a fresh one that
    /// resumes the agent's native session, and the daemon closes the turn.
    pub fresh_adapter: bool,
}

/// The transcript's note that the agent's process ended with the previous daemon.
fn restart_marker(native_session_id: Option<&str>) -> EmittedEvent {
    let detail = match native_session_id {
        Some(id) => format!("The next message resumes the agent's session {id}."),
        None => "The next message starts the agent again.".to_owned(),
    };
    EmittedEvent {
        event_type: UniversalEventType::ItemCompleted,
        data: UniversalEventData::Item(ItemEventData {
            item: UniversalItem {
                item_id: format!("daemon_restart_{}", super::log::now_millis()),
                native_item_id: None,
                parent_id: None,
                kind: ItemKind::Status,
                role: Some(ItemRole::System),
                status: ItemStatus::Completed,
                content: vec![ContentPart::Status {
                    label: "agent process ended with the daemon".into(),
                    detail: Some(detail),
                }],
            },
        }),
        synthetic: true,
        raw: None,
    }
}

/// A request from the HTTP layer.
pub enum Command {
    Start,
    Send {
        parts: Vec<MessagePart>,
        turn_started: Option<oneshot::Sender<u64>>,
    },
    ReplyPermission {
        permission_id: String,
        reply: sandbox_agent_host::PermissionReply,
    },
    ReplyQuestion {
        question_id: String,
        answers: Vec<Vec<String>>,
    },
    RejectQuestion {
        question_id: String,
    },
    Cancel,
    Terminate,
    /// Daemon shutdown with a durable store: stop without ending the session,
    /// leaving the last checkpoint for the next daemon to resume from.
    Suspend,
}

/// A command and where to report its outcome.
pub struct Request {
    pub command: Command,
    pub done: oneshot::Sender<Result<(), ApiError>>,
}

/// A process a session uses: its own, or a shared one it is attached to.
struct Attached {
    entry: Arc<ProcessEntry>,
    share_key: Option<String>,
}

/// State of one running session task.
pub struct Actor {
    shared: Arc<SessionShared>,
    adapter: AdapterSession,
    spawn: SpawnContext,
    incoming_tx: Inbox,
    incoming_rx: Option<UnboundedReceiver<Box<Delivery>>>,
    http: reqwest::Client,
    processes: BTreeMap<String, Attached>,
    shared_processes: Arc<SharedProcesses>,
    timers: BTreeMap<String, AbortHandle>,
    streams: BTreeMap<String, AbortHandle>,
    stderr: StderrCapture,
    queue: VecDeque<Queued>,
    turn_running: bool,
    pending_permissions: BTreeSet<String>,
    pending_questions: BTreeSet<String>,
    ended: bool,
    /// Stopped for a daemon shutdown: nothing more is committed.
    suspended: bool,
    /// Unix milliseconds of the latest event.
    updated_at: i64,
    store: Arc<dyn Store>,
    /// What the store last heard, to skip commits that would change nothing.
    committed: Checkpoint,
}

impl Actor {
    /// A session task around a freshly created adapter session.
    pub fn new(
        shared: Arc<SessionShared>,
        adapter: AdapterSession,
        spawn: SpawnContext,
        shared_processes: Arc<SharedProcesses>,
        store: Arc<dyn Store>,
    ) -> Self {
        let updated_at = shared.record.created_at;
        let (incoming_tx, incoming_rx) = Inbox::new();
        Self {
            shared,
            adapter,
            spawn,
            incoming_tx,
            incoming_rx: Some(incoming_rx),
            http: loopback::client(),
            processes: BTreeMap::new(),
            shared_processes,
            timers: BTreeMap::new(),
            streams: BTreeMap::new(),
            stderr: StderrCapture::default(),
            queue: VecDeque::new(),
            turn_running: false,
            pending_permissions: BTreeSet::new(),
            pending_questions: BTreeSet::new(),
            ended: false,
            suspended: false,
            updated_at,
            store,
            committed: Checkpoint::default(),
        }
    }

    /// Carries on from a checkpoint a previous daemon committed: the turn and the
    /// open requests it had (its processes and timers are gone; see `resume`).
    pub fn with_checkpoint(mut self, checkpoint: &Checkpoint) -> Self {
        self.turn_running = checkpoint.turn_running;
        self.pending_permissions = checkpoint.pending_permissions.iter().cloned().collect();
        self.pending_questions = checkpoint.pending_questions.iter().cloned().collect();
        self.updated_at = checkpoint.updated_at;
        self.queue = checkpoint
            .queued
            .iter()
            .map(|parts| Queued::from_stored(parts))
            .collect();
        self.committed = checkpoint.clone();
        self
    }

    /// First steps of a session a restarted daemon carries on: tells the adapter
    /// its processes and timers are gone, or, when the running turn died with its
    /// process, closes that turn and starts the fresh adapter that resumes the
    /// agent's native session.
    pub async fn resume(&mut self, resumption: Resumption) {
        if !resumption.lost_processes.is_empty() {
            let native = self.shared.state.lock().unwrap().native_session_id.clone();
            self.append(restart_marker(native.as_deref()));
        }
        if resumption.fresh_adapter {
            self.close_lost_turn();
            let _ = self.feed(Input::Start);
        } else {
            for process_id in resumption.lost_processes {
                let status = ExitStatus {
                    code: None,
                    signal: Some(libc::SIGKILL),
                };
                let _ = self.feed(Input::Exit { process_id, status });
            }
            // Late rather than never.
            for timer_id in resumption.timers {
                let _ = self.feed(Input::Timer { timer_id });
            }
        }
        // Messages the previous daemon accepted run now, or when the turn ends.
        let _ = self.start_next_turn();
        self.commit().await;
    }

    /// Rejects what the lost turn asked and ends it, all daemon-made.
    fn close_lost_turn(&mut self) {
        let log = &self.shared.log;
        let mut closing = Vec::new();
        for id in &self.pending_permissions {
            if let Some(UniversalEventData::Permission(mut permission)) =
                log.find_last(|e| matches!(&e.data, UniversalEventData::Permission(p) if &p.permission_id == id)).map(|e| e.data)
            {
                permission.status = PermissionStatus::Reject;
                closing.push((UniversalEventType::PermissionResolved, UniversalEventData::Permission(permission)));
            }
        }
        for id in &self.pending_questions {
            if let Some(UniversalEventData::Question(mut question)) = log
                .find_last(
                    |e| matches!(&e.data, UniversalEventData::Question(q) if &q.question_id == id),
                )
                .map(|e| e.data)
            {
                question.status = QuestionStatus::Rejected;
                closing.push((
                    UniversalEventType::QuestionResolved,
                    UniversalEventData::Question(question),
                ));
            }
        }
        if self.turn_running {
            let turn_id = log
                .find_last(|e| e.event_type == UniversalEventType::TurnStarted)
                .and_then(|e| match e.data {
                    UniversalEventData::Turn(turn) => turn.turn_id,
                    _ => None,
                });
            closing.push((
                UniversalEventType::TurnEnded,
                UniversalEventData::Turn(TurnEventData {
                    phase: TurnPhase::Ended,
                    turn_id,
                    metadata: Some(serde_json::json!({"reason": "daemon_restart"})),
                    usage: None,
                }),
            ));
        }
        for (event_type, data) in closing {
            self.append(EmittedEvent {
                event_type,
                data,
                synthetic: true,
                raw: None,
            });
        }
    }

    /// Runs until the session ends or the daemon drops the session.
    pub async fn run(mut self, mut requests: UnboundedReceiver<Box<Request>>) {
        let mut incoming = self.incoming_rx.take().expect("a session task runs once");
        while !self.ended && !self.suspended {
            tokio::select! {
                request = requests.recv() => match request {
                    Some(request) => {
                        let Request { command, done } = *request;
                        let result = self.on_command(command);
                        // Whoever gets the answer must see the state it left.
                        self.commit().await;
                        let _ = done.send(result);
                    }
                    None => {
                        let _ = self.on_command(Command::Terminate);
                    }
                },
                Some(message) = incoming.recv() => {
                    self.on_incoming(message.incoming);
                    // What else has already arrived goes into the same commit.
                    for _ in 1..INPUTS_PER_COMMIT {
                        if self.ended || self.suspended {
                            break;
                        }
                        match incoming.try_recv() {
                            Ok(message) => self.on_incoming(message.incoming),
                            Err(_) => break,
                        }
                    }
                }
            }
            self.commit().await;
        }
        self.shutdown();
        if !self.suspended {
            self.commit().await;
        }
        // Answer what is still queued so no caller waits forever.
        while let Ok(request) = requests.try_recv() {
            let _ = request.done.send(Err(ApiError::SessionEnded {
                session_id: self.shared.record.id.clone(),
            }));
        }
    }

    fn on_command(&mut self, command: Command) -> Result<(), ApiError> {
        if self.ended {
            return Err(ApiError::SessionEnded {
                session_id: self.shared.record.id.clone(),
            });
        }
        match command {
            Command::Start => self.feed(Input::Start),
            Command::Send {
                parts,
                turn_started,
            } => {
                self.queue.push_back(Queued {
                    parts,
                    turn_started,
                });
                self.start_next_turn()
            }
            Command::ReplyPermission {
                permission_id,
                reply,
            } => {
                self.require_pending("permission", &permission_id)?;
                self.feed(Input::ReplyPermission {
                    permission_id,
                    reply,
                })
            }
            Command::ReplyQuestion {
                question_id,
                answers,
            } => {
                self.require_pending("question", &question_id)?;
                self.feed(Input::ReplyQuestion {
                    question_id,
                    answers,
                })
            }
            Command::RejectQuestion { question_id } => {
                self.require_pending("question", &question_id)?;
                self.feed(Input::RejectQuestion { question_id })
            }
            Command::Cancel => {
                if self.turn_running {
                    self.feed(Input::CancelTurn)?;
                }
                Ok(())
            }
            Command::Terminate => {
                let result = self.feed(Input::Terminate);
                if !self.ended {
                    self.end(SessionEndedData {
                        reason: SessionEndReason::Terminated,
                        terminated_by: TerminatedBy::Daemon,
                        message: None,
                        exit_code: None,
                        stderr: None,
                    });
                }
                result.or(Ok(()))
            }
            Command::Suspend => {
                self.suspended = true;
                Ok(())
            }
        }
    }

    fn require_pending(&self, what: &'static str, id: &str) -> Result<(), ApiError> {
        let pending = if what == "permission" {
            &self.pending_permissions
        } else {
            &self.pending_questions
        };
        if pending.contains(id) {
            Ok(())
        } else {
            Err(ApiError::RequestNotFound {
                session_id: self.shared.record.id.clone(),
                what,
                id: id.to_owned(),
            })
        }
    }

    fn on_incoming(&mut self, message: Incoming) {
        match message {
            Incoming::Adapter(input) => {
                let stale = match &input {
                    Input::Stderr { line, .. } => {
                        self.stderr.push(line);
                        false
                    }
                    Input::Exit { process_id, .. } => {
                        self.processes.remove(process_id);
                        false
                    }
                    // A timer cancelled after it fired, or a stream the adapter
                    // closed itself: nothing to report.
                    Input::Timer { timer_id } => self.timers.remove(timer_id).is_none(),
                    Input::SseClosed { stream_id, .. } => self.streams.remove(stream_id).is_none(),
                    _ => false,
                };
                if !stale {
                    let _ = self.feed(input);
                }
            }
            Incoming::LineTooLong {
                process_id,
                stream,
                length,
                head,
            } => {
                let limit = self.spawn.max_line_bytes;
                self.append(EmittedEvent {
                    event_type: UniversalEventType::AgentUnparsed,
                    data: UniversalEventData::AgentUnparsed(AgentUnparsedData {
                        error: format!(
                            "line of {length} bytes is longer than the {limit}-byte limit"
                        ),
                        location: format!("{}:{process_id}", stream.name()),
                        raw_hash: None,
                    }),
                    synthetic: true,
                    raw: Some(serde_json::Value::String(head)),
                });
            }
        }
    }

    /// Gives the adapter one input and carries out what it returns. A fatal adapter
    /// failure ends the session; a rejection is reported to the caller only.
    fn feed(&mut self, input: Input) -> Result<(), ApiError> {
        let result = tokio::task::block_in_place(|| self.adapter.handle(input));
        match result {
            Ok(actions) => {
                self.apply(actions);
                // A queued message that fails reports through the transcript; its
                // sender already had its answer.
                let _ = self.start_next_turn();
                Ok(())
            }
            Err(HostError::Rejected(reason)) => Err(ApiError::AdapterRejected(reason)),
            Err(error) => {
                let detail = error.to_string();
                self.fail(error);
                Err(ApiError::AdapterFailed {
                    agent: self.shared.record.agent.clone(),
                    detail,
                })
            }
        }
    }

    /// Starts the next queued message when no turn runs; its outcome is returned.
    fn start_next_turn(&mut self) -> Result<(), ApiError> {
        if self.turn_running || self.ended {
            return Ok(());
        }
        // A process that died is reported only after its last output is read
        // (up to a few seconds): the message waits for the adapter to hear of
        // the exit, so it relaunches the agent instead of writing to a dead one.
        if self.processes.values().any(|process| process.entry.gone()) {
            return Ok(());
        }
        let Some(next) = self.queue.pop_front() else {
            return Ok(());
        };
        if let Some(turn_started) = next.turn_started {
            let _ = turn_started.send(self.shared.log.last_assigned());
        }
        self.turn_running = true;
        self.feed(Input::SendMessage(next.parts))
    }

    fn apply(&mut self, actions: Vec<Action>) {
        for action in actions {
            if self.ended {
                return;
            }
            match action {
                Action::Emit(event) => self.append(event),
                Action::SetNativeSessionId(id) => {
                    self.shared.state.lock().unwrap().native_session_id = Some(id)
                }
                Action::Spawn(request) => {
                    let process_id = request.process_id.clone();
                    let subscriber = Subscriber {
                        session_id: self.shared.record.id.clone(),
                        process_id: process_id.clone(),
                        incoming: self.incoming_tx.clone(),
                    };
                    let spawned = match &request.share_key {
                        Some(key) => self.shared_processes.attach_or_spawn(
                            &self.shared.record.agent,
                            key,
                            &request,
                            &self.spawn,
                            subscriber,
                        ),
                        None => processes::spawn(&request, &self.spawn, subscriber),
                    };
                    match spawned {
                        Ok(entry) => {
                            tracing::debug!(session = %self.shared.record.id, process = %process_id, argv = ?request.argv, "spawned");
                            let attached = Attached {
                                entry,
                                share_key: request.share_key.clone(),
                            };
                            if let Some(old) = self.processes.insert(process_id, attached) {
                                // The replaced process's exit must not reach the new one's name.
                                old.entry.unsubscribe(&self.shared.record.id);
                                self.release(old);
                            }
                        }
                        Err(error) => {
                            let message = format!("cannot start {:?}: {error}", request.argv[0]);
                            let input = Input::SpawnFailed {
                                process_id,
                                message,
                            };
                            let _ = self.incoming_tx.send(Incoming::Adapter(input));
                        }
                    }
                }
                Action::WriteStdin(write) => {
                    if let Some(process) = self.processes.get(&write.process_id) {
                        process.entry.write_stdin(write.data);
                    }
                }
                Action::CloseStdin(id) => {
                    if let Some(process) = self.processes.get(&id) {
                        process.entry.close_stdin();
                    }
                }
                Action::Kill(id) => {
                    if let Some(process) = self.processes.remove(&id) {
                        self.release(process);
                    }
                }
                Action::HttpRequest(request) => {
                    loopback::send(&self.http, request, self.incoming_tx.clone())
                }
                Action::OpenSse(request) => {
                    let id = request.stream_id.clone();
                    let task = loopback::open_sse(&self.http, request, self.incoming_tx.clone());
                    if let Some(old) = self.streams.insert(id, task.abort_handle()) {
                        old.abort();
                    }
                }
                Action::CloseSse(id) => {
                    if let Some(stream) = self.streams.remove(&id) {
                        stream.abort();
                    }
                }
                Action::SetTimer(timer) => {
                    let incoming = self.incoming_tx.clone();
                    let timer_id = timer.timer_id.clone();
                    let task = tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(timer.delay_ms.into())).await;
                        let _ = incoming.send(Incoming::Adapter(Input::Timer { timer_id }));
                    });
                    if let Some(old) = self.timers.insert(timer.timer_id, task.abort_handle()) {
                        old.abort();
                    }
                }
                Action::CancelTimer(id) => {
                    if let Some(timer) = self.timers.remove(&id) {
                        timer.abort();
                    }
                }
                Action::WriteFile(file) => {
                    let scratch = Path::new(&self.adapter.config().scratch_dir);
                    if let Err(error) = write_scratch_file(scratch, &file) {
                        let message = format!(
                            "cannot write {} in the session's scratch folder: {error}",
                            file.path
                        );
                        self.fail_with("scratch_write_failed", message);
                    }
                }
            }
        }
    }

    /// Records an event and updates the session state it implies.
    fn append(&mut self, mut event: EmittedEvent) {
        match &mut event.data {
            UniversalEventData::Permission(p) => {
                if event.event_type == UniversalEventType::PermissionRequested {
                    self.pending_permissions.insert(p.permission_id.clone());
                } else {
                    self.pending_permissions.remove(&p.permission_id);
                }
            }
            UniversalEventData::Question(q) => {
                if event.event_type == UniversalEventType::QuestionRequested {
                    self.pending_questions.insert(q.question_id.clone());
                } else {
                    self.pending_questions.remove(&q.question_id);
                }
            }
            UniversalEventData::SessionEnded(ended) => {
                if ended.reason == SessionEndReason::Error && ended.stderr.is_none() {
                    ended.stderr = self.stderr.excerpt();
                }
                self.ended = true;
            }
            _ => {}
        }
        if event.event_type == UniversalEventType::TurnEnded {
            self.turn_running = false;
        }
        let native = self.shared.state.lock().unwrap().native_session_id.clone();
        self.shared.log.stage(event, native);
        self.updated_at = super::log::now_millis();
        if self.ended {
            self.shutdown();
        }
    }

    /// Stores the staged events with the state they leave the session in, then
    /// lets readers see them (never before: what a client saw is never lost, and
    /// `ended` must imply that `session.ended` is readable, which SSE relies on).
    async fn commit(&mut self) {
        let events = self.shared.log.staged();
        let checkpoint = self.checkpoint();
        if !events.is_empty() || checkpoint != self.committed {
            self.store_commit(events, checkpoint).await;
        }
        let published = self.shared.log.publish();
        self.shared.state.lock().unwrap().updated_at = self.updated_at;
        self.publish_state();
        if let Some(last) = published {
            self.shared.log.notify(last);
        }
    }

    /// Queues the write with the store's writer (which folds what every session
    /// has pending into one transaction) and waits for it without holding a thread.
    async fn store_commit(
        &mut self,
        events: Vec<Arc<crate::store::EncodedEvent>>,
        checkpoint: Checkpoint,
    ) {
        // The adapter's state goes with the events it produced, so a restart
        // resumes from a consistent pair; none is needed where a restart would
        // not use it.
        let snapshot = if self.store.durable() && !self.ended && !checkpoint.restarts_fresh() {
            let adapter = &mut self.adapter;
            tokio::task::block_in_place(|| adapter.snapshot().ok())
        } else {
            None
        };
        let done = self.store.commit_queued(Commit {
            session_id: self.shared.record.id.clone(),
            events,
            checkpoint: checkpoint.clone(),
            snapshot,
        });
        let result = done.await.unwrap_or_else(|_| {
            Err(crate::store::StoreError::Io(
                "the store's writer stopped".into(),
            ))
        });
        if let Err(error) = result {
            tracing::error!(session = %self.shared.record.id, %error, "events could not be stored; they stay in memory only");
        }
        self.committed = checkpoint;
    }

    /// The state a restarted daemon needs, as of now.
    fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            native_session_id: self.shared.state.lock().unwrap().native_session_id.clone(),
            ended: self.ended,
            turn_running: self.turn_running,
            pending_permissions: self.pending_permissions.iter().cloned().collect(),
            pending_questions: self.pending_questions.iter().cloned().collect(),
            processes: self
                .processes
                .iter()
                .map(|(id, process)| ProcessMark {
                    id: id.clone(),
                    pid: process.entry.pid,
                    started: process.entry.started,
                })
                .collect(),
            timers: self.timers.keys().cloned().collect(),
            updated_at: self.updated_at,
            queued: self.queue.iter().map(Queued::stored).collect(),
        }
    }

    /// Ends the session with a daemon-made `session.ended`.
    fn end(&mut self, data: SessionEndedData) {
        self.append(EmittedEvent {
            event_type: UniversalEventType::SessionEnded,
            data: UniversalEventData::SessionEnded(data),
            synthetic: true,
            raw: None,
        });
    }

    /// An adapter failure: report it and end this session only.
    fn fail(&mut self, error: HostError) {
        self.fail_with("adapter_failed", error.to_string());
    }

    /// Reports an `error` event with `code` and ends this session only.
    fn fail_with(&mut self, code: &str, message: String) {
        tracing::warn!(session = %self.shared.record.id, code, %message, "ending session");
        self.append(EmittedEvent {
            event_type: UniversalEventType::Error,
            data: UniversalEventData::Error(ErrorData {
                message: message.clone(),
                code: Some(code.into()),
                details: None,
            }),
            synthetic: true,
            raw: None,
        });
        if !self.ended {
            self.end(SessionEndedData {
                reason: SessionEndReason::Error,
                terminated_by: TerminatedBy::Daemon,
                message: Some(message),
                exit_code: None,
                stderr: None,
            });
        }
    }

    /// Kills an own process; detaches from a shared one (killed when unused).
    fn release(&self, process: Attached) {
        match process.share_key {
            Some(key) => self.shared_processes.detach(
                &self.shared.record.agent,
                &key,
                &self.shared.record.id,
            ),
            None => process.entry.kill(),
        }
    }

    /// Kills every process and stops every timer and stream of the session.
    fn shutdown(&mut self) {
        for process in std::mem::take(&mut self.processes).into_values() {
            self.release(process);
        }
        for task in std::mem::take(&mut self.timers)
            .into_values()
            .chain(std::mem::take(&mut self.streams).into_values())
        {
            task.abort();
        }
        self.queue.clear();
        self.turn_running = false;
        self.pending_permissions.clear();
        self.pending_questions.clear();
    }

    /// Copies what `GET /v1/sessions` shows into the shared state.
    fn publish_state(&self) {
        let mut state = self.shared.state.lock().unwrap();
        state.ended = self.ended;
        state.turn_running = self.turn_running;
        state.awaiting_input =
            !self.pending_permissions.is_empty() || !self.pending_questions.is_empty();
        state.queued_messages = self.queue.len() as u64;
    }
}

/// Writes a file an adapter asked for under the session's scratch folder (its
/// path was checked by the host to be relative, without `..`).
fn write_scratch_file(scratch: &Path, file: &FileWrite) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let path = scratch.join(&file.path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&path, &file.contents)?;
    let mode = if file.executable { 0o755 } else { 0o644 };
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
}
