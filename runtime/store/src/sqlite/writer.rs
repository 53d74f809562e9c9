//! The store's writer thread and what it shares with the store's users: the
//! line of writes, the writing connection, the journal.

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rusqlite::Connection;

use super::file::DatabaseFile;
use super::journal::Journal;
use super::writes::write_batch;
use super::{
    Done, Job, Write, CHECKPOINT_FRAMES, INGEST_DELAY, JOURNAL_START_OVER, MAX_BATCH, RETRY_DELAY,
    WATCH_AFTER_WRITE,
};
use crate::{EncodedEvent, StoreError};

/// What the store's users and its writer thread share.
pub(super) struct Shared {
    /// Writes waiting for the writer thread.
    pub(super) queue: Mutex<Queue>,
    /// Wakes the writer thread when `queue` gets a job or closes.
    pub(super) queued: Condvar,
    /// Wakes the readers waiting for the writer thread's transaction to end.
    pub(super) written: Condvar,
    /// The writing connection, held by whoever writes: the writer thread or a
    /// session committing itself (see [`SqliteStore::commit_queued`]).
    pub(super) writer: Mutex<Writer>,
    /// The journal, held while a record is appended and put in line (so that
    /// the line is in the journal's order) or the file starts over.
    pub(super) journal: Mutex<Journal>,
    /// The database file.
    pub(super) file: DatabaseFile,
    /// Whether the last transaction failed for where the database lives.
    pub(super) health: crate::Health,
}

#[derive(Default)]
pub(super) struct Queue {
    pub(super) jobs: VecDeque<Job>,
    /// The write-ahead log has grown enough: the writer thread checkpoints it.
    pub(super) checkpoint: bool,
    /// The store is gone: the writer thread ends once the queue is empty.
    pub(super) closed: bool,
    /// The number of the last journal record the database holds.
    pub(super) applied: u64,
    /// Since when journaled commits wait in `jobs`.
    pub(super) journaled_since: Option<Instant>,
    /// The writer thread looks for journaled commits by itself: appending one
    /// needs not wake it.
    pub(super) watching: bool,
    /// The writer thread is writing journaled commits it took from `jobs`.
    pub(super) writing: bool,
    /// After a failed transaction, when journaled commits are tried again.
    pub(super) retry_at: Option<Instant>,
}

/// When the writer thread takes what waits.
enum Take {
    Now,
    After(Duration),
    /// Nothing waits.
    Idle,
}

impl Queue {
    /// Direct writes are taken at once; journaled commits wait a little for
    /// others, to be copied together.
    fn take(&self, now: Instant) -> Take {
        if self.checkpoint || self.closed {
            return Take::Now;
        }
        if self.jobs.is_empty() {
            return Take::Idle;
        }
        let someone_waits = self.jobs.iter().any(|job| job.done.journaled().is_none());
        if someone_waits || self.jobs.len() >= MAX_BATCH {
            return Take::Now;
        }
        let due = self
            .retry_at
            .unwrap_or_else(|| self.journaled_since.unwrap_or(now) + INGEST_DELAY);
        match due.checked_duration_since(now) {
            Some(wait) if !wait.is_zero() => Take::After(wait),
            _ => Take::Now,
        }
    }
}

impl Shared {
    pub(super) fn queue(&self) -> MutexGuard<'_, Queue> {
        // A queue of jobs stays consistent even if a holder panicked.
        self.queue
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Puts jobs in line for the writer thread.
    pub(super) fn enqueue(&self, jobs: impl IntoIterator<Item = Job>) {
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
    pub(super) fn write(
        &self,
        writer: &mut Writer,
        batch: Vec<Job>,
    ) -> Vec<(Done, Result<(), StoreError>)> {
        let outcome = self
            .file
            .ensure()
            .and_then(|()| write_batch(&mut writer.connection, &batch))
            .map_err(|e| self.file.classify(e));
        self.health.note(&outcome, batch.len());
        if writer.log_grew() {
            self.queue().checkpoint = true;
            self.queued.notify_one();
        }
        match outcome {
            Ok(unfinished) => {
                let mut again = Vec::new();
                let mut answers = Vec::new();
                let mut applied = None;
                for (index, job) in batch.into_iter().enumerate() {
                    if unfinished.contains(&index) {
                        again.push(job);
                    } else {
                        applied = job.done.journaled().or(applied);
                        answers.push((job.done, Ok(())));
                    }
                }
                // Behind what others queued meanwhile: a long deletion goes a
                // chunk at a time between other sessions' writes.
                self.enqueue(again);
                if let Some(number) = applied {
                    self.applied(number);
                }
                answers
            }
            Err(error) => {
                // Journaled commits were acknowledged: they go back to the head
                // of the line, to be tried again (the journal keeps them
                // meanwhile, and a restart copies them).
                let (journaled, waiting): (Vec<Job>, Vec<Job>) = batch
                    .into_iter()
                    .partition(|job| job.done.journaled().is_some());
                if !journaled.is_empty() {
                    let mut queue = self.queue();
                    for job in journaled.into_iter().rev() {
                        queue.jobs.push_front(job);
                    }
                    queue.retry_at = Some(Instant::now() + RETRY_DELAY);
                }
                waiting
                    .into_iter()
                    .map(|job| (job.done, Err(error.clone())))
                    .collect()
            }
        }
    }

    /// Notes that the database holds the journal up to record `number`, and
    /// starts the journal over when it is long and the database holds all of it.
    fn applied(&self, number: u64) {
        self.queue().applied = number;
        self.start_over_journal(number, JOURNAL_START_OVER);
    }

    /// Empties the journal when it holds at least `bytes` and the database
    /// holds all of it (up to record `applied`).
    fn start_over_journal(&self, applied: u64, bytes: u64) {
        let mut journal = self.journal();
        if journal.len() >= bytes && journal.last_number() == applied {
            if let Err(error) = journal.start_over() {
                tracing::warn!(%error, "emptying the session journal");
            }
        }
    }

    /// The events of a session's journaled commits that are not in the
    /// database yet, in order. Taken between two transactions of the writer
    /// thread: whatever is not among them is in the database by then.
    pub(super) fn pending(&self, session_id: &str) -> Vec<Arc<EncodedEvent>> {
        let mut queue = self.queue();
        while queue.writing {
            queue = self
                .written
                .wait(queue)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        let mut events = Vec::new();
        for job in &queue.jobs {
            if let (Write::Commit(commit), Some(_)) = (&job.write, job.done.journaled()) {
                if commit.session_id == session_id {
                    events.extend(commit.events.iter().cloned());
                }
            }
        }
        events
    }

    pub(super) fn journal(&self) -> MutexGuard<'_, Journal> {
        // A failed append leaves the file as it was.
        self.journal
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The writer thread: waits for jobs (journaled ones a little, see
    /// [`Queue::take`]), takes every job waiting (up to [`MAX_BATCH`]) and
    /// writes them in one transaction, and checkpoints the log through
    /// `checkpointer` when it has grown, until the store is gone and nothing
    /// waits (or what waits cannot be written: the journal keeps it).
    pub(super) fn run(&self, checkpointer: Connection) {
        let mut wrote = Instant::now();
        loop {
            let (batch, checkpoint) = {
                let mut queue = self.queue();
                loop {
                    if queue.closed && queue.jobs.is_empty() && !queue.checkpoint {
                        drop(queue);
                        self.close_journal();
                        return;
                    }
                    queue = match queue.take(Instant::now()) {
                        Take::Now => break,
                        Take::After(wait) => {
                            self.queued
                                .wait_timeout(queue, wait)
                                .unwrap_or_else(|poisoned| poisoned.into_inner())
                                .0
                        }
                        Take::Idle => {
                            queue.watching = wrote.elapsed() < WATCH_AFTER_WRITE;
                            let mut queue = if queue.watching {
                                self.queued
                                    .wait_timeout(queue, INGEST_DELAY)
                                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                                    .0
                            } else {
                                self.queued
                                    .wait(queue)
                                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                            };
                            queue.watching = false;
                            queue
                        }
                    };
                }
                if queue.closed && queue.retry_at.is_some() {
                    // The last try failed: the journal keeps the rest for the
                    // next daemon.
                    return;
                }
                let take = queue.jobs.len().min(MAX_BATCH);
                let batch = queue.jobs.drain(..take).collect::<Vec<_>>();
                // Only journaled commits in flight matter to readers (they are
                // in neither the line nor the database) and to a commit written
                // in place (it must not overtake them); reads never wait for a
                // direct write, a long deletion's chunk among them.
                queue.writing = batch.iter().any(|job| job.done.journaled().is_some());
                queue.retry_at = None;
                if queue.jobs.is_empty() {
                    queue.journaled_since = None;
                }
                (batch, std::mem::take(&mut queue.checkpoint))
            };
            if !batch.is_empty() {
                wrote = Instant::now();
                let answers = self.write(&mut self.writer(), batch);
                self.queue().writing = false;
                self.written.notify_all();
                answer(answers);
            }
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
        }
    }

    /// Empties the journal when the database holds all of it (the store closes).
    fn close_journal(&self) {
        let applied = self.queue().applied;
        self.start_over_journal(applied, 1);
    }

    pub(super) fn writer(&self) -> MutexGuard<'_, Writer> {
        // A failed transaction rolls back: the connection stays usable.
        self.writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Tells each waiting job how its write went.
pub(super) fn answer(answers: Vec<(Done, Result<(), StoreError>)>) {
    for (done, outcome) in answers {
        done.send(outcome);
    }
}

/// Copies into the database file what the write-ahead log holds and no reader
/// still needs, waiting for nobody.
fn checkpoint_log(connection: &Connection) -> rusqlite::Result<()> {
    connection.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
}

/// The writing connection.
pub(super) struct Writer {
    pub(super) connection: Connection,
    /// Pages in the write-ahead log after the last commit.
    pub(super) log_frames: i32,
}

thread_local! {
    /// Pages in the write-ahead log after the last commit made on this thread
    /// (SQLite reports it to [`note_log_frames`] from within the commit).
    static LOG_FRAMES: Cell<i32> = const { Cell::new(0) };
}

/// The writing connection's write-ahead log hook.
pub(super) fn note_log_frames(
    _: &rusqlite::hooks::Wal,
    frames: std::ffi::c_int,
) -> rusqlite::Result<()> {
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
}
