//! The SQLite store: one database file in the data dir, WAL mode, one writing
//! connection. A session's commit that finds that connection free and nothing
//! waiting writes itself, on its own thread (no hand-off to another thread and
//! back: the shortest path from an event to its readers). Otherwise it waits in
//! line for the writer thread, which groups whatever is waiting into a single
//! transaction (group commit), so many sessions streaming at once cost one commit
//! per batch.
//!
//! Checkpoints (copying the write-ahead log into the database file, with its
//! `fsync`s) never run in a commit: each time the log has grown by
//! [`CHECKPOINT_FRAMES`] pages, the writer thread copies it on a connection of
//! its own, beside the writes, then what was added meanwhile holding the
//! writing connection.
//!
//! `synchronous = NORMAL`: a commit survives the daemon being killed at any
//! point (the write-ahead log is in the OS's hands); only a power loss can drop
//! the last commits, never corrupt the file.

use std::cell::Cell;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;

use rusqlite::{params, Connection, OpenFlags};

use super::migrations::{migrate, MIGRATIONS};
use super::{Commit, EncodedEvent, SessionRecord, Store, StoreError, StoredSession};

/// Most jobs folded into one transaction.
const MAX_BATCH: usize = 512;
/// Pages the write-ahead log grows by between two checkpoints (SQLite's own
/// automatic checkpoints, turned off here, use the same number).
const CHECKPOINT_FRAMES: i32 = 1000;
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
    shared: Arc<Shared>,
    /// The connection transcripts are read through (WAL: reads never wait for
    /// the writer).
    reader: Mutex<Connection>,
}

/// What the store's users and its writer thread share.
struct Shared {
    /// Writes waiting for the writer thread.
    queue: Mutex<Queue>,
    /// Wakes the writer thread when `queue` gets a job or closes.
    queued: Condvar,
    /// The writing connection, held by whoever writes: the writer thread or a
    /// session committing itself (see [`SqliteStore::commit_queued`]).
    writer: Mutex<Writer>,
    /// Whether the last transaction failed for where the database lives (see
    /// [`StoreError::is_storage_fault`]); the next success clears it.
    failing: AtomicBool,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// The write-ahead log has grown enough: the writer thread checkpoints it.
    checkpoint: bool,
    /// The store is gone: the writer thread ends once the queue is empty.
    closed: bool,
}

impl Shared {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        // A queue of jobs stays consistent even if a holder panicked.
        self.queue
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Puts jobs in line for the writer thread.
    fn enqueue(&self, jobs: impl IntoIterator<Item = Job>) {
        let mut queue = self.queue();
        let before = queue.jobs.len();
        queue.jobs.extend(jobs);
        if queue.jobs.len() > before {
            drop(queue);
            self.queued.notify_one();
        }
    }

    /// Writes `batch` in one transaction with the held connection and puts the
    /// deletions with more to remove back in line; the answers to the jobs that
    /// are done, to send once the connection is let go (whoever gets one may
    /// commit at once).
    #[must_use]
    fn write(&self, writer: &mut Writer, batch: Vec<Job>) -> Vec<(Done, Result<(), StoreError>)> {
        let outcome = writer
            .ensure_file()
            .and_then(|()| write_batch(&mut writer.connection, &batch))
            .map_err(|e| writer.classify(e));
        self.note(&outcome, batch.len());
        if writer.log_grew() {
            self.queue().checkpoint = true;
            self.queued.notify_one();
        }
        match outcome {
            Ok(unfinished) => {
                let mut again = Vec::new();
                let mut answers = Vec::new();
                for (index, job) in batch.into_iter().enumerate() {
                    if unfinished.contains(&index) {
                        again.push(job);
                    } else {
                        answers.push((job.done, Ok(())));
                    }
                }
                // Behind what others queued meanwhile: a long deletion goes a
                // chunk at a time between other sessions' writes.
                self.enqueue(again);
                answers
            }
            Err(error) => batch
                .into_iter()
                .map(|job| (job.done, Err(error.clone())))
                .collect(),
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

    /// The writer thread: waits for jobs, takes every job waiting (up to
    /// [`MAX_BATCH`]) and writes them in one transaction, and checkpoints the
    /// log through `checkpointer` when it has grown, until the store is gone and
    /// nothing waits.
    fn run(&self, checkpointer: Connection) {
        loop {
            let (batch, checkpoint) = {
                let mut queue = self.queue();
                while queue.jobs.is_empty() && !queue.checkpoint && !queue.closed {
                    queue = self
                        .queued
                        .wait(queue)
                        .unwrap_or_else(|poisoned| poisoned.into_inner());
                }
                if queue.jobs.is_empty() && !queue.checkpoint {
                    return;
                }
                let take = queue.jobs.len().min(MAX_BATCH);
                let batch = queue.jobs.drain(..take).collect::<Vec<_>>();
                (batch, std::mem::take(&mut queue.checkpoint))
            };
            if checkpoint {
                // Most of the log is copied while sessions go on writing; what
                // they added meanwhile is copied holding the connection, so that
                // the log is whole in the file and the next commit starts it over.
                let copied = checkpoint_log(&checkpointer)
                    .and_then(|()| checkpoint_log(&self.writer().connection));
                if let Err(error) = copied {
                    tracing::warn!(%error, "checkpointing the session database's log");
                }
            }
            if !batch.is_empty() {
                let answers = self.write(&mut self.writer(), batch);
                answer(answers);
            }
        }
    }

    fn writer(&self) -> MutexGuard<'_, Writer> {
        // A failed transaction rolls back: the connection stays usable.
        self.writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
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
        let checkpointer = connect(&path).map_err(|e| unusable(e.to_string()))?;
        // Replaces SQLite's automatic checkpoint in the committing connection.
        connection.wal_hook(Some(note_log_frames));
        let writer = Writer {
            identity: file_identity(&path).map_err(|e| unusable(e.to_string()))?,
            connection,
            path: path.clone(),
            log_frames: 0,
        };
        let shared = Arc::new(Shared {
            queue: Mutex::default(),
            queued: Condvar::new(),
            writer: Mutex::new(writer),
            failing: AtomicBool::new(false),
        });
        let thread_shared = shared.clone();
        thread::Builder::new()
            .name("session-store".into())
            .spawn(move || thread_shared.run(checkpointer))
            .map_err(|e| StoreError::Io(format!("starting the store's writer: {e}")))?;
        Ok(Self {
            path,
            shared,
            reader: Mutex::new(reader),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Queues a write for the writer thread and waits until it is durable.
    fn submit(&self, write: Write) -> Result<(), StoreError> {
        let (done, outcome) = mpsc::sync_channel(1);
        let done = Done::Thread(done);
        self.shared.enqueue([Job { write, done }]);
        outcome.recv().map_err(|_| writer_gone())?
    }

    /// Writes a job on the calling thread when the writing connection is free
    /// and nobody waits for the writer thread; gives it back otherwise.
    fn write_in_place(&self, job: Job) -> Option<Job> {
        let Ok(mut writer) = self.shared.writer.try_lock() else {
            return Some(job);
        };
        if !self.shared.queue().jobs.is_empty() {
            // Others were first: the writer thread takes this one with theirs.
            return Some(job);
        }
        let answers = self.shared.write(&mut writer, vec![job]);
        drop(writer);
        answer(answers);
        None
    }

    /// Writes at once when nobody else writes, else in the writer thread's next
    /// group commit, in the order asked; the answer comes once it is durable.
    fn write_queued(&self, write: Write) -> super::CommitDone {
        let (done, receiver) = tokio::sync::oneshot::channel();
        let job = Job {
            write,
            done: Done::Task(done),
        };
        if let Some(job) = self.write_in_place(job) {
            self.shared.enqueue([job]);
        }
        receiver
    }
}

impl Drop for SqliteStore {
    /// Lets the writer thread end once it has written what waits.
    fn drop(&mut self) {
        self.shared.queue().closed = true;
        self.shared.queued.notify_one();
    }
}

impl Store for SqliteStore {
    fn durable(&self) -> bool {
        true
    }

    fn failing(&self) -> bool {
        self.shared.failing.load(Ordering::Relaxed)
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

    /// A commit whose session finds the store idle is written at once on the
    /// caller's thread (a transaction of a few rows, tens of microseconds: the
    /// hand-off to the writer thread and back costs about as much again); under
    /// contention it joins the writer thread's next group commit.
    fn commit_queued(&self, commit: Commit) -> super::CommitDone {
        self.write_queued(Write::Commit(commit))
    }

    fn insert_session_queued(&self, record: &SessionRecord) -> super::CommitDone {
        self.write_queued(Write::Insert(record.clone()))
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

/// Tells each waiting job how its write went.
fn answer(answers: Vec<(Done, Result<(), StoreError>)>) {
    for (done, outcome) in answers {
        done.send(outcome);
    }
}

/// Copies into the database file what the write-ahead log holds and no reader
/// still needs, waiting for nobody.
fn checkpoint_log(connection: &Connection) -> rusqlite::Result<()> {
    connection.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
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

/// The writing connection, and the file it must write to.
struct Writer {
    connection: Connection,
    path: PathBuf,
    /// The database file's (device, inode) as opened.
    identity: (u64, u64),
    /// Pages in the write-ahead log after the last commit.
    log_frames: i32,
}

thread_local! {
    /// Pages in the write-ahead log after the last commit made on this thread
    /// (SQLite reports it to [`note_log_frames`] from within the commit).
    static LOG_FRAMES: Cell<i32> = const { Cell::new(0) };
}

/// The writing connection's write-ahead log hook.
fn note_log_frames(_: &rusqlite::hooks::Wal, frames: std::ffi::c_int) -> rusqlite::Result<()> {
    LOG_FRAMES.with(|cell| cell.set(frames));
    Ok(())
}

impl Writer {
    /// Whether the log passed another [`CHECKPOINT_FRAMES`] pages with the last
    /// commit made through this connection (on this thread).
    fn log_grew(&mut self) -> bool {
        let frames = LOG_FRAMES.with(|cell| cell.replace(0));
        if frames == 0 {
            // No commit (a failed batch): nothing changed.
            return false;
        }
        let previous = std::mem::replace(&mut self.log_frames, frames);
        frames / CHECKPOINT_FRAMES > 0 && frames / CHECKPOINT_FRAMES != previous / CHECKPOINT_FRAMES
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
