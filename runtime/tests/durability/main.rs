//! Durable sessions (SPEC §7): the real binary is killed or stopped while mock
//! sessions run, and a new daemon on the same data dir must show every event any
//! client received, in order, without gaps or duplicates, and carry on; and a
//! session moves to another daemon whole ([`moves`]).

#[path = "../common/mod.rs"]
mod common;

mod fleet;
mod moves;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::api::{expect_no_content, expect_problem, ok_json, types, Api};
use common::load::{check_transcript, drive, follow, Seen, Sent};
use common::{binary, Daemon, Options};
use serde_json::{json, Value};

const SESSIONS: usize = 6;

/// Sessions under load; the daemon is stopped by `stop_daemon`; a new one (both
/// started with the flags `args`) must have everything and carry on.
fn survive(stop_daemon: fn(Daemon) -> tempfile::TempDir, args: Vec<String>) {
    let daemon = Daemon::start_with(Options {
        args: args.clone(),
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let ids: Vec<String> = (0..SESSIONS).map(|i| format!("load-{i}")).collect();
    let mut seen: Vec<Seen> = Vec::new();
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for id in &ids {
        api.create(id, "mock");
        let log: Seen = Arc::default();
        threads.push(follow(&daemon.endpoint, id, 0, log.clone()));
        threads.push(drive(
            &daemon.endpoint,
            id,
            "message",
            Duration::from_millis(5),
            stop.clone(),
            Sent::default(),
        ));
        seen.push(log);
    }
    // A session waiting for a permission when the daemon goes.
    api.create("asking", "mock");
    api.send("asking", "permission ls");
    api.wait_for_type("asking", 0, "permission.requested");

    let deadline = Instant::now() + Duration::from_secs(30);
    while seen.iter().any(|log| log.lock().unwrap().len() < 200) {
        assert!(Instant::now() < deadline, "the load did not get going");
        thread::sleep(Duration::from_millis(50));
    }
    let data_dir = stop_daemon(daemon);
    stop.store(true, Ordering::Relaxed);
    for thread in threads {
        thread.join().expect("a client thread");
    }

    let daemon = Daemon::start_with(Options {
        data_dir: Some(data_dir),
        args,
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let listed = api.get_ok("/v1/sessions");
    let listed: BTreeMap<String, Value> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["sessionId"].as_str().unwrap().to_owned(), s.clone()))
        .collect();
    assert_eq!(listed.len(), SESSIONS + 1, "{listed:?}");
    for (id, log) in ids.iter().zip(&seen) {
        let log = log.lock().unwrap();
        let events = check_transcript(&api, id, &log);
        assert!(events.len() >= log.len());
        assert_eq!(
            listed[id]["ended"],
            json!(false),
            "{id} is still a live session"
        );
        assert_eq!(listed[id]["eventCount"], json!(events.len()));
    }
    // Every session takes messages again, numbered on from where it was.
    for id in &ids {
        let before = api.last_sequence(id);
        let turn = api.turn(id, "echo after the restart");
        assert!(turn
            .iter()
            .all(|e| e["sequence"].as_u64().unwrap() > before));
        assert!(types(&turn).contains(&"turn.ended".to_owned()), "{turn:?}");
    }
    // The permission asked before the restart is still answerable.
    assert_eq!(listed["asking"]["status"], json!("awaiting_input"));
    let asked = api.events("asking");
    let permission = asked
        .iter()
        .find(|e| e["type"] == "permission.requested")
        .unwrap();
    let permission_id = permission["data"]["permission_id"].as_str().unwrap();
    let offset = api.last_sequence("asking");
    expect_no_content(
        api.post_json(
            &format!("/v1/sessions/asking/permissions/{permission_id}/reply"),
            json!({ "reply": "once" }),
        ),
        "replying after the restart",
    );
    let rest = api.wait_for_type("asking", offset, "turn.ended");
    assert_eq!(
        rest.iter()
            .find(|e| e["type"] == "permission.resolved")
            .unwrap()["data"]["status"],
        json!("accept")
    );
}

#[test]
fn a_killed_daemon_loses_no_event_a_client_saw() {
    survive(|mut daemon| daemon.kill(), Vec::new());
}

#[test]
fn a_stopped_daemon_keeps_its_sessions_resumable() {
    survive(Daemon::stop_keeping_data, Vec::new());
}

/// The same with the sessions in PostgreSQL (`--store`), on a server the test starts.
#[test]
fn a_killed_daemon_loses_no_event_a_client_saw_in_postgresql() {
    let Some(server) = agentplex_store::postgres::temp::TempPostgres::shared() else {
        return;
    };
    let url = server.create_database("killed_daemon");
    survive(
        |mut daemon| daemon.kill(),
        vec!["--store".into(), url.clone()],
    );
    // What the daemons saw was in the database (driven by the daemon of that
    // data dir: another daemon lists them, and loads none of them).
    use agentplex_store::{Fleet, Store};
    let store = agentplex_store::postgres::PostgresStore::open(&url).unwrap();
    let sessions = store.sessions().unwrap();
    assert_eq!(sessions.len(), SESSIONS + 1);
    assert!(sessions
        .iter()
        .all(|s| s.last_sequence > 0 && s.owner.is_some()));
    assert!(store.load(1).unwrap().is_empty());
}

#[test]
fn ended_sessions_stay_readable_and_deleted_ones_stay_gone() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    for id in ["kept", "deleted"] {
        api.create(id, "mock");
        api.turn(id, "echo hello");
    }
    expect_no_content(api.post_empty("/v1/sessions/kept/terminate"), "terminate");
    let kept = api.events("kept");
    let response = api
        .client()
        .delete(daemon.url("/v1/sessions/deleted"))
        .send()
        .unwrap();
    expect_no_content(response, "delete");
    expect_problem(
        api.get("/v1/sessions/deleted/events"),
        404,
        "session_not_found",
    );

    let mut daemon = daemon;
    let daemon = Daemon::start_with(Options {
        data_dir: Some(daemon.kill()),
        ..Options::default()
    });
    let api = Api::new(&daemon);
    assert_eq!(api.events("kept"), kept);
    let info = api.session_info("kept");
    assert_eq!(info["ended"], json!(true));
    assert_eq!(info["status"], json!("ended"));
    expect_problem(
        api.post_json("/v1/sessions/kept/messages", json!({"message": "hi"})),
        409,
        "session_ended",
    );
    expect_problem(
        api.get("/v1/sessions/deleted/events"),
        404,
        "session_not_found",
    );
    let response = api
        .client()
        .delete(daemon.url("/v1/sessions/never"))
        .send()
        .unwrap();
    expect_problem(response, 404, "session_not_found");
}

#[test]
fn ephemeral_daemons_keep_nothing() {
    let daemon = Daemon::start_with(Options {
        args: vec!["--ephemeral".into()],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    api.create("gone", "mock");
    api.turn("gone", "echo hello");
    let data_dir = { daemon }.kill();
    assert!(!data_dir.path().join("sessions.db").exists());
    let daemon = Daemon::start_with(Options {
        data_dir: Some(data_dir),
        ..Options::default()
    });
    let listed = Api::new(&daemon).get_ok("/v1/sessions");
    assert_eq!(listed["sessions"], json!([]));
}

#[test]
fn a_switch_variable_takes_1_and_0() {
    for (value, kept) in [("1", false), ("on", false), ("0", true), ("false", true)] {
        let daemon = Daemon::start_with(Options {
            env: vec![("AGENTPLEX_EPHEMERAL".into(), value.into())],
            ..Options::default()
        });
        let api = Api::new(&daemon);
        api.create("switched", "mock");
        api.turn("switched", "echo hello");
        let data_dir = { daemon }.kill();
        assert_eq!(
            data_dir.path().join("sessions.db").exists(),
            kept,
            "AGENTPLEX_EPHEMERAL={value}"
        );
    }
}

#[test]
fn retention_removes_ended_sessions_beyond_the_count_and_keeps_live_ones() {
    let daemon = Daemon::start_with(Options {
        args: vec!["--retention".into(), "1".into()],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    for id in ["a-old", "b-new", "c-live"] {
        api.create(id, "mock");
    }
    for id in ["a-old", "b-new"] {
        expect_no_content(api.post_empty(&format!("/v1/sessions/{id}/terminate")), id);
        thread::sleep(Duration::from_millis(20));
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let listed = api.get_ok("/v1/sessions");
        let ids: Vec<&str> = listed["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["sessionId"].as_str().unwrap())
            .collect();
        if ids == ["b-new", "c-live"] {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "retention did not prune: {ids:?}"
        );
        thread::sleep(Duration::from_millis(100));
    }
    // Pruned from the database too.
    let mut daemon = daemon;
    let daemon = Daemon::start_with(Options {
        data_dir: Some(daemon.kill()),
        ..Options::default()
    });
    let listed = Api::new(&daemon).get_ok("/v1/sessions");
    assert_eq!(listed["sessions"].as_array().unwrap().len(), 2);
}

#[test]
fn retention_by_age_removes_sessions_that_ended_long_enough_ago() {
    let daemon = Daemon::start_with(Options {
        args: vec!["--retention".into(), "2s".into()],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    api.create("short", "mock");
    expect_no_content(api.post_empty("/v1/sessions/short/terminate"), "terminate");
    assert!(!ok_json(api.get("/v1/sessions/short/events"))["events"]
        .as_array()
        .unwrap()
        .is_empty());
    let deadline = Instant::now() + Duration::from_secs(15);
    while api.get("/v1/sessions/short/events").status() != 404 {
        assert!(
            Instant::now() < deadline,
            "the ended session was not pruned"
        );
        thread::sleep(Duration::from_millis(200));
    }
}

/// A database the daemon cannot use makes it refuse to start, naming the file,
/// and the file is left exactly as it was.
#[test]
fn an_unusable_database_stops_the_daemon_at_start_and_is_kept() {
    let data_dir = tempfile::tempdir().unwrap();
    let file = data_dir.path().join("sessions.db");
    let garbage = b"SQLite format 3\0 but then garbage ".repeat(200);
    std::fs::write(&file, &garbage).unwrap();
    let output = std::process::Command::new(binary())
        .args(["server", "--no-token", "--port", "0", "--data-dir"])
        .arg(data_dir.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("sessions.db"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(std::fs::read(&file).unwrap(), garbage);
}

/// A database written by the first schema version (`tests/fixtures/sessions-v1.db`)
/// opens, is upgraded, and its session reads as it was.
#[test]
fn a_database_from_the_first_release_opens() {
    let data_dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sessions-v1.db"),
        data_dir.path().join("sessions.db"),
    )
    .unwrap();
    let daemon = Daemon::start_with(Options {
        data_dir: Some(data_dir),
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let info = api.session_info("from-v1");
    assert_eq!(info["agent"], json!("mock"));
    assert_eq!(info["status"], json!("ended"));
    let events = api.events("from-v1");
    assert_eq!(
        types(&events),
        [
            "session.started",
            "turn.started",
            "item.completed",
            "turn.ended",
            "session.ended"
        ]
    );
}

/// A stored snapshot the adapter refuses (as after an incompatible upgrade of the
/// component) does not lose the session: a fresh adapter carries on.
#[test]
fn a_snapshot_the_adapter_refuses_starts_it_afresh() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("upgraded", "mock");
    api.turn("upgraded", "echo before");
    let before = api.events("upgraded");
    let data_dir = daemon.stop_keeping_data();
    let database = rusqlite::Connection::open(data_dir.path().join("sessions.db")).unwrap();
    let changed = database
        .execute(
            "UPDATE sessions SET snapshot = x'00ff' WHERE id = 'upgraded'",
            [],
        )
        .unwrap();
    assert_eq!(changed, 1);
    drop(database);

    let daemon = Daemon::start_with(Options {
        data_dir: Some(data_dir),
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let turn = api.turn("upgraded", "echo after");
    assert!(
        common::api::assistant_texts(&turn)
            .iter()
            .any(|t| t.contains("after")),
        "{turn:?}"
    );
    let after = api.events("upgraded");
    assert_eq!(after[..before.len()], before[..]);
    let started = types(&after)
        .iter()
        .filter(|t| *t == "session.started")
        .count();
    assert_eq!(started, 2, "the fresh adapter started again");
}

#[test]
fn queued_messages_survive_a_kill_and_run_after_the_restart_in_order() {
    let mut daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("queue", "mock");
    api.send("queue", "slow 10");
    for word in ["first", "second", "third"] {
        api.send("queue", &format!("echo {word}"));
    }
    // Each message was answered 204 once stored: all three wait for the slow turn.
    assert_eq!(api.session_info("queue")["queuedMessages"], 3);
    let data_dir = daemon.kill();

    let daemon = Daemon::start_with(Options {
        data_dir: Some(data_dir),
        ..Options::default()
    });
    let api = Api::new(&daemon);
    api.wait_for_info("queue", "done with its queue", |info| {
        info["status"] == "idle" && info["queuedMessages"] == 0
    });
    let texts = common::api::assistant_texts(&api.events("queue"));
    let echoed: Vec<&str> = texts
        .iter()
        .map(String::as_str)
        .filter(|text| ["first", "second", "third"].contains(text))
        .collect();
    assert_eq!(echoed, ["first", "second", "third"], "{texts:?}");
}
