//! What sessions and the agent catalog fail with.

use std::io;

use agentplex_files::FsError;
use agentplex_install::InstallError;
use agentplex_processes::ProcessError;
use agentplex_session::CoreError;
use agentplex_store::StoreError;

/// Why a session, or an agent it needs, could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The request asks for something that cannot be done as written.
    #[error("{0}")]
    InvalidRequest(String),
    /// The request is right but needs what the daemon was not started with (a
    /// budget without the model gateway).
    #[error("{0}")]
    NotConfigured(String),
    /// The desktop cannot run here (its programs are not installed).
    #[error(transparent)]
    Desktop(#[from] agentplex_desktop_mcp::DesktopError),
    /// No adapter serves this agent id.
    #[error("unknown agent {agent:?}; GET /v1/agents lists the agents this daemon runs")]
    UnsupportedAgent {
        /// The agent id asked for.
        agent: String,
    },
    /// The agent's binary is not installed (and is not installed on demand).
    #[error("agent {agent:?} is not installed")]
    AgentNotInstalled {
        /// The agent.
        agent: String,
        /// Where it was looked for, and how to install it.
        detail: String,
    },
    /// Installing the agent failed.
    #[error("installing agent {agent:?} failed: {source}")]
    InstallFailed {
        /// The agent.
        agent: String,
        /// Why.
        #[source]
        source: InstallError,
    },
    /// The ACP registry's index cannot be had: not fetched, no copy kept.
    #[error("{0}")]
    RegistryUnavailable(String),
    /// The ACP registry lists no agent with this id.
    #[error("the ACP registry lists no agent {agent:?}; GET /v1/registry lists them")]
    NotInRegistry {
        /// The id asked for.
        agent: String,
    },
    /// A registry agent's id is the id of an agent the daemon runs by its own adapter.
    #[error("agent {agent:?} is already one of this daemon's agents, by its own adapter; the registry's is not added over it")]
    AgentIdTaken {
        /// The id asked for.
        agent: String,
    },
    /// No session has this id.
    #[error("session {session_id:?} not found")]
    SessionNotFound {
        /// The id asked for.
        session_id: String,
    },
    /// A session with this id exists already.
    #[error("session {session_id:?} already exists")]
    SessionAlreadyExists {
        /// The id asked for.
        session_id: String,
    },
    /// A session archive to import is damaged, truncated, foreign or too new.
    #[error("{0}; nothing was imported")]
    InvalidArchive(String),
    /// An import would overwrite what is here (an agent's file of the same
    /// session), or write where it may not.
    #[error("{0}; nothing was imported")]
    ImportConflict(String),
    /// Another daemon of the fleet drives the session: its lease on it runs.
    #[error("session {session_id:?} is driven by daemon {owner:?} of the fleet; ask that daemon")]
    SessionElsewhere {
        /// The session.
        session_id: String,
        /// The daemon driving it.
        owner: String,
    },
    /// The session ended: it takes no more messages or answers.
    #[error("session {session_id:?} has ended")]
    SessionEnded {
        /// The session.
        session_id: String,
    },
    /// The permission or question answered is not pending.
    #[error("{what} {id:?} is not pending in session {session_id:?}")]
    RequestNotFound {
        /// The session.
        session_id: String,
        /// `permission` or `question`.
        what: &'static str,
        /// The id answered.
        id: String,
    },
    /// The agent does not offer the mode asked for.
    #[error("{0}")]
    ModeNotSupported(String),
    /// The adapter refused the request (the session goes on).
    #[error("the adapter rejected the request: {0}")]
    AdapterRejected(String),
    /// The adapter failed (the session ended, or could not start).
    #[error("the agent's adapter failed: {detail}")]
    AdapterFailed {
        /// The agent.
        agent: String,
        /// What failed.
        detail: String,
    },
    /// Something took longer than its limit.
    #[error("timed out: {0}")]
    Timeout(String),
    /// The daemon's own files or folders failed it.
    #[error("internal error: {what}: {source}")]
    Io {
        /// What the daemon was doing, on what.
        what: String,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The session's task stopped before it answered.
    #[error("internal error: {0}")]
    Internal(String),
    /// The working directory asked for is missing or not a directory.
    #[error(transparent)]
    WorkingDirectory(#[from] FsError),
    /// A process the session needs could not be started.
    #[error(transparent)]
    Process(#[from] ProcessError),
    /// The session store refused a write for where it lives: nothing was stored.
    #[error("{0}; nothing was stored, retry once it is fixed")]
    Storage(#[from] StoreError),
}

impl From<CoreError> for SessionError {
    fn from(error: CoreError) -> Self {
        match error {
            CoreError::SessionEnded { session_id } => SessionError::SessionEnded { session_id },
            CoreError::RequestNotFound {
                session_id,
                what,
                id,
            } => SessionError::RequestNotFound {
                session_id,
                what,
                id,
            },
            CoreError::AdapterRejected(reason) => SessionError::AdapterRejected(reason),
            CoreError::AdapterFailed { agent, detail } => {
                SessionError::AdapterFailed { agent, detail }
            }
        }
    }
}

impl SessionError {
    /// The daemon's own files failed it while doing `what`.
    pub fn io(what: impl Into<String>, source: io::Error) -> Self {
        SessionError::Io {
            what: what.into(),
            source,
        }
    }
}

/// An adapter call's error as the core tells it apart: a refusal of the input, or
/// a failure that ends the session.
pub(crate) fn adapter_failure(
    error: agentplex_host::HostError,
) -> agentplex_session::AdapterFailure {
    match error {
        agentplex_host::HostError::Rejected(reason) => {
            agentplex_session::AdapterFailure::Rejected(reason)
        }
        error => agentplex_session::AdapterFailure::Failed(error.to_string()),
    }
}
