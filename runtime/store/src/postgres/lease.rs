//! The fleet's leases: a daemon drives a session only while it holds the
//! session's lease, and writes it only with the lease's fence.
//!
//! - The `sessions` row names its `owner` (a daemon) and a `fence` that each
//!   new owner raises. The lease runs while the owner lives: the `daemons` row
//!   of each daemon says until when (`alive_until`, the database's clock: the
//!   one clock every daemon shares).
//! - A daemon renews its own row a few times per lease ([`Keeper`]): one
//!   statement whatever its number of sessions, on a row no commit locks. It
//!   also reads whether the sessions it drives are still its own, and reports
//!   those another daemon took as lost.
//! - Every write of a session names the fence it was taken with: once another
//!   daemon took the session (and raised the fence), the old owner's writes are
//!   refused with [`StoreError::LeaseLost`], whatever its clock says. So a
//!   daemon that was only slow, not dead, cannot append after the new owner.
//! - A daemon asked for a session it does not hold takes it ([`take`]) once the
//!   owner's lease has run out, then reads it whole: every event the old owner
//!   committed is there, and nothing it writes later is.

use std::collections::{HashMap, HashSet};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

use super::connect::Target;
use super::link::{Connection, Failure, Link};
use crate::{cause_while, FleetSession, NativeFiles, StoreError, Taken};

/// The leases this daemon holds, and where it reports those it lost.
pub(crate) struct Leases {
    /// This daemon's name in the `owner` column.
    pub(crate) daemon: String,
    /// How long a lease runs without renewal.
    pub(crate) ttl: Duration,
    /// The fence of each session this daemon drives.
    held: Mutex<HashMap<String, i64>>,
    lost: UnboundedSender<String>,
    lost_receiver: Mutex<Option<UnboundedReceiver<String>>>,
}

impl Leases {
    /// No lease held yet.
    pub(crate) fn new(daemon: String, ttl: Duration) -> Self {
        let (lost, lost_receiver) = unbounded_channel();
        Self {
            daemon,
            ttl,
            held: Mutex::default(),
            lost,
            lost_receiver: Mutex::new(Some(lost_receiver)),
        }
    }

    /// The lease's length in milliseconds, as the SQL takes it.
    pub(crate) fn ttl_ms(&self) -> i64 {
        i64::try_from(self.ttl.as_millis()).unwrap_or(i64::MAX)
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<String, i64>> {
        self.held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The fence this daemon writes the session with, while it holds its lease.
    pub(crate) fn fence(&self, session_id: &str) -> Option<i64> {
        self.held().get(session_id).copied()
    }

    /// Notes a lease taken (or a session made) with `fence`.
    pub(crate) fn hold(&self, session_id: &str, fence: i64) {
        self.held().insert(session_id.to_owned(), fence);
    }

    /// Forgets a deleted session's lease.
    pub(crate) fn release(&self, session_id: &str) {
        self.held().remove(session_id);
    }

    /// Forgets a lease another daemon took, and reports it (once).
    pub(crate) fn lose(&self, session_id: &str) {
        if self.held().remove(session_id).is_some() {
            tracing::warn!(
                session_id,
                "another daemon took the session over: this daemon stops driving it"
            );
            let _ = self.lost.send(session_id.to_owned());
        }
    }

    /// The lost leases' reports, given once.
    pub(crate) fn lost_reports(&self) -> Option<UnboundedReceiver<String>> {
        self.lost_receiver
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take()
    }
}

/// The thread that renews this daemon's lease, and on a clean stop lets it run
/// out at once (the daemon's sessions are then free for another daemon).
pub(crate) struct Keeper {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Keeper {
    /// Starts renewing `leases` a few times per lease.
    pub(crate) fn start(target: &Arc<Target>, leases: &Arc<Leases>) -> Result<Self, StoreError> {
        let (stop, stopped) = mpsc::channel();
        let (target, leases) = (target.clone(), leases.clone());
        let thread = thread::Builder::new()
            .name("session-store-lease".into())
            .spawn(move || keep(&target, &leases, &stopped))
            .map_err(|e| StoreError::Io(cause_while("starting the store's lease keeper", e)))?;
        Ok(Self {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Keeper {
    fn drop(&mut self) {
        self.stop = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Renews the daemon's lease each third of a lease until told to stop, then
/// lets it run out.
fn keep(target: &Arc<Target>, leases: &Leases, stopped: &mpsc::Receiver<()>) {
    let mut link = Link::new(target.clone(), None, |_| Ok(()));
    let mut failing = false;
    while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(leases.ttl / 3) {
        let held: Vec<(String, i64)> = leases
            .held()
            .iter()
            .map(|(id, fence)| (id.clone(), *fence))
            .collect();
        match link.run(|connection| renew(connection, leases, &held)) {
            Ok(taken) => {
                if std::mem::take(&mut failing) {
                    tracing::info!("the sessions' leases are renewed again");
                }
                for (id, fence) in &held {
                    if taken.contains(id) && leases.fence(id) == Some(*fence) {
                        leases.lose(id);
                    }
                }
            }
            Err(error) => {
                if !std::mem::replace(&mut failing, true) {
                    tracing::warn!(%error, "the sessions' leases cannot be renewed; other daemons may take the sessions once they run out");
                }
            }
        }
    }
    let daemon = leases.daemon.clone();
    let released = link.run(|connection| {
        let statement = "UPDATE daemons SET alive_until = now() WHERE name = $1";
        Ok(connection.client.execute(statement, &[&daemon])?)
    });
    if let Err(error) = released {
        tracing::debug!(%error, "the sessions' leases were not let go (they run out by themselves)");
    }
}

/// Renews the daemon's lease; the sessions of `held` that another daemon took.
fn renew(
    connection: &mut Connection,
    leases: &Leases,
    held: &[(String, i64)],
) -> Result<HashSet<String>, Failure> {
    heartbeat(&mut connection.client, leases)?;
    if held.is_empty() {
        return Ok(HashSet::new());
    }
    let Connection { client, statements } = connection;
    // A session deleted meanwhile has no row: not taken.
    let statement = statements.get(
        client,
        "SELECT s.id FROM sessions AS s
         JOIN unnest($1::text[], $2::bigint[]) AS h (id, fence) ON s.id = h.id
         WHERE s.fence <> h.fence OR s.owner IS DISTINCT FROM $3",
    )?;
    let ids: Vec<&str> = held.iter().map(|(id, _)| id.as_str()).collect();
    let fences: Vec<i64> = held.iter().map(|(_, fence)| *fence).collect();
    let rows = client.query(&statement, &[&ids, &fences, &leases.daemon])?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// Says the daemon lives for one more lease.
pub(crate) fn heartbeat(
    client: &mut impl postgres::GenericClient,
    leases: &Leases,
) -> Result<(), postgres::Error> {
    client.execute(
        "INSERT INTO daemons (name, alive_until)
         VALUES ($1, now() + $2::bigint * interval '1 millisecond')
         ON CONFLICT (name) DO UPDATE SET alive_until = excluded.alive_until",
        &[&leases.daemon, &leases.ttl_ms()],
    )?;
    Ok(())
}

/// Takes every session this daemon owned (a previous run of it) or that has no
/// owner (a database of a single daemon): what it loads at start.
pub(crate) fn claim_own(
    connection: &mut Connection,
    leases: &Leases,
) -> Result<Vec<String>, Failure> {
    let rows = connection.client.query(
        "UPDATE sessions SET owner = $1, fence = fence + 1
         WHERE NOT deleting AND (owner = $1 OR owner IS NULL)
         RETURNING id, fence",
        &[&leases.daemon],
    )?;
    Ok(rows
        .iter()
        .map(|row| {
            let id: String = row.get(0);
            leases.hold(&id, row.get(1));
            id
        })
        .collect())
}

/// Takes the session `id` over unless another daemon's lease on it runs, then
/// reads it with its last `tail` events.
pub(crate) fn take(
    connection: &mut Connection,
    leases: &Leases,
    id: &str,
    tail: usize,
) -> Result<Taken, Failure> {
    let mut transaction = connection.client.transaction()?;
    let row = transaction.query_opt(
        "SELECT s.owner, coalesce(d.alive_until > now(), false),
             coalesce((extract(epoch FROM d.alive_until - now()) * 1000)::bigint, 0), s.deleting
         FROM sessions AS s LEFT JOIN daemons AS d ON d.name = s.owner
         WHERE s.id = $1 FOR UPDATE OF s",
        &[&id],
    )?;
    let Some(row) = row else {
        return Ok(Taken::Missing);
    };
    if row.get::<_, bool>(3) {
        return Ok(Taken::Missing);
    }
    let owner: Option<String> = row.get(0);
    let running: bool = row.get(1);
    if let Some(owner) = owner.filter(|owner| *owner != leases.daemon && running) {
        return Ok(Taken::Held {
            owner,
            for_ms: row.get(2),
        });
    }
    let fence: i64 = transaction
        .query_one(
            "UPDATE sessions SET owner = $2, fence = fence + 1 WHERE id = $1 RETURNING fence",
            &[&id, &leases.daemon],
        )?
        .get(0);
    transaction.commit()?;
    leases.hold(id, fence);
    let mut loaded = super::reads::load_ids(connection, &[id.to_owned()], tail)?;
    Ok(match loaded.pop() {
        Some(session) => Taken::Took(Box::new(session)),
        None => Taken::Missing,
    })
}

/// Every session of the fleet, in id order, with its owner and whether that
/// owner's lease runs.
pub(crate) fn sessions(connection: &mut Connection) -> Result<Vec<FleetSession>, Failure> {
    let rows = connection.client.query(
        "SELECT s.id, s.record, s.checkpoint, s.owner, coalesce(d.alive_until > now(), false),
             coalesce((SELECT max(sequence) FROM events WHERE session_id = s.id), 0)
         FROM sessions AS s LEFT JOIN daemons AS d ON d.name = s.owner
         WHERE NOT s.deleting ORDER BY s.id COLLATE \"C\"",
        &[],
    )?;
    let mut sessions = Vec::with_capacity(rows.len());
    for row in rows {
        sessions.push(FleetSession {
            record: serde_json::from_str(row.get(1))?,
            checkpoint: serde_json::from_str(row.get(2))?,
            owner: row.get(3),
            alive: row.get(4),
            last_sequence: row.get::<_, i64>(5).max(0) as u64,
        });
    }
    Ok(sessions)
}

/// The agent's own session files kept for a session.
pub(crate) fn native(
    connection: &mut Connection,
    id: &str,
) -> Result<Option<NativeFiles>, Failure> {
    let Some(row) = connection
        .client
        .query_opt("SELECT native FROM sessions WHERE id = $1", &[&id])?
    else {
        return Ok(None);
    };
    let Some(place) = row.get::<_, Option<String>>(0) else {
        return Ok(None);
    };
    let files = connection
        .client
        .query(
            "SELECT path, contents FROM native_files WHERE session_id = $1 ORDER BY path",
            &[&id],
        )?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    Ok(Some(NativeFiles { place, files }))
}
