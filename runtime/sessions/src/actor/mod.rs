//! The task that runs one session: the driver of its [`SessionCore`]. It owns
//! the adapter instance and the session's I/O (processes, timers, loopback
//! HTTP, the store): it hands the core every command and input, carries out the
//! effects the core returns (calling the adapter among them), and commits the
//! events staged with the checkpoint they leave.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use agentplex_host::AdapterSession;
use agentplex_universal::{UniversalEventData, UniversalEventType};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::AbortHandle;

use super::command::{Asked, Captured, Request, Tickets};
use super::fault::{self, StorageFault};
use super::incoming::{Delivery, Inbox, InboxReceiver};
use super::loopback::Loopback;
use super::now_millis;
use super::parking::Parking;
use super::processes::{self, ProcessEntry, SpawnContext, Subscriber};
use super::reaper::Reaper;
use super::recording::Recording;
use super::shared::SharedProcesses;
use super::SessionShared;
use crate::SessionError;
use agentplex_session::{CarriedOn, Command, Effect, Identity, LostTurn, Resource, SessionCore};
use agentplex_store::{Checkpoint, Commit, Store, StoreError};

mod io;

/// Most inputs already waiting (process output, timers, responses) handled
/// before their events are committed together.
const INPUTS_PER_COMMIT: usize = 64;
/// Bytes of agent output (see [`Incoming::size`]) past which no more inputs join a
/// commit: what they become waits in memory until the commit.
const BYTES_PER_COMMIT: usize = 1 << 20;
/// Bytes of input (see [`Input::payload_bytes`]) past which a call into the
/// adapter leaves the runtime's worker thread to the other tasks while it runs
/// (`block_in_place`). Smaller calls take microseconds and run in place: handing
/// the worker over costs more than they do (thread wake-ups, and each call's
/// allocations on whichever thread took over). A call is bounded either way by
/// the host's call time limit.
const INLINE_CALL_BYTES: usize = 64 << 10;

/// How much of what waits in the inbox one turn of the loop takes in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Take {
    /// What keeps a commit small: its events wait in memory until it is made.
    OneCommit,
    /// What was waiting when the loop turned: at most the session's in-flight
    /// budget, plus the few reports that are not paced (what arrives meanwhile
    /// waits for the next turn).
    AllWaiting,
}

/// A process a session uses: its own, or a shared one it is attached to.
struct Attached {
    entry: Arc<ProcessEntry>,
    share_key: Option<String>,
}

/// State of one running session task.
pub struct Actor {
    shared: Arc<SessionShared>,
    core: SessionCore,
    adapter: AdapterSession,
    spawn: SpawnContext,
    incoming_tx: Inbox,
    incoming_rx: Option<InboxReceiver>,
    http: Loopback,
    processes: BTreeMap<String, Attached>,
    shared_processes: Arc<SharedProcesses>,
    /// Ends the processes the session lets go of.
    reaper: Arc<Reaper>,
    timers: BTreeMap<String, AbortHandle>,
    streams: BTreeMap<String, AbortHandle>,
    /// Who waits for the turn of a queued message to start.
    tickets: Tickets,
    store: Arc<dyn Store>,
    /// What the store last heard, to skip commits that would change nothing.
    committed: Checkpoint,
    /// A hash of the adapter snapshot the store last got, to skip writing it
    /// again when a commit left the adapter's state as it was (a queued message).
    stored_snapshot: Option<u64>,
    /// When the adapter instance is parked.
    parking: Parking,
    /// Set while the store refuses this session's staged events.
    fault: Option<StorageFault>,
    /// This session's agent's metrics.
    metrics: crate::metrics::AgentMetrics,
    /// When the running turn started, for its duration.
    turn_since: Option<Instant>,
    /// A new session's record not known to be stored yet.
    recording: Option<Recording>,
    /// Told the session's id when a turn ends (a fleet's daemon then saves the
    /// agent's own session files).
    pub(crate) turn_ended: Option<UnboundedSender<String>>,
    /// The session's tokens (gateway route, desktop tools), alive as long as the task.
    held: crate::Held,
    /// The session's approval policy and the waits of the requests it asks about.
    approvals: crate::approval::Approvals,
}

impl Actor {
    /// A session task around a freshly created adapter session, reading `inbox`.
    pub fn new(
        shared: Arc<SessionShared>,
        inbox: (Inbox, InboxReceiver),
        adapter: AdapterSession,
        spawn: SpawnContext,
        shared_processes: Arc<SharedProcesses>,
        reaper: Arc<Reaper>,
        store: Arc<dyn Store>,
    ) -> Self {
        let identity = Identity {
            session_id: shared.record.id.clone(),
            agent: shared.record.agent.clone(),
            max_line_bytes: spawn.max_line_bytes,
        };
        let core = SessionCore::new(identity, shared.record.created_at);
        let http = Loopback::new(spawn.max_line_bytes);
        let (incoming_tx, incoming_rx) = inbox;
        let metrics = crate::metrics::AgentMetrics::of(&shared.record.agent);
        Self {
            shared,
            core,
            adapter,
            spawn,
            incoming_tx,
            incoming_rx: Some(incoming_rx),
            http,
            processes: BTreeMap::new(),
            shared_processes,
            reaper,
            timers: BTreeMap::new(),
            streams: BTreeMap::new(),
            tickets: Tickets::default(),
            store,
            committed: Checkpoint::default(),
            stored_snapshot: None,
            parking: Parking::never(),
            fault: None,
            metrics,
            turn_since: None,
            recording: None,
            turn_ended: None,
            held: crate::Held::default(),
            approvals: crate::approval::Approvals::default(),
        }
    }

    /// Takes commands only once the new session's record is stored (and ends
    /// without taking any if it cannot be).
    pub fn once_recorded(mut self, recording: Recording) -> Self {
        self.recording = Some(recording);
        self
    }

    /// Parks the adapter instance as `parking` says (never by default).
    pub fn parking(mut self, parking: Parking) -> Self {
        self.parking = parking;
        self
    }

    /// Gives a new session its caps on what its model calls may spend.
    pub fn with_budget(mut self, limits: Option<agentplex_universal::BudgetLimits>) -> Self {
        if let Some(limits) = limits {
            self.core.set_budget(limits);
        }
        self
    }

    /// Gives a new session its approval policy.
    pub(crate) fn with_policy(mut self, policy: Option<agentplex_policy::Policy>) -> Self {
        self.core
            .set_policy(policy.as_ref().map(|policy| policy.document().clone()));
        self.approvals.set(policy);
        self
    }

    /// Keeps the session's tokens for as long as the task runs.
    pub(crate) fn holding(mut self, held: crate::Held) -> Self {
        self.held = held;
        self
    }

    /// Carries on from a checkpoint a previous daemon committed: the turn, the
    /// open requests and the queue it had (its processes and timers are gone;
    /// see `resume`).
    pub fn with_checkpoint(mut self, checkpoint: &Checkpoint) -> Self {
        let identity = Identity {
            session_id: self.shared.record.id.clone(),
            agent: self.shared.record.agent.clone(),
            max_line_bytes: self.spawn.max_line_bytes,
        };
        let last = self.shared.log.last_assigned();
        self.core = SessionCore::restore(identity, checkpoint, last);
        self.committed = checkpoint.clone();
        self.approvals.restore(checkpoint.policy.as_deref());
        for id in self.core.asked() {
            self.approvals.arm(id, &self.incoming_tx);
        }
        self
    }

    /// First steps of a session a restarted daemon carries on: tells the adapter
    /// its processes and timers are gone, or, when the running turn died with its
    /// process (`fresh_adapter`), closes that turn and starts the fresh adapter
    /// that resumes the agent's native session.
    pub async fn resume(&mut self, fresh_adapter: bool, why: CarriedOn) {
        let lost = if fresh_adapter {
            self.lost_turn()
        } else {
            LostTurn::default()
        };
        self.core.resume(fresh_adapter, lost, why, now_millis());
        self.drive(Instant::now());
        // Counted among the live instances before the daemon serves.
        self.parking.note_use(self.adapter.is_parked());
        self.commit().await;
    }

    /// What the transcript says of the turn lost with the previous daemon: the
    /// newest event of each pending request, and the turn's id.
    fn lost_turn(&self) -> LostTurn {
        let log = &self.shared.log;
        let permissions = self
            .core
            .pending_permissions()
            .filter_map(|id| {
                log.find_last(|e| matches!(&e.data, UniversalEventData::Permission(p) if p.permission_id == id))
                    .and_then(|e| match e.data {
                        UniversalEventData::Permission(permission) => Some(permission),
                        _ => None,
                    })
            })
            .collect();
        let questions = self
            .core
            .pending_questions()
            .filter_map(|id| {
                log.find_last(
                    |e| matches!(&e.data, UniversalEventData::Question(q) if q.question_id == id),
                )
                .and_then(|e| match e.data {
                    UniversalEventData::Question(question) => Some(question),
                    _ => None,
                })
            })
            .collect();
        let turn_id = if self.core.turn_running() {
            log.find_last(|e| e.event_type == UniversalEventType::TurnStarted)
                .and_then(|e| match e.data {
                    UniversalEventData::Turn(turn) => turn.turn_id,
                    _ => None,
                })
        } else {
            None
        };
        LostTurn {
            permissions,
            questions,
            turn_id,
        }
    }

    /// Runs until the session ends (and what it staged is stored) or the daemon
    /// drops the session; every line it logs names the session and its agent.
    ///
    /// The task's future is what a session at rest costs: written as functions
    /// returning an `async move` block, not `async fn`s (an `async fn` keeps its
    /// arguments in its state apart from its locals, and held the actor two or
    /// three times), with its larger steps boxed: 2.5 KB instead of 9 KB.
    pub fn run(
        self,
        requests: UnboundedReceiver<Box<Request>>,
    ) -> impl std::future::Future<Output = ()> + Send {
        use tracing::Instrument;
        let record = &self.shared.record;
        let span = tracing::info_span!("session", session_id = %record.id, agent = %record.agent);
        self.drive_until_ended(requests).instrument(span)
    }

    /// The actor in the block's state once, driven by [`Actor::drive_loop`]
    /// (an `async fn` here would hold it twice: see [`Actor::run`]).
    #[allow(clippy::manual_async_fn)]
    fn drive_until_ended(
        mut self,
        requests: UnboundedReceiver<Box<Request>>,
    ) -> impl std::future::Future<Output = ()> + Send {
        async move { self.drive_loop(requests).await }
    }

    async fn drive_loop(&mut self, mut requests: UnboundedReceiver<Box<Request>>) {
        if let Some(recording) = self.recording.take() {
            if !recording.wait().await {
                return;
            }
        }
        let mut incoming = self.incoming_rx.take().expect("a session task runs once");
        let mut dropped = false;
        self.parking.note_use(self.adapter.is_parked());
        while self.carries_on(dropped) {
            tokio::select! {
                request = requests.recv(), if !dropped => match request {
                    Some(request) => {
                        // What the session's I/O reported before the command is
                        // handled before it: a process found gone among it, no
                        // message starts on the dead agent. It is at most the
                        // session's in-flight budget.
                        if self.takes_input() {
                            if let Ok(message) = incoming.try_recv() {
                                self.take_input(*message, &mut incoming, Take::AllWaiting);
                            }
                        }
                        // Boxed, like the store's part of a commit: the task keeps
                        // room for the loop's own state, not for its largest step.
                        Box::pin(self.on_request(*request)).await;
                    }
                    None => {
                        dropped = true;
                        let _ = self.on_command(Command::Terminate);
                    }
                },
                () = self.parking.due(), if !self.adapter.is_parked() => {
                    self.park();
                    continue;
                }
                () = fault::retry_due(self.fault.as_ref()) => {}
                // While the store refuses its events the session takes in nothing
                // more: its agent waits on a full pipe instead of filling memory.
                Some(message) = incoming.recv(), if self.takes_input() => {
                    self.take_input(*message, &mut incoming, Take::OneCommit);
                }
            }
            // Before the commit, which lets clients see what the instance did.
            self.parking.note_use(self.adapter.is_parked());
            self.commit().await;
        }
        self.shutdown();
        if !self.core.suspended() {
            self.commit().await;
        }
        // Answer what is still queued so no caller waits forever.
        while let Ok(request) = requests.try_recv() {
            let _ = request.done.send(Err(SessionError::SessionEnded {
                session_id: self.shared.record.id.clone(),
            }));
        }
    }

    /// Whether the session takes in what its I/O reports: not once it ended,
    /// nor while the store refuses its events (its agent then waits on a full
    /// pipe instead of filling memory).
    fn takes_input(&self) -> bool {
        self.fault.is_none() && !self.core.ended()
    }

    /// Hands `first` to the core, then what else has already arrived (as much
    /// as `take` says), into the same commit.
    fn take_input(&mut self, first: Delivery, incoming: &mut InboxReceiver, take: Take) {
        let waiting = incoming.len();
        let (mut count, mut bytes) = (1, first.incoming.size());
        self.on_incoming(first);
        while !self.core.ended() && !self.core.suspended() {
            let full = match take {
                Take::OneCommit => count >= INPUTS_PER_COMMIT || bytes >= BYTES_PER_COMMIT,
                Take::AllWaiting => count > waiting,
            };
            if full {
                break;
            }
            let Ok(message) = incoming.try_recv() else {
                break;
            };
            (count, bytes) = (count + 1, bytes + message.incoming.size());
            self.on_incoming(*message);
        }
    }

    /// Drops the adapter instance of a session at rest, keeping its snapshot
    /// (the next input rebuilds it), and the events it holds in memory (readers
    /// find them in the store). A snapshot that fails is an adapter trap, which
    /// poisons the instance as in any call: the next input reports it.
    fn park(&mut self) {
        self.shared.log.release_tail();
        self.parking.note_use(true);
        match self.adapter.park() {
            Ok(()) => {
                #[cfg(target_env = "musl")]
                agentplex_host::instance_memory::give_back_instance_memory();
                tracing::debug!("parked the adapter instance")
            }
            Err(error) => {
                tracing::warn!(%error, "cannot park the adapter instance")
            }
        }
    }

    /// Whether the task goes on: the session runs, or it ended with events the
    /// store has not taken yet (a daemon shutdown or a deleted session gives up
    /// on those: they were never shown).
    fn carries_on(&self, dropped: bool) -> bool {
        let running = !self.core.ended() && !self.core.suspended();
        running || (self.fault.is_some() && !self.core.suspended() && !dropped)
    }

    /// Answers a request once the state it leaves is stored, so whoever gets the
    /// answer finds it; with a store that cannot be written, refuses it instead.
    async fn on_request(&mut self, request: Request) {
        let Request {
            command,
            turn_started,
            done,
        } = request;
        let command = match command {
            Asked::Core(command) => command,
            Asked::Capture(reply) => {
                let _ = done.send(self.capture(reply).await);
                return;
            }
        };
        if let Err(error) = self.storage_ready(&command).await {
            let _ = done.send(Err(error.into()));
            return;
        }
        let command = self.tickets.issue(command, turn_started);
        let result = self.on_command(command);
        self.commit().await;
        let result = match &self.fault {
            // Taken in but not stored: not acknowledged (the session holds it and
            // stores it with what follows once the store takes writes again).
            Some(fault) => Err(fault.error.clone().into()),
            None => result,
        };
        if !self.carries_on(false) {
            // A session that stops (suspended at the daemon's stop, or ended)
            // lets go of its processes before it answers: whoever waits for the
            // answer, the daemon's stop among them, then finds them being ended.
            self.shutdown();
        }
        let _ = done.send(result);
    }

    /// The state this task stored last, with the adapter's state as of it: what
    /// it took in is committed first, so the three agree.
    async fn capture(
        &mut self,
        reply: tokio::sync::oneshot::Sender<Captured>,
    ) -> Result<(), SessionError> {
        self.commit().await;
        if let Some(fault) = &self.fault {
            return Err(fault.error.clone().into());
        }
        let snapshot = self
            .adapter
            .snapshot()
            .map_err(|error| SessionError::AdapterFailed {
                agent: self.shared.record.agent.clone(),
                detail: error.to_string(),
            })?;
        let _ = reply.send(Captured {
            checkpoint: self.committed.clone(),
            snapshot: Some(snapshot),
            last_sequence: self.shared.log.last_sequence(),
        });
        Ok(())
    }

    /// Whether a command may run: not while this session's events wait for the
    /// store, nor while the store fails for others unless a write of this
    /// session's checkpoint shows it works again. Ending and suspending always run.
    async fn storage_ready(&mut self, command: &Command) -> Result<(), StoreError> {
        if matches!(command, Command::Terminate | Command::Suspend) || !self.store.durable() {
            return Ok(());
        }
        if let Some(fault) = &self.fault {
            return Err(fault.error.clone());
        }
        if !self.store.failing() {
            return Ok(());
        }
        let probe = self.store.commit_queued(Commit {
            session_id: self.shared.record.id.clone(),
            events: Vec::new(),
            checkpoint: self.committed.clone(),
            snapshot: None,
        });
        probe
            .await
            .unwrap_or_else(|_| Err(StoreError::writer_stopped()))
    }

    /// Hands a command to the core and carries out what follows; its outcome.
    fn on_command(&mut self, command: Command) -> Result<(), SessionError> {
        if let Command::SetPolicy(document) = &command {
            let policy = document.as_ref().map(crate::approval::read_policy);
            self.approvals.set(policy.transpose()?);
        }
        self.core.command(command, now_millis());
        self.drive(Instant::now())
            .expect("the session core answers every command")
    }

    /// Hands what the session's I/O reported to the core and carries out what follows.
    fn on_incoming(&mut self, delivery: Delivery) {
        self.core.incoming(delivery.incoming, now_millis());
        self.drive(delivery.received);
    }

    /// Carries out the core's effects until it has none left; the answer to the
    /// command it was given, if it was given one. Each request the policy answered
    /// is timed from `since` (when what led to it arrived: an agent's request read
    /// from its output, or the command) to its answer's hand-over to the agent.
    fn drive(&mut self, since: Instant) -> Option<Result<(), SessionError>> {
        let mut answer = None;
        let mut answered_by_policy = 0;
        loop {
            let Some(effect) = self.core.poll(now_millis()) else {
                let took = since.elapsed();
                for _ in 0..answered_by_policy {
                    crate::metrics::observe(&self.metrics.policy_decisions, took);
                }
                return answer;
            };
            match effect {
                Effect::Feed(input) => {
                    let adapter = &mut self.adapter;
                    let called = Instant::now();
                    let outcome = if input.payload_bytes() > INLINE_CALL_BYTES {
                        tokio::task::block_in_place(|| adapter.handle(input))
                    } else {
                        adapter.handle(input)
                    };
                    crate::metrics::observe(&self.metrics.adapter_calls, called.elapsed());
                    let outcome = outcome.map(|mut actions| {
                        actions.extend(self.native_decisions());
                        actions
                    });
                    self.core
                        .adapter_outcome(outcome.map_err(super::error::adapter_failure));
                    if let Some(offer) = self.adapter.take_agent_offer() {
                        self.core.agent_offered(offer, now_millis());
                    }
                }
                Effect::Decide(id) => {
                    let directory = Path::new(&self.shared.record.directory);
                    let home = self.home();
                    let decided =
                        self.approvals
                            .decide(&mut self.adapter, &id, directory, home.as_deref());
                    if decided.decision == agentplex_universal::PermissionDecision::Ask {
                        self.approvals.arm(&id, &self.incoming_tx);
                    } else {
                        answered_by_policy += 1;
                    }
                    self.core.permission_decided(decided);
                }
                Effect::Emit(event) => self.shared.log.stage(event),
                Effect::NativeSessionId(id) => {
                    self.shared.state.lock().unwrap().native_session_id = Some(id)
                }
                Effect::Io(action) => self.carry_out(action),
                Effect::Release(Resource::Process(id)) => {
                    self.processes.remove(&id);
                }
                Effect::Release(Resource::Timer(id)) => {
                    self.timers.remove(&id);
                }
                Effect::Release(Resource::Stream(id)) => {
                    self.streams.remove(&id);
                }
                Effect::TurnStarted { ticket, after } => {
                    self.tickets.turn_started(ticket, after);
                }
                Effect::Answer(result) => answer = Some(result.map_err(SessionError::from)),
                Effect::Modes(modes) => {
                    if let Err(error) = self.adapter.set_modes(
                        &modes.agent_mode,
                        &modes.permission_mode,
                        modes.model.as_deref(),
                        modes.variant.as_deref(),
                    ) {
                        tracing::warn!(%error, "cannot hand the adapter the session's new modes");
                    }
                }
                Effect::Shutdown => self.shutdown(),
            }
            self.time_turn();
        }
    }

    /// What records the calls the agent decided by its native rules during the
    /// adapter's last call, decided again by the policy for the rule (or default)
    /// behind them.
    fn native_decisions(&mut self) -> Vec<agentplex_host::Action> {
        let decided = self.adapter.take_native_decisions();
        if decided.is_empty() {
            return Vec::new();
        }
        let directory = Path::new(&self.shared.record.directory);
        let home = self.home();
        decided
            .into_iter()
            .map(|native| {
                let data = self
                    .approvals
                    .decide_native(native, directory, home.as_deref());
                agentplex_session::native_decision(data)
            })
            .collect()
    }

    /// Stores the staged events with the state they leave the session in, then
    /// lets readers see them (never before: what a client saw is never lost, and
    /// `ended` must imply that `session.ended` is readable, which SSE relies on).
    /// When the store refuses them they stay staged, unseen, for the next try.
    async fn commit(&mut self) {
        let events = self.shared.log.staged();
        let checkpoint = self.core.checkpoint();
        if !events.is_empty() || checkpoint != self.committed {
            // Boxed: the task keeps room for its loop, not for a write in flight.
            if let Err(error) = Box::pin(self.store_commit(events, checkpoint)).await {
                if let StoreError::LeaseLost { .. } = error {
                    // Another daemon drives the session now: let it go, unwritten.
                    let _ = self.on_command(Command::Suspend);
                    return;
                }
                crate::metrics::metrics().commit_failures.inc();
                if self.fault.is_none() {
                    tracing::warn!(%error, "the session's events cannot be stored; it waits, unseen, until they are");
                }
                self.fault = Some(StorageFault::after(self.fault.take(), error));
                return;
            }
            if self.fault.take().is_some() {
                tracing::info!("the session's events are stored again");
            }
        }
        let before = self.shared.log.last_sequence();
        let published = self.shared.log.publish();
        self.publish_state();
        if let Some(last) = published {
            self.metrics.events.inc_by(last - before);
            self.shared.log.notify(last);
        }
    }

    /// Starts or ends the running turn's clock as the core's state says.
    fn time_turn(&mut self) {
        match (self.turn_since, self.core.turn_running()) {
            (None, true) => self.turn_since = Some(Instant::now()),
            (Some(since), false) => {
                crate::metrics::observe(&self.metrics.turns, since.elapsed());
                self.turn_since = None;
                if let Some(turn_ended) = &self.turn_ended {
                    let _ = turn_ended.send(self.shared.record.id.clone());
                }
            }
            _ => {}
        }
    }

    /// Hands the write to the store, which makes it at once when nobody else
    /// writes, else in its writer's next group commit, and waits for it without
    /// holding a thread.
    async fn store_commit(
        &mut self,
        events: Vec<Arc<agentplex_store::EncodedEvent>>,
        checkpoint: Checkpoint,
    ) -> Result<(), StoreError> {
        // The adapter's state goes with the events it produced, so a restart
        // resumes from a consistent pair; none is needed where a restart would
        // not use it.
        let taken = if self.store.durable() && !self.core.ended() && !checkpoint.restarts_fresh() {
            self.adapter
                .snapshot()
                .ok()
                .map(|snapshot| (hash(&snapshot), snapshot))
                .filter(|(hash, _)| self.stored_snapshot != Some(*hash))
        } else {
            None
        };
        let (written, snapshot) = taken.unzip();
        let done = self.store.commit_queued(Commit {
            session_id: self.shared.record.id.clone(),
            events,
            checkpoint: checkpoint.clone(),
            snapshot,
        });
        let queued = Instant::now();
        let outcome = done
            .await
            .unwrap_or_else(|_| Err(StoreError::writer_stopped()));
        crate::metrics::observe(&crate::metrics::metrics().commit_seconds, queued.elapsed());
        outcome?;
        // Only a snapshot the store holds may be skipped the next time.
        self.stored_snapshot = written.or(self.stored_snapshot);
        self.committed = checkpoint;
        Ok(())
    }

    /// Ends an own process; detaches from a shared one (ended when unused).
    fn release(&self, process: Attached) {
        let unused = match process.share_key {
            Some(key) => self.shared_processes.detach(
                &self.shared.record.agent,
                &key,
                &self.shared.record.id,
            ),
            None => Some(process.entry),
        };
        if let Some(entry) = unused {
            self.reaper.release(entry);
        }
    }

    /// Ends every process and stops every timer and stream of the session; the
    /// messages that were waiting will not run.
    fn shutdown(&mut self) {
        for process in std::mem::take(&mut self.processes).into_values() {
            self.release(process);
        }
        self.approvals.stop();
        for task in std::mem::take(&mut self.timers)
            .into_values()
            .chain(std::mem::take(&mut self.streams).into_values())
        {
            task.abort();
        }
        self.tickets = Tickets::default();
    }

    /// Copies what `GET /v1/sessions` shows into the shared state.
    fn publish_state(&self) {
        let mut state = self.shared.state.lock().unwrap();
        state.updated_at = self.core.updated_at();
        state.ended = self.core.ended();
        state.turn_running = self.core.turn_running();
        state.awaiting_input = self.core.awaiting_input();
        state.queued_messages = self.core.queued_messages() as u64;
        state.usage = *self.core.usage();
        state.budget = self.core.budget();
        state.policy = self.core.policy().cloned();
        state.modes = self.core.modes().cloned();
        state.offer = self.core.agent_offer().cloned();
    }

    /// The home of the session's agent, for a policy's `~/`: its `HOME`, else
    /// the daemon's.
    fn home(&self) -> Option<PathBuf> {
        let env = &self.adapter.config().env;
        env.iter()
            .find(|(name, _)| name == "HOME")
            .map(|(_, home)| PathBuf::from(home))
            .or_else(|| std::env::var_os("HOME").map(PathBuf::from))
    }
}

/// A hash to tell whether a snapshot changed.
fn hash(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    hasher.finish()
}
