//! Daemons sharing one PostgreSQL database (`--store`): each session is driven
//! by the daemon holding its lease; when that daemon dies, the next daemon
//! asked for the session takes it over once the lease ran out, with no event a
//! client saw lost or repeated, and carries on. A crash loop kills the owner
//! over and over (`AGENTPLEX_CRASH_LOOP_ROUNDS`, 3 by default; the long form in
//! docs/storage.md).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::api::{expect_no_content, expect_problem, ok_json, types, Api};
use crate::common::load::{check_transcript, drive, follow, Seen, Sent};
use crate::common::{Daemon, Options};

/// The lease the tests' daemons hold sessions with.
const LEASE_MS: u64 = 1000;

/// A daemon of the fleet on `url`, named `name`, with its own home.
fn member(url: &str, name: &str, data_dir: Option<tempfile::TempDir>) -> Daemon {
    let data_dir = data_dir.unwrap_or_else(|| tempfile::tempdir().unwrap());
    let home = data_dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    Daemon::start_with(Options {
        args: vec![
            "--store".into(),
            url.into(),
            "--daemon-id".into(),
            name.into(),
            "--lease-ms".into(),
            LEASE_MS.to_string(),
        ],
        env: vec![("HOME".into(), home.display().to_string())],
        data_dir: Some(data_dir),
        ..Options::default()
    })
}

/// `GET /v1/sessions?scope=fleet`, by session id.
fn fleet(api: &Api) -> BTreeMap<String, Value> {
    api.get_ok("/v1/sessions?scope=fleet")["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["sessionId"].as_str().unwrap().to_owned(), s.clone()))
        .collect()
}

/// Load on `id` through `daemon` until `stop`: a writer and an SSE reader.
/// Sends the ACP call `method` to the daemon's ACP server `server` (opened
/// for the mock): its JSON-RPC answer, from the POST's body.
fn acp_call(api: &Api, server: &str, id: u64, method: &str, params: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    let response = api
        .client()
        .post(api.daemon.url(&format!("/v1/acp/{server}?agent=mock")))
        .json(&body)
        .send()
        .expect("POST");
    assert_eq!(response.status().as_u16(), 200, "{method}");
    response.json().unwrap()
}

fn load(
    daemon: &Daemon,
    id: &str,
    offset: u64,
    seen: &Seen,
    stop: &Arc<AtomicBool>,
    sent: &Sent,
) -> Vec<thread::JoinHandle<()>> {
    vec![
        follow(&daemon.endpoint, id, offset, seen.clone()),
        drive(
            &daemon.endpoint,
            id,
            "message",
            Duration::from_millis(5),
            stop.clone(),
            sent.clone(),
        ),
    ]
}

/// Waits until a reader saw `count` events more than `from`.
fn wait_for_load(seen: &Seen, from: usize, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while seen.lock().unwrap().len() < from + count {
        assert!(Instant::now() < deadline, "the load did not get going");
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_dead_daemons_sessions_are_taken_over_with_nothing_lost() {
    let Some(server) = agentplex_store::postgres::temp::TempPostgres::shared() else {
        return;
    };
    let url = server.create_database("fleet_takeover");
    let mut first = member(&url, "first", None);
    let second = member(&url, "second", None);
    let (one, two) = (Api::new(&first), Api::new(&second));
    one.create("busy", "mock");
    one.create("asking", "mock");
    one.create("over-acp", "mock");
    one.send("asking", "permission ls");
    one.wait_for_type("asking", 0, "permission.requested");
    let (seen, sent, stop) = (
        Seen::default(),
        Sent::default(),
        Arc::new(AtomicBool::new(false)),
    );
    let threads = load(&first, "busy", 0, &seen, &stop, &sent);
    wait_for_load(&seen, 0, 100);

    // The other daemon lists the fleet, and is told who drives the session.
    let listed = fleet(&two);
    assert_eq!(listed["busy"]["owner"], json!("first"), "{listed:?}");
    assert_eq!(listed["busy"]["ownerAlive"], json!(true));
    assert_eq!(listed["asking"]["status"], json!("awaiting_input"));
    let own = two.get_ok("/v1/sessions")["sessions"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(own, 0, "the second daemon drives nothing yet");
    // The CLI lists the same (JSON when not on a terminal).
    let listed = std::process::Command::new(crate::common::binary())
        .args([
            "sessions",
            "list",
            "--fleet",
            "--endpoint",
            &second.endpoint,
        ])
        .output()
        .unwrap();
    assert!(listed.status.success(), "{listed:?}");
    let printed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let owners: Vec<&Value> = printed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["owner"])
        .collect();
    assert_eq!(owners, [&json!("first"); 3], "{printed}");
    let refused = expect_problem(two.get("/v1/sessions/busy"), 409, "session_elsewhere");
    assert!(
        refused["detail"].as_str().unwrap().contains("first"),
        "{refused}"
    );
    // Over ACP too: a live owner's session is not loaded here.
    acp_call(&two, "c", 1, "initialize", json!({ "protocolVersion": 1 }));
    let resume = json!({ "sessionId": "over-acp" });
    let refused = acp_call(&two, "c", 2, "session/resume", resume.clone());
    assert_eq!(
        refused["error"]["data"]["type"],
        json!("urn:sandbox-agent:error:session_elsewhere"),
        "{refused}"
    );

    let first_data = first.kill();
    let killed = Instant::now();
    stop.store(true, Ordering::Relaxed);
    for thread in threads {
        thread.join().unwrap();
    }
    // Asked for it, the second daemon takes it over once the lease runs out.
    let events = check_transcript(&two, "busy", &seen.lock().unwrap());
    let took = killed.elapsed();
    assert!(
        took < Duration::from_millis(LEASE_MS + 3000),
        "took {took:?}"
    );
    assert!(events.len() >= seen.lock().unwrap().len());
    let listed = fleet(&two);
    assert_eq!(listed["busy"]["owner"], json!("second"));
    assert_eq!(listed["busy"]["ownerAlive"], json!(true));
    assert_eq!(listed["busy"]["eventCount"], json!(events.len()));

    // It carries on, numbered on (the mock runs no process: no marker of a
    // process left behind; the conformance suite shows the real agents').
    let before = two.last_sequence("busy");
    let turn = two.turn("busy", "echo after the takeover");
    assert!(turn
        .iter()
        .all(|e| e["sequence"].as_u64().unwrap() > before));
    assert!(types(&turn).contains(&"turn.ended".to_owned()), "{turn:?}");
    let all = two.events("busy");
    // Every message the first daemon acknowledged is in the transcript.
    let texts = crate::common::api::user_texts(&all);
    for (text, acknowledged) in sent.lock().unwrap().iter() {
        if *acknowledged {
            assert!(
                texts.iter().any(|t| t == text),
                "{text:?} was acknowledged, then lost"
            );
        }
    }

    // An ACP client resuming a dead daemon's session has it taken over too.
    let resumed = acp_call(&two, "c", 3, "session/resume", resume);
    // Answered with the session's modes (the mock's can change: it lists them).
    assert_eq!(
        resumed["result"]["modes"]["currentModeId"],
        json!("build"),
        "{resumed}"
    );
    assert_eq!(fleet(&two)["over-acp"]["owner"], json!("second"));

    // The permission asked of the dead daemon is answered through the other one.
    let asked = two.events("asking");
    let permission = asked
        .iter()
        .find(|e| e["type"] == "permission.requested")
        .unwrap();
    let permission_id = permission["data"]["permission_id"].as_str().unwrap();
    let offset = two.last_sequence("asking");
    expect_no_content(
        two.post_json(
            &format!("/v1/sessions/asking/permissions/{permission_id}/reply"),
            json!({ "reply": "once" }),
        ),
        "replying after the takeover",
    );
    two.wait_for_type("asking", offset, "turn.ended");

    // The first daemon back on its data dir finds the sessions gone to the other.
    let first = member(&url, "first", Some(first_data));
    let one = Api::new(&first);
    assert!(one.get_ok("/v1/sessions")["sessions"]
        .as_array()
        .unwrap()
        .is_empty());
    expect_problem(
        one.get("/v1/sessions/busy/events"),
        409,
        "session_elsewhere",
    );
    let created = ok_json(two.get("/v1/sessions/busy"));
    assert_eq!(created["owner"], json!("second"));
}

#[test]
fn a_session_survives_its_owners_dying_in_turn() {
    let Some(server) = agentplex_store::postgres::temp::TempPostgres::shared() else {
        return;
    };
    let rounds: usize = std::env::var("AGENTPLEX_CRASH_LOOP_ROUNDS")
        .ok()
        .and_then(|rounds| rounds.parse().ok())
        .unwrap_or(3);
    let url = server.create_database("fleet_crash_loop");
    let names = ["left", "right"];
    let mut daemons = [member(&url, names[0], None), member(&url, names[1], None)];
    Api::new(&daemons[0]).create("looped", "mock");
    let seen = Seen::default();
    let mut takeovers = Vec::new();
    for round in 0..rounds {
        let (owner, other) = (round % 2, (round + 1) % 2);
        let sent = Sent::default();
        let stop = Arc::new(AtomicBool::new(false));
        let from = seen.lock().unwrap().len();
        let offset = seen.lock().unwrap().keys().last().copied().unwrap_or(0);
        let threads = load(&daemons[owner], "looped", offset, &seen, &stop, &sent);
        wait_for_load(&seen, from, 50);
        let data_dir = daemons[owner].kill();
        let killed = Instant::now();
        stop.store(true, Ordering::Relaxed);
        for thread in threads {
            thread.join().unwrap();
        }
        let api = Api::new(&daemons[other]);
        let events = check_transcript(&api, "looped", &seen.lock().unwrap());
        takeovers.push(killed.elapsed());
        let texts = crate::common::api::user_texts(&events);
        for (text, acknowledged) in sent.lock().unwrap().iter() {
            // Acknowledged, it was stored: in the transcript, or queued for the turn after.
            let queued = api.session_info("looped")["queuedMessages"]
                .as_u64()
                .unwrap();
            assert!(
                !*acknowledged || queued > 0 || texts.iter().any(|t| t == text),
                "round {round}: {text:?} was acknowledged, then lost"
            );
        }
        daemons[owner] = member(&url, names[owner], Some(data_dir));
    }
    eprintln!("takeovers after the owner's death (lease {LEASE_MS} ms): {takeovers:?}");
    let api = Api::new(&daemons[rounds % 2]);
    let turn = api.turn("looped", "echo the last turn");
    assert!(types(&turn).contains(&"turn.ended".to_owned()), "{turn:?}");
}
