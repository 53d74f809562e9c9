//! The session database's schema, versioned from the first release: migration N
//! takes a database from `user_version` N-1 to N. Never edit a released
//! migration; add the next one.

use rusqlite::Connection;

/// `PRAGMA application_id` of our databases ("SAGT"): tells an agentplex
/// database from any other SQLite file.
pub const APPLICATION_ID: i32 = 0x5341_4754;

/// Every migration, in order; the schema version is their count.
pub const MIGRATIONS: &[&str] = &[
    // 1: sessions with their JSON record and checkpoint; events by (session, sequence).
    "CREATE TABLE sessions (
        id TEXT PRIMARY KEY NOT NULL,
        record TEXT NOT NULL,
        checkpoint TEXT NOT NULL,
        snapshot BLOB,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        sequence INTEGER NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (session_id, sequence)
    ) WITHOUT ROWID;",
    // 2: retention looks sessions up by whether they ended and when they last changed.
    "ALTER TABLE sessions ADD COLUMN ended INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
    UPDATE sessions SET
        ended = coalesce(json_extract(checkpoint, '$.ended'), 0),
        updated_at = coalesce(json_extract(checkpoint, '$.updatedAt'), created_at);
    CREATE INDEX sessions_by_end ON sessions (ended, updated_at);",
    // 3: an event's native payload apart from the rest, so that readers without
    // `raw` (most of them) get stored bytes as they are, never parsed.
    "ALTER TABLE events ADD COLUMN raw TEXT;
    UPDATE events SET raw = event -> '$.raw', event = json_remove(event, '$.raw')
        WHERE json_type(event, '$.raw') IS NOT NULL;",
    // 4: a session being deleted, a chunk of events per transaction, is marked as
    // such, so that a daemon stopped halfway finishes the deletion instead of
    // restoring what is left of it.
    "ALTER TABLE sessions ADD COLUMN deleting INTEGER NOT NULL DEFAULT 0;",
    // 5: retention finds what to remove in the daemon's memory, not with this
    // index, which only cost every commit a page written (its `updated_at` moves).
    "DROP INDEX sessions_by_end;",
    // 6: the number of the last record of the session journal the database
    // holds (store/sqlite/journal.rs), updated with each copy from it.
    "CREATE TABLE journal_applied (number INTEGER NOT NULL);
    INSERT INTO journal_applied VALUES (0);",
];

/// Why a database cannot be brought to the current schema.
#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    /// Another program's SQLite file.
    #[error("it belongs to another program (application id {0:#x}); point --data-dir elsewhere")]
    Foreign(i32),
    /// Written by a newer daemon.
    #[error(
        "its schema version {found} is newer than this daemon supports ({supported}); \
         upgrade agentplex or use another --data-dir"
    )]
    TooNew {
        /// The database's schema version.
        found: i64,
        /// The newest this daemon knows.
        supported: i64,
    },
    /// SQLite failed reading or upgrading it.
    #[error("{0} (the file may be corrupt; it was left as it is: move it away to start afresh)")]
    Sql(#[from] rusqlite::Error),
}

/// Brings the database to the current schema, one transaction per migration.
/// Returns the version it started from.
pub fn migrate(connection: &mut Connection, upto: usize) -> Result<i64, MigrationError> {
    let application_id: i32 =
        connection.pragma_query_value(None, "application_id", |row| row.get(0))?;
    let version: i64 = connection.pragma_query_value(None, "user_version", |row| row.get(0))?;
    let supported = upto as i64;
    if application_id != APPLICATION_ID {
        let has_tables: bool = connection.query_row(
            "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table'",
            [],
            |row| row.get(0),
        )?;
        if application_id != 0 || has_tables {
            return Err(MigrationError::Foreign(application_id));
        }
        connection.pragma_update(None, "application_id", APPLICATION_ID)?;
    }
    if version > supported {
        return Err(MigrationError::TooNew {
            found: version,
            supported,
        });
    }
    for (index, sql) in MIGRATIONS
        .iter()
        .enumerate()
        .take(upto)
        .skip(version as usize)
    {
        let transaction = connection.transaction()?;
        transaction.execute_batch(sql)?;
        transaction.pragma_update(None, "user_version", index as i64 + 1)?;
        transaction.commit()?;
    }
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_database_gets_every_migration_and_our_id() {
        let mut connection = Connection::open_in_memory().unwrap();
        assert_eq!(migrate(&mut connection, MIGRATIONS.len()).unwrap(), 0);
        let version: i64 = connection
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
        // Idempotent.
        assert_eq!(
            migrate(&mut connection, MIGRATIONS.len()).unwrap(),
            MIGRATIONS.len() as i64
        );
    }

    #[test]
    fn a_version_one_database_is_upgraded_with_its_rows() {
        let mut connection = Connection::open_in_memory().unwrap();
        migrate(&mut connection, 1).unwrap();
        connection
            .execute(
                "INSERT INTO sessions (id, record, checkpoint, created_at)
                 VALUES ('s1', '{}', '{\"ended\":true,\"updatedAt\":42}', 7)",
                [],
            )
            .unwrap();
        assert_eq!(migrate(&mut connection, MIGRATIONS.len()).unwrap(), 1);
        let (ended, updated_at): (bool, i64) = connection
            .query_row(
                "SELECT ended, updated_at FROM sessions WHERE id = 's1'",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap();
        assert!(ended);
        assert_eq!(updated_at, 42);
    }

    #[test]
    fn newer_and_foreign_databases_are_refused() {
        let mut connection = Connection::open_in_memory().unwrap();
        migrate(&mut connection, MIGRATIONS.len()).unwrap();
        connection.pragma_update(None, "user_version", 99).unwrap();
        let error = migrate(&mut connection, MIGRATIONS.len()).unwrap_err();
        assert!(error.to_string().contains("newer"), "{error}");

        let mut foreign = Connection::open_in_memory().unwrap();
        foreign.execute_batch("CREATE TABLE notes (x)").unwrap();
        let error = migrate(&mut foreign, MIGRATIONS.len()).unwrap_err();
        assert!(error.to_string().contains("another program"), "{error}");
    }
}
