//! The store's reads: a few reader threads, each with its own connection, and
//! the SQL they run.
//!
//! A read is handed to whichever reader is free and answered through a
//! channel, so that any thread may read (a tokio worker included: the client
//! runs its own runtime, which must not be started inside another).

use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;

use postgres::fallible_iterator::FallibleIterator;
use postgres::types::ToSql;
use postgres::{IsolationLevel, RowIter};

use super::connect::Target;
use super::link::{Connection, Failure, Link};
use super::{sql_integer, PAGE_BYTES};
use crate::{cause_while, EncodedEvent, SessionRecord, StoreError, StoredSession};

/// A read, run by a reader thread with its link to the database.
type Read = Box<dyn FnOnce(&mut Link) + Send>;

/// The reader threads.
pub(crate) struct Readers {
    reads: Option<Sender<Read>>,
    threads: Vec<thread::JoinHandle<()>>,
}

impl Readers {
    /// Starts `count` reader threads, each connecting at once (and again when
    /// needed).
    pub(crate) fn start(target: &Arc<Target>, count: usize) -> Result<Self, StoreError> {
        let (reads, line) = mpsc::channel::<Read>();
        let line = Arc::new(Mutex::new(line));
        let mut threads = Vec::new();
        for index in 0..count.max(1) {
            let line = line.clone();
            let target = target.clone();
            let thread = thread::Builder::new()
                .name(format!("session-store-read-{index}"))
                .spawn(move || serve(&target, &line))
                .map_err(|e| StoreError::Io(cause_while("starting the store's readers", e)))?;
            threads.push(thread);
        }
        Ok(Self {
            reads: Some(reads),
            threads,
        })
    }

    /// Runs `read` on a reader's connection and waits for its answer.
    pub(crate) fn read<T: Send + 'static>(
        &self,
        mut read: impl FnMut(&mut Connection) -> Result<T, Failure> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (answer, answered) = mpsc::sync_channel(1);
        let job: Read = Box::new(move |link: &mut Link| {
            let _ = answer.send(link.run(&mut read));
        });
        self.reads
            .as_ref()
            .ok_or_else(StoreError::writer_stopped)?
            .send(job)
            .map_err(|_| StoreError::writer_stopped())?;
        answered.recv().map_err(|_| StoreError::writer_stopped())?
    }
}

impl Drop for Readers {
    fn drop(&mut self) {
        self.reads = None;
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// A reader thread: connects, then runs reads until the store is gone.
fn serve(target: &Arc<Target>, line: &Mutex<Receiver<Read>>) {
    let connection = target.connect_once(None).ok().map(Connection::new);
    let mut link = Link::new(target.clone(), connection, |_| Ok(()));
    loop {
        let read = line
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .recv();
        match read {
            Ok(read) => read(&mut link),
            Err(_) => return,
        }
    }
}

/// The sessions `ids` names (those not being deleted), with the last `tail`
/// events of each transcript, in id order (bytes, as SQLite orders them).
pub(crate) fn load_ids(
    connection: &mut Connection,
    ids: &[String],
    tail: usize,
) -> Result<Vec<StoredSession>, Failure> {
    let Connection { client, statements } = connection;
    // One snapshot of the database: each session's tail as of its checkpoint.
    let mut transaction = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()?;
    let sessions = transaction.query(
        "SELECT id, record, checkpoint, snapshot FROM sessions
         WHERE NOT deleting AND id = ANY($1)
         ORDER BY id COLLATE \"C\"",
        &[&ids],
    )?;
    let limit = sql_integer(tail as u64);
    let statement = statements.get(
        &mut transaction,
        "SELECT s.id, e.sequence, e.event, e.raw FROM sessions AS s
         CROSS JOIN LATERAL (SELECT sequence, event, raw FROM events
             WHERE session_id = s.id ORDER BY sequence DESC LIMIT $1) AS e
         WHERE NOT s.deleting AND s.id = ANY($2)",
    )?;
    let mut tails: HashMap<String, Vec<Arc<EncodedEvent>>> = HashMap::new();
    for row in transaction.query(&statement, &[&limit, &ids])? {
        let event = EncodedEvent::from_stored(row.get::<_, i64>(1) as u64, row.get(2), row.get(3))?;
        tails.entry(row.get(0)).or_default().push(Arc::new(event));
    }
    transaction.commit()?;
    let mut loaded = Vec::with_capacity(sessions.len());
    for row in sessions {
        let id: String = row.get(0);
        let record: SessionRecord = serde_json::from_str(row.get(1))?;
        let mut tail = tails.remove(&id).unwrap_or_default();
        tail.sort_by_key(|event| event.sequence);
        loaded.push(StoredSession {
            checkpoint: serde_json::from_str(row.get(2))?,
            record,
            snapshot: row.get(3),
            tail,
        });
    }
    Ok(loaded)
}

/// Up to `limit` events of a session with a sequence above `after`, in order,
/// stopping once they hold [`PAGE_BYTES`] (one at least).
pub(crate) fn events_after(
    connection: &mut Connection,
    session_id: &str,
    after: u64,
    limit: usize,
) -> Result<Vec<Arc<EncodedEvent>>, Failure> {
    let Connection { client, statements } = connection;
    let statement = statements.get(
        client,
        "SELECT sequence, event, raw FROM events WHERE session_id = $1 AND sequence > $2
         ORDER BY sequence LIMIT $3",
    )?;
    let params: [&(dyn ToSql + Sync); 3] =
        [&session_id, &sql_integer(after), &sql_integer(limit as u64)];
    select_events(client.query_raw(&statement, params)?, PAGE_BYTES)
}

/// Up to `limit` events of a session with a sequence below `before`, newest first.
pub(crate) fn events_before(
    connection: &mut Connection,
    session_id: &str,
    before: u64,
    limit: usize,
) -> Result<Vec<Arc<EncodedEvent>>, Failure> {
    let Connection { client, statements } = connection;
    let statement = statements.get(
        client,
        "SELECT sequence, event, raw FROM events WHERE session_id = $1 AND sequence < $2
         ORDER BY sequence DESC LIMIT $3",
    )?;
    let params: [&(dyn ToSql + Sync); 3] = [
        &session_id,
        &sql_integer(before),
        &sql_integer(limit as u64),
    ];
    select_events(client.query_raw(&statement, params)?, usize::MAX)
}

/// The events of `rows` (`sequence, event, raw`), in their order, stopping once
/// they hold `max_bytes` (one at least; the rest of the rows are dropped).
fn select_events(
    mut rows: RowIter<'_>,
    max_bytes: usize,
) -> Result<Vec<Arc<EncodedEvent>>, Failure> {
    let mut events = Vec::new();
    let mut bytes = 0;
    while bytes < max_bytes {
        let Some(row) = rows.next()? else { break };
        let event = EncodedEvent::from_stored(row.get::<_, i64>(0) as u64, row.get(1), row.get(2))?;
        bytes += event.size();
        events.push(Arc::new(event));
    }
    Ok(events)
}
