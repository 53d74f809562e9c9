//! Sessions: each one an adapter instance driven by its own task, with a
//! transcript that clients poll or stream; the agents they run ([`agents`]: the
//! catalog of adapters, installs on demand, the adapters folder), the daemon's
//! metrics ([`metrics`]), and where the usage of their model calls is delivered
//! ([`UsageSink`]).

mod actor;
pub mod agents;
mod approval;
mod command;
mod desktop;
mod error;
mod fault;
mod fleet;
mod incoming;
mod launch;
mod log;
mod loopback;
mod metering;
pub mod metrics;
pub mod modes;
pub mod moves;
mod parking;
mod processes;
mod reading;
mod reaper;
mod recording;
mod restore;
pub mod retention;
mod scratch;
mod settings;
mod shared;
pub mod skills;
mod usage;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use agentplex_api::{CreateSessionRequest, SessionInfo, SessionStatus};
use agentplex_host::{MessagePart, SessionConfig};
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};
use tokio::sync::{oneshot, watch};

use actor::Actor;
pub use agentplex_session::Command;
pub use approval::read_policy;
use command::{Asked, Request};
pub use error::SessionError;
use incoming::Inbox;
use log::EventLog;
pub use log::{Page, TAIL_EVENTS};
use processes::SpawnContext;
pub use reading::Until;
pub use settings::SessionSettings;
pub use usage::{SessionGone, UsageSink};

use crate::agents::AgentCatalog;
use agentplex_store::{SessionRecord, Store};

/// What `GET /v1/sessions` shows about a session, kept current by its task.
#[derive(Debug, Default)]
struct SessionState {
    pub native_session_id: Option<String>,
    pub ended: bool,
    pub turn_running: bool,
    pub awaiting_input: bool,
    pub queued_messages: u64,
    /// Unix milliseconds of the latest event.
    pub updated_at: i64,
    /// Another daemon of the fleet took the session over: this one no longer
    /// drives it (its streams end).
    pub elsewhere: bool,
    /// What the daemon metered of the session's model calls.
    pub usage: agentplex_session::MeteredUsage,
    /// Whether a usage sink was taken for the session ([`Session::usage_sink`]).
    pub metered: bool,
    /// The caps on what its model calls may spend, once set.
    pub budget: Option<agentplex_universal::BudgetLimits>,
    /// The approval policy it decides permission requests with, as given.
    pub policy: Option<serde_json::Value>,
    /// The modes a client set since the session was created (the record has
    /// the ones it was created with).
    pub modes: Option<agentplex_session::Modes>,
    /// What its agent offers to choose from, once it said (adapters with the
    /// capability `agent-offer`).
    pub offer: Option<Arc<agentplex_universal::AgentOffer>>,
}

/// The parts of a session shared between its task and its readers.
struct SessionShared {
    /// What the session was created with (as stored).
    pub record: SessionRecord,
    pub log: EventLog,
    pub state: Mutex<SessionState>,
}

impl SessionShared {
    /// The shared part of a session created with `record`.
    fn new(record: &SessionRecord, log: EventLog) -> Self {
        Self {
            record: record.clone(),
            log,
            state: Mutex::new(SessionState::default()),
        }
    }
}

/// A handle on a live or ended session.
pub struct Session {
    shared: Arc<SessionShared>,
    /// Boxed: a channel allocates 32 slots up front (see `Inbox`).
    requests: UnboundedSender<Box<Request>>,
    /// What the session's I/O reports to its task (closed when it has none).
    inbox: Inbox,
    /// The budget the model gateway holds the session's calls to, when it
    /// meters them.
    budget: Option<Arc<agentplex_gateway::Budget>>,
}

impl Session {
    /// What the session was created with.
    pub fn record(&self) -> &SessionRecord {
        &self.shared.record
    }

    /// The agent's own id for the session, once the adapter said it.
    pub fn native_session_id(&self) -> Option<String> {
        self.shared.state.lock().unwrap().native_session_id.clone()
    }

    /// Sends a command to the session's task and waits for its outcome.
    pub async fn command(&self, command: Command) -> Result<(), SessionError> {
        self.request(command, None).await
    }

    /// Sends a command, and who waits for its turn to start, to the session's
    /// task; waits for its outcome.
    async fn request(
        &self,
        command: Command,
        turn_started: Option<oneshot::Sender<u64>>,
    ) -> Result<(), SessionError> {
        let (done, outcome) = oneshot::channel();
        let ended = || SessionError::SessionEnded {
            session_id: self.shared.record.id.clone(),
        };
        self.requests
            .send(Box::new(Request {
                command: Asked::Core(command),
                turn_started,
                done,
            }))
            .map_err(|_| ended())?;
        outcome.await.map_err(|_| ended())?
    }

    /// Queues a user message. The returned receiver yields the last sequence
    /// before the message's turn starts (for streaming that turn).
    pub async fn send(
        &self,
        parts: Vec<MessagePart>,
    ) -> Result<oneshot::Receiver<u64>, SessionError> {
        let (turn_started, started) = oneshot::channel();
        self.request(
            Command::Send {
                parts,
                ticket: None,
            },
            Some(turn_started),
        )
        .await?;
        Ok(started)
    }

    /// The modes and models the session's agent offers, as it last said
    /// (`None`: it said nothing, or its adapter does not report it).
    pub fn agent_offer(&self) -> Option<Arc<agentplex_universal::AgentOffer>> {
        self.shared.state.lock().unwrap().offer.clone()
    }

    /// The listing entry of this session.
    pub fn info(&self) -> SessionInfo {
        let shared = &self.shared;
        let state = shared.state.lock().unwrap();
        let status = if state.ended {
            SessionStatus::Ended
        } else if state.awaiting_input {
            SessionStatus::AwaitingInput
        } else if state.turn_running {
            SessionStatus::Running
        } else {
            SessionStatus::Idle
        };
        let mut info = listed(&shared.record, status, shared.log.last_sequence());
        info.native_session_id = state.native_session_id.clone();
        info.updated_at = state.updated_at.max(shared.record.created_at);
        info.queued_messages = state.queued_messages;
        info.usage = usage::session_usage(&state.usage, state.metered);
        info.budget = state.budget;
        info.policy = state.policy.clone();
        if let Some(modes) = &state.modes {
            info.agent_mode = modes.agent_mode.clone();
            info.permission_mode = modes.permission_mode.clone();
            if let Some(model) = &modes.model {
                info.model = Some(model.clone());
            }
            if let Some(variant) = &modes.variant {
                info.variant = Some(variant.clone());
            }
        }
        info
    }
}

/// The listing entry of a session created with `record` holding `event_count`
/// events, as far as the record says.
fn listed(record: &SessionRecord, status: SessionStatus, event_count: u64) -> SessionInfo {
    SessionInfo {
        session_id: record.id.clone(),
        agent: record.agent.clone(),
        agent_mode: record.agent_mode.clone(),
        permission_mode: record.permission_mode.clone(),
        model: record.model.clone(),
        variant: record.variant.clone(),
        title: record.title.clone(),
        directory: Some(record.directory.clone()),
        native_session_id: None,
        ended: status == SessionStatus::Ended,
        event_count,
        created_at: record.created_at,
        updated_at: record.created_at,
        status,
        queued_messages: 0,
        mcp: (!record.mcp.is_empty()).then(|| {
            record
                .mcp
                .iter()
                .map(|(name, server)| (name.clone(), server.redacted()))
                .collect()
        }),
        skills: record
            .skill_sources
            .as_ref()
            .map(|skills| skills.redacted()),
        owner: None,
        owner_alive: None,
        usage: None,
        budget: None,
        policy: None,
        desktop: record.desktop.then_some(true),
    }
}

/// The permission modes a session can ask for; adapters map them to their agent's
/// own settings (`acceptEdits`, from 0.1.x, behaves as `default` where an agent
/// has no such mode).
pub const PERMISSION_MODES: &[&str] = &["default", "plan", "bypass", "acceptEdits"];

/// Unix time in milliseconds: the one clock of the sessions, handed to their cores.
fn now_millis() -> i64 {
    (time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as i64
}

/// Every session of the daemon.
pub struct SessionManager {
    sessions: RwLock<BTreeMap<String, Arc<Session>>>,
    catalog: Arc<AgentCatalog>,
    shared_processes: Arc<shared::SharedProcesses>,
    /// Ends the processes sessions let go of (politely once the daemon stops).
    reaper: Arc<reaper::Reaper>,
    settings: SessionSettings,
    /// The sessions holding an adapter instance, under the settings' cap.
    instances: Arc<parking::LiveInstances>,
    store: Arc<dyn Store>,
    /// Where each session's scratch folder is made (see [`scratch_dir`]).
    scratch_root: PathBuf,
    /// The git skill sources fetched, beside the scratch folders.
    skill_cache: skills::GitCache,
    /// Becomes true when the daemon shuts down (open streams end).
    closing: watch::Sender<bool>,
    /// Held while a session is taken over from another daemon of the fleet.
    adopting: tokio::sync::Mutex<()>,
    /// Told the session's id when a turn ends, in a fleet ([`fleet`]).
    turn_ended: std::sync::OnceLock<UnboundedSender<String>>,
    /// The model gateway sessions' model calls go through (`--gateway`); none:
    /// agents call their providers directly, unmetered.
    gateway: Option<Arc<agentplex_gateway::Gateway>>,
    /// The MCP server of the desktop's tools, for sessions created with `desktop`.
    desktop_tools: Option<Arc<agentplex_desktop_mcp::DesktopTools>>,
    /// The approval policy of sessions created without one (`--policy`).
    default_policy: Option<agentplex_policy::Policy>,
}

/// What a session's adapter and processes start with (see
/// [`SessionManager::session_config`]).
struct Launch {
    /// What the adapter is told.
    config: SessionConfig,
    /// The environment of the session's processes.
    env: Vec<(String, String)>,
    /// Variables of the daemon's environment the processes must not inherit,
    /// besides other agents' credentials (the metered formats' base URLs and keys).
    withheld: Vec<String>,
    /// The session's tokens.
    held: Held,
    /// The session's budget in the gateway, when it is metered.
    budget: Option<Arc<agentplex_gateway::Budget>>,
}

impl Launch {
    /// The launch of a session deciding with `policy`: the adapter is told it, so
    /// it can have its agent ask about what the policy decides.
    fn with_policy(mut self, policy: Option<&agentplex_policy::Policy>) -> Self {
        self.config.policy =
            policy.map(|policy| agentplex_host::approval_policy(policy.document()));
        self
    }
}

/// What a session's task holds while it runs: tokens that work as long as it runs,
/// and no longer.
#[derive(Default)]
struct Held {
    /// The session's route through the model gateway, when it is metered.
    route: Option<agentplex_gateway::RouteGuard>,
    /// The agent's grant of the desktop's tools, when it has them (held for its
    /// drop, which ends the token).
    _desktop: Option<agentplex_desktop_mcp::Grant>,
}

impl SessionManager {
    /// A manager that creates sessions on the catalog's adapters, keeps them in
    /// `store`, and makes their scratch folders under `scratch_root`.
    pub fn new(
        catalog: Arc<AgentCatalog>,
        settings: SessionSettings,
        store: Arc<dyn Store>,
        scratch_root: PathBuf,
    ) -> Self {
        Self {
            sessions: RwLock::new(BTreeMap::new()),
            catalog,
            shared_processes: Arc::default(),
            reaper: Arc::new(reaper::Reaper::new(settings.stop_grace)),
            instances: parking::LiveInstances::new(settings.max_live_instances),
            settings,
            store,
            skill_cache: skills::GitCache::new(scratch_root.with_file_name("skills"), settings.git),
            scratch_root,
            closing: watch::channel(false).0,
            adopting: tokio::sync::Mutex::new(()),
            turn_ended: std::sync::OnceLock::new(),
            gateway: None,
            desktop_tools: None,
            default_policy: None,
        }
    }

    /// Sends the model calls of the agents that say how (`model-apis`) through
    /// `gateway`, which meters them and keeps the real keys from the agents.
    pub fn with_gateway(mut self, gateway: Arc<agentplex_gateway::Gateway>) -> Self {
        self.gateway = Some(gateway);
        self
    }

    /// Gives the agents of sessions created with `desktop` the tools of `tools`.
    pub fn with_desktop_tools(mut self, tools: Arc<agentplex_desktop_mcp::DesktopTools>) -> Self {
        self.desktop_tools = Some(tools);
        self
    }

    /// Resolves when the daemon starts shutting down.
    pub fn closing(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut closing = self.closing.subscribe();
        async move {
            let _ = closing.wait_for(|closing| *closing).await;
        }
    }

    /// The `serverStatus` of an agent that has used a process shared between
    /// its sessions.
    pub fn server_status(&self, agent: &str) -> Option<agentplex_api::ServerStatusInfo> {
        self.shared_processes.status(agent)
    }

    /// A session by id.
    pub fn get(&self, id: &str) -> Result<Arc<Session>, SessionError> {
        self.sessions
            .read()
            .unwrap()
            .get(id)
            .cloned()
            .ok_or_else(|| SessionError::SessionNotFound {
                session_id: id.to_owned(),
            })
    }

    /// Every session, in id order.
    pub fn list(&self) -> Vec<Arc<Session>> {
        self.sessions.read().unwrap().values().cloned().collect()
    }

    /// Creates a session and starts its adapter.
    pub async fn create(
        &self,
        id: &str,
        request: CreateSessionRequest,
    ) -> Result<Arc<Session>, SessionError> {
        validate_session_id(id)?;
        let adapter = self.catalog.adapter(&request.agent)?;
        let info = adapter.info();
        let (agent_mode, permission_mode) = modes::checked_at_create(info, &request)?;
        if let Some(version) = &request.agent_version {
            crate::agents::check_version(version)?;
        }
        if let Some(why) = request.budget.as_ref().and_then(|budget| budget.invalid()) {
            return Err(SessionError::InvalidRequest(why));
        }
        let policy = match &request.policy {
            Some(document) => Some(approval::read_policy(document)?),
            None => self.default_policy.clone(),
        };
        let directory = resolve_directory(request.directory.as_deref())?;
        let mcp = launch::enabled_servers(request.mcp);
        let skills = request.skills.filter(|skills| !skills.sources.is_empty());
        launch::check_capabilities(info, !mcp.is_empty(), skills.is_some())?;
        let desktop = request.desktop.unwrap_or(false);
        if desktop {
            self.check_desktop(info, &mcp)?;
        }
        let resolved = match &skills {
            Some(skills) => skills::resolve_skills(skills, &directory, &self.skill_cache).await?,
            None => Vec::new(),
        };
        let record = SessionRecord {
            id: id.to_owned(),
            agent: info.id.clone(),
            agent_mode,
            permission_mode,
            model: request.model,
            variant: request.variant,
            title: request.title,
            directory: directory.display().to_string(),
            created_at: now_millis(),
            env: request.env.unwrap_or_default().into_iter().collect(),
            mcp,
            skills: resolved,
            skill_sources: skills,
            desktop,
        };
        self.catalog
            .ensure_installed(&adapter, request.agent_version.as_deref())
            .await?;
        let (inbox, inbox_rx) = Inbox::new();
        let budget = metering::BudgetStart {
            limits: request.budget,
            ..Default::default()
        };
        let launch = self
            .session_config(&adapter, &record, None, &inbox, budget)?
            .with_policy(policy.as_ref());
        if request.budget.is_some() && launch.budget.is_none() {
            return Err(SessionError::NotConfigured(self.unmetered(&info.id)));
        }
        let shared = Arc::new(SessionShared::new(
            &record,
            EventLog::new(id, self.store.clone()),
        ));
        {
            let mut state = shared.state.lock().unwrap();
            state.metered = launch.held.route.is_some();
            state.budget = request.budget;
        }
        let (requests, requests_rx) = unbounded_channel();
        let session = Arc::new(Session {
            shared: shared.clone(),
            requests,
            inbox: inbox.clone(),
            budget: launch.budget.clone(),
        });
        {
            let mut sessions = self.sessions.write().unwrap();
            if sessions.contains_key(id) {
                return Err(SessionError::SessionAlreadyExists {
                    session_id: id.to_owned(),
                });
            }
            sessions.insert(id.to_owned(), session.clone());
        }
        let adapter_session = match adapter.new_session(launch.config.clone()) {
            Ok(adapter_session) => adapter_session,
            Err(error) => {
                self.sessions.write().unwrap().remove(id);
                return Err(SessionError::AdapterFailed {
                    agent: info.id.clone(),
                    detail: error.to_string(),
                });
            }
        };
        // The record is written by the store's writer (or at once when it is
        // idle) while this task waits without holding its thread; the session
        // task starts now and takes commands once the record is stored, so a
        // caller that goes away meanwhile leaves a whole session behind.
        let (answer, recorded) = oneshot::channel();
        let recording = recording::Recording {
            stored: self.store.insert_session_queued(&record),
            answer,
        };
        let actor = self
            .actor(
                shared,
                (inbox, inbox_rx),
                adapter_session,
                launch,
                directory,
            )
            .with_budget(request.budget)
            .with_policy(policy);
        tokio::spawn(actor.once_recorded(recording).run(requests_rx));
        match recorded.await {
            Ok(Ok(())) => Ok(session),
            failed => {
                self.sessions.write().unwrap().remove(id);
                Err(match failed {
                    Ok(Err(error)) => error.into(),
                    _ => SessionError::Internal(
                        "the session task stopped before its record was stored".into(),
                    ),
                })
            }
        }
    }

    /// What the adapter is told about a session, and the environment of its
    /// processes: the agent's credentials, then the client's variables, and
    /// with the model gateway the session's endpoints in place of the model
    /// APIs' addresses and keys (see [`metering`]; its usage goes to `inbox`).
    fn session_config(
        &self,
        adapter: &Arc<agentplex_host::LoadedAdapter>,
        record: &SessionRecord,
        resume_native_session_id: Option<String>,
        inbox: &Inbox,
        budget: metering::BudgetStart,
    ) -> Result<Launch, SessionError> {
        let agent_binary = self.catalog.require_installed(adapter)?;
        let scratch = scratch_dir(&self.scratch_root, &record.id);
        make_private_dir(&scratch).map_err(|error| {
            let what = format!(
                "cannot make the session's scratch folder {}",
                scratch.display()
            );
            SessionError::io(what, error)
        })?;
        let skills = skills::place_skills(&scratch, &record.skills, self.skill_cache.root())?;
        let dir = Path::new(&record.directory);
        let mut env = self.catalog.credentials_env(adapter, &record.env, dir);
        env.extend(record.env.iter().cloned());
        let metering = match &self.gateway {
            Some(gateway) => {
                let sink = UsageSink::new(inbox.clone(), &record.agent);
                let apis = &adapter.facts().model_apis;
                metering::meter(gateway, apis, record, &mut env, sink, budget)?
            }
            None => None,
        };
        let mut mcp_servers = launch::servers(&record.mcp, |name| variable(record, name))?;
        let desktop = self.desktop_grant(record, &mut mcp_servers);
        let config = SessionConfig {
            session_id: record.id.clone(),
            agent_mode: record.agent_mode.clone(),
            permission_mode: record.permission_mode.clone(),
            model: record.model.clone(),
            variant: record.variant.clone(),
            directory: record.directory.clone(),
            agent_binary: agent_binary.map(|path| path.display().to_string()),
            env: env.clone(),
            resume_native_session_id,
            mcp_servers,
            skills,
            scratch_dir: scratch.display().to_string(),
            model_endpoints: Vec::new(),
            policy: None,
        };
        Ok(match metering {
            Some(metering) => Launch {
                config: SessionConfig {
                    model_endpoints: metering.endpoints,
                    ..config
                },
                env,
                withheld: metering.withheld,
                held: Held {
                    route: Some(metering.route),
                    _desktop: desktop,
                },
                budget: Some(metering.budget),
            },
            None => Launch {
                config,
                env,
                withheld: Vec::new(),
                held: Held {
                    route: None,
                    _desktop: desktop,
                },
                budget: None,
            },
        })
    }

    /// A task for a session, with everything it needs from the daemon.
    fn actor(
        &self,
        shared: Arc<SessionShared>,
        inbox: (Inbox, incoming::InboxReceiver),
        adapter_session: agentplex_host::AdapterSession,
        launch: Launch,
        directory: PathBuf,
    ) -> Actor {
        let spawn = SpawnContext {
            env: launch.env,
            env_remove: {
                let (catalog, agent) = (self.catalog.clone(), shared.record.agent.clone());
                let withheld = launch.withheld;
                Box::new(move || {
                    let mut names = catalog.foreign_credential_env(&agent);
                    names.extend(withheld.iter().cloned());
                    names
                })
            },
            directory,
            install_dir: self.catalog.install_dir().to_owned(),
            max_line_bytes: self.settings.max_line_bytes,
            nice: self.settings.agent_nice,
        };
        let mut actor = Actor::new(
            shared,
            inbox,
            adapter_session,
            spawn,
            self.shared_processes.clone(),
            self.reaper.clone(),
            self.store.clone(),
        )
        .parking(parking::Parking {
            after: self.settings.park_after,
            slot: Some(self.instances.slot()),
        })
        .holding(launch.held);
        actor.turn_ended = self.turn_ended.get().cloned();
        actor
    }

    /// Removes a session and its transcript, ending it first if it runs.
    pub async fn delete(&self, id: &str) -> Result<(), SessionError> {
        let session = self.get(id)?;
        if !session.shared.state.lock().unwrap().ended {
            let _ = session.command(Command::Terminate).await;
        }
        tokio::task::block_in_place(|| self.remove_ended(id))
    }

    /// Forgets an ended session in the store, then here (a store that cannot be
    /// written keeps it listed, as it would be after a restart).
    fn remove_ended(&self, id: &str) -> Result<(), SessionError> {
        self.store.delete_session(id)?;
        self.sessions.write().unwrap().remove(id);
        let scratch = scratch_dir(&self.scratch_root, id);
        match std::fs::remove_dir_all(&scratch) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                tracing::warn!(session_id = id, %error, "cannot remove {}", scratch.display())
            }
        }
        Ok(())
    }

    /// Daemon shutdown. With a durable store every live session is suspended
    /// (the session resumes when the daemon starts again, as after a crash);
    /// otherwise it is terminated. Open event streams end either way. The agents'
    /// process groups get SIGTERM, then SIGKILL after the grace period
    /// ([`SessionSettings::stop_grace`]), all at once; returns when they are gone.
    pub async fn shut_down(&self) {
        self.reaper.begin_stop();
        let command = if self.store.durable() {
            || Command::Suspend
        } else {
            || Command::Terminate
        };
        let sessions = self.list();
        futures::future::join_all(sessions.iter().map(|session| session.command(command()))).await;
        self.closing.send_replace(true);
        self.reaper.stopped().await;
    }
}

/// A variable as the session's processes get it: the session's own value, else
/// the daemon's.
pub(crate) fn variable(record: &SessionRecord, name: &str) -> Option<String> {
    record
        .env
        .iter()
        .rev()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.clone())
        .or_else(|| std::env::var(name).ok())
}

/// Session ids: 1-128 characters of `[A-Za-z0-9._-]`.
pub fn validate_session_id(id: &str) -> Result<(), SessionError> {
    // `.` and `..` fit the alphabet but cannot stand as a URL path segment.
    let valid = (1..=128).contains(&id.len())
        && id != "."
        && id != ".."
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if valid {
        Ok(())
    } else {
        Err(SessionError::InvalidRequest(format!(
            "invalid session id {id:?}: use 1-128 characters of letters, digits, '.', '_' and '-'"
        )))
    }
}

pub(crate) fn resolve_directory(directory: Option<&str>) -> Result<PathBuf, SessionError> {
    let cwd =
        std::env::current_dir().map_err(|error| SessionError::io("current directory", error))?;
    let path = directory.map_or(cwd.clone(), |dir| cwd.join(dir));
    agentplex_files::check_working_directory(&path)?;
    // The real path: agents name their session folders after it, and a session
    // that moves finds them by it.
    Ok(std::fs::canonicalize(&path).unwrap_or(path))
}

/// Makes `dir` (and its missing parents) with the mode 0700, narrowing it when it
/// exists: the scratch folders (the adapters' files in them may hold secrets, MCP
/// configurations) and the skills cache.
pub(crate) fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

/// A session's scratch folder under `root`: named by the session id when that is a
/// plain name, else by a hash of it.
fn scratch_dir(root: &Path, id: &str) -> PathBuf {
    let plain = !id.is_empty()
        && id.len() <= 64
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if plain {
        root.join(id)
    } else {
        use sha2::Digest;
        root.join(format!("{:x}", sha2::Sha256::digest(id.as_bytes())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_checked() {
        for ok in ["a", "my-session_1.2", &"x".repeat(128)] {
            assert!(validate_session_id(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            "has space",
            "slash/y",
            "ünï",
            &"x".repeat(129),
        ] {
            assert!(validate_session_id(bad).is_err(), "{bad}");
        }
    }
}
