//! The store's writer thread and what it shares with the store's users: the
//! line of writes and the store's health.

use std::collections::{HashSet, VecDeque};
use std::sync::mpsc::SyncSender;
use std::sync::{Condvar, Mutex, MutexGuard};

use std::sync::Arc;

use super::lease::Leases;
use super::link::Link;
use super::writes::{write_batch, Outcome};
use super::{BATCH_BYTES, MAX_BATCH};
use crate::{Commit, NativeFiles, SessionRecord, StoreError};

/// A write and who waits for it.
pub(crate) struct Job {
    pub(crate) write: Write,
    pub(crate) done: Done,
}

/// What a job writes.
pub(crate) enum Write {
    Insert(SessionRecord),
    Commit(Commit),
    Delete(String),
    /// The agent's own session files of a session, replacing those kept.
    Native(String, NativeFiles),
}

/// Who waits for a write: a thread or a task.
pub(crate) enum Done {
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

impl Job {
    /// Bytes of events and snapshot the job writes.
    fn bytes(&self) -> usize {
        match &self.write {
            Write::Commit(commit) => {
                commit
                    .events
                    .iter()
                    .map(|event| event.size())
                    .sum::<usize>()
                    + commit.snapshot.as_ref().map_or(0, Vec::len)
            }
            Write::Native(_, native) => native.files.iter().map(|(_, bytes)| bytes.len()).sum(),
            Write::Insert(_) | Write::Delete(_) => 0,
        }
    }
}

/// What the store's users and its writer thread share.
pub(crate) struct Shared {
    queue: Mutex<Queue>,
    /// Wakes the writer thread when `queue` gets a job or closes.
    queued: Condvar,
    /// Whether the last transaction failed for where the database lives.
    pub(crate) health: crate::Health,
    /// The leases this daemon holds: the fence each write of a session names.
    pub(crate) leases: Arc<Leases>,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// The store is gone: the writer thread ends once the line is empty.
    closed: bool,
    /// How many of the next jobs are written a transaction each (a batch was
    /// refused for what one of its jobs holds).
    alone: usize,
}

impl Shared {
    /// Nothing in line yet.
    pub(crate) fn new(leases: Arc<Leases>) -> Self {
        Self {
            queue: Mutex::default(),
            queued: Condvar::new(),
            health: crate::Health::default(),
            leases,
        }
    }

    fn queue(&self) -> MutexGuard<'_, Queue> {
        // A line of jobs stays consistent even if a holder panicked.
        self.queue
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Puts jobs in line for the writer thread, in their order.
    pub(crate) fn enqueue(&self, jobs: impl IntoIterator<Item = Job>) {
        let mut queue = self.queue();
        let before = queue.jobs.len();
        queue.jobs.extend(jobs);
        if queue.jobs.len() > before {
            drop(queue);
            self.queued.notify_one();
        }
    }

    /// Lets the writer thread end once it has written what waits.
    pub(crate) fn close(&self) {
        self.queue().closed = true;
        self.queued.notify_one();
    }

    /// Every job waiting, up to [`MAX_BATCH`] of them and [`BATCH_BYTES`]
    /// (one at least); `None` once the store is closed and nothing waits.
    fn take(&self) -> Option<Vec<Job>> {
        let mut queue = self.queue();
        loop {
            if !queue.jobs.is_empty() {
                if queue.alone > 0 {
                    queue.alone -= 1;
                    return queue.jobs.pop_front().map(|job| vec![job]);
                }
                let mut bytes = 0;
                let mut count = 0;
                for job in queue.jobs.iter().take(MAX_BATCH) {
                    bytes += job.bytes();
                    if count > 0 && bytes > BATCH_BYTES {
                        break;
                    }
                    count += 1;
                }
                return Some(queue.jobs.drain(..count).collect());
            }
            if queue.closed {
                return None;
            }
            queue = self
                .queued
                .wait(queue)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// Puts a refused batch back at the head of the line, to be written a job
    /// per transaction.
    fn write_alone(&self, batch: Vec<Job>) {
        let mut queue = self.queue();
        queue.alone += batch.len();
        for job in batch.into_iter().rev() {
            queue.jobs.push_front(job);
        }
    }

    /// Answers `failed` with `error`, and with it the commits waiting in line
    /// of the sessions whose commit failed: made before this answer, they come
    /// after the failed one, and written without it they would leave a gap in
    /// the session's events.
    fn fail(&self, failed: Vec<Job>, error: &StoreError) {
        let sessions: HashSet<String> = failed
            .iter()
            .filter_map(|job| match &job.write {
                Write::Commit(commit) => Some(commit.session_id.clone()),
                _ => None,
            })
            .collect();
        let mut later = Vec::new();
        if !sessions.is_empty() {
            let mut queue = self.queue();
            let mut kept = VecDeque::with_capacity(queue.jobs.len());
            for job in queue.jobs.drain(..) {
                match &job.write {
                    Write::Commit(commit) if sessions.contains(&commit.session_id) => {
                        later.push(job)
                    }
                    _ => kept.push_back(job),
                }
            }
            queue.jobs = kept;
            queue.alone = queue.alone.min(queue.jobs.len());
        }
        for job in failed.into_iter().chain(later) {
            job.done.send(Err(error.clone()));
        }
    }
}

/// The writer thread: takes every job waiting and writes them in one
/// transaction (group commit), answers each once it is durable, until the store
/// is gone and nothing waits.
pub(crate) fn run(shared: &Shared, link: &mut Link) {
    while let Some(batch) = shared.take() {
        write(shared, link, batch);
    }
}

/// Writes `batch` in one transaction and answers its jobs; a batch refused for
/// what one of its jobs holds (not for where the database is) is written again
/// a job per transaction, so that only that job fails. A deletion with more to
/// remove goes back in line, behind what others queued meanwhile.
fn write(shared: &Shared, link: &mut Link, batch: Vec<Job>) {
    let outcome = link.run(|connection| write_batch(connection, &shared.leases, &batch));
    shared.health.note(&outcome, batch.len());
    match outcome {
        Ok(outcomes) => {
            let mut again = Vec::new();
            for (job, outcome) in batch.into_iter().zip(outcomes) {
                match outcome {
                    Outcome::Done => {
                        if let Write::Delete(id) = &job.write {
                            shared.leases.release(id);
                        }
                        job.done.send(Ok(()))
                    }
                    Outcome::Refused(error) => shared.fail(vec![job], &error),
                    Outcome::Unfinished => again.push(job),
                }
            }
            shared.enqueue(again);
        }
        Err(error) if !error.is_storage_fault() && batch.len() > 1 => {
            tracing::debug!(%error, jobs = batch.len(), "writing the batch a job at a time");
            shared.write_alone(batch);
        }
        Err(error) => shared.fail(batch, &error),
    }
}
