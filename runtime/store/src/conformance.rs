//! What every durable store must do, one test body run against each of them:
//! SQLite in a temporary folder, and PostgreSQL in a database of a server the
//! tests start ([`crate::postgres::temp::TempPostgres`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use agentplex_universal::{
    ErrorData, EventSource, UniversalEvent, UniversalEventData, UniversalEventType,
};

use crate::postgres::temp::TempPostgres;
use crate::postgres::{Options, PostgresStore};
use crate::sqlite::SqliteStore;
use crate::{Checkpoint, Commit, EncodedEvent, SessionRecord, Store, PAGE_BYTES};

/// Where a test's store lives: each `open` opens the same sessions again.
pub(crate) trait Backend {
    fn open(&self) -> Box<dyn Store>;
}

/// A SQLite store in a temporary folder.
pub(crate) struct Sqlite(tempfile::TempDir);

impl Backend for Sqlite {
    fn open(&self) -> Box<dyn Store> {
        Box::new(SqliteStore::open(self.0.path()).unwrap())
    }
}

pub(crate) fn sqlite() -> Sqlite {
    Sqlite(tempfile::tempdir().unwrap())
}

/// A PostgreSQL store in a new database of the tests' server.
pub(crate) struct Postgres(pub(crate) String);

impl Backend for Postgres {
    fn open(&self) -> Box<dyn Store> {
        let options = Options {
            open_for: std::time::Duration::from_secs(5),
            ..Options::default()
        };
        Box::new(PostgresStore::open_with(&self.0, &options).unwrap())
    }
}

/// A new database of the tests' shared server; `None` (the test skipped) when
/// there is no server.
pub(crate) fn postgres() -> Option<Postgres> {
    static DATABASES: AtomicUsize = AtomicUsize::new(0);
    let server = TempPostgres::shared()?;
    let name = format!("test_{}", DATABASES.fetch_add(1, Ordering::Relaxed));
    Some(Postgres(server.create_database(&name)))
}

/// One test per body and store.
macro_rules! for_each_store {
    ($($test:ident),* $(,)?) => {
        mod sqlite {
            $(#[test]
            fn $test() {
                super::$test(&super::sqlite());
            })*
        }
        mod postgres {
            $(#[test]
            fn $test() {
                if let Some(backend) = super::postgres() {
                    super::$test(&backend);
                }
            })*
        }
    };
}

for_each_store!(
    commits_survive_reopening_in_order,
    a_forward_read_of_big_events_stops_at_the_page_bytes,
    a_commit_is_readable_once_answered,
    commits_queued_together_are_applied_in_order,
    sessions_committing_at_once_lose_nothing,
    a_deleted_session_keeps_nothing_and_takes_no_more_events,
    a_long_transcript_is_deleted_whole,
    the_snapshot_is_replaced_only_by_a_commit_that_has_one,
    events_keep_their_native_payload_or_its_absence,
);

/// Durable commits per second of 8 sessions committing at once, each waiting
/// for its commit before the next (as a session task does), with 1 and 10
/// events a commit, SQLite and PostgreSQL (a server of its own) side by side:
/// `cargo test -p agentplex-store --release -- --ignored --nocapture throughput`
#[test]
#[ignore = "a measure, not a check"]
fn throughput_of_eight_sessions_committing_at_once() {
    let server = TempPostgres::start_or_skip();
    for events in [1, 10] {
        throughput("sqlite", &sqlite(), events);
        if let Some(server) = &server {
            let url = server.create_database(&format!("throughput_{events}"));
            throughput("postgres", &Postgres(url), events);
        }
    }
}

fn throughput(name: &str, backend: &dyn Backend, events: u64) {
    const SESSIONS: usize = 8;
    const SECONDS: u64 = 5;
    let store: Arc<dyn Store> = Arc::from(backend.open());
    for s in 0..SESSIONS {
        store.insert_session(&record(&format!("s{s}"))).unwrap();
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(SECONDS);
    let threads: Vec<_> = (0..SESSIONS)
        .map(|s| {
            let store = store.clone();
            std::thread::spawn(move || {
                let id = format!("s{s}");
                let mut latencies = Vec::new();
                let mut next = 1;
                while std::time::Instant::now() < deadline {
                    let started = std::time::Instant::now();
                    store
                        .commit_queued(commit(&id, next..next + events))
                        .blocking_recv()
                        .unwrap()
                        .unwrap();
                    latencies.push(started.elapsed());
                    next += events;
                }
                latencies
            })
        })
        .collect();
    let mut latencies: Vec<_> = threads
        .into_iter()
        .flat_map(|thread| thread.join().unwrap())
        .collect();
    latencies.sort();
    let commits = latencies.len();
    println!(
        "{name}: {SESSIONS} sessions, {events} events a commit: {:.0} durable commits/s, \
         {:.0} events/s; commit latency median {:?}, p99 {:?}",
        commits as f64 / SECONDS as f64,
        (commits as u64 * events) as f64 / SECONDS as f64,
        latencies[commits / 2],
        latencies[commits * 99 / 100],
    );
}

pub(crate) fn record(id: &str) -> SessionRecord {
    SessionRecord {
        id: id.into(),
        agent: "mock".into(),
        agent_mode: "build".into(),
        permission_mode: "default".into(),
        model: None,
        variant: None,
        title: Some("t".into()),
        directory: "/workspace".into(),
        created_at: 1,
        env: vec![("K".into(), "V".into())],
        mcp: Default::default(),
        skills: Vec::new(),
        skill_sources: None,
        desktop: true,
    }
}

pub(crate) fn event(session: &str, sequence: u64) -> UniversalEvent {
    UniversalEvent {
        event_id: format!("evt_{sequence}"),
        sequence,
        time: "2026-11-23T00:00:00.000Z".into(),
        session_id: session.into(),
        native_session_id: None,
        source: EventSource::Daemon,
        synthetic: true,
        event_type: UniversalEventType::Error,
        data: UniversalEventData::Error(ErrorData {
            message: format!("m{sequence}"),
            code: None,
            details: None,
        }),
        raw: Some(serde_json::json!({"n": sequence})),
    }
}

/// A commit of events `sequences` of session `id`, with a checkpoint saying
/// when the last was made.
pub(crate) fn commit(id: &str, sequences: impl IntoIterator<Item = u64>) -> Commit {
    let events: Vec<_> = sequences
        .into_iter()
        .map(|n| Arc::new(EncodedEvent::encode(&event(id, n))))
        .collect();
    Commit {
        session_id: id.into(),
        checkpoint: Checkpoint {
            updated_at: events.last().map_or(0, |event| event.sequence as i64),
            ..Checkpoint::default()
        },
        events,
        snapshot: None,
    }
}

/// The sequences of events.
pub(crate) fn sequences(events: &[Arc<EncodedEvent>]) -> Vec<u64> {
    events.iter().map(|event| event.sequence).collect()
}

/// The ids of the stored sessions, in the order `load` gives them.
pub(crate) fn session_ids(store: &dyn Store) -> Vec<String> {
    let sessions = store.load(0).unwrap();
    sessions.into_iter().map(|s| s.record.id).collect()
}

/// The sequences of a session's first `limit` stored events.
pub(crate) fn stored(store: &dyn Store, id: &str, limit: usize) -> Vec<u64> {
    sequences(&store.read_events(id, 0, limit).unwrap())
}

fn commits_survive_reopening_in_order(backend: &dyn Backend) {
    let store = backend.open();
    store.insert_session(&record("b")).unwrap();
    store.insert_session(&record("a")).unwrap();
    store.insert_session(&record("B")).unwrap();
    for batch in [1..4, 4..6] {
        store
            .commit(Commit {
                checkpoint: Checkpoint {
                    turn_running: true,
                    processes: vec![crate::ProcessMark {
                        id: "agent".into(),
                        pid: 42,
                        started: Some(7),
                    }],
                    updated_at: 9,
                    ..Checkpoint::default()
                },
                snapshot: Some(b"state".to_vec()),
                ..commit("b", batch)
            })
            .unwrap();
    }
    drop(store);
    let store = backend.open();
    let sessions = store.load(3).unwrap();
    let ids: Vec<&str> = sessions.iter().map(|s| s.record.id.as_str()).collect();
    assert_eq!(ids, ["B", "a", "b"], "in the order of their bytes");
    let b = &sessions[2];
    assert_eq!(b.record, record("b"));
    assert_eq!(sequences(&b.tail), [3, 4, 5], "the newest 3");
    assert_eq!(b.tail[0].decode().unwrap(), event("b", 3));
    assert!(sessions[1].tail.is_empty());
    assert_eq!(sequences(&store.read_events("b", 1, 2).unwrap()), [2, 3]);
    assert_eq!(sequences(&store.read_events("b", 4, 10).unwrap()), [5]);
    assert!(store.read_events("b", 5, 10).unwrap().is_empty());
    assert_eq!(
        sequences(&store.read_events_before("b", 4, 2).unwrap()),
        [3, 2]
    );
    assert_eq!(
        sequences(&store.read_events_before("b", u64::MAX, 10).unwrap()),
        [5, 4, 3, 2, 1]
    );
    assert!(store.read_events("a", 0, 10).unwrap().is_empty());
    assert!(store.read_events("nobody", 0, 10).unwrap().is_empty());
    assert!(b.checkpoint.turn_running);
    assert_eq!(b.checkpoint.processes[0].id, "agent");
    assert_eq!(b.snapshot.as_deref(), Some(&b"state"[..]));
    assert_eq!(sessions[1].snapshot, None);
    store.delete_session("b").unwrap();
    assert_eq!(store.load(10).unwrap().len(), 2);
    drop(store);
    assert_eq!(session_ids(&*backend.open()), ["B", "a"]);
}

fn a_forward_read_of_big_events_stops_at_the_page_bytes(backend: &dyn Backend) {
    let store = backend.open();
    store.insert_session(&record("big")).unwrap();
    let big = |sequence| {
        let mut event = event("big", sequence);
        event.raw = Some(serde_json::Value::String("x".repeat(PAGE_BYTES / 2)));
        Arc::new(EncodedEvent::encode(&event))
    };
    store
        .commit(Commit {
            events: (1..=5).map(big).collect(),
            ..commit("big", [])
        })
        .unwrap();
    assert_eq!(sequences(&store.read_events("big", 0, 10).unwrap()), [1, 2]);
    assert_eq!(sequences(&store.read_events("big", 2, 10).unwrap()), [3, 4]);
    assert_eq!(sequences(&store.read_events("big", 4, 10).unwrap()), [5]);
    assert_eq!(
        sequences(&store.read_events_before("big", 6, 10).unwrap()),
        [5, 4, 3, 2, 1],
        "the newest-first reads look for one event and are not cut"
    );
}

fn a_commit_is_readable_once_answered(backend: &dyn Backend) {
    let store = backend.open();
    store.insert_session(&record("s")).unwrap();
    for sequence in 1..=20 {
        store
            .commit_queued(commit("s", [sequence]))
            .blocking_recv()
            .unwrap()
            .unwrap();
        let events = store.read_events("s", sequence - 1, 10).unwrap();
        assert_eq!(sequences(&events), [sequence]);
        assert_eq!(events[0].decode().unwrap(), event("s", sequence));
        let newest = store.read_events_before("s", u64::MAX, 1).unwrap();
        assert_eq!(sequences(&newest), [sequence]);
    }
    store
        .insert_session_queued(&record("t"))
        .blocking_recv()
        .unwrap()
        .unwrap();
    store.commit(commit("t", [1, 2])).unwrap();
    assert_eq!(stored(&*store, "t", 10), [1, 2]);
}

fn commits_queued_together_are_applied_in_order(backend: &dyn Backend) {
    let store = backend.open();
    store.insert_session(&record("s")).unwrap();
    store.insert_session(&record("other")).unwrap();
    // Made one after the other without waiting: the store writes them in that
    // order (most of them in one transaction), the last checkpoint last.
    let mut answers = Vec::new();
    for sequence in 1..=200u64 {
        let mut made = commit("s", [sequence]);
        made.checkpoint.native_session_id = Some(format!("n{sequence}"));
        answers.push(store.commit_queued(made));
        answers.push(store.commit_queued(commit("other", [sequence])));
    }
    for answer in answers {
        answer.blocking_recv().unwrap().unwrap();
    }
    assert_eq!(stored(&*store, "s", 500), (1..=200).collect::<Vec<_>>());
    assert_eq!(stored(&*store, "other", 500), (1..=200).collect::<Vec<_>>());
    drop(store);
    let loaded = backend.open().load(1).unwrap();
    let s = loaded.iter().find(|s| s.record.id == "s").unwrap();
    assert_eq!(s.checkpoint.native_session_id.as_deref(), Some("n200"));
    assert_eq!(s.checkpoint.updated_at, 200);
    assert_eq!(sequences(&s.tail), [200]);
}

fn sessions_committing_at_once_lose_nothing(backend: &dyn Backend) {
    const SESSIONS: usize = 8;
    const COMMITS: u64 = 300;
    let store: Arc<dyn Store> = Arc::from(backend.open());
    let threads: Vec<_> = (0..SESSIONS)
        .map(|s| {
            let store = store.clone();
            std::thread::spawn(move || {
                let id = format!("s{s}");
                store.insert_session(&record(&id)).unwrap();
                for sequence in 1..=COMMITS {
                    if sequence % 2 == 0 {
                        store.commit(commit(&id, [sequence])).unwrap();
                    } else {
                        store
                            .commit_queued(commit(&id, [sequence]))
                            .blocking_recv()
                            .unwrap()
                            .unwrap();
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert_eq!(Arc::strong_count(&store), 1);
    drop(store);
    let store = backend.open();
    for s in 0..SESSIONS {
        assert_eq!(
            stored(&*store, &format!("s{s}"), COMMITS as usize + 1),
            (1..=COMMITS).collect::<Vec<_>>(),
            "session s{s}"
        );
    }
}

fn a_deleted_session_keeps_nothing_and_takes_no_more_events(backend: &dyn Backend) {
    let store = backend.open();
    store.insert_session(&record("gone")).unwrap();
    store.insert_session(&record("kept")).unwrap();
    store.commit(commit("gone", 1..=3)).unwrap();
    store.commit(commit("kept", 1..=3)).unwrap();
    store.delete_session("gone").unwrap();
    assert!(store.read_events("gone", 0, 10).unwrap().is_empty());
    // Its task, finishing, commits once more: nothing is kept of it.
    store.commit(commit("gone", [4])).unwrap();
    assert!(store.read_events("gone", 0, 10).unwrap().is_empty());
    // Deleting it again, or one that never was, does nothing.
    store.delete_session("gone").unwrap();
    store.delete_session("never").unwrap();
    drop(store);
    let store = backend.open();
    let loaded = store.load(10).unwrap();
    assert_eq!(loaded.len(), 1);
    assert_eq!(sequences(&loaded[0].tail), [1, 2, 3]);
    // The id can be used again, from nothing.
    store.insert_session(&record("gone")).unwrap();
    store.commit(commit("gone", [1])).unwrap();
    assert_eq!(stored(&*store, "gone", 10), [1]);
}

fn a_long_transcript_is_deleted_whole(backend: &dyn Backend) {
    let store = backend.open();
    store.insert_session(&record("long")).unwrap();
    store.insert_session(&record("other")).unwrap();
    for start in (1..=25_000u64).step_by(5_000) {
        store.commit(commit("long", start..start + 5_000)).unwrap();
    }
    // Other sessions commit while it goes, a chunk per transaction.
    let deleted = std::sync::atomic::AtomicBool::new(false);
    let committed = std::thread::scope(|scope| {
        let other = scope.spawn(|| {
            let mut sequence = 0;
            while !deleted.load(Ordering::Relaxed) {
                sequence += 1;
                store.commit(commit("other", [sequence])).unwrap();
            }
            sequence
        });
        store.delete_session("long").unwrap();
        deleted.store(true, Ordering::Relaxed);
        other.join().unwrap()
    });
    assert!(store.read_events("long", 0, 10).unwrap().is_empty());
    assert!(store
        .read_events_before("long", u64::MAX, 10)
        .unwrap()
        .is_empty());
    assert_eq!(
        stored(&*store, "other", committed as usize + 1),
        (1..=committed).collect::<Vec<_>>()
    );
    assert_eq!(session_ids(&*store), ["other"]);
}

fn the_snapshot_is_replaced_only_by_a_commit_that_has_one(backend: &dyn Backend) {
    // What a restarted daemon loads.
    let loaded = || backend.open().load(0).unwrap().remove(0);
    let store = backend.open();
    store.insert_session(&record("s")).unwrap();
    drop(store);
    assert_eq!(loaded().snapshot, None);
    let with = |sequence, snapshot: Option<&[u8]>| Commit {
        snapshot: snapshot.map(<[u8]>::to_vec),
        ..commit("s", [sequence])
    };
    let store = backend.open();
    store.commit(with(1, Some(b"one"))).unwrap();
    store.commit(with(2, None)).unwrap();
    drop(store);
    assert_eq!(loaded().snapshot.as_deref(), Some(&b"one"[..]));
    // Queued together, the last one given wins.
    let store = backend.open();
    let answers = [
        store.commit_queued(with(3, Some(b"three"))),
        store.commit_queued(with(4, Some(&[0, 255, 0][..]))),
        store.commit_queued(with(5, None)),
    ];
    for answer in answers {
        answer.blocking_recv().unwrap().unwrap();
    }
    drop(store);
    let session = loaded();
    assert_eq!(session.snapshot.as_deref(), Some(&[0, 255, 0][..]));
    assert_eq!(session.checkpoint.updated_at, 5);
    assert_eq!(sequences(&session.tail), [] as [u64; 0]);
}

fn events_keep_their_native_payload_or_its_absence(backend: &dyn Backend) {
    let store = backend.open();
    store.insert_session(&record("s")).unwrap();
    let mut without_raw = event("s", 2);
    without_raw.raw = None;
    let mut odd = event("s", 3);
    odd.raw =
        Some(serde_json::json!({"text": "nul \u{0} é 😀 \"quoted\"", "list": [1, 2.5, null]}));
    let events = [event("s", 1), without_raw.clone(), odd.clone()];
    store
        .commit(Commit {
            events: events
                .iter()
                .map(|e| Arc::new(EncodedEvent::encode(e)))
                .collect(),
            ..commit("s", [])
        })
        .unwrap();
    drop(store);
    let store = backend.open();
    let read = store.read_events("s", 0, 10).unwrap();
    assert_eq!(read[0].decode().unwrap(), event("s", 1));
    assert_eq!(read[1].raw(), None);
    assert_eq!(read[1].decode().unwrap(), without_raw);
    assert_eq!(read[2].decode().unwrap(), odd);
    assert!(
        !read[0].json(false).contains("raw"),
        "{}",
        read[0].json(false)
    );
}
