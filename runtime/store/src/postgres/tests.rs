//! The PostgreSQL store's own tests: a server out of reach (at open, and while
//! it runs), tables it did not make, schema versions, TLS, deletions left
//! halfway; and its durable commits per second. What every store must do is in
//! `conformance.rs`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::temp::TempPostgres;
use super::*;
use crate::conformance::{commit, record, session_ids, stored};

/// A store on a new database of the shared test server, and the database's URL.
fn fresh_store() -> Option<(PostgresStore, String)> {
    let url = crate::conformance::postgres()?.0;
    Some((open_quickly(&url).unwrap(), url))
}

/// Opens giving up after a second.
fn open_quickly(url: &str) -> Result<PostgresStore, StoreError> {
    let options = Options {
        open_for: Duration::from_secs(1),
        ..Options::default()
    };
    PostgresStore::open_with(url, &options)
}

/// Runs SQL in the database `url` names, as the tests' superuser.
fn execute(url: &str, sql: &str) {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    client.batch_execute(sql).unwrap();
}

#[test]
fn a_database_out_of_reach_at_open_is_tried_for_a_bounded_time_then_named() {
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://fleet:s3cret@127.0.0.1:{port}/sessions?sslmode=disable");
    let started = Instant::now();
    let error = open_quickly(&url).err().expect("refused");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_secs(5),
        "gave up after {took:?}"
    );
    let message = error.to_string();
    assert!(matches!(error, StoreError::Unreachable { .. }), "{message}");
    assert!(
        message.contains(&format!("127.0.0.1:{port}/sessions")),
        "{message}"
    );
    assert!(message.to_lowercase().contains("refused"), "{message}");
    assert!(!message.contains("s3cret"), "{message}");
}

#[test]
fn a_database_that_refuses_the_store_is_not_waited_for() {
    let Some(server) = TempPostgres::shared() else {
        return;
    };
    let started = Instant::now();
    let error = PostgresStore::open(&server.url("no_such_database"))
        .err()
        .expect("refused");
    assert!(started.elapsed() < Duration::from_secs(5));
    let message = error.to_string();
    assert!(matches!(error, StoreError::Refused { .. }), "{message}");
    assert!(message.contains("no_such_database"), "{message}");
}

#[test]
fn the_server_stopping_is_a_storage_fault_until_it_is_back() {
    let Some(server) = TempPostgres::start_or_skip() else {
        return;
    };
    let url = server.create_database("sessions");
    let store = open_quickly(&url).unwrap();
    store.insert_session(&record("s")).unwrap();
    store.commit(commit("s", [1])).unwrap();
    assert!(!store.failing());

    server.stop();
    let error = store.commit(commit("s", [2])).unwrap_err();
    assert!(error.is_storage_fault(), "{error}");
    assert!(matches!(error, StoreError::Unreachable { .. }), "{error}");
    assert!(error.to_string().contains("/sessions"), "{error}");
    assert!(store.failing());
    // A queued commit is answered too, not left waiting.
    let queued = store
        .commit_queued(commit("s", [2]))
        .blocking_recv()
        .unwrap();
    assert!(queued.unwrap_err().is_storage_fault());
    let read = store.read_events("s", 0, 10).unwrap_err();
    assert!(read.is_storage_fault(), "{read}");

    server.start_again().unwrap();
    // As the session does: the same events again until they are taken.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match store.commit(commit("s", [2])) {
            Ok(()) => break,
            Err(error) => {
                assert!(error.is_storage_fault(), "{error}");
                assert!(Instant::now() < deadline, "not written again: {error}");
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
    assert!(!store.failing());
    store.commit(commit("s", [3])).unwrap();
    assert_eq!(stored(&store, "s", 10), [1, 2, 3]);
    drop(store);
    assert_eq!(stored(&open_quickly(&url).unwrap(), "s", 10), [1, 2, 3]);
}

#[test]
fn a_restart_of_the_server_between_writes_goes_unnoticed() {
    let Some(server) = TempPostgres::start_or_skip() else {
        return;
    };
    let url = server.create_database("sessions");
    let store = open_quickly(&url).unwrap();
    store.insert_session(&record("s")).unwrap();
    store.commit(commit("s", [1])).unwrap();
    assert_eq!(stored(&store, "s", 10), [1]);
    server.stop();
    server.start_again().unwrap();
    // Both connections were closed meanwhile: each is made again, and what was
    // asked done on the new one.
    store.commit(commit("s", [2])).unwrap();
    assert_eq!(stored(&store, "s", 10), [1, 2]);
    assert!(!store.failing());
}

#[test]
fn tables_of_another_program_are_refused_and_left_alone() {
    let Some(server) = TempPostgres::shared() else {
        return;
    };
    let url = server.create_database("foreign");
    execute(
        &url,
        "CREATE TABLE events (what text); INSERT INTO events VALUES ('theirs')",
    );
    let error = open_quickly(&url).err().expect("refused");
    let message = error.to_string();
    assert!(matches!(error, StoreError::Refused { .. }), "{message}");
    assert!(message.contains("table events"), "{message}");
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let rows = client.query("SELECT what FROM events", &[]).unwrap();
    assert_eq!(rows[0].get::<_, String>(0), "theirs");
    let ours = client
        .query_one("SELECT to_regclass('agentplex_migrations') IS NULL", &[])
        .unwrap();
    assert!(ours.get::<_, bool>(0), "nothing created");
}

#[test]
fn a_schema_from_a_newer_daemon_is_refused_and_a_current_one_kept() {
    let Some((store, url)) = fresh_store() else {
        return;
    };
    store.insert_session(&record("s")).unwrap();
    drop(store);
    let versions = |url: &str| -> Vec<i32> {
        let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
        client
            .query(
                "SELECT version FROM agentplex_migrations ORDER BY version",
                &[],
            )
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect()
    };
    let current: Vec<i32> = (1..=schema::MIGRATIONS.len() as i32).collect();
    assert_eq!(versions(&url), current);
    // Opened again: nothing applied twice.
    assert_eq!(open_quickly(&url).unwrap().load(0).unwrap().len(), 1);
    assert_eq!(versions(&url), current);
    execute(
        &url,
        "INSERT INTO agentplex_migrations (version) VALUES (99)",
    );
    let error = open_quickly(&url).err().expect("refused");
    assert!(error.to_string().contains("newer"), "{error}");
}

#[test]
fn daemons_opening_a_new_database_at_once_migrate_it_once() {
    let Some(server) = TempPostgres::shared() else {
        return;
    };
    let url = server.create_database("fleet");
    let stores: Vec<PostgresStore> = std::thread::scope(|scope| {
        let opening: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| open_quickly(&url).unwrap()))
            .collect();
        opening
            .into_iter()
            .map(|open| open.join().unwrap())
            .collect()
    });
    stores[0].insert_session(&record("s")).unwrap();
    stores[1].commit(commit("s", [1])).unwrap();
    assert_eq!(stored(&stores[3], "s", 10), [1]);
}

#[test]
fn a_deletion_left_halfway_is_finished_when_the_database_opens() {
    let Some((store, url)) = fresh_store() else {
        return;
    };
    store.insert_session(&record("long")).unwrap();
    store.insert_session(&record("kept")).unwrap();
    store.commit(commit("long", 1..=100)).unwrap();
    drop(store);
    // A daemon stopped after the first chunk of a deletion.
    execute(
        &url,
        "UPDATE sessions SET deleting = true WHERE id = 'long';
         DELETE FROM events WHERE session_id = 'long' AND sequence <= 50",
    );
    let store = open_quickly(&url).unwrap();
    assert_eq!(session_ids(&store), ["kept"]);
    assert!(store.read_events("long", 0, 10).unwrap().is_empty());
}

#[test]
fn a_session_inserted_again_is_taken_once_and_a_different_one_refused() {
    let Some((store, _url)) = fresh_store() else {
        return;
    };
    store.insert_session(&record("s")).unwrap();
    // The same insert again (its first answer was lost with the connection).
    store.insert_session(&record("s")).unwrap();
    let mut other = record("s");
    other.agent = "another".into();
    let error = store.insert_session(&other).unwrap_err();
    assert!(!error.is_storage_fault(), "{error}");
    assert!(error.to_string().contains("stored already"), "{error}");
    // Written beside others in one batch, only that one fails.
    let answers = [
        store.insert_session_queued(&record("t")),
        store.insert_session_queued(&other),
        store.insert_session_queued(&record("u")),
    ];
    let outcomes: Vec<bool> = answers
        .into_iter()
        .map(|answer| answer.blocking_recv().unwrap().is_ok())
        .collect();
    assert_eq!(outcomes, [true, false, true]);
    assert_eq!(store.load(0).unwrap()[0].record, record("s"));
}

#[test]
fn a_commit_made_twice_keeps_one_copy() {
    let Some((store, _url)) = fresh_store() else {
        return;
    };
    store.insert_session(&record("s")).unwrap();
    store.commit(commit("s", [1, 2])).unwrap();
    // The connection was lost before the answer to COMMIT: the session makes it again.
    store.commit(commit("s", [1, 2, 3])).unwrap();
    assert_eq!(stored(&store, "s", 10), [1, 2, 3]);
}

#[test]
fn tls_is_verified_against_the_given_authority() {
    let (server, authority) = match TempPostgres::start_with_tls() {
        Ok(started) => started,
        Err(error) => {
            if std::env::var_os("CI").is_some() {
                panic!("no PostgreSQL server with TLS: {error}");
            }
            eprintln!("skipped: no PostgreSQL server with TLS: {error}");
            return;
        }
    };
    server.create_database("secure");
    let base = format!(
        "postgres://{}@127.0.0.1:{}/secure",
        super::temp::USER,
        server.port()
    );
    let trusted = format!("{base}?sslmode=require&sslrootcert={}", authority.display());
    let store = open_quickly(&trusted).unwrap();
    store.insert_session(&record("s")).unwrap();
    store.commit(commit("s", [1])).unwrap();
    assert_eq!(stored(&store, "s", 10), [1]);
    let target = connect::Target::parse(&trusted).unwrap();
    let mut client = target.connect_once(None).unwrap();
    let ssl: bool = client
        .query_one(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(ssl, "the connection is encrypted");
    drop(client);
    // An authority nobody gave: refused at once, saying why.
    let started = Instant::now();
    let error = open_quickly(&format!("{base}?sslmode=verify-full"))
        .err()
        .expect("refused");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(matches!(error, StoreError::Refused { .. }), "{error}");
    assert!(error.to_string().contains("certificate"), "{error}");
}

#[test]
fn tls_required_of_a_server_without_it_is_refused() {
    let Some(server) = TempPostgres::shared() else {
        return;
    };
    let url = server
        .create_database("plain")
        .replace("sslmode=disable", "sslmode=require");
    let error = open_quickly(&url).err().expect("refused");
    assert!(matches!(error, StoreError::Refused { .. }), "{error}");
    assert!(error.to_string().contains("TLS"), "{error}");
}

#[test]
fn a_commit_refused_fails_the_later_commits_of_its_session_and_no_other() {
    let Some((store, _url)) = fresh_store() else {
        return;
    };
    store.insert_session(&record("s")).unwrap();
    store.insert_session(&record("t")).unwrap();
    store.commit(commit("s", [1])).unwrap();
    // A native payload the server refuses (text cannot hold a NUL).
    let mut refused = commit("s", []);
    let envelope = EncodedEvent::encode(&crate::conformance::event("s", 2));
    refused.events = vec![Arc::new(
        EncodedEvent::from_stored(2, envelope.envelope().to_owned(), Some("\0".into())).unwrap(),
    )];
    let (answers, jobs): (Vec<_>, Vec<_>) = [refused, commit("s", [3]), commit("t", [1])]
        .into_iter()
        .map(|commit| {
            let (done, answer) = tokio::sync::oneshot::channel();
            let job = Job {
                write: Write::Commit(commit),
                done: Done::Task(done),
            };
            (answer, job)
        })
        .unzip();
    // In line together: one batch, refused, then a job per transaction.
    store.shared.enqueue(jobs);
    let outcomes: Vec<_> = answers
        .into_iter()
        .map(|answer| answer.blocking_recv().unwrap())
        .collect();
    let error = outcomes[0].as_ref().unwrap_err();
    assert!(!error.is_storage_fault(), "{error}");
    assert!(
        outcomes[1].is_err(),
        "the commit after the refused one waits for it"
    );
    assert!(outcomes[2].is_ok());
    assert!(!store.failing());
    assert_eq!(stored(&store, "s", 10), [1]);
    assert_eq!(stored(&store, "t", 10), [1]);
    // The session's next try, the refused event made right, goes on from there.
    store.commit(commit("s", [2, 3])).unwrap();
    assert_eq!(stored(&store, "s", 10), [1, 2, 3]);
}
