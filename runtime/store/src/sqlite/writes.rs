//! The SQL of each write: a batch in one transaction, a session's commit, a
//! deletion a chunk at a time, and what the journal holds at start.

use std::path::Path;

use rusqlite::{params, Connection};

use super::journal::Journal;
use super::{sql_integer, Done, Job, Write, DELETE_CHUNK, MAX_BATCH};
use crate::{cause_while, Commit, StoreError};

/// Writes a batch in one transaction; returns the positions of the deletions
/// that have more to remove (see [`DELETE_CHUNK`]).
pub(super) fn write_batch(
    connection: &mut Connection,
    batch: &[Job],
) -> Result<Vec<usize>, StoreError> {
    let transaction = connection.transaction()?;
    if let Some(number) = batch.iter().filter_map(|job| job.done.journaled()).max() {
        transaction
            .prepare_cached("UPDATE journal_applied SET number = ?1")?
            .execute([sql_integer(number)])?;
    }
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

/// Opens the journal and copies into the database the commits it holds that the
/// database does not (a daemon stopped before its writer thread got to them).
pub(super) fn open_journal(
    connection: &mut Connection,
    path: &Path,
) -> Result<Journal, StoreError> {
    let applied: i64 =
        connection.query_row("SELECT number FROM journal_applied", [], |row| row.get(0))?;
    let (mut journal, pending) = Journal::open(path, applied as u64)
        .map_err(|e| StoreError::Io(cause_while(path.display().to_string(), e)))?;
    if !pending.is_empty() {
        tracing::info!(
            commits = pending.len(),
            "copying the session journal into the database"
        );
        let jobs: Vec<Job> = pending
            .into_iter()
            .map(|pending| Job {
                write: Write::Commit(pending.commit),
                done: Done::Journaled(pending.number),
            })
            .collect();
        for batch in jobs.chunks(MAX_BATCH) {
            write_batch(connection, batch)?;
        }
    }
    journal
        .start_over()
        .map_err(|e| StoreError::Io(cause_while(path.display().to_string(), e)))?;
    Ok(journal)
}

/// Finishes the deletions a previous daemon left halfway (see [`delete_chunk`]).
pub(super) fn finish_deletions(connection: &mut Connection) -> Result<(), StoreError> {
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
