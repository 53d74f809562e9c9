//! Where sessions and their transcripts are kept so that a daemon restart, clean
//! or not, loses nothing a client has seen.
//!
//! The session task commits every batch of events (with a checkpoint of its live
//! state and the adapter's snapshot) before any reader can see them. The default
//! backend is SQLite in the data dir ([`sqlite::SqliteStore`]); `--ephemeral`
//! keeps everything in memory ([`EphemeralStore`]); `--store postgres://...` keeps
//! them in a PostgreSQL database ([`postgres::PostgresStore`]), which a fleet of
//! daemons can share. `docs/storage.md` describes the contract.

#[cfg(test)]
mod conformance;
mod migrations;
pub mod postgres;
pub mod sqlite;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

pub use agentplex_session::{Checkpoint, EncodedEvent, ProcessMark, StoredPart};

/// Bytes of events (raw payloads included) past which a forward read stops before
/// its limit: a page of big events is read a few at a time (readers ask for the
/// rest), not hundreds of megabytes at once.
const PAGE_BYTES: usize = 4 << 20;

/// Why the store could not do what was asked.
///
/// Cloned to every waiter of a shared commit, so each keeps its cause behind an
/// `Arc`; the cause is also in the message, which is what a client is shown.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The database file cannot be used as it is; it is left untouched.
    #[error("the session database {path} cannot be opened: {cause}")]
    Unusable {
        /// The database file.
        path: PathBuf,
        /// Why it cannot be used.
        #[source]
        cause: Cause,
    },
    /// The disk holding the database is full: nothing more can be stored until
    /// space is freed (what is stored stays intact).
    #[error("the disk holding the session database is full ({0}); free space on it (the data dir's disk, or the database server's)")]
    Full(#[source] Cause),
    /// The database can no longer be written: made read-only, removed, or failing
    /// I/O under the running daemon.
    #[error("the session database cannot be written ({0})")]
    Unwritable(#[source] Cause),
    /// A read or write failed.
    #[error("session store: {0}")]
    Io(#[source] Cause),
    /// The database server cannot be reached: the connection was refused,
    /// reset, closed or timed out, or the server is shutting down or starting
    /// (what is stored stays there; writes succeed again once it is back).
    #[error("the session database {database} cannot be reached ({cause})")]
    Unreachable {
        /// The database, without its password (`postgres://user@host:port/name`).
        database: String,
        /// Why it cannot be reached (in the message, and so not a `source`:
        /// shown once where the chain of causes is printed).
        cause: Cause,
    },
    /// The database server refuses the store for good: a wrong password, a
    /// database that does not exist, tables that are not ours, a schema from a
    /// newer daemon. Left untouched.
    #[error("the session database {database} cannot be used: {cause}")]
    Refused {
        /// The database, without its password.
        database: String,
        /// Why it cannot be used (in the message, not a `source`).
        cause: Cause,
    },
    /// Another daemon of the fleet drives the session now: it took the
    /// session's lease over (this daemon's lapsed), and this daemon may no
    /// longer write it.
    #[error("session {session_id} is driven by another daemon now: its lease was taken over")]
    LeaseLost {
        /// The session.
        session_id: String,
    },
}

/// What a store operation failed on: an error of SQLite, the file system or an
/// encoder, or a message of the store's own.
pub type Cause = Arc<dyn std::error::Error + Send + Sync>;

/// `error` as a [`Cause`].
pub fn cause(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Cause {
    Arc::from(error.into())
}

/// `error` as a [`Cause`], with what the store was doing when it happened.
pub fn cause_while(
    doing: impl Into<String>,
    error: impl Into<Box<dyn std::error::Error + Send + Sync>>,
) -> Cause {
    Arc::new(While {
        doing: doing.into(),
        error: error.into(),
    })
}

/// An error with what the store was doing when it happened.
#[derive(Debug, thiserror::Error)]
#[error("{doing}: {error}")]
struct While {
    doing: String,
    #[source]
    error: Box<dyn std::error::Error + Send + Sync>,
}

impl StoreError {
    /// The answer to a commit or read whose worker is gone (the store's writer
    /// thread, or the task that read for it).
    pub fn writer_stopped() -> Self {
        StoreError::Io(cause("the store's writer stopped"))
    }

    /// Whether the failure comes from where the database lives (a full disk, a
    /// file that cannot be written, a database server out of reach) rather than
    /// from what was written: such writes succeed again once the cause is gone.
    pub fn is_storage_fault(&self) -> bool {
        matches!(
            self,
            StoreError::Full(_) | StoreError::Unwritable(_) | StoreError::Unreachable { .. }
        )
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        let code = error.sqlite_error_code();
        let error = cause(error);
        match code {
            Some(ErrorCode::DiskFull) => Self::Full(error),
            Some(
                ErrorCode::ReadOnly
                | ErrorCode::CannotOpen
                | ErrorCode::PermissionDenied
                | ErrorCode::SystemIoFailure,
            ) => Self::Unwritable(error),
            _ => Self::Io(error),
        }
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(error: serde_json::Error) -> Self {
        Self::Io(cause_while("encoding", error))
    }
}

/// Whether a store's last write failed for where it lives (a full disk, a database
/// out of reach: see [`StoreError::is_storage_fault`]); the next success clears
/// it. Each change is logged once: such a fault fails every write until it ends.
#[derive(Debug, Default)]
pub(crate) struct Health(std::sync::atomic::AtomicBool);

impl Health {
    /// Whether the last write failed for where the store lives.
    pub(crate) fn failing(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Marks the store failing, as a failed write would (for tests of what a
    /// failing store does).
    #[cfg(test)]
    pub(crate) fn set_failing(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Takes in the outcome of a write of `jobs` jobs.
    pub(crate) fn note<T>(&self, outcome: &Result<T, StoreError>, jobs: usize) {
        use std::sync::atomic::Ordering;
        match outcome {
            Ok(_) => {
                if self.0.swap(false, Ordering::Relaxed) {
                    tracing::info!("the session database is written again");
                }
            }
            Err(error) if error.is_storage_fault() => {
                if !self.0.swap(true, Ordering::Relaxed) {
                    tracing::error!(%error, jobs, "writing sessions to the database failed; what is not stored is not shown, and writes are retried");
                }
            }
            Err(error) => {
                tracing::error!(%error, jobs, "writing sessions to the database failed")
            }
        }
    }
}

/// What a session was created with: enough to rebuild it after a restart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord {
    pub id: String,
    pub agent: String,
    pub agent_mode: String,
    pub permission_mode: String,
    pub model: Option<String>,
    pub variant: Option<String>,
    pub title: Option<String>,
    pub directory: String,
    /// Unix milliseconds.
    pub created_at: i64,
    /// Variables the client asked for at creation (the agent needs them again
    /// when it is relaunched after a restart).
    pub env: Vec<(String, String)>,
    /// The enabled MCP servers the client asked for (secrets named by environment
    /// variable are read again at each launch, never stored).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub mcp: std::collections::BTreeMap<String, agentplex_api::McpServerConfig>,
    /// The skills found at creation: (name, absolute folder).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<(String, String)>,
    /// The skill sources the client asked for (shown in the session list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_sources: Option<agentplex_api::SkillsConfig>,
    /// Whether the agent has the desktop's MCP tools (a new token at each launch,
    /// never stored).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub desktop: bool,
}

/// One session as loaded at start.
#[derive(Debug, Clone)]
pub struct StoredSession {
    pub record: SessionRecord,
    pub checkpoint: Checkpoint,
    /// The adapter's state as of the checkpoint, when one was taken.
    pub snapshot: Option<Vec<u8>>,
    /// The newest events of its transcript, in order (at most what `load` was
    /// asked for; the rest stays in the store, read on demand).
    pub tail: Vec<Arc<EncodedEvent>>,
}

/// One atomic write of a session task: its new events, in order, with the state
/// they leave the session in.
#[derive(Debug, Clone)]
pub struct Commit {
    pub session_id: String,
    pub events: Vec<Arc<EncodedEvent>>,
    pub checkpoint: Checkpoint,
    /// Replaces the stored snapshot when present.
    pub snapshot: Option<Vec<u8>>,
}

/// Answers once a queued write is durable (or failed).
pub type CommitDone = tokio::sync::oneshot::Receiver<Result<(), StoreError>>;

/// A place sessions are kept. Every method returns once the change is durable;
/// implementations batch concurrent callers into one transaction.
pub trait Store: Send + Sync {
    /// Whether anything outlives the process (false for `--ephemeral`); session
    /// tasks skip the work of taking snapshots when it does not.
    fn durable(&self) -> bool;
    /// Whether the last write failed for where the store lives (a full disk, a
    /// file that cannot be written) and no write succeeded since.
    fn failing(&self) -> bool {
        false
    }
    /// Every session with the last `tail` events of its transcript, in id order.
    fn load(&self, tail: usize) -> Result<Vec<StoredSession>, StoreError>;
    /// Up to `limit` committed events of a session with a sequence above `after`,
    /// in order.
    fn read_events(
        &self,
        session_id: &str,
        after: u64,
        limit: usize,
    ) -> Result<Vec<Arc<EncodedEvent>>, StoreError>;
    /// Up to `limit` committed events of a session with a sequence below `before`,
    /// newest first.
    fn read_events_before(
        &self,
        session_id: &str,
        before: u64,
        limit: usize,
    ) -> Result<Vec<Arc<EncodedEvent>>, StoreError>;
    /// Records a new session.
    fn insert_session(&self, record: &SessionRecord) -> Result<(), StoreError>;
    /// Like [`insert_session`](Self::insert_session), for async callers: the
    /// write is queued and the returned receiver answers once it is durable
    /// (commits of the session wait for that answer: a commit made meanwhile
    /// could be written first).
    fn insert_session_queued(&self, record: &SessionRecord) -> CommitDone {
        let (done, receiver) = tokio::sync::oneshot::channel();
        let _ = done.send(self.insert_session(record));
        receiver
    }
    /// Appends events and replaces the checkpoint, atomically.
    fn commit(&self, commit: Commit) -> Result<(), StoreError>;
    /// Like [`commit`](Self::commit), for async callers: the write is queued and
    /// the returned receiver answers once it is durable, without holding a thread.
    fn commit_queued(&self, commit: Commit) -> CommitDone {
        let (done, receiver) = tokio::sync::oneshot::channel();
        let _ = done.send(self.commit(commit));
        receiver
    }
    /// Removes a session and its transcript.
    fn delete_session(&self, session_id: &str) -> Result<(), StoreError>;
    /// The store's fleet side, when daemons share it ([`Fleet`]).
    fn fleet(&self) -> Option<&dyn Fleet> {
        None
    }
}

/// A store that daemons of a fleet share: each session is driven by one daemon
/// at a time, the one holding its lease (renewed while it lives); a session
/// whose owner died is taken over by the next daemon asked for it, which then
/// finds the agent's own session files here. A daemon whose lease was taken
/// can no longer write the session ([`StoreError::LeaseLost`]).
pub trait Fleet: Send + Sync {
    /// This daemon's name among the owners.
    fn daemon(&self) -> &str;
    /// How long a lease runs without being renewed: how long a dead owner's
    /// sessions wait before another daemon may take them.
    fn lease(&self) -> std::time::Duration;
    /// Takes the session `id` over, with the last `tail` events of its
    /// transcript, unless another daemon's lease on it still runs.
    fn take(&self, id: &str, tail: usize) -> Result<Taken, StoreError>;
    /// Every session of the fleet, in id order.
    fn sessions(&self) -> Result<Vec<FleetSession>, StoreError>;
    /// Replaces the agent's own session files kept for the session (this daemon
    /// must hold its lease).
    fn save_native(&self, session_id: &str, native: NativeFiles) -> Result<(), StoreError>;
    /// The agent's own session files kept for the session, if any were saved.
    fn native(&self, session_id: &str) -> Result<Option<NativeFiles>, StoreError>;
    /// The sessions whose lease this daemon lost, as it finds out (given once:
    /// later calls answer `None`).
    fn lost(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<String>>;
}

/// What asking a [`Fleet`] for a session gave.
#[derive(Debug)]
pub enum Taken {
    /// This daemon drives the session now; here it is as stored.
    Took(Box<StoredSession>),
    /// Another daemon's lease on it runs for `for_ms` more milliseconds.
    Held {
        /// The daemon holding it.
        owner: String,
        /// Milliseconds left of its lease.
        for_ms: i64,
    },
    /// No such session.
    Missing,
}

/// One session of a fleet, as the shared store has it.
#[derive(Debug, Clone)]
pub struct FleetSession {
    pub record: SessionRecord,
    pub checkpoint: Checkpoint,
    /// The sequence of its last event.
    pub last_sequence: u64,
    /// The daemon that drives (or drove) it.
    pub owner: Option<String>,
    /// Whether that daemon's lease on it runs (it renews its leases while it lives).
    pub alive: bool,
}

/// The agent's own session files, kept for a daemon that takes the session over.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NativeFiles {
    /// Where they were read from, as the sessions layer describes it (JSON).
    pub place: String,
    /// Each file's path as the adapter named it, and its contents.
    pub files: Vec<(String, Vec<u8>)>,
}

/// The `--ephemeral` store: nothing is written; the daemon's memory is all there
/// is, so every event of every session is held here until the session is deleted.
#[derive(Default)]
pub struct EphemeralStore {
    events: Mutex<HashMap<String, Vec<Arc<EncodedEvent>>>>,
}

impl EphemeralStore {
    /// The events of a session that `pick` selects from the whole transcript.
    fn pick(
        &self,
        session_id: &str,
        pick: impl FnOnce(&[Arc<EncodedEvent>]) -> Vec<Arc<EncodedEvent>>,
    ) -> Vec<Arc<EncodedEvent>> {
        let events = self.events.lock().unwrap();
        events
            .get(session_id)
            .map_or_else(Vec::new, |events| pick(events))
    }
}

impl Store for EphemeralStore {
    fn durable(&self) -> bool {
        false
    }

    fn load(&self, _tail: usize) -> Result<Vec<StoredSession>, StoreError> {
        Ok(Vec::new())
    }

    fn read_events(
        &self,
        session_id: &str,
        after: u64,
        limit: usize,
    ) -> Result<Vec<Arc<EncodedEvent>>, StoreError> {
        // Sequences start at 1 without gaps: event n is at index n - 1.
        Ok(self.pick(session_id, |events| {
            let start = usize::try_from(after).map_or(events.len(), |a| a.min(events.len()));
            events[start..].iter().take(limit).cloned().collect()
        }))
    }

    fn read_events_before(
        &self,
        session_id: &str,
        before: u64,
        limit: usize,
    ) -> Result<Vec<Arc<EncodedEvent>>, StoreError> {
        Ok(self.pick(session_id, |events| {
            let end = usize::try_from(before.saturating_sub(1))
                .map_or(events.len(), |b| b.min(events.len()));
            events[..end].iter().rev().take(limit).cloned().collect()
        }))
    }

    fn insert_session(&self, record: &SessionRecord) -> Result<(), StoreError> {
        self.events
            .lock()
            .unwrap()
            .insert(record.id.clone(), Vec::new());
        Ok(())
    }

    fn commit(&self, commit: Commit) -> Result<(), StoreError> {
        if let Some(events) = self.events.lock().unwrap().get_mut(&commit.session_id) {
            events.extend(commit.events);
        }
        Ok(())
    }

    fn delete_session(&self, session_id: &str) -> Result<(), StoreError> {
        self.events.lock().unwrap().remove(session_id);
        Ok(())
    }
}
