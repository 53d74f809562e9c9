//! The SQLite store: one database file in the data dir, WAL mode, written by one
//! thread that groups whatever is waiting into a single transaction (group
//! commit), so many sessions streaming at once cost one commit per batch.
//!
//! `synchronous = NORMAL`: a commit survives the daemon being killed at any
//! point (the write-ahead log is in the OS's hands); only a power loss can drop
//! the last commits, never corrupt the file.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread;

use rusqlite::{params, Connection, OpenFlags};

use super::migrations::{migrate, MIGRATIONS};
use super::{Commit, EncodedEvent, SessionRecord, Store, StoreError, StoredSession};

/// Most jobs folded into one transaction.
const MAX_BATCH: usize = 512;
/// Most events one transaction removes of a session being deleted: a long
/// transcript goes a chunk per transaction, other sessions' writes in between,
/// instead of holding the one writer for seconds.
const DELETE_CHUNK: usize = 10_000;

/// A write and where to report that it is durable.
struct Job {
    write: Write,
    done: Done,
}

/// Who waits for a write: a thread, or a task.
enum Done {
    Thread(SyncSender<Result<(), StoreError>>),
    Task(tokio::sync::oneshot::Sender<Result<(), StoreError>>),
}

impl Done {
    fn send(self, outcome: Result<(), StoreError>) {
        match self {
            Done::Thread(done) => {
                let _ = done.send(outcome);
            }
            Done::Task(done) => {
                let _ = done.send(outcome);
            }
        }
    }
}

enum Write {
    Insert(SessionRecord),
    Commit(Commit),
    Delete(String),
}

/// Sessions in `sessions.db` under the data dir.
pub struct SqliteStore {
    path: PathBuf,
    jobs: Mutex<Sender<Job>>,
    /// The connection transcripts are read through (WAL: reads never wait for
    /// the writer).
    reader: Mutex<Connection>,
    /// Whether the writer's last transaction failed for where the database
    /// lives (see [`StoreError::is_storage_fault`]); the next success clears it.
    failing: Arc<AtomicBool>,
}

impl SqliteStore {
    /// The file name inside the data dir.
    pub const FILE_NAME: &'static str = "sessions.db";

    /// Opens (creating or upgrading) the database in `data_dir`. A file that is
    /// not ours, corrupt, or from a newer daemon is refused and left untouched.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        let path = data_dir.join(Self::FILE_NAME);
        let unusable = |reason: String| StoreError::Unusable {
            path: path.clone(),
            reason,
        };
        let mut connection = connect(&path).map_err(|e| unusable(e.to_string()))?;
        // Reading the header first: a file that is not a database fails here,
        // before anything is written to it.
        connection
            .query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))
            .map_err(|e| unusable(format!("{e} (the file was left as it is)")))?;
        connection
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| unusable(e.to_string()))?;
        let from =
            migrate(&mut connection, MIGRATIONS.len()).map_err(|e| unusable(e.to_string()))?;
        if from != 0 && from < MIGRATIONS.len() as i64 {
            tracing::info!(path = %path.display(), from, to = MIGRATIONS.len(), "upgraded the session database");
        }
        finish_deletions(&mut connection).map_err(|e| unusable(e.to_string()))?;
        restrict_permissions(&path);
        let reader = connect(&path).map_err(|e| unusable(e.to_string()))?;
        let (jobs, receiver) = mpsc::channel();
        let failing = Arc::new(AtomicBool::new(false));
        let writer = Writer {
            identity: file_identity(&path).map_err(|e| unusable(e.to_string()))?,
            connection,
            path: path.clone(),
            failing: failing.clone(),
        };
        thread::Builder::new()
            .name("session-store".into())
            .spawn(move || writer.run(receiver))
            .map_err(|e| StoreError::Io(format!("starting the store's writer: {e}")))?;
        Ok(Self {
            path,
            jobs: Mutex::new(jobs),
            reader: Mutex::new(reader),
            failing,
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn submit(&self, write: Write) -> Result<(), StoreError> {
        let (done, outcome) = mpsc::sync_channel(1);
        self.queue(write, Done::Thread(done))?;
        outcome.recv().map_err(|_| writer_gone())?
    }

    fn queue(&self, write: Write, done: Done) -> Result<(), StoreError> {
        let sent = self.jobs.lock().unwrap().send(Job { write, done });
        sent.map_err(|_| writer_gone())
    }
}

impl Store for SqliteStore {
    fn durable(&self) -> bool {
        true
    }

    fn failing(&self) -> bool {
        self.failing.load(Ordering::Relaxed)
    }

    fn load(&self, tail: usize) -> Result<Vec<StoredSession>, StoreError> {
        let connection = self.reader.lock().unwrap();
        let mut sessions = Vec::new();
        let mut rows =
            connection.prepare("SELECT record, checkpoint, snapshot FROM sessions ORDER BY id")?;
        let loaded = rows.query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, Option<Vec<u8>>>(2)?,
            ))
        })?;
        for row in loaded {
            let (record, checkpoint, snapshot) = row?;
            let record: SessionRecord = serde_json::from_str(&record)?;
            let mut newest = select_events(
                &connection,
                "SELECT sequence, event, raw FROM events WHERE session_id = ?1
                 ORDER BY sequence DESC LIMIT ?2",
                params![record.id, sql_integer(tail as u64)],
                usize::MAX,
            )?;
            newest.reverse();
            sessions.push(StoredSession {
                checkpoint: serde_json::from_str(&checkpoint)?,
                record,
                snapshot,
                tail: newest,
            });
        }
        Ok(sessions)
    }

    fn read_events(
        &self,
        session_id: &str,
        after: u64,
        limit: usize,
    ) -> Result<Vec<Arc<EncodedEvent>>, StoreError> {
        select_events(
            &self.reader.lock().unwrap(),
            "SELECT sequence, event, raw FROM events WHERE session_id = ?1 AND sequence > ?2
             ORDER BY sequence LIMIT ?3",
            params![session_id, sql_integer(after), sql_integer(limit as u64)],
            PAGE_BYTES,
        )
    }

    fn read_events_before(
        &self,
        session_id: &str,
        before: u64,
        limit: usize,
    ) -> Result<Vec<Arc<EncodedEvent>>, StoreError> {
        select_events(
            &self.reader.lock().unwrap(),
            "SELECT sequence, event, raw FROM events WHERE session_id = ?1 AND sequence < ?2
             ORDER BY sequence DESC LIMIT ?3",
            params![session_id, sql_integer(before), sql_integer(limit as u64)],
            usize::MAX,
        )
    }

    fn insert_session(&self, record: &SessionRecord) -> Result<(), StoreError> {
        self.submit(Write::Insert(record.clone()))
    }

    fn commit(&self, commit: Commit) -> Result<(), StoreError> {
        self.submit(Write::Commit(commit))
    }

    fn commit_queued(&self, commit: Commit) -> super::CommitDone {
        let (done, receiver) = tokio::sync::oneshot::channel();
        if let Err(error) = self.queue(Write::Commit(commit), Done::Task(done)) {
            let (done, receiver) = tokio::sync::oneshot::channel();
            let _ = done.send(Err(error));
            return receiver;
        }
        receiver
    }

    fn delete_session(&self, session_id: &str) -> Result<(), StoreError> {
        self.submit(Write::Delete(session_id.to_owned()))
    }
}

/// The events a `SELECT sequence, event, raw` query finds, in its order.
/// Bytes of events (raw payloads included) past which a forward read stops before
/// its limit: a page of big events is read a few at a time (readers ask for the
/// rest), not hundreds of megabytes at once.
const PAGE_BYTES: usize = 4 << 20;

/// The events a query selects, stopping once they hold `max_bytes` (one at least).
fn select_events(
    connection: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    max_bytes: usize,
) -> Result<Vec<Arc<EncodedEvent>>, StoreError> {
    let mut statement = connection.prepare_cached(sql)?;
    let rows = statement.query_map(params, |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, Option<String>>(2)?,
        ))
    })?;
    let mut events = Vec::new();
    let mut bytes = 0;
    for row in rows {
        if bytes >= max_bytes {
            break;
        }
        let (sequence, envelope, raw) = row?;
        let event = EncodedEvent::from_stored(sequence as u64, envelope, raw)?;
        bytes += event.size();
        events.push(Arc::new(event));
    }
    Ok(events)
}

/// A number as an SQLite integer, the largest ones capped (SQLite's are signed).
fn sql_integer(number: u64) -> i64 {
    i64::try_from(number).unwrap_or(i64::MAX)
}

fn writer_gone() -> StoreError {
    StoreError::Io("the store's writer stopped".into())
}

fn connect(path: &Path) -> Result<Connection, rusqlite::Error> {
    let connection = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    connection.busy_timeout(std::time::Duration::from_secs(5))?;
    connection.pragma_update(None, "foreign_keys", true)?;
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(connection)
}

/// The database holds the clients' environment variables: owner only.
fn restrict_permissions(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        let _ = std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600));
    }
}

/// Free bytes below which a failed write is taken for a full disk.
const NEARLY_FULL_BYTES: u64 = 1 << 20;

/// The writer thread's side of the store.
struct Writer {
    connection: Connection,
    path: PathBuf,
    /// The database file's (device, inode) as opened.
    identity: (u64, u64),
    failing: Arc<AtomicBool>,
}

impl Writer {
    /// Waits for a job, takes every other job already waiting, runs them in one
    /// transaction (with the next chunk of every deletion under way) and answers
    /// each that is done.
    fn run(mut self, jobs: Receiver<Job>) {
        let mut deleting: Vec<Job> = Vec::new();
        loop {
            let first = if deleting.is_empty() {
                jobs.recv().ok()
            } else {
                jobs.try_recv().ok()
            };
            let mut batch: Vec<Job> = first.into_iter().collect();
            while !batch.is_empty() && batch.len() < MAX_BATCH {
                match jobs.try_recv() {
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
            batch.append(&mut deleting);
            if batch.is_empty() {
                return;
            }
            let outcome = self
                .ensure_file()
                .and_then(|()| write_batch(&mut self.connection, &batch))
                .map_err(|e| self.classify(e));
            self.note(&outcome, batch.len());
            match outcome {
                Ok(unfinished) => {
                    for (index, job) in batch.into_iter().enumerate() {
                        if unfinished.contains(&index) {
                            deleting.push(job);
                        } else {
                            job.done.send(Ok(()));
                        }
                    }
                }
                Err(error) => {
                    for job in batch {
                        job.done.send(Err(error.clone()));
                    }
                }
            }
        }
    }

    /// Makes sure the writes go to the file at the database's path: SQLite
    /// keeps writing to a file removed under it, where a restart would not find
    /// what it wrote, so a removed or replaced database takes no more writes.
    fn ensure_file(&self) -> Result<(), StoreError> {
        let changed = match file_identity(&self.path) {
            Ok(identity) if identity == self.identity => return Ok(()),
            Ok(_) => "was replaced",
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => "was removed",
            Err(error) => {
                return Err(StoreError::Unwritable(format!(
                    "{}: {error}",
                    self.path.display()
                )))
            }
        };
        Err(StoreError::Unwritable(format!(
            "{} {changed} under the running daemon; restart the daemon (it opens what is at that path then, or starts an empty database)",
            self.path.display()
        )))
    }

    /// SQLite reports some writes that found no room as I/O errors: with next to
    /// no free space left where the database lives, they are a full disk too.
    fn classify(&self, error: StoreError) -> StoreError {
        match error {
            StoreError::Unwritable(reason) if free_bytes(&self.path) < NEARLY_FULL_BYTES => {
                StoreError::Full(reason)
            }
            other => other,
        }
    }

    /// Keeps the store's health up to date, logging each change once (a full
    /// disk fails every write until space returns).
    fn note<T>(&self, outcome: &Result<T, StoreError>, jobs: usize) {
        match outcome {
            Ok(_) => {
                if self.failing.swap(false, Ordering::Relaxed) {
                    tracing::info!("the session database is written again");
                }
            }
            Err(error) if error.is_storage_fault() => {
                if !self.failing.swap(true, Ordering::Relaxed) {
                    tracing::error!(%error, jobs, "writing sessions to the database failed; what is not stored is not shown, and writes are retried");
                }
            }
            Err(error) => {
                tracing::error!(%error, jobs, "writing sessions to the database failed")
            }
        }
    }
}

/// Bytes an unprivileged writer may still use on the file system holding the
/// file `path` (`u64::MAX` when that cannot be told).
fn free_bytes(path: &Path) -> u64 {
    let folder = path.parent().unwrap_or(path);
    rustix::fs::statvfs(folder).map_or(u64::MAX, |stats| {
        stats.f_bavail.saturating_mul(stats.f_frsize)
    })
}

/// A file's (device, inode): which file a path names now.
fn file_identity(path: &Path) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let metadata = std::fs::metadata(path)?;
    Ok((metadata.dev(), metadata.ino()))
}

/// Writes a batch in one transaction; returns the positions of the deletions
/// that have more to remove (see [`DELETE_CHUNK`]).
fn write_batch(connection: &mut Connection, batch: &[Job]) -> Result<Vec<usize>, StoreError> {
    let transaction = connection.transaction()?;
    let mut unfinished = Vec::new();
    for (index, job) in batch.iter().enumerate() {
        match &job.write {
            Write::Insert(record) => {
                transaction
                    .prepare_cached(
                        "INSERT INTO sessions (id, record, checkpoint, created_at, updated_at)
                         VALUES (?1, ?2, '{}', ?3, ?3)",
                    )?
                    .execute(params![
                        record.id,
                        serde_json::to_string(record)?,
                        record.created_at
                    ])?;
            }
            Write::Commit(commit) => write_commit(&transaction, commit)?,
            Write::Delete(session_id) => {
                if !delete_chunk(&transaction, session_id)? {
                    unfinished.push(index);
                }
            }
        }
    }
    transaction.commit()?;
    Ok(unfinished)
}

/// Removes up to [`DELETE_CHUNK`] of a session's events, and the session once
/// none are left. The row, marked `deleting` from the first chunk on, goes last:
/// a daemon stopped halfway finishes the deletion when it opens the database
/// ([`finish_deletions`]). True when done.
fn delete_chunk(
    transaction: &rusqlite::Transaction<'_>,
    session_id: &str,
) -> Result<bool, StoreError> {
    transaction
        .prepare_cached("UPDATE sessions SET deleting = 1 WHERE id = ?1 AND deleting = 0")?
        .execute([session_id])?;
    let removed = transaction
        .prepare_cached(
            "DELETE FROM events WHERE session_id = ?1 AND sequence IN
                 (SELECT sequence FROM events WHERE session_id = ?1 ORDER BY sequence LIMIT ?2)",
        )?
        .execute(params![session_id, DELETE_CHUNK as i64])?;
    if removed == DELETE_CHUNK {
        return Ok(false);
    }
    transaction
        .prepare_cached("DELETE FROM sessions WHERE id = ?1")?
        .execute([session_id])?;
    Ok(true)
}

/// Finishes the deletions a previous daemon left halfway (see [`delete_chunk`]).
fn finish_deletions(connection: &mut Connection) -> Result<(), StoreError> {
    loop {
        let transaction = connection.transaction()?;
        let ids: Vec<String> = transaction
            .prepare("SELECT id FROM sessions WHERE deleting = 1")?
            .query_map([], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        if ids.is_empty() {
            return Ok(());
        }
        for id in &ids {
            delete_chunk(&transaction, id)?;
        }
        transaction.commit()?;
    }
}

fn write_commit(
    transaction: &rusqlite::Transaction<'_>,
    commit: &Commit,
) -> Result<(), StoreError> {
    let checkpoint = &commit.checkpoint;
    let updated = transaction
        .prepare_cached(
            "UPDATE sessions SET checkpoint = ?2, ended = ?3, updated_at = ?4,
                 snapshot = coalesce(?5, snapshot)
             WHERE id = ?1",
        )?
        .execute(params![
            commit.session_id,
            serde_json::to_string(checkpoint)?,
            checkpoint.ended,
            checkpoint.updated_at,
            commit.snapshot
        ])?;
    if updated == 0 {
        // Deleted while its task was still finishing: nothing to keep.
        return Ok(());
    }
    let mut insert = transaction.prepare_cached(
        "INSERT INTO events (session_id, sequence, event, raw) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for event in &commit.events {
        insert.execute(params![
            commit.session_id,
            event.sequence as i64,
            event.envelope(),
            event.raw()
        ])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
