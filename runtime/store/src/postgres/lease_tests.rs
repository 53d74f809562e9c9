//! The fleet's leases on a real server: a daemon whose lease was taken can no
//! longer write the session, a renewal finds a lost lease, a daemon loads only
//! the sessions it owned, the agents' own files are kept and replaced.

use std::time::{Duration, Instant};

use super::*;
use crate::conformance::{commit, record, session_ids, stored};

/// A daemon `daemon` of the fleet sharing the database `url`.
fn member(url: &str, daemon: &str, lease: Duration) -> PostgresStore {
    let options = Options {
        open_for: Duration::from_secs(1),
        daemon: daemon.to_owned(),
        lease,
        ..Options::default()
    };
    PostgresStore::open_with(url, &options).unwrap()
}

/// Runs SQL in the database `url` names.
fn execute(url: &str, sql: &str) {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    client.batch_execute(sql).unwrap();
}

const LONG: Duration = Duration::from_secs(60);

#[test]
fn a_daemon_whose_lease_was_taken_can_no_longer_append() {
    let Some(url) = crate::conformance::postgres().map(|backend| backend.0) else {
        return;
    };
    let first = member(&url, "first", LONG);
    first.insert_session(&record("s")).unwrap();
    first.commit(commit("s", 1..=3)).unwrap();
    let second = member(&url, "second", LONG);
    // While the first daemon's lease runs, the second is told who holds it.
    match second.take("s", 10).unwrap() {
        Taken::Held { owner, for_ms } => {
            assert_eq!(owner, "first");
            assert!(for_ms > 50_000, "{for_ms}");
        }
        other => panic!("taken while held: {other:?}"),
    }
    assert!(matches!(second.take("none", 10).unwrap(), Taken::Missing));
    // The first daemon stops renewing (as a dead one would): its lease runs out.
    execute(
        &url,
        "UPDATE daemons SET alive_until = now() - interval '1 second' WHERE name = 'first'",
    );
    let Taken::Took(taken) = second.take("s", 10).unwrap() else {
        panic!("not taken over");
    };
    assert_eq!(crate::conformance::sequences(&taken.tail), [1, 2, 3]);

    // Fenced: the first daemon's writes are refused, and it hears why.
    let refused = first.commit(commit("s", 4..=4));
    assert!(
        matches!(refused, Err(StoreError::LeaseLost { .. })),
        "{refused:?}"
    );
    assert_eq!(first.lost().unwrap().try_recv().unwrap(), "s");
    let refused = first.save_native("s", NativeFiles::default());
    assert!(
        matches!(refused, Err(StoreError::LeaseLost { .. })),
        "{refused:?}"
    );
    // The new owner carries on from where the old one stopped: no gap, no repeat.
    second.commit(commit("s", 4..=5)).unwrap();
    assert_eq!(stored(&second, "s", 10), [1, 2, 3, 4, 5]);

    let listed = second.sessions().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].owner.as_deref(), Some("second"));
    assert!(listed[0].alive);
    assert_eq!(listed[0].last_sequence, 5);
}

#[test]
fn a_renewal_finds_a_lease_taken_and_says_so() {
    let Some(url) = crate::conformance::postgres().map(|backend| backend.0) else {
        return;
    };
    let first = member(&url, "first", Duration::from_millis(600));
    let mut lost = first.lost().unwrap();
    first.insert_session(&record("s")).unwrap();
    first.insert_session(&record("kept")).unwrap();
    // Renewed: still held after several leases.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(lost.try_recv().is_err());
    // Another daemon takes one over (as `take` does).
    execute(
        &url,
        "UPDATE sessions SET owner = 'second', fence = fence + 1 WHERE id = 's'",
    );
    let deadline = Instant::now() + Duration::from_secs(3);
    let found = loop {
        if let Ok(id) = lost.try_recv() {
            break id;
        }
        assert!(Instant::now() < deadline, "the lost lease was not noticed");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(found, "s");
    first.commit(commit("kept", 1..=1)).unwrap();
    // A clean stop lets its leases run out at once.
    drop(first);
    let second = member(&url, "second", LONG);
    let listed = second.sessions().unwrap();
    let kept = listed.iter().find(|s| s.record.id == "kept").unwrap();
    assert_eq!((kept.owner.as_deref(), kept.alive), (Some("first"), false));
    assert!(matches!(second.take("kept", 1).unwrap(), Taken::Took(_)));
}

#[test]
fn a_daemon_loads_only_the_sessions_it_owned() {
    let Some(url) = crate::conformance::postgres().map(|backend| backend.0) else {
        return;
    };
    for (daemon, id) in [("first", "a"), ("second", "b")] {
        let store = member(&url, daemon, LONG);
        store.insert_session(&record(id)).unwrap();
    }
    // A session of a database that no daemon owned comes with the first to load.
    execute(&url, "UPDATE sessions SET owner = NULL WHERE id = 'b'");
    assert_eq!(session_ids(&member(&url, "first", LONG)), ["a", "b"]);
    assert!(session_ids(&member(&url, "third", LONG)).is_empty());
    let second = member(&url, "second", LONG);
    assert!(session_ids(&second).is_empty());
    assert_eq!(second.sessions().unwrap().len(), 2);
}

#[test]
fn the_agents_own_files_are_kept_and_replaced() {
    let Some(url) = crate::conformance::postgres().map(|backend| backend.0) else {
        return;
    };
    let store = member(&url, "first", LONG);
    store.insert_session(&record("s")).unwrap();
    assert_eq!(store.native("s").unwrap(), None);
    let files = |pairs: &[(&str, &str)]| NativeFiles {
        place: r#"{"home":"/h","directory":"/w"}"#.into(),
        files: pairs
            .iter()
            .map(|(path, text)| (path.to_string(), text.as_bytes().to_vec()))
            .collect(),
    };
    let first = files(&[("/h/a.jsonl", "one"), ("/h/b.jsonl", "two")]);
    store.save_native("s", first.clone()).unwrap();
    assert_eq!(store.native("s").unwrap(), Some(first));
    let second = files(&[("/h/a.jsonl", "one, then more")]);
    store.save_native("s", second.clone()).unwrap();
    assert_eq!(store.native("s").unwrap(), Some(second));
    let none = files(&[]);
    store.save_native("s", none.clone()).unwrap();
    assert_eq!(store.native("s").unwrap(), Some(none));
    store.delete_session("s").unwrap();
    assert_eq!(store.native("s").unwrap(), None);
}
