//! The data dir fails under a running daemon: its disk fills up in the middle
//! of a turn, or its database file is removed. Each time no reader sees an event
//! that is not stored and writes are refused with a `storage_*` problem (507 for
//! a full disk, 503 otherwise). A full disk pauses the running turn without
//! losing output and leaves the database intact; once space returns the session
//! carries on by itself, and after a kill -9 every event any reader saw is
//! there, without gaps or duplicates.
//!
//! The full disk is a small tmpfs mounted for the test, so the test needs to
//! mount file systems (root, or CAP_SYS_ADMIN), as CI and this project's
//! development machines have. The same holds with the sessions in PostgreSQL
//! (`--store`) whose server goes away and comes back.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::api::{expect_problem, types, Api};
use common::load::{check_transcript, follow, Seen};
use common::{Daemon, Options};
use serde_json::{json, Value};

/// Size of the data dir's file system.
const TMPFS_SIZE: &str = "16m";
/// Lines the agent prints in the turn the disk fills up in (far more than fit).
const LINES: u32 = 10_000;

/// A tmpfs mounted on a fresh directory, unmounted (and the directory removed)
/// on drop.
struct Tmpfs {
    path: PathBuf,
}

impl Tmpfs {
    fn mount(size: &str) -> Tmpfs {
        let path = tempfile::tempdir().unwrap().keep();
        mount(
            &[
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ],
            &path,
        );
        Tmpfs { path }
    }

    /// The mount as a data dir a daemon may own (the directory outlives it).
    fn data_dir(&self) -> tempfile::TempDir {
        tempfile::TempDir::new_in(&self.path).unwrap()
    }

    /// Fills the file system up to `free` bytes left; returns the filler.
    fn fill_leaving(&self, free: u64) -> PathBuf {
        let filler = self.path.join("filler");
        let mut file = std::fs::File::create(&filler).unwrap();
        let chunk = vec![0x5a; 4096];
        while free_bytes(&self.path) > free {
            if file.write_all(&chunk).is_err() {
                break;
            }
        }
        file.sync_all().unwrap();
        filler
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.path).status();
        let _ = std::fs::remove_dir(&self.path);
    }
}

fn mount(args: &[&str], path: &Path) {
    let output = Command::new("mount")
        .args(args)
        .arg(path)
        .output()
        .expect("running mount");
    assert!(
        output.status.success(),
        "this test mounts a tmpfs as the data dir and needs the right to (root or \
         CAP_SYS_ADMIN): mount {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn free_bytes(path: &Path) -> u64 {
    let stats = rustix::fs::statvfs(path).unwrap();
    stats.f_bavail * stats.f_frsize
}

fn daemon_on(data_dir: tempfile::TempDir) -> Daemon {
    Daemon::start_with(Options {
        data_dir: Some(data_dir),
        ..Options::default()
    })
}

/// Polls `attempt` until it answers `Some`, for up to a minute.
fn eventually<T>(what: &str, mut attempt: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(found) = attempt() {
            return found;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(100));
    }
}

/// How many events a follower has seen, in all and of one type.
fn seen_count(seen: &Seen) -> usize {
    seen.lock().unwrap().len()
}

fn seen_of_type(seen: &Seen, event_type: &str) -> usize {
    seen.lock()
        .unwrap()
        .values()
        .filter(|event| event["type"] == json!(event_type))
        .count()
}

/// Sends a message; the problem's type code when it is refused.
fn send(api: &Api, session: &str, text: &str) -> Result<(), (u16, Value)> {
    let response = api.post_json(
        &format!("/v1/sessions/{session}/messages"),
        json!({ "message": text }),
    );
    let status = response.status().as_u16();
    if response.status().is_success() {
        return Ok(());
    }
    Err((status, response.json().unwrap_or(Value::Null)))
}

/// The database must pass SQLite's own integrity check.
fn assert_database_intact(data_dir: &Path) {
    let connection = rusqlite::Connection::open(data_dir.join("sessions.db")).unwrap();
    let verdict: String = connection
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(verdict, "ok");
}

/// After a kill -9 and a restart on the same data dir: the whole transcript is
/// there, gap-free, holding every event the follower saw.
fn restart_and_check(mut daemon: Daemon, session: &str, seen: &Seen) -> (Daemon, Vec<Value>) {
    let data_dir = daemon.kill();
    assert_database_intact(data_dir.path());
    let daemon = daemon_on(data_dir);
    let events = check_transcript(&Api::new(&daemon), session, &seen.lock().unwrap());
    (daemon, events)
}

#[test]
fn a_disk_that_fills_up_mid_turn_pauses_the_turn_and_loses_nothing() {
    let tmpfs = Tmpfs::mount(TMPFS_SIZE);
    let daemon = daemon_on(tmpfs.data_dir());
    let api = Api::new(&daemon);
    api.create("full", "mock");
    api.turn("full", "echo before the disk filled up");
    let seen: Seen = Arc::default();
    let follower = follow(&daemon.endpoint, "full", 0, seen.clone());

    // Room for the message, not for the turn's output.
    let filler = tmpfs.fill_leaving(256 << 10);
    send(&api, "full", &format!("shell seq 1 {LINES}")).expect("the message fits");

    // The store fills up: the session stores nothing more, and says so.
    // (Probed with a reply to no pending request: until the session finds the
    // disk full it is a plain 404, with nothing to store.)
    eventually("the session to find the disk full", || {
        let reply = api.post_json(
            "/v1/sessions/full/permissions/none/reply",
            json!({ "reply": "once" }),
        );
        (reply.status().as_u16() == 507).then_some(())
    });
    let (status, problem) = send(&api, "full", "echo refused").expect_err("a full disk");
    assert_eq!(
        (status, &problem["type"]),
        (507, &json!("urn:sandbox-agent:error:storage_full")),
        "{problem}"
    );
    assert!(
        problem["detail"].as_str().unwrap().contains("full"),
        "{problem}"
    );
    // A new session is refused the same way, unless its few bytes still found
    // room (then it is stored: it must be there after the restart below).
    let created = api.post_json("/v1/sessions/late", json!({ "agent": "mock" }));
    let late_stored = match created.status().as_u16() {
        200 => true,
        _ => {
            expect_problem(created, 507, "storage_full");
            false
        }
    };

    // The turn is paused: nothing more is shown while nothing more is stored,
    // and what is shown can still be read. The follower first catches up with
    // what was stored before the disk filled (on a busy machine it lags behind).
    let stored = api.events("full").len();
    let paused_at = eventually("the follower to see what was stored", || {
        let seen = seen_count(&seen);
        (seen >= stored).then_some(seen)
    });
    assert_eq!(paused_at, stored, "events shown that were not stored");
    thread::sleep(Duration::from_secs(2));
    assert_eq!(
        seen_count(&seen),
        paused_at,
        "events shown while the disk is full"
    );
    assert!(
        seen_of_type(&seen, "turn.ended") == 1,
        "the turn cannot end unstored"
    );
    let listed = api.get_ok("/v1/sessions/full");
    assert_eq!(listed["status"], json!("running"), "{listed}");
    assert_eq!(api.events("full").len(), paused_at);

    // Space returns: the turn carries on by itself and ends with all its output.
    std::fs::remove_file(filler).unwrap();
    eventually("the paused turn to end", || {
        (seen_of_type(&seen, "turn.ended") == 2).then_some(())
    });
    api.turn("full", "echo after the disk had room again");

    let (daemon, events) = restart_and_check(daemon, "full", &seen);
    follower.join().unwrap();
    let late = Api::new(&daemon).get("/v1/sessions/late").status().as_u16();
    assert_eq!(
        late == 200,
        late_stored,
        "a session answered {late} after the restart"
    );
    let output = events
        .iter()
        .find(|event| {
            event["type"] == json!("item.completed")
                && event["data"]["item"]["kind"] == json!("tool_result")
        })
        .expect("the tool result");
    let text = output["data"]["item"]["content"][0]["output"]
        .as_str()
        .unwrap();
    let expected: String = (1..=LINES).map(|n| format!("{n}\n")).collect();
    assert!(
        text == expected,
        "the agent's output lost lines while paused"
    );
    assert_eq!(
        events
            .iter()
            .filter(|event| event["type"] == json!("turn.ended"))
            .count(),
        3,
        "{:?}",
        types(&events)
    );
    drop(daemon);
}

#[test]
fn a_database_removed_under_the_daemon_takes_no_more_writes() {
    refuses_writes_once_the_file_is("removed", |database| {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", database.display()));
        }
    });
}

#[test]
fn a_database_replaced_under_the_daemon_takes_no_more_writes() {
    refuses_writes_once_the_file_is("replaced", |database| {
        let copy = database.with_extension("copy");
        std::fs::copy(database, &copy).unwrap();
        std::fs::rename(&copy, database).unwrap();
    });
}

/// What was shown stays readable, nothing more is shown, and every write is
/// refused with `503` naming what happened to the file (`how`).
fn refuses_writes_once_the_file_is(how: &str, change: impl FnOnce(&Path)) {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("gone", "mock");
    api.turn("gone", "echo before");
    let seen: Seen = Arc::default();
    let _follower = follow(&daemon.endpoint, "gone", 0, seen.clone());
    let before = api.events("gone").len();
    eventually("the follower to catch up", || {
        (seen_count(&seen) == before).then_some(())
    });

    // SQLite would go on writing to the old file, which no restart finds.
    change(&daemon.data_dir.path().join("sessions.db"));
    for n in 0..3 {
        let (status, problem) = send(&api, "gone", &format!("echo {n}")).expect_err("no database");
        assert_eq!(status, 503, "{problem}");
        assert_eq!(
            problem["type"],
            json!("urn:sandbox-agent:error:storage_unavailable")
        );
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .contains(&format!("was {how}")),
            "{problem}"
        );
    }
    expect_problem(
        api.post_json("/v1/sessions/other", json!({ "agent": "mock" })),
        503,
        "storage_unavailable",
    );
    thread::sleep(Duration::from_millis(500));
    assert_eq!(seen_count(&seen), before, "events shown that no file holds");
    assert_eq!(
        api.events("gone").len(),
        before,
        "what was shown stays readable"
    );
}

/// The PostgreSQL store's server goes away under a running daemon (`--store`):
/// a message is refused with `503` `storage_unavailable` and nothing unstored is
/// shown; once the server is back the session takes messages again, its
/// transcript without a gap, and after a kill -9 every event seen is there.
#[test]
fn a_postgresql_server_that_goes_away_pauses_sessions_until_it_is_back() {
    use agentplex_store::postgres::temp::TempPostgres;
    let Some(server) = TempPostgres::start_or_skip() else {
        return;
    };
    let url = server.create_database("goes_away");
    let args = vec!["--store".to_owned(), url];
    let daemon = Daemon::start_with(Options {
        args: args.clone(),
        ..Options::default()
    });
    let api = Api::new(&daemon);
    api.create("db", "mock");
    let seen: Seen = Arc::default();
    let follower = follow(&daemon.endpoint, "db", 0, seen.clone());
    api.turn("db", "echo before the server goes");

    server.stop();
    let (status, problem) = eventually("a refused message", || {
        send(&api, "db", "echo while it is gone").err()
    });
    assert_eq!(status, 503, "{problem}");
    assert_eq!(
        problem["type"],
        json!("urn:sandbox-agent:error:storage_unavailable"),
        "{problem}"
    );
    let shown = seen_count(&seen);

    server.start_again().unwrap();
    eventually("a message taken again", || {
        send(&api, "db", "echo the server is back").ok()
    });
    api.wait_for(
        "db",
        shown as u64,
        "the turn after the server came back",
        |event| event["type"] == "turn.ended",
    );
    let events = check_transcript(&api, "db", &seen.lock().unwrap());
    assert!(
        types(&events).iter().filter(|t| *t == "turn.ended").count() >= 2,
        "{}",
        types(&events).join(", ")
    );

    // Killed, then a new daemon on the same database: everything seen is there.
    let mut daemon = daemon;
    let _ = daemon.kill();
    drop(follower);
    let daemon = Daemon::start_with(Options {
        args,
        ..Options::default()
    });
    check_transcript(&Api::new(&daemon), "db", &seen.lock().unwrap());
}

/// The PostgreSQL server's disk fills up (its `disk_full` answer, raised here by a
/// trigger on the events table, as the server raises it when a write finds no
/// space): sessions answer 507 `storage_full` and show nothing unstored; once
/// space is back they carry on. Then every connection of the daemon is cut,
/// mid-transaction or not, while a session streams: nothing a client saw is lost.
#[test]
fn a_postgresql_server_out_of_space_or_cut_off_loses_nothing() {
    use agentplex_store::postgres::temp::TempPostgres;
    let Some(server) = TempPostgres::shared() else {
        return;
    };
    let url = server.create_database("out_of_space");
    let daemon = Daemon::start_with(Options {
        args: vec!["--store".to_owned(), url],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    api.create("db", "mock");
    let seen: Seen = Arc::default();
    let _follower = follow(&daemon.endpoint, "db", 0, seen.clone());
    api.turn("db", "echo before the disk fills");
    let sql = |statement: &str| server.execute_in("out_of_space", statement).unwrap();
    sql(
        "CREATE FUNCTION no_space() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION 'could not extend file: No space left on device'
             USING ERRCODE = 'disk_full'; END $$;
         CREATE TRIGGER no_space BEFORE INSERT ON events
             FOR EACH ROW EXECUTE FUNCTION no_space();",
    );
    let (status, problem) = eventually("a refused message", || {
        send(&api, "db", "echo while the disk is full").err()
    });
    assert_eq!(status, 507, "{problem}");
    assert_eq!(
        problem["type"],
        json!("urn:sandbox-agent:error:storage_full"),
        "{problem}"
    );
    let shown = seen_count(&seen);
    sql("DROP TRIGGER no_space ON events");
    eventually("a message taken again", || {
        send(&api, "db", "echo space is back").ok()
    });
    api.wait_for(
        "db",
        shown as u64,
        "the turn after space came back",
        |event| event["type"] == "turn.ended",
    );

    // Every connection of the daemon cut, again and again, while turns run.
    let cutting = std::thread::spawn(move || {
        for _ in 0..20 {
            let cut = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                 WHERE datname = 'out_of_space' AND pid <> pg_backend_pid()";
            server.execute(cut).unwrap();
            std::thread::sleep(Duration::from_millis(25));
        }
    });
    for n in 0..10 {
        let _ = send(&api, "db", &format!("echo through cut connections {n}"));
    }
    cutting.join().unwrap();
    eventually("a message taken after the cuts", || {
        send(&api, "db", "echo after the cuts").ok()
    });
    api.wait_for_info("db", "every turn run", |info| {
        info["status"] == "idle" && info["queuedMessages"] == 0
    });
    let events = check_transcript(&api, "db", &seen.lock().unwrap());
    let texts = common::api::user_texts(&events);
    assert!(
        texts.iter().any(|t| t == "echo after the cuts"),
        "{texts:?}"
    );
}
