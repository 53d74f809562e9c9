//! The PostgreSQL store (`--store postgres://...`): sessions, transcripts and
//! snapshots in a database that a fleet of daemons can share.
//!
//! Same guarantees as the SQLite store: every method returns once what it
//! wrote is committed (flushed to the server's disk: the writer's connection
//! turns `synchronous_commit` back on when the server has it off); a session's
//! commits are applied in the order they were made; a commit's events, its
//! checkpoint and its snapshot are replaced in one transaction; reads see every
//! commit that was answered.
//!
//! Threads, each with its own connection (the synchronous `postgres` client,
//! which runs a small runtime of its own and so must not be driven from a
//! tokio worker; callers of any kind hand it their work through channels):
//!
//! - the writer ([`writer`]): writes wait in one line, in the order they were
//!   made; the writer takes all that wait (group commit) and writes them in
//!   one transaction, a few statements whatever their number ([`writes`]), and
//!   answers each once the transaction committed. `commit_queued` and
//!   `insert_session_queued` are answered through their oneshot channel, the
//!   others wait on a channel of their own.
//! - [`READERS`] readers ([`reads`]), whichever is free taking the next read.
//!
//! A connection that is lost is made again at its next use (the work it was
//! doing is done again once on the new one: every write is safe to make twice);
//! while the database cannot be reached, writes fail with
//! [`StoreError::Unreachable`], a storage fault: [`Store::failing`] says so, the
//! sessions wait and try again, and the next write that succeeds clears it.
//!
//! The URL is the client's (`postgres://user:password@host:port/dbname?...`),
//! with `sslmode` `disable`, `prefer` (the default: TLS when the server offers
//! it) or `require` (also `verify-ca`, `verify-full`); whenever TLS is used the
//! server's certificate and name are verified with rustls against the web's
//! root certificates and those of the PEM file `sslrootcert` names.
//!
//! The schema is versioned ([`schema`]).
//!
//! Daemons of a fleet share the database ([`lease`]): each session is driven
//! by the daemon holding its lease, which renews it while it lives
//! ([`Options::lease`]); another daemon asked for a session whose owner died
//! takes it over once the lease ran out ([`crate::Fleet`]). Each daemon names
//! itself ([`Options::daemon`]): at start it loads the sessions it owned (and
//! those nobody owns), not the fleet's.

use std::sync::mpsc;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use connect::Target;
use lease::{Keeper, Leases};
use link::{Connection, Failure, Link};
use reads::Readers;
use writer::{Done, Job, Shared, Write};

use crate::{
    cause, cause_while, Commit, EncodedEvent, Fleet, FleetSession, NativeFiles, SessionRecord,
    Store, StoreError, StoredSession, Taken, PAGE_BYTES,
};

mod connect;
mod lease;
mod link;
mod reads;
mod schema;
#[cfg(any(test, feature = "testing"))]
pub mod temp;
mod writer;
mod writes;

/// Most jobs folded into one transaction.
const MAX_BATCH: usize = 512;
/// Bytes of events and snapshots past which a batch takes no more jobs (it
/// holds one at least).
const BATCH_BYTES: usize = 16 << 20;
/// Most events one transaction removes of a session being deleted: a long
/// transcript goes a chunk per transaction, other sessions' writes in between.
const DELETE_CHUNK: usize = 10_000;
/// How long after a failed attempt to connect a thread of the store tries
/// again (what it is asked meanwhile fails at once, with the same error).
const RECONNECT_PAUSE: Duration = Duration::from_millis(250);
/// Reader threads.
pub const READERS: usize = 2;

/// How a [`PostgresStore`] opens.
#[derive(Debug, Clone)]
pub struct Options {
    /// How long an unreachable database is tried again before the store gives
    /// up opening (30 s).
    pub open_for: Duration,
    /// Reader threads ([`READERS`]).
    pub readers: usize,
    /// This daemon's name among the fleet's owners: each daemon sharing the
    /// database needs its own, kept across its restarts (the daemon keeps one
    /// in its data dir). `agentplex` by default.
    pub daemon: String,
    /// How long a lease runs without renewal ([`LEASE`]).
    pub lease: Duration,
}

/// How long a session's lease runs without renewal by default: a daemon
/// renews its leases every third of it, and a dead daemon's sessions can be
/// taken over this long after its last renewal at most.
pub const LEASE: Duration = Duration::from_secs(3);

impl Default for Options {
    fn default() -> Self {
        Self {
            open_for: Duration::from_secs(30),
            readers: READERS,
            daemon: "agentplex".to_owned(),
            lease: LEASE,
        }
    }
}

/// Sessions in a PostgreSQL database.
pub struct PostgresStore {
    /// The database, without its password.
    name: String,
    shared: Arc<Shared>,
    readers: Option<Readers>,
    /// The writer thread, waited for when the store closes.
    writer_thread: Option<thread::JoinHandle<()>>,
    /// Renews the leases; stopped after the writer (its last commits need them).
    keeper: Option<Keeper>,
}

impl PostgresStore {
    /// Opens (creating or upgrading its tables) the database `url` names, with
    /// the default [`Options`].
    pub fn open(url: &str) -> Result<Self, StoreError> {
        Self::open_with(url, &Options::default())
    }

    /// Opens the database `url` names: a database out of reach is tried again
    /// for [`Options::open_for`], then refused with an error naming it
    /// (`postgres://user@host:port/dbname`, never the password) and why.
    /// Tables that are not ours, or a schema from a newer daemon, are refused
    /// and left untouched.
    pub fn open_with(url: &str, options: &Options) -> Result<Self, StoreError> {
        let target = Arc::new(Target::parse(url)?);
        if options.daemon.is_empty() || options.lease < Duration::from_millis(300) {
            return Err(StoreError::Io(cause(
                "a daemon of a fleet needs a name and a lease of 300 ms at least",
            )));
        }
        let leases = Arc::new(Leases::new(options.daemon.clone(), options.lease));
        let shared = Arc::new(Shared::new(leases.clone()));
        let (ready, opened) = mpsc::sync_channel(1);
        let writer_thread = {
            let target = target.clone();
            let shared = shared.clone();
            let open_for = options.open_for;
            let leases = leases.clone();
            thread::Builder::new()
                .name("session-store".into())
                .spawn(move || {
                    let connection = match open_database(&target, open_for, &leases) {
                        Ok(connection) => connection,
                        Err(error) => {
                            let _ = ready.send(Err(error));
                            return;
                        }
                    };
                    let _ = ready.send(Ok(()));
                    let mut link = Link::new(target, Some(connection), writer_setup);
                    writer::run(&shared, &mut link);
                })
                .map_err(|e| StoreError::Io(cause_while("starting the store's writer", e)))?
        };
        let started = opened
            .recv()
            .unwrap_or_else(|_| Err(StoreError::writer_stopped()))
            .and_then(|()| Readers::start(&target, options.readers))
            .and_then(|readers| Ok((readers, Keeper::start(&target, &leases)?)));
        let (readers, keeper) = match started {
            Ok(started) => started,
            Err(error) => {
                shared.close();
                let _ = writer_thread.join();
                return Err(error);
            }
        };
        Ok(Self {
            name: target.name.clone(),
            shared,
            readers: Some(readers),
            writer_thread: Some(writer_thread),
            keeper: Some(keeper),
        })
    }

    /// The database, as messages name it (`postgres://user@host:port/dbname`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Puts a write in line for the writer thread.
    fn enqueue(&self, write: Write, done: Done) {
        self.shared.enqueue([Job { write, done }]);
    }

    /// Queues a write and waits until it is committed.
    fn submit(&self, write: Write) -> Result<(), StoreError> {
        let (done, outcome) = mpsc::sync_channel(1);
        self.enqueue(write, Done::Thread(done));
        outcome.recv().map_err(|_| StoreError::writer_stopped())?
    }

    /// Queues a write; the receiver answers once it is committed.
    fn submit_queued(&self, write: Write) -> crate::CommitDone {
        let (done, receiver) = tokio::sync::oneshot::channel();
        self.enqueue(write, Done::Task(done));
        receiver
    }

    fn read<T: Send + 'static>(
        &self,
        read: impl FnMut(&mut Connection) -> Result<T, Failure> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.readers
            .as_ref()
            .ok_or_else(StoreError::writer_stopped)?
            .read(read)
    }
}

/// Connects (trying again for `open_for` while the database is out of reach),
/// checks the database and brings it to the current schema, says the daemon
/// lives, finishes the deletions a stopped daemon left halfway: the writer's
/// connection.
fn open_database(
    target: &Target,
    open_for: Duration,
    leases: &Leases,
) -> Result<Connection, StoreError> {
    let client = target.connect_within(open_for)?;
    let mut connection = Connection::new(client);
    let refused = |cause| StoreError::Refused {
        database: target.name.clone(),
        cause,
    };
    let encoding: String = connection
        .client
        .query_one("SHOW server_encoding", &[])
        .map_err(|error| target.error(error))?
        .get(0);
    if encoding != "UTF8" && encoding != "SQL_ASCII" {
        return Err(refused(cause(format!(
            "its encoding is {encoding}; create it with ENCODING 'UTF8'"
        ))));
    }
    let supported = schema::MIGRATIONS.len();
    match schema::migrate(&mut connection.client, supported) {
        Ok(from) if from != 0 && from < supported as i64 => {
            tracing::info!(database = %target.name, from, to = supported, "upgraded the session database");
        }
        Ok(_) => {}
        Err(schema::MigrationError::Sql(error)) => return Err(target.error(error)),
        Err(error) => return Err(refused(cause(error))),
    }
    lease::heartbeat(&mut connection.client, leases).map_err(|error| target.error(error))?;
    writes::finish_deletions(&mut connection).map_err(|failure| match failure {
        Failure::Sql(error) => target.error(error),
        Failure::Store(error) => error,
    })?;
    writer_setup(&mut connection).map_err(|error| target.error(error))?;
    Ok(connection)
}

/// The writer's connection flushes each commit to disk before answering it,
/// whatever the server's default.
fn writer_setup(connection: &mut Connection) -> Result<(), postgres::Error> {
    let setting: String = connection
        .client
        .query_one("SHOW synchronous_commit", &[])?
        .get(0);
    if setting == "off" {
        connection
            .client
            .batch_execute("SET synchronous_commit = on")?;
    }
    Ok(())
}

impl Drop for PostgresStore {
    /// Waits for the writer thread to write what waits, then for the readers.
    fn drop(&mut self) {
        self.shared.close();
        if let Some(thread) = self.writer_thread.take() {
            let _ = thread.join();
        }
        self.keeper = None;
        self.readers = None;
    }
}

impl Store for PostgresStore {
    fn durable(&self) -> bool {
        true
    }

    fn failing(&self) -> bool {
        self.shared.health.failing()
    }

    /// The sessions this daemon owned and those nobody owns, taken now.
    fn load(&self, tail: usize) -> Result<Vec<StoredSession>, StoreError> {
        let leases = self.shared.leases.clone();
        self.read(move |connection| {
            let ids = lease::claim_own(connection, &leases)?;
            reads::load_ids(connection, &ids, tail)
        })
    }

    fn read_events(
        &self,
        session_id: &str,
        after: u64,
        limit: usize,
    ) -> Result<Vec<Arc<EncodedEvent>>, StoreError> {
        let session_id = session_id.to_owned();
        self.read(move |connection| reads::events_after(connection, &session_id, after, limit))
    }

    fn read_events_before(
        &self,
        session_id: &str,
        before: u64,
        limit: usize,
    ) -> Result<Vec<Arc<EncodedEvent>>, StoreError> {
        let session_id = session_id.to_owned();
        self.read(move |connection| reads::events_before(connection, &session_id, before, limit))
    }

    fn insert_session(&self, record: &SessionRecord) -> Result<(), StoreError> {
        self.submit(Write::Insert(record.clone()))
    }

    fn insert_session_queued(&self, record: &SessionRecord) -> crate::CommitDone {
        self.submit_queued(Write::Insert(record.clone()))
    }

    fn commit(&self, commit: Commit) -> Result<(), StoreError> {
        self.submit(Write::Commit(commit))
    }

    fn commit_queued(&self, commit: Commit) -> crate::CommitDone {
        self.submit_queued(Write::Commit(commit))
    }

    fn delete_session(&self, session_id: &str) -> Result<(), StoreError> {
        self.submit(Write::Delete(session_id.to_owned()))
    }

    fn fleet(&self) -> Option<&dyn Fleet> {
        Some(self)
    }
}

impl Fleet for PostgresStore {
    fn daemon(&self) -> &str {
        &self.shared.leases.daemon
    }

    fn lease(&self) -> Duration {
        self.shared.leases.ttl
    }

    fn take(&self, id: &str, tail: usize) -> Result<Taken, StoreError> {
        let (leases, id) = (self.shared.leases.clone(), id.to_owned());
        self.read(move |connection| lease::take(connection, &leases, &id, tail))
    }

    fn sessions(&self) -> Result<Vec<FleetSession>, StoreError> {
        self.read(lease::sessions)
    }

    fn save_native(&self, session_id: &str, native: NativeFiles) -> Result<(), StoreError> {
        self.submit(Write::Native(session_id.to_owned(), native))
    }

    fn native(&self, session_id: &str) -> Result<Option<NativeFiles>, StoreError> {
        let id = session_id.to_owned();
        self.read(move |connection| lease::native(connection, &id))
    }

    fn lost(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<String>> {
        self.shared.leases.lost_reports()
    }
}

/// A number as a PostgreSQL `bigint`, the largest ones capped (they are signed).
fn sql_integer(number: u64) -> i64 {
    i64::try_from(number).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod lease_tests;
#[cfg(test)]
mod tests;
