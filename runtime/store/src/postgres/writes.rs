//! The SQL of the writes: a batch in one transaction, the commits in it folded
//! into one statement per table, a deletion a chunk at a time.
//!
//! Every write is safe to make twice (the writer makes it again when the
//! connection was lost before the answer to its `COMMIT`, which may or may not
//! have been applied): events already stored are kept as they are, the
//! checkpoint is replaced by the same one, a session inserted again with the
//! same record is taken as inserted.

use std::collections::{HashMap, HashSet};

use postgres::types::ToSql;
use postgres::{GenericClient, Transaction};

use super::lease::Leases;
use super::link::{Connection, Failure, Statements};
use super::writer::{Job, Write};
use super::DELETE_CHUNK;
use crate::{cause, Commit, EncodedEvent, NativeFiles, SessionRecord, StoreError};

/// How a job of a batch went, once the batch's transaction committed.
pub(crate) enum Outcome {
    Done,
    /// A deletion with more events to remove.
    Unfinished,
    /// This job could not be written; the others were.
    Refused(StoreError),
}

/// Writes a batch in one transaction, in the order of its jobs; how each went.
pub(crate) fn write_batch(
    connection: &mut Connection,
    leases: &Leases,
    batch: &[Job],
) -> Result<Vec<Outcome>, Failure> {
    let Connection { client, statements } = connection;
    let mut outcomes = Vec::with_capacity(batch.len());
    if batch
        .iter()
        .all(|job| matches!(job.write, Write::Commit(_)))
    {
        // Only commits (what sessions at work write): one statement does them,
        // without a transaction around it (a round trip each for BEGIN and COMMIT).
        let mut commits = Vec::with_capacity(batch.len());
        for (index, job) in batch.iter().enumerate() {
            if let Write::Commit(commit) = &job.write {
                commits.push((index, commit));
                outcomes.push(Outcome::Done);
            }
        }
        write_commits(client, statements, leases, &mut commits, &mut outcomes)?;
        return Ok(outcomes);
    }
    let mut transaction = client.transaction()?;
    // Consecutive commits are written together, before the next other job.
    let mut commits = Vec::new();
    for (index, job) in batch.iter().enumerate() {
        if !matches!(job.write, Write::Commit(_)) {
            write_commits(
                &mut transaction,
                statements,
                leases,
                &mut commits,
                &mut outcomes,
            )?;
        }
        match &job.write {
            Write::Commit(commit) => {
                commits.push((index, commit));
                outcomes.push(Outcome::Done);
            }
            Write::Insert(record) => {
                outcomes.push(insert(&mut transaction, statements, leases, record)?);
            }
            Write::Delete(session_id) => {
                outcomes.push(if delete_chunk(&mut transaction, statements, session_id)? {
                    Outcome::Done
                } else {
                    Outcome::Unfinished
                });
            }
            Write::Native(session_id, native) => {
                outcomes.push(save_native(&mut transaction, leases, session_id, native)?);
            }
        }
    }
    write_commits(
        &mut transaction,
        statements,
        leases,
        &mut commits,
        &mut outcomes,
    )?;
    transaction.commit()?;
    Ok(outcomes)
}

/// A new session, driven by this daemon; the same one again is taken as
/// written (a retry).
fn insert(
    transaction: &mut Transaction<'_>,
    statements: &mut Statements,
    leases: &Leases,
    record: &SessionRecord,
) -> Result<Outcome, Failure> {
    let encoded = match serde_json::to_string(record) {
        Ok(encoded) => encoded,
        Err(error) => return Ok(Outcome::Refused(error.into())),
    };
    let statement = statements.get(
        transaction,
        "INSERT INTO sessions (id, record, checkpoint, created_at, updated_at, owner, fence)
         VALUES ($1, $2, '{}', $3, $3, $4, 1)
         ON CONFLICT (id) DO NOTHING",
    )?;
    let params: [&(dyn ToSql + Sync); 4] =
        [&record.id, &encoded, &record.created_at, &leases.daemon];
    if transaction.execute(&statement, &params)? == 1 {
        leases.hold(&record.id, 1);
        return Ok(Outcome::Done);
    }
    let statement = statements.get(
        transaction,
        "SELECT record = $2 AND NOT deleting AND owner = $3, fence FROM sessions WHERE id = $1",
    )?;
    let same = transaction
        .query_opt(&statement, &[&record.id, &encoded, &leases.daemon])?
        .filter(|row| row.get::<_, bool>(0));
    Ok(if let Some(row) = same {
        leases.hold(&record.id, row.get(1));
        Outcome::Done
    } else {
        Outcome::Refused(StoreError::Io(cause(format!(
            "a session with id {} is stored already",
            record.id
        ))))
    })
}

/// A session's commits of one batch folded into one: the last checkpoint, the
/// last snapshot taken, every event in order.
struct Folded<'a> {
    id: &'a str,
    /// The fence this daemon holds the session's lease with.
    fence: i64,
    /// Where its commits are in the batch.
    jobs: Vec<usize>,
    checkpoint: String,
    ended: bool,
    updated_at: i64,
    snapshot: Option<&'a [u8]>,
    events: Vec<&'a EncodedEvent>,
}

/// Writes the commits gathered in `commits` (emptied) with two statements: the
/// sessions' new checkpoints and snapshots, then the events of the sessions
/// that are still there (a session deleted while its task was finishing keeps
/// nothing). A session whose lease this daemon no longer holds gets nothing
/// written: its commits are refused ([`StoreError::LeaseLost`]).
fn write_commits(
    transaction: &mut impl GenericClient,
    statements: &mut Statements,
    leases: &Leases,
    commits: &mut Vec<(usize, &Commit)>,
    outcomes: &mut [Outcome],
) -> Result<(), Failure> {
    if commits.is_empty() {
        return Ok(());
    }
    let mut folded: Vec<Folded<'_>> = Vec::new();
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    // Sessions with a commit refused: their later ones are refused too (no gap).
    let mut refused: HashMap<&str, StoreError> = HashMap::new();
    for (index, commit) in commits.drain(..) {
        if let Some(error) = refused.get(commit.session_id.as_str()) {
            outcomes[index] = Outcome::Refused(error.clone());
            continue;
        }
        let checkpoint = match serde_json::to_string(&commit.checkpoint) {
            Ok(checkpoint) => checkpoint,
            Err(error) => {
                let error = StoreError::from(error);
                refused.insert(&commit.session_id, error.clone());
                outcomes[index] = Outcome::Refused(error);
                continue;
            }
        };
        // Not held: learnt below when the database says this daemon owns it.
        let fence = leases.fence(&commit.session_id).unwrap_or(NOT_HELD);
        let at = *by_id.entry(&commit.session_id).or_insert_with(|| {
            folded.push(Folded {
                id: &commit.session_id,
                fence,
                jobs: Vec::new(),
                checkpoint: String::new(),
                ended: false,
                updated_at: 0,
                snapshot: None,
                events: Vec::new(),
            });
            folded.len() - 1
        });
        let session = &mut folded[at];
        session.jobs.push(index);
        session.checkpoint = checkpoint;
        session.ended = commit.checkpoint.ended;
        session.updated_at = commit.checkpoint.updated_at;
        session.snapshot = commit.snapshot.as_deref().or(session.snapshot);
        session
            .events
            .extend(commit.events.iter().map(|event| &**event));
    }
    if folded.is_empty() {
        return Ok(());
    }
    learn_fences(transaction, statements, leases, &mut folded)?;
    let ids: Vec<&str> = folded.iter().map(|session| session.id).collect();
    let checkpoints: Vec<&str> = folded.iter().map(|s| s.checkpoint.as_str()).collect();
    let ended: Vec<bool> = folded.iter().map(|session| session.ended).collect();
    let updated_at: Vec<i64> = folded.iter().map(|session| session.updated_at).collect();
    let snapshots: Vec<Option<&[u8]>> = folded.iter().map(|session| session.snapshot).collect();
    let fences: Vec<i64> = folded.iter().map(|session| session.fence).collect();
    let mut session_ids = Vec::new();
    let mut sequences = Vec::new();
    let mut envelopes = Vec::new();
    let mut raws = Vec::new();
    for session in &folded {
        for event in &session.events {
            session_ids.push(session.id);
            sequences.push(super::sql_integer(event.sequence));
            envelopes.push(event.envelope());
            raws.push(event.raw());
        }
    }
    // One statement (one round trip, atomic even outside a transaction): the
    // checkpoints of the sessions still this daemon's, then their events.
    let statement = statements.get(
        transaction,
        "WITH stored AS (
             UPDATE sessions AS s SET checkpoint = c.checkpoint, ended = c.ended,
                 updated_at = c.updated_at, snapshot = coalesce(c.snapshot, s.snapshot)
             FROM unnest($1::text[], $2::text[], $3::boolean[], $4::bigint[], $5::bytea[],
                 $6::bigint[]) AS c (id, checkpoint, ended, updated_at, snapshot, fence)
             WHERE s.id = c.id AND NOT s.deleting AND s.fence = c.fence AND s.owner = $7
             RETURNING s.id
         ), appended AS (
             INSERT INTO events (session_id, sequence, event, raw)
             SELECT e.* FROM unnest($8::text[], $9::bigint[], $10::text[], $11::text[])
                 AS e (session_id, sequence, event, raw)
             WHERE e.session_id IN (SELECT id FROM stored)
             ON CONFLICT (session_id, sequence) DO NOTHING
         )
         SELECT id FROM stored",
    )?;
    let params: [&(dyn ToSql + Sync); 11] = [
        &ids,
        &checkpoints,
        &ended,
        &updated_at,
        &snapshots,
        &fences,
        &leases.daemon,
        &session_ids,
        &sequences,
        &envelopes,
        &raws,
    ];
    let stored: HashSet<String> = transaction
        .query(&statement, &params)?
        .iter()
        .map(|row| row.get(0))
        .collect();
    if stored.len() < folded.len() {
        // Not written: deleted meanwhile (their commits are taken as done), or
        // taken over by another daemon.
        let missing: Vec<&str> = ids
            .iter()
            .copied()
            .filter(|id| !stored.contains(*id))
            .collect();
        let statement = statements.get(
            transaction,
            "SELECT id FROM sessions WHERE id = ANY($1) AND NOT deleting",
        )?;
        for row in transaction.query(&statement, &[&missing])? {
            let id: String = row.get(0);
            leases.lose(&id);
            let session = folded.iter().find(|session| session.id == id);
            for index in session.map_or(&[][..], |session| &session.jobs[..]) {
                outcomes[*index] = Outcome::Refused(lease_lost(&id));
            }
        }
    }
    Ok(())
}

/// The fence of a session this daemon holds no lease on: never a row's.
const NOT_HELD: i64 = -1;

/// The fences of the sessions of `folded` this daemon owns but has not taken
/// since the store opened (a store that writes without loading first); the
/// daemon's name is its own: its runs follow each other, never at once (the
/// data dir's lock), and each raises the fences when it loads.
fn learn_fences(
    transaction: &mut impl GenericClient,
    statements: &mut Statements,
    leases: &Leases,
    folded: &mut [Folded<'_>],
) -> Result<(), Failure> {
    let unknown: Vec<&str> = folded
        .iter()
        .filter(|session| session.fence == NOT_HELD)
        .map(|session| session.id)
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let statement = statements.get(
        transaction,
        "SELECT id, fence FROM sessions WHERE id = ANY($1) AND owner = $2 AND NOT deleting",
    )?;
    for row in transaction.query(&statement, &[&unknown, &leases.daemon])? {
        let (id, fence): (String, i64) = (row.get(0), row.get(1));
        leases.hold(&id, fence);
        if let Some(session) = folded.iter_mut().find(|session| session.id == id) {
            session.fence = fence;
        }
    }
    Ok(())
}

/// The refusal of a write of a session another daemon took over.
fn lease_lost(session_id: &str) -> StoreError {
    StoreError::LeaseLost {
        session_id: session_id.to_owned(),
    }
}

/// Replaces the agent's own session files kept for a session this daemon holds.
fn save_native(
    transaction: &mut Transaction<'_>,
    leases: &Leases,
    session_id: &str,
    native: &NativeFiles,
) -> Result<Outcome, Failure> {
    let Some(fence) = leases.fence(session_id) else {
        return Ok(Outcome::Refused(lease_lost(session_id)));
    };
    let updated = transaction.execute(
        "UPDATE sessions SET native = $2
         WHERE id = $1 AND owner = $3 AND fence = $4 AND NOT deleting",
        &[&session_id, &native.place, &leases.daemon, &fence],
    )?;
    if updated == 0 {
        return Ok(Outcome::Refused(lease_lost(session_id)));
    }
    let paths: Vec<&str> = native.files.iter().map(|(path, _)| path.as_str()).collect();
    let contents: Vec<&[u8]> = native.files.iter().map(|(_, bytes)| &bytes[..]).collect();
    transaction.execute(
        "DELETE FROM native_files WHERE session_id = $1 AND NOT (path = ANY($2))",
        &[&session_id, &paths],
    )?;
    transaction.execute(
        "INSERT INTO native_files (session_id, path, contents)
         SELECT $1, path, contents FROM unnest($2::text[], $3::bytea[]) AS f (path, contents)
         ON CONFLICT (session_id, path) DO UPDATE SET contents = excluded.contents
             WHERE native_files.contents <> excluded.contents",
        &[&session_id, &paths, &contents],
    )?;
    Ok(Outcome::Done)
}

/// Removes up to [`DELETE_CHUNK`] of a session's events, and the session once
/// none are left. The row, marked `deleting` from the first chunk on, goes last:
/// a daemon stopped halfway finishes the deletion when it opens the database
/// ([`finish_deletions`]). True when done.
fn delete_chunk(
    transaction: &mut Transaction<'_>,
    statements: &mut Statements,
    session_id: &str,
) -> Result<bool, Failure> {
    let statement = statements.get(
        transaction,
        "UPDATE sessions SET deleting = true WHERE id = $1 AND NOT deleting",
    )?;
    transaction.execute(&statement, &[&session_id])?;
    let statement = statements.get(
        transaction,
        "DELETE FROM events WHERE session_id = $1 AND sequence IN
             (SELECT sequence FROM events WHERE session_id = $1 ORDER BY sequence LIMIT $2)",
    )?;
    let removed = transaction.execute(&statement, &[&session_id, &(DELETE_CHUNK as i64)])?;
    if removed as usize == DELETE_CHUNK {
        return Ok(false);
    }
    let statement = statements.get(transaction, "DELETE FROM sessions WHERE id = $1")?;
    transaction.execute(&statement, &[&session_id])?;
    Ok(true)
}

/// Finishes the deletions a stopped daemon left halfway (see [`delete_chunk`]).
pub(crate) fn finish_deletions(connection: &mut Connection) -> Result<(), Failure> {
    let Connection { client, statements } = connection;
    loop {
        let mut transaction = client.transaction()?;
        let ids: Vec<String> = transaction
            .query("SELECT id FROM sessions WHERE deleting", &[])?
            .iter()
            .map(|row| row.get(0))
            .collect();
        if ids.is_empty() {
            return Ok(());
        }
        for id in &ids {
            delete_chunk(&mut transaction, statements, id)?;
        }
        transaction.commit()?;
    }
}
