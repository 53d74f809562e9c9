//! One ACP connection: a client's JSON-RPC calls served with the daemon's
//! sessions, and each followed session's events sent back as `session/update`s
//! and requests (permissions, questions) through the connection's outbox.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use agentplex_acp::calls::{self, PermissionChoice};
use agentplex_acp::rpc::{self, Message, RequestId, RpcError, Unreadable};
use agentplex_acp::updates::{Step, StopReason, Updates};
use agentplex_api::{CreateSessionRequest, SessionModes};
use agentplex_sessions::{Command, Session, Until};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::oneshot;

use super::errors::{api_error, session_error};
use super::outbox::Outbox;
use crate::AppState;

/// How many sessions one `session/list` page holds.
const LIST_PAGE: usize = 50;

/// What the sessions a connection creates are created with, besides their
/// directory: the first POST's query (`?agent=NAME&model=...`), or the
/// options of `agentplex acp`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionOptions {
    /// The agent.
    pub agent: Option<String>,
    /// Its model.
    pub model: Option<String>,
    /// Its mode (`agentMode`, or `mode`).
    #[serde(alias = "mode")]
    pub agent_mode: Option<String>,
    /// Its permission mode.
    pub permission_mode: Option<String>,
    /// The model's variant.
    pub variant: Option<String>,
}

/// A request of ours the client has not answered.
enum Pending {
    Permission {
        session_id: String,
        permission_id: String,
    },
    Question {
        session_id: String,
        question_id: String,
    },
}

impl Pending {
    /// The universal id it asks about.
    fn asks(&self) -> &str {
        match self {
            Self::Permission { permission_id, .. } => permission_id,
            Self::Question { question_id, .. } => question_id,
        }
    }
}

/// What a prompt waits for.
type TurnOutcome = Result<StopReason, String>;

/// The turns of a followed session, as its prompts wait for them.
#[derive(Default)]
struct Turns {
    /// The sequence and reason of the last turn end seen.
    last_end: Option<(u64, StopReason)>,
    /// The running prompt: the sequence before its turn, and who waits.
    waiter: Option<(u64, oneshot::Sender<TurnOutcome>)>,
    /// Whether the client cancelled the running prompt.
    cancelled: bool,
    /// Why the session ended, once it did.
    ended: Option<String>,
    /// Told once the replay of a `session/load` is sent.
    caught_up: Option<(u64, oneshot::Sender<()>)>,
}

/// A session the connection follows.
pub(super) struct Followed {
    pub(super) session: Arc<Session>,
    turns: Mutex<Turns>,
    task: Mutex<Option<tokio::task::AbortHandle>>,
    /// Changes of modes this connection asked for, not yet seen in the events.
    pub(super) own_changes: AtomicUsize,
}

impl Drop for Followed {
    fn drop(&mut self) {
        if let Some(task) = self.task.get_mut().unwrap().take() {
            task.abort();
        }
    }
}

#[derive(Default)]
struct Inner {
    initialized: bool,
    /// Whether the client answers `elicitation/create`.
    elicitation: bool,
    sessions: HashMap<String, Arc<Followed>>,
    pending: HashMap<i64, Pending>,
    next_request: i64,
}

/// The answer to a request, and the session it is about.
pub struct Answer {
    /// The session the request was about, if any.
    pub scope: Option<String>,
    /// The JSON-RPC response.
    pub message: Value,
}

impl Answer {
    /// The JSON-RPC error answering a message that could not be read.
    pub fn unreadable(unreadable: Unreadable) -> Self {
        Self {
            scope: None,
            message: rpc::response(unreadable.id.as_ref(), Err(unreadable.error)),
        }
    }

    /// Puts the answer in the connection's stream.
    pub fn send(&self, outbox: &Outbox) {
        outbox.push(self.scope.as_deref(), &self.message);
    }
}

/// One ACP client's connection.
pub struct Connection {
    /// The server id it was opened with.
    pub id: String,
    /// The agent its new sessions run.
    pub agent: String,
    options: SessionOptions,
    pub(super) state: AppState,
    /// What it sends the client.
    pub outbox: Arc<Outbox>,
    inner: Mutex<Inner>,
    /// When the client last sent a message, or last had a stream open.
    last_active: Mutex<Instant>,
    /// The client's streams open now.
    streams: AtomicUsize,
}

/// An open stream of a connection: while one is, the connection is not idle.
pub struct StreamGuard(Arc<Connection>);

impl Drop for StreamGuard {
    fn drop(&mut self) {
        self.0.touch();
        self.0.streams.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Connection {
    /// A connection for `agent` with `options`.
    pub fn new(id: String, agent: String, options: SessionOptions, state: AppState) -> Arc<Self> {
        Arc::new(Self {
            id,
            agent,
            options,
            state,
            outbox: Arc::new(Outbox::new()),
            inner: Mutex::new(Inner::default()),
            last_active: Mutex::new(Instant::now()),
            streams: AtomicUsize::new(0),
        })
    }

    /// Notes that the client is there now.
    fn touch(&self) {
        *self.last_active.lock().unwrap() = Instant::now();
    }

    /// Holds the connection active while a stream of it is open.
    pub fn stream_opened(self: &Arc<Self>) -> StreamGuard {
        self.streams.fetch_add(1, Ordering::SeqCst);
        self.touch();
        StreamGuard(self.clone())
    }

    /// How long the client has been gone: `None` while a stream is open.
    pub fn idle_for(&self) -> Option<Duration> {
        if self.streams.load(Ordering::SeqCst) > 0 {
            return None;
        }
        Some(self.last_active.lock().unwrap().elapsed())
    }

    /// The sessions it follows.
    pub fn session_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .inner
            .lock()
            .unwrap()
            .sessions
            .keys()
            .cloned()
            .collect();
        ids.sort();
        ids
    }

    /// Stops following every session and ends the outbox's streams.
    pub fn close(&self) {
        let mut inner = self.inner.lock().unwrap();
        inner.sessions.clear();
        inner.pending.clear();
        drop(inner);
        self.outbox.close();
    }

    /// Takes one message from the client; a request's answer is returned, with
    /// the session it is about (if it is about one).
    pub async fn receive(self: &Arc<Self>, message: Message) -> Option<Answer> {
        self.touch();
        match message {
            Message::Request { id, method, params } => {
                let scope = calls::session_scope(&method, &params);
                let outcome = self.call(&method, params).await;
                Some(Answer {
                    scope,
                    message: rpc::response(Some(&id), outcome),
                })
            }
            Message::Notification { method, params } => {
                self.notified(&method, params).await;
                None
            }
            Message::Response { id, outcome } => {
                self.answered(id, outcome).await;
                None
            }
        }
    }

    async fn call(self: &Arc<Self>, method: &str, params: Value) -> Result<Value, RpcError> {
        if method == "initialize" {
            return self.initialize(params);
        }
        if !self.inner.lock().unwrap().initialized {
            return Err(RpcError::invalid_request(format!(
                "{method}: call `initialize` first"
            )));
        }
        match method {
            "authenticate" => Ok(json!({})),
            "session/new" => self.new_session(calls::params(method, params)?).await,
            "session/load" => self.open(calls::params(method, params)?, true).await,
            "session/resume" => self.open(calls::params(method, params)?, false).await,
            "session/prompt" => self.prompt(calls::params(method, params)?).await,
            "session/list" => self.list(calls::params(method, params)?),
            "session/close" => self.close_session(calls::params(method, params)?).await,
            "session/delete" => self.delete_session(calls::params(method, params)?).await,
            "session/set_mode" => self.set_mode(calls::params(method, params)?).await,
            "session/set_model" => self.set_model(calls::params(method, params)?).await,
            "session/set_config_option" => {
                self.set_config_option(calls::params(method, params)?).await
            }
            _ => Err(RpcError::new(
                rpc::code::METHOD_NOT_FOUND,
                format!("{method:?} is not a method of this agent"),
            )),
        }
    }

    async fn notified(self: &Arc<Self>, method: &str, params: Value) {
        if method == "session/cancel" {
            if let Ok(cancel) = calls::params::<calls::SessionRef>(method, params) {
                self.cancel(&cancel.session_id).await;
            }
        }
        // Other notifications (`$/cancel_request`...) need nothing here.
    }

    fn initialize(&self, params: Value) -> Result<Value, RpcError> {
        let init: calls::Initialize = calls::params("initialize", params)?;
        let mut inner = self.inner.lock().unwrap();
        inner.initialized = true;
        inner.elicitation = init.client_capabilities.elicitation.is_some();
        // A client asking a newer version gets the one spoken here, and decides.
        let _ = init.protocol_version;
        // Images, when the agent takes them.
        let images = (self.state.catalog.adapter(&self.agent))
            .is_ok_and(|adapter| adapter.info().has("images"));
        Ok(json!({
            "protocolVersion": agentplex_acp::PROTOCOL_VERSION,
            "agentCapabilities": {
                "loadSession": true,
                "promptCapabilities": {"image": images, "audio": false, "embeddedContext": true},
                "mcpCapabilities": {"http": true, "sse": true},
                "sessionCapabilities": {"list": {}, "resume": {}, "close": {}, "delete": {}},
            },
            "authMethods": [],
            "agentInfo": {
                "name": "agentplex",
                "title": format!("agentplex: {}", self.agent),
                "version": env!("CARGO_PKG_VERSION"),
            },
        }))
    }

    async fn new_session(self: &Arc<Self>, params: calls::NewSession) -> Result<Value, RpcError> {
        if !std::path::Path::new(&params.cwd).is_absolute() {
            return Err(RpcError::invalid_params(format!(
                "session/new: `cwd` must be an absolute path, not {:?}",
                params.cwd
            )));
        }
        let mcp = calls::mcp_servers(&params.mcp_servers)?;
        let directory = self
            .state
            .fs
            .working_directory(Some(&params.cwd))
            .map_err(|error| api_error(error.into()))?;
        let options = &self.options;
        let request = CreateSessionRequest {
            agent: self.agent.clone(),
            agent_mode: options.agent_mode.clone(),
            permission_mode: options.permission_mode.clone(),
            model: options.model.clone(),
            variant: options.variant.clone(),
            directory,
            mcp: (!mcp.is_empty()).then_some(mcp),
            ..Default::default()
        };
        let suffix = uuid::Uuid::new_v4().simple().to_string();
        let session_id = format!("acp-{}", &suffix[..16]);
        let session = self
            .state
            .sessions
            .create(&session_id, request)
            .await
            .map_err(session_error)?;
        session
            .command(Command::Start)
            .await
            .map_err(session_error)?;
        let mut answer = self.modes_fields(&session);
        answer["sessionId"] = session_id.clone().into();
        self.follow(session, 0, None);
        Ok(answer)
    }

    /// `session/load` (`replay`: every event so far sent again first) or
    /// `session/resume`.
    async fn open(
        self: &Arc<Self>,
        params: calls::OpenSession,
        replay: bool,
    ) -> Result<Value, RpcError> {
        let sessions = &self.state.sessions;
        // A session of the fleet whose daemon died is taken over first, as a
        // REST request for it would (a live owner's gets `session_elsewhere`).
        sessions
            .adopt(&params.session_id)
            .await
            .map_err(session_error)?;
        let session = sessions.get(&params.session_id).map_err(session_error)?;
        let last = session.info().event_count;
        let answer = self.modes_fields(&session);
        if replay {
            let (done, caught_up) = oneshot::channel();
            self.follow(session, 0, Some((last, done)));
            caught_up
                .await
                .map_err(|_| RpcError::internal("the session's transcript could not be read"))?;
        } else if !self
            .inner
            .lock()
            .unwrap()
            .sessions
            .contains_key(&params.session_id)
        {
            self.follow(session, last, None);
        }
        Ok(answer)
    }

    /// Follows `session` from after `from`; with `replay`, the events up to its
    /// sequence are a replay and its sender is told once they are sent.
    fn follow(
        self: &Arc<Self>,
        session: Arc<Session>,
        from: u64,
        replay: Option<(u64, oneshot::Sender<()>)>,
    ) {
        let session_id = session.record().id.clone();
        let replay_until = replay.as_ref().map_or(0, |(until, _)| *until);
        let mut turns = Turns::default();
        match replay {
            Some((until, done)) if until > from => turns.caught_up = Some((until, done)),
            Some((_, done)) => {
                let _ = done.send(());
            }
            None => {}
        }
        let followed = Arc::new(Followed {
            session: session.clone(),
            turns: Mutex::new(turns),
            task: Mutex::new(None),
            own_changes: AtomicUsize::new(0),
        });
        let connection = Arc::downgrade(self);
        let task = tokio::spawn(follow_events(
            connection,
            followed.clone(),
            from,
            replay_until,
        ));
        *followed.task.lock().unwrap() = Some(task.abort_handle());
        self.inner
            .lock()
            .unwrap()
            .sessions
            .insert(session_id, followed);
    }

    pub(super) fn followed(&self, session_id: &str) -> Result<Arc<Followed>, RpcError> {
        self.inner
            .lock()
            .unwrap()
            .sessions
            .get(session_id)
            .cloned()
            .ok_or_else(|| {
                RpcError::not_found(format!(
                    "session {session_id:?} is not open on this connection: session/new, session/load or session/resume it first"
                ))
            })
    }

    async fn prompt(self: &Arc<Self>, params: calls::Prompt) -> Result<Value, RpcError> {
        let followed = self.followed(&params.session_id)?;
        {
            let mut turns = followed.turns.lock().unwrap();
            if turns.waiter.is_some() {
                return Err(RpcError::invalid_request(
                    "session/prompt: a prompt of this session is running; wait for it or cancel it",
                ));
            }
            if let Some(ended) = &turns.ended {
                return Err(RpcError::internal(format!("the session ended: {ended}")));
            }
            turns.cancelled = false;
        }
        let sessions = &self.state.sessions;
        let mut save = |bytes: Vec<u8>, mime: &str| {
            let extension = mime
                .strip_prefix("image/")
                .filter(|e| e.chars().all(char::is_alphanumeric));
            sessions
                .keep_attachment(&params.session_id, bytes, extension.unwrap_or("bin"))
                .map(|path| path.display().to_string())
                .map_err(|error| error.to_string())
        };
        let parts = calls::message_parts(params.prompt, &mut save)?;
        let parts = crate::routes::adapter_parts(parts);
        let started = followed.session.send(parts).await.map_err(session_error)?;
        let after = started.await.map_err(|_| {
            RpcError::internal("the session ended before the prompt's turn started")
        })?;
        let (done, outcome) = oneshot::channel();
        {
            let mut turns = followed.turns.lock().unwrap();
            match (&turns.last_end, &turns.ended) {
                (Some((sequence, reason)), _) if *sequence > after => {
                    let _ = done.send(Ok(*reason));
                }
                (_, Some(ended)) => {
                    let _ = done.send(Err(ended.clone()));
                }
                _ => turns.waiter = Some((after, done)),
            }
        }
        let reason = outcome
            .await
            .map_err(|_| RpcError::internal("the connection stopped following the session"))?
            .map_err(|ended| RpcError::internal(format!("the session ended: {ended}")))?;
        let reason = if followed.turns.lock().unwrap().cancelled {
            StopReason::Cancelled
        } else {
            reason
        };
        Ok(json!({"stopReason": reason.as_str()}))
    }

    async fn cancel(&self, session_id: &str) {
        let Ok(followed) = self.followed(session_id) else {
            return;
        };
        followed.turns.lock().unwrap().cancelled = true;
        if let Err(error) = followed.session.command(Command::Cancel).await {
            tracing::debug!(session_id, %error, "ACP cancel");
        }
    }

    fn list(&self, params: calls::ListSessions) -> Result<Value, RpcError> {
        let mut sessions: Vec<_> = self
            .state
            .sessions
            .list()
            .iter()
            .map(|session| session.info())
            .filter(|info| info.agent == self.agent)
            .filter(|info| params.cwd.is_none() || info.directory == params.cwd)
            .collect();
        sessions.sort_by(|a, b| {
            b.updated_at
                .cmp(&a.updated_at)
                .then(a.session_id.cmp(&b.session_id))
        });
        let start = match &params.cursor {
            Some(cursor) => cursor.parse::<usize>().map_err(|_| {
                RpcError::invalid_params(format!(
                    "session/list: {cursor:?} is not a cursor this agent gave"
                ))
            })?,
            None => 0,
        };
        let page: Vec<Value> = sessions
            .iter()
            .skip(start)
            .take(LIST_PAGE)
            .map(|info| {
                let mut entry = json!({
                    "sessionId": info.session_id,
                    "cwd": info.directory.clone().unwrap_or_default(),
                    "updatedAt": rfc3339(info.updated_at),
                });
                if let Some(title) = &info.title {
                    entry["title"] = title.clone().into();
                }
                entry
            })
            .collect();
        let mut answer = json!({"sessions": page});
        if start + LIST_PAGE < sessions.len() {
            answer["nextCursor"] = (start + LIST_PAGE).to_string().into();
        }
        Ok(answer)
    }

    async fn close_session(&self, params: calls::SessionRef) -> Result<Value, RpcError> {
        let followed = self
            .inner
            .lock()
            .unwrap()
            .sessions
            .remove(&params.session_id);
        match followed {
            Some(followed) => {
                // A running turn stops (a no-op when idle).
                let _ = followed.session.command(Command::Cancel).await;
                Ok(json!({}))
            }
            None => Err(RpcError::not_found(format!(
                "session {:?} is not open on this connection",
                params.session_id
            ))),
        }
    }

    async fn delete_session(&self, params: calls::SessionRef) -> Result<Value, RpcError> {
        self.inner
            .lock()
            .unwrap()
            .sessions
            .remove(&params.session_id);
        let sessions = &self.state.sessions;
        sessions
            .adopt(&params.session_id)
            .await
            .map_err(session_error)?;
        sessions
            .delete(&params.session_id)
            .await
            .map_err(session_error)?;
        Ok(json!({}))
    }

    /// The client answered one of our requests.
    async fn answered(&self, id: RequestId, outcome: Result<Value, RpcError>) {
        let RequestId::Number(number) = id else {
            return;
        };
        let Some(pending) = self.inner.lock().unwrap().pending.remove(&number) else {
            return;
        };
        let (session_id, command) = match pending {
            Pending::Permission {
                session_id,
                permission_id,
            } => {
                let choice = outcome
                    .and_then(|result| calls::permission_choice(&result))
                    .unwrap_or(PermissionChoice::Reject);
                let reply = match choice {
                    PermissionChoice::Once => agentplex_host::PermissionReply::Once,
                    PermissionChoice::Always => agentplex_host::PermissionReply::Always,
                    PermissionChoice::Reject => agentplex_host::PermissionReply::Reject,
                };
                (
                    session_id,
                    Command::ReplyPermission {
                        permission_id,
                        reply,
                    },
                )
            }
            Pending::Question {
                session_id,
                question_id,
            } => match outcome.and_then(|result| calls::question_answer(&result)) {
                Ok(Some(answer)) => (
                    session_id,
                    Command::ReplyQuestion {
                        question_id,
                        answers: vec![vec![answer]],
                    },
                ),
                Ok(None) | Err(_) => (session_id, Command::RejectQuestion { question_id }),
            },
        };
        let Ok(followed) = self.followed(&session_id) else {
            return;
        };
        if let Err(error) = followed.session.command(command).await {
            tracing::debug!(session_id, %error, "ACP answer not taken");
        }
    }

    /// Carries out what one event means to the client.
    fn step(&self, followed: &Followed, step: Step, sequence: u64) {
        let session_id = &followed.session.record().id;
        match step {
            Step::Update(update) => self.outbox.push(
                Some(session_id),
                &rpc::notification(
                    "session/update",
                    json!({"sessionId": session_id, "update": update}),
                ),
            ),
            Step::AskPermission {
                permission_id,
                mut params,
            } => {
                params["sessionId"] = session_id.clone().into();
                let pending = Pending::Permission {
                    session_id: session_id.clone(),
                    permission_id,
                };
                self.ask(session_id, "session/request_permission", params, pending);
            }
            Step::AskQuestion {
                question_id,
                mut params,
                ..
            } => {
                if self.inner.lock().unwrap().elicitation {
                    params["sessionId"] = session_id.clone().into();
                    let pending = Pending::Question {
                        session_id: session_id.clone(),
                        question_id,
                    };
                    self.ask(session_id, "elicitation/create", params, pending);
                } else {
                    // A client without elicitation cannot answer: the agent hears
                    // the question declined rather than waiting for ever.
                    let session = followed.session.clone();
                    tokio::spawn(async move {
                        let _ = session
                            .command(Command::RejectQuestion { question_id })
                            .await;
                    });
                }
            }
            Step::Resolved { id } => {
                let mut inner = self.inner.lock().unwrap();
                let asked = inner
                    .pending
                    .iter()
                    .find(|(_, pending)| pending.asks() == id)
                    .map(|(number, _)| *number);
                if let Some(number) = asked {
                    inner.pending.remove(&number);
                    drop(inner);
                    self.outbox.push(
                        Some(session_id),
                        &rpc::notification("$/cancel_request", json!({"requestId": number})),
                    );
                }
            }
            Step::ModesChanged {
                agent_mode,
                permission_mode,
                model,
                variant,
            } => {
                let changed = SessionModes {
                    agent_mode: Some(agent_mode),
                    permission_mode: Some(permission_mode),
                    model,
                    variant,
                };
                self.tell_modes(followed, changed);
            }
            Step::OfferChanged => self.tell_offer(followed),
            Step::TurnEnded(reason) => {
                let mut turns = followed.turns.lock().unwrap();
                turns.last_end = Some((sequence, reason));
                if turns
                    .waiter
                    .as_ref()
                    .is_some_and(|(after, _)| *after < sequence)
                {
                    let (_, done) = turns.waiter.take().unwrap();
                    let _ = done.send(Ok(reason));
                }
            }
            Step::SessionEnded { message } => {
                let mut turns = followed.turns.lock().unwrap();
                turns.ended = Some(message.clone());
                if let Some((_, done)) = turns.waiter.take() {
                    let _ = done.send(Err(message));
                }
            }
        }
    }

    /// Sends the client a request about `session_id` it must answer.
    fn ask(&self, session_id: &str, method: &str, params: Value, pending: Pending) {
        let mut inner = self.inner.lock().unwrap();
        inner.next_request += 1;
        let number = inner.next_request;
        inner.pending.insert(number, pending);
        drop(inner);
        self.outbox.push(
            Some(session_id),
            &rpc::request(&RequestId::Number(number), method, params),
        );
    }
}

/// Follows one session's events for a connection, until the session ends or the
/// connection stops following it.
async fn follow_events(
    connection: Weak<Connection>,
    followed: Arc<Followed>,
    from: u64,
    replay_until: u64,
) {
    let mut updates = Updates::new();
    let events = followed.session.clone().follow(from, Until::SessionEnd);
    futures::pin_mut!(events);
    while let Some(encoded) = events.next().await {
        let Some(connection) = connection.upgrade() else {
            return;
        };
        let Ok(event) = encoded.decode_envelope() else {
            continue;
        };
        let sequence = event.sequence;
        updates.set_replay(sequence <= replay_until);
        for step in updates.apply(&event) {
            connection.step(&followed, step, sequence);
        }
        let mut turns = followed.turns.lock().unwrap();
        if turns
            .caught_up
            .as_ref()
            .is_some_and(|(until, _)| sequence >= *until)
        {
            let (_, done) = turns.caught_up.take().unwrap();
            let _ = done.send(());
        }
    }
}

/// Unix milliseconds as RFC 3339.
fn rfc3339(millis: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
        .ok()
        .and_then(|time| {
            time.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}
