//! The SQLite store's own tests: its journal, deletions a chunk at a time,
//! checkpoints of its log, foreign files (what every store must do is in
//! `conformance.rs`).

use super::*;
use crate::conformance::{event, record, session_ids};
use crate::Checkpoint;

#[test]
fn events_stored_before_raw_had_its_column_read_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(SqliteStore::FILE_NAME);
    let mut connection = connect(&path).unwrap();
    migrate(&mut connection, 2).unwrap();
    connection
        .execute(
            "INSERT INTO sessions (id, record, checkpoint, created_at) VALUES ('b', ?1, '{}', 1)",
            [serde_json::to_string(&record("b")).unwrap()],
        )
        .unwrap();
    let mut without_raw = event("b", 2);
    without_raw.raw = None;
    for stored in [event("b", 1), without_raw] {
        connection
            .execute(
                "INSERT INTO events (session_id, sequence, event) VALUES ('b', ?1, ?2)",
                params![
                    stored.sequence as i64,
                    serde_json::to_string(&stored).unwrap()
                ],
            )
            .unwrap();
    }
    drop(connection);
    let store = SqliteStore::open(dir.path()).unwrap();
    let events = store.read_events("b", 0, 10).unwrap();
    assert_eq!(events[0].decode().unwrap(), event("b", 1));
    assert!(
        !events[0].json(false).contains("raw"),
        "{}",
        events[0].json(false)
    );
    assert_eq!(events[1].raw(), None);
    assert_eq!(events[1].decode().unwrap().raw, None);
}

#[test]
fn a_file_that_is_not_a_database_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(SqliteStore::FILE_NAME);
    let garbage = b"this is not a database, but someone's data".repeat(100);
    std::fs::write(&path, &garbage).unwrap();
    let error = SqliteStore::open(dir.path()).err().expect("refused");
    assert!(matches!(error, StoreError::Unusable { .. }), "{error}");
    assert!(error.to_string().contains("sessions.db"), "{error}");
    assert_eq!(std::fs::read(&path).unwrap(), garbage);
}

/// A session with `count` events, in commits of 5,000.
fn long_session(store: &SqliteStore, id: &str, count: u64) {
    store.insert_session(&record(id)).unwrap();
    for start in (1..=count).step_by(5_000) {
        store
            .commit(Commit {
                session_id: id.into(),
                events: (start..(start + 5_000).min(count + 1))
                    .map(|n| Arc::new(EncodedEvent::encode(&event(id, n))))
                    .collect(),
                checkpoint: Checkpoint::default(),
                snapshot: None,
            })
            .unwrap();
    }
}

fn count(connection: &Connection, sql: &str) -> i64 {
    connection.query_row(sql, [], |row| row.get(0)).unwrap()
}

/// A database holding session "long" with `events` events and session `other`,
/// and a connection of its own to it (the writer's side, driven by the test).
fn with_long_session(events: u64, other: &str) -> (tempfile::TempDir, Connection) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path()).unwrap();
    long_session(&store, "long", events);
    store.insert_session(&record(other)).unwrap();
    drop(store);
    let connection = connect(&dir.path().join(SqliteStore::FILE_NAME)).unwrap();
    (dir, connection)
}

/// The deletion of session "long", answered on `done`.
fn delete_long(done: &SyncSender<Result<(), StoreError>>) -> Job {
    Job {
        write: Write::Delete("long".into()),
        done: Done::Thread(done.clone()),
    }
}

#[test]
fn a_long_transcript_is_deleted_a_chunk_per_transaction_between_other_writes() {
    let (dir, mut connection) = with_long_session(25_000, "other");
    let (done, _outcome) = mpsc::sync_channel(2);
    let delete = || delete_long(&done);
    let other = |n| Job {
        write: Write::Commit(Commit {
            session_id: "other".into(),
            events: vec![Arc::new(EncodedEvent::encode(&event("other", n)))],
            checkpoint: Checkpoint::default(),
            snapshot: None,
        }),
        done: Done::Thread(done.clone()),
    };
    let events = |connection: &Connection| {
        count(
            connection,
            "SELECT count(*) FROM events WHERE session_id = 'long'",
        )
    };
    // Each batch removes one chunk, and the other session's commit beside it is written.
    for (round, left) in [(1, 15_000), (2, 5_000)] {
        let unfinished = write_batch(&mut connection, &[other(round), delete()]).unwrap();
        assert_eq!(unfinished, [1], "round {round}");
        assert_eq!(events(&connection), left);
        assert_eq!(
            count(
                &connection,
                "SELECT deleting FROM sessions WHERE id = 'long'"
            ),
            1
        );
    }
    assert!(write_batch(&mut connection, &[delete(), other(3)])
        .unwrap()
        .is_empty());
    assert_eq!(events(&connection), 0);
    assert_eq!(
        count(
            &connection,
            "SELECT count(*) FROM sessions WHERE id = 'long'"
        ),
        0
    );
    assert_eq!(
        count(
            &connection,
            "SELECT count(*) FROM events WHERE session_id = 'other'"
        ),
        3
    );

    // Through the store, a deletion is answered once it is whole.
    drop(connection);
    let store = SqliteStore::open(dir.path()).unwrap();
    long_session(&store, "again", 12_000);
    store.delete_session("again").unwrap();
    assert!(store.read_events("again", 0, 10).unwrap().is_empty());
    assert_eq!(session_ids(&store), ["other"]);
}

#[test]
fn a_deletion_left_halfway_is_finished_when_the_database_opens() {
    let (dir, mut connection) = with_long_session(15_000, "kept");
    let (done, _outcome) = mpsc::sync_channel(1);
    assert_eq!(
        write_batch(&mut connection, &[delete_long(&done)]).unwrap(),
        [0]
    );
    drop(connection);

    // The daemon stopped there: the next one does not restore what is left of it.
    let store = SqliteStore::open(dir.path()).unwrap();
    assert_eq!(session_ids(&store), ["kept"]);
    assert!(store.read_events("long", 0, 10).unwrap().is_empty());
}

/// One event of session `id`, committed with `commit_queued`.
fn queued_commit(store: &SqliteStore, id: &str, sequence: u64) -> crate::CommitDone {
    store.commit_queued(Commit {
        session_id: id.into(),
        events: vec![Arc::new(EncodedEvent::encode(&event(id, sequence)))],
        checkpoint: Checkpoint::default(),
        snapshot: None,
    })
}

/// The sequences of a session's stored events.
fn sequences(store: &SqliteStore, id: &str) -> Vec<u64> {
    store
        .read_events(id, 0, 100)
        .unwrap()
        .iter()
        .map(|e| e.sequence)
        .collect()
}

#[test]
fn a_commit_is_answered_once_journaled_and_read_from_the_line_until_copied() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path()).unwrap();
    store.insert_session(&record("s")).unwrap();
    // The database cannot be written meanwhile: the journal takes the commits.
    let writing = store.shared.writer();
    for sequence in 1..=3 {
        let mut done = queued_commit(&store, "s", sequence);
        assert!(matches!(done.try_recv(), Ok(Ok(()))), "answered at once");
    }
    let journal = dir.path().join(SqliteStore::JOURNAL_NAME);
    assert!(std::fs::metadata(&journal).unwrap().len() > 0);
    drop(writing);
    assert_eq!(sequences(&store, "s"), [1, 2, 3]);
    let outside = Connection::open(dir.path().join(SqliteStore::FILE_NAME)).unwrap();
    let copied = |events: i64| {
        let deadline = Instant::now() + Duration::from_secs(5);
        while count(&outside, "SELECT count(*) FROM events") < events {
            assert!(Instant::now() < deadline, "not copied into the database");
            std::thread::sleep(INGEST_DELAY);
        }
    };
    // Unasked, the writer thread copies them a moment later.
    copied(3);

    // Kept in line (the writer thread waits an hour): reads find them there,
    // in order, both ways, after what the database has.
    store.shared.queue().retry_at = Some(Instant::now() + Duration::from_secs(3600));
    for sequence in 4..=6 {
        queued_commit(&store, "s", sequence);
    }
    assert_eq!(count(&outside, "SELECT count(*) FROM events"), 3);
    assert_eq!(sequences(&store, "s"), [1, 2, 3, 4, 5, 6]);
    assert_eq!(store.read_events("s", 4, 1).unwrap()[0].sequence, 5);
    let newest_first: Vec<u64> = store
        .read_events_before("s", 6, 3)
        .unwrap()
        .iter()
        .map(|e| e.sequence)
        .collect();
    assert_eq!(newest_first, [5, 4, 3]);

    // Let go, the writer thread copies them.
    store.shared.queue().retry_at = None;
    store.shared.queued.notify_one();
    copied(6);
    assert_eq!(sequences(&store, "s"), [1, 2, 3, 4, 5, 6]);
}

#[test]
fn journaled_commits_a_stopped_daemon_had_not_copied_are_copied_once_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path()).unwrap();
    store.insert_session(&record("s")).unwrap();
    queued_commit(&store, "s", 1);
    assert_eq!(sequences(&store, "s"), [1]);
    // The daemon dies with two commits answered but not in the database: its
    // writer never gets the connection back.
    std::mem::forget(store.shared.writer());
    queued_commit(&store, "s", 2);
    queued_commit(&store, "s", 3);
    std::mem::forget(store);
    let journal = dir.path().join(SqliteStore::JOURNAL_NAME);
    let left = std::fs::read(&journal).unwrap();

    let store = SqliteStore::open(dir.path()).unwrap();
    assert_eq!(sequences(&store, "s"), [1, 2, 3]);
    assert_eq!(
        std::fs::metadata(&journal).unwrap().len(),
        0,
        "started over"
    );
    // The next record goes on from there, and a journal holding records the
    // database has already is not copied twice.
    queued_commit(&store, "s", 4);
    drop(store);
    std::fs::write(&journal, &left).unwrap();
    let store = SqliteStore::open(dir.path()).unwrap();
    assert_eq!(sequences(&store, "s"), [1, 2, 3, 4]);
}

#[test]
fn a_failing_store_writes_each_commit_before_answering_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path()).unwrap();
    store.insert_session(&record("s")).unwrap();
    let failing = || store.shared.health.set_failing();
    failing();
    let mut done = queued_commit(&store, "s", 1);
    assert!(matches!(done.try_recv(), Ok(Ok(()))), "written in place");
    assert!(!store.failing(), "a write that succeeds clears the fault");

    // While someone writes, it waits in line and the writer thread takes it.
    failing();
    let writing = store.shared.writer();
    let mut done = queued_commit(&store, "s", 2);
    std::thread::sleep(Duration::from_millis(20));
    assert!(
        matches!(
            done.try_recv(),
            Err(tokio::sync::oneshot::error::TryRecvError::Empty)
        ),
        "not answered before it is written"
    );
    // And the next one goes behind it, not around it.
    let after = queued_commit(&store, "s", 3);
    drop(writing);
    assert!(matches!(done.blocking_recv(), Ok(Ok(()))));
    assert!(matches!(after.blocking_recv(), Ok(Ok(()))));
    assert_eq!(sequences(&store, "s"), [1, 2, 3]);
}

#[test]
fn the_log_is_checkpointed_beside_commits_made_in_place() {
    const COMMITS: u64 = 4_000;
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path()).unwrap();
    store.insert_session(&record("s")).unwrap();
    for sequence in 1..=COMMITS {
        queued_commit(&store, "s", sequence)
            .blocking_recv()
            .unwrap()
            .unwrap();
    }
    // Each commit adds two pages or more (the session's row, its events): left
    // to grow, the log would hold 8,000 pages (33 MB). Checkpointed every 1,000
    // pages, it starts over each time the database file has caught up.
    let log = std::fs::metadata(dir.path().join("sessions.db-wal"))
        .unwrap()
        .len();
    assert!(log < 16 << 20, "the write-ahead log grew to {log} bytes");
    assert_eq!(
        store.read_events("s", COMMITS - 1, 10).unwrap()[0].sequence,
        COMMITS
    );
}

#[test]
fn no_commit_is_written_in_place_before_those_the_writer_thread_took() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path()).unwrap();
    store.insert_session(&record("s")).unwrap();
    // The writer thread has taken journaled commits and not yet written them:
    // a later commit of the same session written first would leave the older
    // checkpoint last.
    store.shared.queue().writing = true;
    let (done, _) = tokio::sync::oneshot::channel();
    let job = Job {
        write: Write::Commit(Commit {
            session_id: "s".into(),
            events: Vec::new(),
            checkpoint: Checkpoint::default(),
            snapshot: None,
        }),
        done: Done::Task(done),
    };
    assert!(
        store.write_in_place(job).is_some(),
        "given back, to wait in line"
    );
    store.shared.queue().writing = false;
}

#[test]
fn a_big_commit_goes_straight_to_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path()).unwrap();
    store.insert_session(&record("s")).unwrap();
    let mut big = event("s", 1);
    big.raw = Some(serde_json::json!("x".repeat(JOURNAL_COMMIT_BYTES)));
    let mut done = store.commit_queued(Commit {
        session_id: "s".into(),
        events: vec![Arc::new(EncodedEvent::encode(&big))],
        checkpoint: Checkpoint::default(),
        snapshot: None,
    });
    assert!(matches!(done.try_recv(), Ok(Ok(()))), "written in place");
    let journal = dir.path().join(SqliteStore::JOURNAL_NAME);
    assert_eq!(
        std::fs::metadata(&journal).unwrap().len(),
        0,
        "not journaled"
    );
    let outside = Connection::open(dir.path().join(SqliteStore::FILE_NAME)).unwrap();
    assert_eq!(count(&outside, "SELECT count(*) FROM events"), 1);
}
