//! The PostgreSQL schema, versioned from the first release: migration N takes a
//! database from version N-1 to N, and `agentplex_migrations` has a row for each
//! one applied. Never edit a released migration; add the next one.
//!
//! Daemons of a fleet may open the database at once: migrations run in one
//! transaction under an advisory lock, so that one daemon applies them and the
//! others find them applied.

use postgres::Client;

/// The advisory lock taken while migrating ("SAGT", as SQLite's application id).
const MIGRATION_LOCK: i64 = 0x5341_4754;

/// The tables of the schema (a database holding one of them and not
/// `agentplex_migrations` belongs to another program).
const TABLES: [&str; 4] = ["sessions", "events", "native_files", "daemons"];

/// Every migration, in order; the schema version is their count.
pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: sessions with their JSON record and checkpoint (text: kept as written,
    // `::jsonb` to query), the adapter's snapshot, and what the fleet's leases
    // will need (the daemon driving the session, until when, and the fence that
    // a new owner raises); events by (session, sequence), the native payload
    // apart; the agents' own session files, by session and path, for a daemon
    // that takes a session over.
    "CREATE TABLE sessions (
        id text PRIMARY KEY,
        record text NOT NULL,
        checkpoint text NOT NULL,
        snapshot bytea,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        ended boolean NOT NULL DEFAULT false,
        deleting boolean NOT NULL DEFAULT false,
        owner text,
        lease_until timestamptz,
        fence bigint NOT NULL DEFAULT 0
    ) WITH (fillfactor = 70);
    CREATE TABLE events (
        session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        sequence bigint NOT NULL,
        event text NOT NULL,
        raw text,
        PRIMARY KEY (session_id, sequence)
    );
    CREATE TABLE native_files (
        session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        path text NOT NULL,
        contents bytea NOT NULL,
        PRIMARY KEY (session_id, path)
    );",
    // 2: the fleet's daemons, each alive until its last heartbeat runs out (a
    // session's lease is its owner's: one row renewed per daemon, not one per
    // session, and never a session's row, which its commits lock); where the
    // agent's own session files in `native_files` were read from (the sessions
    // layer's JSON), for the daemon that takes the session over; sessions found
    // by owner.
    "CREATE TABLE daemons (
        name text PRIMARY KEY,
        alive_until timestamptz NOT NULL
    );
    ALTER TABLE sessions DROP COLUMN lease_until;
    ALTER TABLE sessions ADD COLUMN native text;
    CREATE INDEX sessions_by_owner ON sessions (owner);",
];

/// Why a database cannot be brought to the current schema.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MigrationError {
    /// Another program's tables.
    #[error(
        "it has a table {0} that agentplex did not make; give agentplex a database of its own \
         (or a schema: options=-csearch_path%3DNAME in the URL)"
    )]
    Foreign(&'static str),
    /// Written by a newer daemon.
    #[error(
        "its schema version {found} is newer than this daemon supports ({supported}); \
         upgrade agentplex or use another database"
    )]
    TooNew {
        /// The database's schema version.
        found: i64,
        /// The newest this daemon knows.
        supported: i64,
    },
    /// The server failed reading or upgrading it.
    #[error(transparent)]
    Sql(#[from] postgres::Error),
}

/// Brings the database to the current schema (the first `upto` migrations), in
/// one transaction. Returns the version it started from.
pub(crate) fn migrate(client: &mut Client, upto: usize) -> Result<i64, MigrationError> {
    let mut transaction = client.transaction()?;
    transaction.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    let ours: bool = transaction
        .query_one(
            "SELECT to_regclass('agentplex_migrations') IS NOT NULL",
            &[],
        )?
        .get(0);
    if !ours {
        for table in TABLES {
            let exists: bool = transaction
                .query_one("SELECT to_regclass($1) IS NOT NULL", &[&table])?
                .get(0);
            if exists {
                return Err(MigrationError::Foreign(table));
            }
        }
        transaction.batch_execute(
            "CREATE TABLE agentplex_migrations (
                version integer PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT now()
            )",
        )?;
    }
    let version: i64 = transaction
        .query_one(
            "SELECT coalesce(max(version), 0)::bigint FROM agentplex_migrations",
            &[],
        )?
        .get(0);
    let supported = upto as i64;
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
        transaction.batch_execute(sql)?;
        let number = index as i32 + 1;
        transaction.execute(
            "INSERT INTO agentplex_migrations (version) VALUES ($1)",
            &[&number],
        )?;
    }
    transaction.commit()?;
    Ok(version)
}
