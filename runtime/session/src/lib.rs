//! A session's state machine, without I/O (the quinn-proto / h11 style): the
//! turn that runs, the messages waiting for it, the permissions and questions the
//! agent asked, whether the session ended, the events' numbering, the totals of
//! its metered model calls, and the checkpoint a restarted daemon carries the
//! session on from.
//!
//! The session task (`agentplex-sessions`' `actor.rs`) is its driver. It hands the core what happened
//! ([`SessionCore::command`], [`SessionCore::incoming`], [`SessionCore::resume`],
//! and the adapter's answers through [`SessionCore::adapter_outcome`]), then
//! polls it ([`SessionCore::poll`]) for [`Effect`]s to carry out until none is
//! left, and commits. The core owns no process, channel, lock or clock: time is
//! passed in (Unix milliseconds), and whatever the driver learns about its
//! processes, timers and streams (started, gone, exited, fired, closed) comes
//! in as an [`Incoming`]. The driver keeps a handle for each resource the core
//! names and drops it when the core says ([`Effect::Release`], `Kill`,
//! `CancelTimer`, `CloseSse`, [`Effect::Shutdown`]): it decides nothing about
//! them itself. So every rule below is tested without processes or a database
//! (`tests.rs`, `props.rs`).
//!
//! The core answers in the order the rules call for: an adapter's actions are
//! carried out one by one, then the next queued message may start, then the
//! command that caused it all is answered.

mod checkpoint;
mod command;
mod decisions;
#[cfg(test)]
mod decisions_tests;
mod encoded;
mod error;
mod events;
mod input;
mod lost;
mod modes;
#[cfg(test)]
mod modes_tests;
mod offer;
#[cfg(test)]
mod props;
mod queue;
mod stderr;
#[cfg(test)]
mod tests;
mod usage;
#[cfg(test)]
mod usage_tests;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use agentplex_adapter_types::{Action, EmittedEvent, ExitStatus, Input};
use agentplex_universal::{
    EventSource, SessionEndReason, SessionEndedData, TerminatedBy, UniversalEvent,
    UniversalEventData, UniversalEventType,
};

use queue::Queued;
use stderr::StderrCapture;

pub use agentplex_universal::UsageTotals;
pub use checkpoint::{Checkpoint, ProcessMark, StoredPart};
pub use command::Command;
pub use decisions::native_decision;
pub use encoded::EncodedEvent;
pub use error::{AdapterFailure, CoreError};
pub use input::{Incoming, Stream};
pub use lost::LostTurn;
pub use modes::Modes;
pub use queue::Ticket;
pub use usage::MeteredUsage;

/// What the driver carries out for the core, in the order given.
#[derive(Debug)]
pub enum Effect {
    /// Give the adapter this input and hand its outcome to
    /// [`SessionCore::adapter_outcome`] before polling again.
    Feed(Input),
    /// Decide the pending permission request of this id under the session's
    /// approval policy (ask the adapter what it is for, the policy what it
    /// decides) and hand the decision to [`SessionCore::permission_decided`]
    /// before polling again. Only for sessions with a policy.
    Decide(String),
    /// Stage an event for the next commit, as every reader will get it: in its
    /// envelope (numbered on from the transcript's last event, stamped with
    /// the time the core was given), encoded once.
    Emit(Arc<EncodedEvent>),
    /// The agent's own session id is now known (for the session listing).
    NativeSessionId(String),
    /// An I/O action of the adapter's to carry out as asked: anything but
    /// `Emit` and `SetNativeSessionId`, which become the effects above. A
    /// `Spawn` that succeeds is reported with [`Incoming::ProcessStarted`]
    /// (one that fails, as `Input::SpawnFailed` later); a `WriteFile` that fails,
    /// with [`SessionCore::fail`].
    Io(Action),
    /// A resource is done with on its own (a process that exited, a timer that
    /// fired, a stream that closed): drop its handle, nothing is left to end.
    Release(Resource),
    /// The message sent with `ticket` starts its turn; `after` is the last
    /// sequence before the turn's events.
    TurnStarted {
        /// The ticket the message was sent with.
        ticket: Ticket,
        /// The last sequence before the turn's events.
        after: u64,
    },
    /// The outcome of the command being handled (exactly one per command).
    Answer(Result<(), CoreError>),
    /// The session's modes changed: the adapter gets them in its session
    /// configuration before its next call (and applies them from the next
    /// message on).
    Modes(Modes),
    /// The session ended: stop its processes, timers and streams, and forget
    /// the tickets of messages that will not run.
    Shutdown,
}

/// A resource of the session that the driver holds a handle for, by the
/// adapter's id for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resource {
    /// A process (`Spawn`).
    Process(String),
    /// A timer (`SetTimer`).
    Timer(String),
    /// A loopback SSE stream (`OpenSse`).
    Stream(String),
}

/// Why a daemon carries on a session whose processes are gone: it restarted,
/// the session moved to it from another sandbox, or it took the session over
/// from a daemon of its fleet (the processes stayed there).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CarriedOn {
    /// The daemon restarted.
    #[default]
    Restart,
    /// The session was imported from another daemon.
    Move,
    /// The daemon took the session over from another daemon of its fleet,
    /// which stopped renewing its lease (it died, or lost the database).
    Takeover,
}

/// What the core knows of a session that does not change.
#[derive(Debug, Clone)]
pub struct Identity {
    /// The session's id (in errors).
    pub session_id: String,
    /// The agent's id (in errors).
    pub agent: String,
    /// Longest line of agent output given to the adapter, in bytes.
    pub max_line_bytes: usize,
}

/// A process of the session, as the core knows it.
#[derive(Debug)]
struct Process {
    mark: ProcessMark,
    /// Gone (`wait` returned) but its exit is not reported yet.
    gone: bool,
}

/// What to do with the outcome of an adapter call, once its actions are done.
#[derive(Debug, Clone, Copy)]
enum Then {
    /// It is the answer of the command being handled.
    Answer,
    /// Nobody waits for it (a queued message reports through the transcript).
    Ignore,
    /// The session ends whatever the adapter did; the command answers `Ok`.
    Terminate,
}

/// Work the core has still to do, in order, once the current actions are done.
#[derive(Debug)]
enum Step {
    Feed(Input, Then),
    StartNextTurn(Then),
    Finish(Then, Result<(), CoreError>),
}

/// One session's state and rules; see the module documentation.
#[derive(Debug)]
pub struct SessionCore {
    identity: Identity,
    native_session_id: Option<String>,
    turn_running: bool,
    queue: VecDeque<Queued>,
    pending_permissions: BTreeSet<String>,
    pending_questions: BTreeSet<String>,
    ended: bool,
    suspended: bool,
    /// Unix milliseconds of the latest event.
    updated_at: i64,
    /// Sequence of the latest event emitted.
    last_sequence: u64,
    processes: BTreeMap<String, Process>,
    timers: BTreeSet<String>,
    streams: BTreeSet<String>,
    stderr: StderrCapture,
    /// What the daemon metered of the session's model calls.
    usage: MeteredUsage,
    /// The models without a price whose calls were said to have no cost.
    unpriced: BTreeSet<String>,
    /// The caps on what the session's model calls may spend, once set.
    budget: Option<agentplex_universal::BudgetLimits>,
    /// Now, as of the latest call (Unix milliseconds).
    now: i64,
    effects: VecDeque<Effect>,
    /// The adapter's actions not yet carried out.
    actions: VecDeque<Action>,
    steps: VecDeque<Step>,
    /// An adapter call is out: what to do with its outcome.
    feeding: Option<Then>,
    /// The approval policy's part of the session.
    decisions: decisions::Decisions,
    /// The modes a client set since the session was created.
    modes: Option<Modes>,
    /// What the agent offered last (see `offer.rs`).
    offer: Option<Arc<agentplex_universal::AgentOffer>>,
}

impl SessionCore {
    /// A new session's core: created at `created_at`, no event yet.
    pub fn new(identity: Identity, created_at: i64) -> Self {
        Self {
            identity,
            native_session_id: None,
            turn_running: false,
            queue: VecDeque::new(),
            pending_permissions: BTreeSet::new(),
            pending_questions: BTreeSet::new(),
            ended: false,
            suspended: false,
            updated_at: created_at,
            last_sequence: 0,
            processes: BTreeMap::new(),
            timers: BTreeSet::new(),
            streams: BTreeSet::new(),
            stderr: StderrCapture::default(),
            usage: MeteredUsage::default(),
            unpriced: BTreeSet::new(),
            budget: None,
            now: created_at,
            effects: VecDeque::new(),
            actions: VecDeque::new(),
            steps: VecDeque::new(),
            feeding: None,
            decisions: decisions::Decisions::default(),
            modes: None,
            offer: None,
        }
    }

    /// Whether the session ended.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Whether the session stopped for a daemon shutdown (nothing more is committed).
    pub fn suspended(&self) -> bool {
        self.suspended
    }

    /// Whether a turn runs.
    pub fn turn_running(&self) -> bool {
        self.turn_running
    }

    /// Whether the agent waits for a permission or an answer.
    pub fn awaiting_input(&self) -> bool {
        !self.pending_permissions.is_empty() || !self.pending_questions.is_empty()
    }

    /// How many messages wait for the running turn.
    pub fn queued_messages(&self) -> usize {
        self.queue.len()
    }

    /// The permissions the agent asked and nobody answered yet.
    pub fn pending_permissions(&self) -> impl Iterator<Item = &str> {
        self.pending_permissions.iter().map(String::as_str)
    }

    /// The questions the agent asked and nobody answered yet.
    pub fn pending_questions(&self) -> impl Iterator<Item = &str> {
        self.pending_questions.iter().map(String::as_str)
    }

    /// Unix milliseconds of the latest event.
    pub fn updated_at(&self) -> i64 {
        self.updated_at
    }

    /// Sequence of the latest event emitted (the driver's log knows it too).
    #[cfg(test)]
    pub fn last_sequence(&self) -> u64 {
        self.last_sequence
    }

    /// A client's request. Its outcome comes as one [`Effect::Answer`].
    pub fn command(&mut self, command: Command, now: i64) {
        self.now = now;
        if self.ended {
            let ended = self.session_ended_error();
            self.effects.push_back(Effect::Answer(Err(ended)));
            return;
        }
        let step = match command {
            Command::Start => Step::Feed(Input::Start, Then::Answer),
            Command::Send { parts, ticket } => {
                self.queue.push_back(Queued { parts, ticket });
                Step::StartNextTurn(Then::Answer)
            }
            Command::ReplyPermission {
                permission_id,
                reply,
            } => match self.require_pending("permission", &permission_id) {
                Ok(()) => {
                    self.client_decided(&permission_id, reply);
                    Step::Feed(
                        Input::ReplyPermission {
                            permission_id,
                            reply,
                        },
                        Then::Answer,
                    )
                }
                Err(error) => Step::Finish(Then::Answer, Err(error)),
            },
            Command::ReplyQuestion {
                question_id,
                answers,
            } => match self.require_pending("question", &question_id) {
                Ok(()) => Step::Feed(
                    Input::ReplyQuestion {
                        question_id,
                        answers,
                    },
                    Then::Answer,
                ),
                Err(error) => Step::Finish(Then::Answer, Err(error)),
            },
            Command::RejectQuestion { question_id } => {
                match self.require_pending("question", &question_id) {
                    Ok(()) => Step::Feed(Input::RejectQuestion { question_id }, Then::Answer),
                    Err(error) => Step::Finish(Then::Answer, Err(error)),
                }
            }
            Command::Cancel if self.turn_running => Step::Feed(Input::CancelTurn, Then::Answer),
            Command::Cancel => Step::Finish(Then::Answer, Ok(())),
            Command::SetBudget(limits) => {
                self.budget = Some(limits);
                Step::Finish(Then::Answer, Ok(()))
            }
            Command::SetPolicy(policy) => {
                self.set_policy(policy.clone());
                Step::Feed(Input::SetPolicy(policy), Then::Answer)
            }
            Command::SetModes(modes) => {
                self.change_modes(modes);
                Step::Finish(Then::Answer, Ok(()))
            }
            Command::Terminate => Step::Feed(Input::Terminate, Then::Terminate),
            Command::Suspend => {
                self.suspended = true;
                Step::Finish(Then::Answer, Ok(()))
            }
        };
        self.steps.push_back(step);
    }

    /// What the session's own I/O reported: process output and exits, HTTP
    /// answers, timers. Nothing is taken once the session ended.
    pub fn incoming(&mut self, incoming: Incoming, now: i64) {
        self.now = now;
        if self.ended {
            return;
        }
        match incoming {
            Incoming::Adapter(input) => {
                let released = match &input {
                    Input::Stderr { line, .. } => {
                        self.stderr.push(line);
                        None
                    }
                    Input::Exit { process_id, .. } => self
                        .processes
                        .remove(process_id)
                        .map(|_| Resource::Process(process_id.clone())),
                    // A timer cancelled after it fired, or a stream the adapter
                    // closed itself: nothing to report.
                    Input::Timer { timer_id } if !self.timers.remove(timer_id) => return,
                    Input::Timer { timer_id } => Some(Resource::Timer(timer_id.clone())),
                    Input::SseClosed { stream_id, .. } if !self.streams.remove(stream_id) => return,
                    Input::SseClosed { stream_id, .. } => Some(Resource::Stream(stream_id.clone())),
                    _ => None,
                };
                if let Some(resource) = released {
                    self.effects.push_back(Effect::Release(resource));
                }
                self.steps.push_back(Step::Feed(input, Then::Ignore));
            }
            Incoming::ProcessStarted {
                process_id,
                pid,
                started,
            } => {
                let mark = ProcessMark {
                    id: process_id.clone(),
                    pid,
                    started,
                };
                let process = Process { mark, gone: false };
                self.processes.insert(process_id, process);
            }
            // No message starts until the adapter hears of the exit, so it
            // relaunches the agent instead of writing to a dead one.
            Incoming::ProcessGone { process_id } => {
                if let Some(process) = self.processes.get_mut(&process_id) {
                    process.gone = true;
                }
            }
            Incoming::LineTooLong {
                process_id,
                stream,
                length,
                head,
            } => {
                let location = format!("{}:{process_id}", stream.name());
                let limit = self.identity.max_line_bytes;
                self.append(events::line_too_long(location, length, limit, head));
            }
            Incoming::ModelUsage(call) => self.meter(call),
            Incoming::BudgetReached(reached) => self.budget_reached(reached),
            Incoming::AskExpired { permission_id } => self.ask_expired(&permission_id),
        }
    }

    /// First steps of a restored session (see [`restore`](Self::restore)): its
    /// processes and timers died with the previous daemon. With
    /// `fresh_adapter` (the running turn died with its process, and the adapter
    /// is a new one on the agent's native session), the lost turn is closed
    /// with what `lost` found in the transcript and the adapter is started;
    /// otherwise the adapter hears of each exit and each timer (late rather
    /// than never). Then a waiting message may start.
    pub fn resume(&mut self, fresh_adapter: bool, lost: LostTurn, why: CarriedOn, now: i64) {
        self.now = now;
        let lost_processes: Vec<String> = std::mem::take(&mut self.processes).into_keys().collect();
        let timers = std::mem::take(&mut self.timers);
        if !lost_processes.is_empty() {
            self.append(events::restart_marker(
                self.native_session_id.as_deref(),
                why,
                now,
            ));
        }
        if fresh_adapter {
            self.close_lost_turn(lost, why);
            self.steps.push_back(Step::Feed(Input::Start, Then::Ignore));
        } else {
            for process_id in lost_processes {
                let status = ExitStatus {
                    code: None,
                    signal: Some(libc::SIGKILL),
                };
                let input = Input::Exit { process_id, status };
                self.steps.push_back(Step::Feed(input, Then::Ignore));
            }
            for timer_id in timers {
                let input = Input::Timer { timer_id };
                self.steps.push_back(Step::Feed(input, Then::Ignore));
            }
        }
        // Messages the previous daemon accepted run now, or when the turn ends.
        self.steps.push_back(Step::StartNextTurn(Then::Ignore));
    }

    /// The outcome of the adapter call asked by the last [`Effect::Feed`]. A
    /// rejection is reported to the caller only; a failure ends the session.
    pub fn adapter_outcome(&mut self, outcome: Result<Vec<Action>, AdapterFailure>) {
        let then = self
            .feeding
            .take()
            .expect("an adapter outcome answers an Effect::Feed");
        match outcome {
            Ok(actions) => {
                self.actions = actions.into();
                // A queued message that fails reports through the transcript; its
                // sender already had its answer.
                self.steps.push_front(Step::Finish(then, Ok(())));
                self.steps.push_front(Step::StartNextTurn(Then::Ignore));
            }
            Err(AdapterFailure::Rejected(reason)) => {
                let rejected = Err(CoreError::AdapterRejected(reason));
                self.steps.push_front(Step::Finish(then, rejected));
            }
            Err(AdapterFailure::Failed(detail)) => {
                self.fail("adapter_failed", detail.clone());
                let failed = Err(CoreError::AdapterFailed {
                    agent: self.identity.agent.clone(),
                    detail,
                });
                self.steps.push_front(Step::Finish(then, failed));
            }
        }
    }

    /// Reports an `error` event with `code` and ends this session only (the
    /// adapter's actions not carried out yet are dropped).
    pub fn fail(&mut self, code: &str, message: String) {
        tracing::warn!(code, %message, "ending session");
        self.append(events::error(code, message.clone()));
        if !self.ended {
            self.append(events::session_ended(SessionEndedData {
                reason: SessionEndReason::Error,
                terminated_by: TerminatedBy::Daemon,
                message: Some(message),
                exit_code: None,
                stderr: None,
            }));
        }
    }

    /// The next effect to carry out (`now`: Unix milliseconds), or `None` when
    /// the core has nothing more to do until it is given something.
    pub fn poll(&mut self, now: i64) -> Option<Effect> {
        self.now = now;
        loop {
            if let Some(effect) = self.effects.pop_front() {
                return Some(effect);
            }
            if self.feeding.is_some() || self.decisions.deciding {
                debug_assert!(false, "polled before the adapter's outcome or the decision");
                return None;
            }
            if let Some(action) = self.actions.pop_front() {
                self.apply(action);
                continue;
            }
            if let Some(decide) = self.next_to_decide() {
                return Some(decide);
            }
            let Some(step) = self.steps.pop_front() else {
                self.release_buffers();
                return None;
            };
            self.run(step);
        }
    }

    /// Gives back the room the last adapter call's actions and their effects
    /// took (kept, it would stay with the session at rest: a few KiB each).
    fn release_buffers(&mut self) {
        if self.effects.capacity() > 0 {
            self.effects = VecDeque::new();
        }
        if self.actions.capacity() > 0 {
            self.actions = VecDeque::new();
        }
        if self.steps.capacity() > 0 {
            self.steps = VecDeque::new();
        }
    }

    /// Takes one step of the work left.
    fn run(&mut self, step: Step) {
        match step {
            // Nothing reaches the adapter once the session ended.
            Step::Feed(_, then) if self.ended => self.finish(then, Ok(())),
            Step::Feed(input, then) => {
                self.effects.push_back(Effect::Feed(input));
                self.feeding = Some(then);
            }
            Step::StartNextTurn(then) => self.start_next_turn(then),
            Step::Finish(then, result) => self.finish(then, result),
        }
    }

    /// Starts the next queued message when no turn runs and no process's exit is
    /// awaited; `then` says what its adapter call's outcome is for.
    fn start_next_turn(&mut self, then: Then) {
        let exit_awaited = self.processes.values().any(|process| process.gone);
        if self.turn_running || self.ended || exit_awaited {
            return self.finish(then, Ok(()));
        }
        let Some(next) = self.queue.pop_front() else {
            return self.finish(then, Ok(()));
        };
        if let Some(ticket) = next.ticket {
            let after = self.last_sequence;
            self.effects
                .push_back(Effect::TurnStarted { ticket, after });
        }
        self.turn_running = true;
        self.steps
            .push_front(Step::Feed(Input::SendMessage(next.parts), then));
    }

    /// Ends an adapter call (or a command that needed none) as `then` says.
    fn finish(&mut self, then: Then, result: Result<(), CoreError>) {
        match then {
            Then::Answer => self.effects.push_back(Effect::Answer(result)),
            Then::Ignore => {}
            Then::Terminate => {
                if !self.ended {
                    self.append(events::session_ended(SessionEndedData {
                        reason: SessionEndReason::Terminated,
                        terminated_by: TerminatedBy::Daemon,
                        message: None,
                        exit_code: None,
                        stderr: None,
                    }));
                }
                self.effects.push_back(Effect::Answer(Ok(())));
            }
        }
    }

    /// Carries out one of the adapter's actions, keeping the state it implies.
    fn apply(&mut self, action: Action) {
        match action {
            Action::Emit(mut event) => {
                events::unreserve_labels(&mut event);
                return self.append(event);
            }
            Action::SetNativeSessionId(id) => {
                self.native_session_id = Some(id.clone());
                return self.effects.push_back(Effect::NativeSessionId(id));
            }
            Action::Kill(ref id) => {
                self.processes.remove(id);
            }
            Action::SetTimer(ref timer) => {
                self.timers.insert(timer.timer_id.clone());
            }
            Action::CancelTimer(ref id) => {
                self.timers.remove(id);
            }
            Action::OpenSse(ref request) => {
                self.streams.insert(request.stream_id.clone());
            }
            Action::CloseSse(ref id) => {
                self.streams.remove(id);
            }
            Action::Spawn(_)
            | Action::WriteStdin(_)
            | Action::CloseStdin(_)
            | Action::HttpRequest(_)
            | Action::WriteFile(_) => {}
        }
        self.effects.push_back(Effect::Io(action));
    }

    /// Emits an event and keeps the session state it implies.
    fn append(&mut self, mut event: EmittedEvent) {
        match &mut event.data {
            UniversalEventData::Permission(p) => {
                let id = p.permission_id.clone();
                if event.event_type == UniversalEventType::PermissionRequested {
                    self.pending_permissions.insert(id.clone());
                    self.note_requested(&id);
                } else {
                    self.pending_permissions.remove(&id);
                    self.forget_decision(&id);
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
        if event.event_type == UniversalEventType::TurnEnded && self.turn_running {
            self.meter_turn_end(&mut event);
            self.turn_running = false;
        }
        self.last_sequence += 1;
        self.updated_at = self.now;
        let envelope = UniversalEvent {
            event_id: format!("evt_{}", self.last_sequence),
            sequence: self.last_sequence,
            time: rfc3339_millis(self.now),
            session_id: self.identity.session_id.clone(),
            native_session_id: self.native_session_id.clone(),
            source: if event.synthetic {
                EventSource::Daemon
            } else {
                EventSource::Agent
            },
            synthetic: event.synthetic,
            event_type: event.event_type,
            data: event.data,
            raw: None,
        };
        let encoded = EncodedEvent::new(&envelope, event.raw);
        self.effects.push_back(Effect::Emit(Arc::new(encoded)));
        if self.ended {
            self.shutdown();
        }
    }

    /// The session ended: nothing runs, waits or is asked any more.
    fn shutdown(&mut self) {
        self.processes.clear();
        self.timers.clear();
        self.streams.clear();
        self.queue.clear();
        self.actions.clear();
        if self.turn_running {
            self.usage.end_turn();
        }
        self.turn_running = false;
        self.pending_permissions.clear();
        self.pending_questions.clear();
        self.effects.push_back(Effect::Shutdown);
    }

    /// `Ok` when the agent asked `what` (`permission` or `question`) `id` and
    /// nobody answered it yet.
    fn require_pending(&self, what: &'static str, id: &str) -> Result<(), CoreError> {
        let pending = if what == "permission" {
            &self.pending_permissions
        } else {
            &self.pending_questions
        };
        if pending.contains(id) {
            Ok(())
        } else {
            Err(CoreError::RequestNotFound {
                session_id: self.identity.session_id.clone(),
                what,
                id: id.to_owned(),
            })
        }
    }

    fn session_ended_error(&self) -> CoreError {
        CoreError::SessionEnded {
            session_id: self.identity.session_id.clone(),
        }
    }
}

/// Unix milliseconds as RFC 3339 (UTC, with milliseconds), as events carry them.
fn rfc3339_millis(millis: i64) -> String {
    use time::format_description::well_known::Rfc3339;
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
        .ok()
        .and_then(|time| time.format(&Rfc3339).ok())
        .unwrap_or_default()
}
