//! The SQLite store: one database file in the data dir, WAL mode, one writing
//! connection, and a journal in front of it ([`journal`]).
//!
//! A session's commit is appended to the journal (one `write`) and acknowledged
//! at once; the writer thread copies what the journal received into the
//! database [`INGEST_DELAY`] later, everything that came meanwhile in a single
//! transaction (group commit), off the path from an event to its readers. Reads
//! add to what the database holds the journaled commits still in line.
//!
//! When the journal cannot take a commit (a big one, the store is failing, the
//! journal is full, the database file changed) the commit goes the direct way: written at
//! once on the caller's thread when the connection is free and nothing waits,
//! else in line for the writer thread, answered once it is in the database.
//!
//! Checkpoints (copying the write-ahead log into the database file, with its
//! `fsync`s) never run in a commit: each time the log has grown by
//! [`CHECKPOINT_FRAMES`] pages, the writer thread copies it on a connection of
//! its own, beside the writes, then what was added meanwhile holding the
//! writing connection.
//!
//! A commit survives the daemon being killed at any point once its journal
//! record is written, as one in the database's write-ahead log does with
//! `synchronous = NORMAL` (both are in the OS's hands); only a power loss can
//! drop the last commits, never corrupt the file.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rusqlite::{params, Connection, OpenFlags};

use super::migrations::{migrate, MIGRATIONS};
use super::{
    cause, cause_while, Cause, Commit, EncodedEvent, SessionRecord, Store, StoreError,
    StoredSession, PAGE_BYTES,
};
use file::{restrict_permissions, DatabaseFile};
use writer::{answer, note_log_frames, Queue, Shared, Writer};
#[cfg(test)]
use writes::write_batch;
use writes::{finish_deletions, open_journal};

mod file;
mod journal;
mod writer;
mod writes;

/// Most jobs folded into one transaction.
const MAX_BATCH: usize = 512;
/// How long journaled commits wait for more before the writer thread copies
/// them into the database (sooner when a direct write or a full batch asks for
/// it).
const INGEST_DELAY: Duration = Duration::from_millis(10);
/// Journal bytes past which commits go the direct way until the database has
/// caught up and the journal starts over: what waits in line to be copied is
/// also held in memory.
const JOURNAL_LIMIT: u64 = 4 << 20;
/// Bytes of events and snapshot past which a commit goes the direct way: a
/// commit of a big output would be written twice and held in line, for a gain
/// that only matters to the small commits a client waits on.
const JOURNAL_COMMIT_BYTES: usize = 256 << 10;
/// Journal bytes past which the journal starts over once the database holds
/// all of it (below, it waits for the store to close).
const JOURNAL_START_OVER: u64 = 1 << 20;
/// How long the writer thread, idle, looks every [`INGEST_DELAY`] for journaled
/// commits after its last transaction, before it sleeps until woken: while
/// sessions are busy, a commit costs them no wake-up of another thread.
const WATCH_AFTER_WRITE: Duration = Duration::from_secs(1);
/// How long the writer thread waits before trying journaled commits again
/// after a failed transaction.
const RETRY_DELAY: Duration = Duration::from_secs(1);

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

/// Who waits for a write: a thread, a task, or nobody (a journaled commit,
/// acknowledged already, with its record's number).
enum Done {
    Thread(SyncSender<Result<(), StoreError>>),
    Task(tokio::sync::oneshot::Sender<Result<(), StoreError>>),
    Journaled(u64),
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
            Done::Journaled(_) => {}
        }
    }

    /// The journal record's number, for a journaled commit.
    fn journaled(&self) -> Option<u64> {
        match self {
            Done::Journaled(number) => Some(*number),
            _ => None,
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
    /// The writer thread, waited for when the store closes.
    writer_thread: Option<thread::JoinHandle<()>>,
}

impl SqliteStore {
    /// The file name inside the data dir.
    pub const FILE_NAME: &'static str = "sessions.db";
    /// The journal's file name inside the data dir.
    pub const JOURNAL_NAME: &'static str = "sessions.journal";

    /// Opens (creating or upgrading) the database in `data_dir`. A file that is
    /// not ours, corrupt, or from a newer daemon is refused and left untouched.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        let path = data_dir.join(Self::FILE_NAME);
        let unusable = |cause: Cause| StoreError::Unusable {
            path: path.clone(),
            cause,
        };
        let mut connection = connect(&path).map_err(|e| unusable(cause(e)))?;
        // Reading the header first: a file that is not a database fails here,
        // before anything is written to it.
        connection
            .query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))
            .map_err(|e| unusable(cause_while("reading it (the file was left as it is)", e)))?;
        connection
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| unusable(cause(e)))?;
        let from = migrate(&mut connection, MIGRATIONS.len()).map_err(|e| unusable(cause(e)))?;
        if from != 0 && from < MIGRATIONS.len() as i64 {
            tracing::info!(path = %path.display(), from, to = MIGRATIONS.len(), "upgraded the session database");
        }
        let journal = open_journal(&mut connection, &data_dir.join(Self::JOURNAL_NAME))
            .map_err(|e| unusable(cause_while("copying the session journal into it", e)))?;
        finish_deletions(&mut connection).map_err(|e| unusable(cause(e)))?;
        restrict_permissions(&path);
        let reader = connect(&path).map_err(|e| unusable(cause(e)))?;
        let checkpointer = connect(&path).map_err(|e| unusable(cause(e)))?;
        // Replaces SQLite's automatic checkpoint in the committing connection.
        connection.wal_hook(Some(note_log_frames));
        let writer = Writer {
            connection,
            log_frames: 0,
        };
        let applied = journal.last_number();
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                applied,
                ..Queue::default()
            }),
            queued: Condvar::new(),
            written: Condvar::new(),
            writer: Mutex::new(writer),
            journal: Mutex::new(journal),
            file: DatabaseFile::at(path.clone()).map_err(|e| unusable(cause(e)))?,
            health: crate::Health::default(),
        });
        let thread_shared = shared.clone();
        let writer_thread = thread::Builder::new()
            .name("session-store".into())
            .spawn(move || thread_shared.run(checkpointer))
            .map_err(|e| StoreError::Io(cause_while("starting the store's writer", e)))?;
        Ok(Self {
            path,
            shared,
            reader: Mutex::new(reader),
            writer_thread: Some(writer_thread),
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
        outcome.recv().map_err(|_| StoreError::writer_stopped())?
    }

    /// Writes a job on the calling thread when the writing connection is free
    /// and nobody waits for the writer thread; gives it back otherwise.
    fn write_in_place(&self, job: Job) -> Option<Job> {
        let Ok(mut writer) = self.shared.writer.try_lock() else {
            return Some(job);
        };
        let queue = self.shared.queue();
        if !queue.jobs.is_empty() || queue.writing {
            // Others were first (in line, or taken by the writer thread and about
            // to be written): the writer thread takes this one after them.
            return Some(job);
        }
        drop(queue);
        let answers = self.shared.write(&mut writer, vec![job]);
        drop(writer);
        answer(answers);
        None
    }

    /// Appends a commit to the journal and puts it in line for the database;
    /// gives it back when it must go the direct way: it is big (see
    /// [`JOURNAL_COMMIT_BYTES`]), the store is failing (each commit then learns
    /// whether it was written), the journal is full (the database catches up
    /// meanwhile), or the database file changed or the journal cannot be
    /// written (the direct way tells why).
    fn journal_commit(&self, commit: Commit) -> Option<Commit> {
        let bytes = commit
            .events
            .iter()
            .map(|event| event.size())
            .sum::<usize>()
            + commit.snapshot.as_ref().map_or(0, Vec::len);
        if bytes > JOURNAL_COMMIT_BYTES
            || self.shared.health.failing()
            || self.shared.file.ensure().is_err()
        {
            return Some(commit);
        }
        let mut journal = self.shared.journal();
        if journal.len() >= JOURNAL_LIMIT {
            return Some(commit);
        }
        let number = match journal.append(&commit) {
            Ok(number) => number,
            Err(error) => {
                tracing::debug!(%error, "the commit goes straight to the database");
                return Some(commit);
            }
        };
        let mut queue = self.shared.queue();
        let wake = queue.jobs.is_empty() && !queue.watching;
        queue.jobs.push_back(Job {
            write: Write::Commit(commit),
            done: Done::Journaled(number),
        });
        queue.journaled_since.get_or_insert_with(Instant::now);
        drop(queue);
        drop(journal);
        if wake {
            self.shared.queued.notify_one();
        }
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
    /// Waits for the writer thread to write what waits (a store opened next
    /// on the same file finds the journal copied, or copies what is left).
    fn drop(&mut self) {
        self.shared.queue().closed = true;
        self.shared.queued.notify_one();
        if let Some(thread) = self.writer_thread.take() {
            let _ = thread.join();
        }
    }
}

impl Store for SqliteStore {
    fn durable(&self) -> bool {
        true
    }

    fn failing(&self) -> bool {
        self.shared.health.failing()
    }

    /// At start, before any commit: the journal was copied when the store opened.
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
        // Taken first: what leaves the line meanwhile is in the database.
        let pending = self.shared.pending(session_id);
        let mut events = select_events(
            &self.reader.lock().unwrap(),
            "SELECT sequence, event, raw FROM events WHERE session_id = ?1 AND sequence > ?2
             ORDER BY sequence LIMIT ?3",
            params![session_id, sql_integer(after), sql_integer(limit as u64)],
            PAGE_BYTES,
        )?;
        let bytes: usize = events.iter().map(|event| event.size()).sum();
        if events.len() < limit && bytes < PAGE_BYTES {
            // The database has nothing more: the rest is in line, newer.
            let last = events.last().map_or(after, |event| event.sequence);
            let room = limit - events.len();
            events.extend(
                pending
                    .into_iter()
                    .filter(|event| event.sequence > last)
                    .take(room),
            );
        }
        Ok(events)
    }

    fn read_events_before(
        &self,
        session_id: &str,
        before: u64,
        limit: usize,
    ) -> Result<Vec<Arc<EncodedEvent>>, StoreError> {
        // The newest are those in line, if any; the database has the older.
        let mut events: Vec<_> = self
            .shared
            .pending(session_id)
            .into_iter()
            .rev()
            .filter(|event| event.sequence < before)
            .take(limit)
            .collect();
        if events.len() < limit {
            let below = events.last().map_or(before, |event| event.sequence);
            events.extend(select_events(
                &self.reader.lock().unwrap(),
                "SELECT sequence, event, raw FROM events WHERE session_id = ?1 AND sequence < ?2
                 ORDER BY sequence DESC LIMIT ?3",
                params![
                    session_id,
                    sql_integer(below),
                    sql_integer((limit - events.len()) as u64)
                ],
                usize::MAX,
            )?);
        }
        Ok(events)
    }

    fn insert_session(&self, record: &SessionRecord) -> Result<(), StoreError> {
        self.submit(Write::Insert(record.clone()))
    }

    fn commit(&self, commit: Commit) -> Result<(), StoreError> {
        self.submit(Write::Commit(commit))
    }

    /// Durable once in the journal: answered at once (see the module's
    /// documentation). Else a commit whose session finds the store idle is
    /// written at once on the caller's thread (a transaction of a few rows, tens
    /// of microseconds); under contention it joins the writer thread's next
    /// group commit.
    fn commit_queued(&self, commit: Commit) -> super::CommitDone {
        match self.journal_commit(commit) {
            None => {
                let (done, receiver) = tokio::sync::oneshot::channel();
                let _ = done.send(Ok(()));
                receiver
            }
            Some(commit) => self.write_queued(Write::Commit(commit)),
        }
    }

    fn insert_session_queued(&self, record: &SessionRecord) -> super::CommitDone {
        self.write_queued(Write::Insert(record.clone()))
    }

    fn delete_session(&self, session_id: &str) -> Result<(), StoreError> {
        self.submit(Write::Delete(session_id.to_owned()))
    }
}

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

#[cfg(test)]
mod tests;
