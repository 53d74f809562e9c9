//! Parking: a session without input for `--adapter-park-after-ms` gives its adapter
//! instance back and keeps only the adapter's snapshot; its next input rebuilds
//! the instance. Nothing a client sees changes: the same transcript as with
//! instances kept, requests answered across a park, a restart after one. And
//! a parked session holds no instance's memory. Past `--max-live-instances`, the
//! least recently used sessions park at once, whatever their idle time.

mod common;

use std::time::Duration;

use common::api::*;
use common::{Daemon, Options};
use serde_json::{json, Value};

/// A daemon that parks instances after `park_after_ms` (0: never), and keeps
/// at most `max_live` (0: no cap).
fn daemon_capped(park_after_ms: u64, max_live: usize) -> Daemon {
    Daemon::start_with(Options {
        args: vec![
            "--adapter-park-after-ms".into(),
            park_after_ms.to_string(),
            "--max-live-instances".into(),
            max_live.to_string(),
        ],
        ..Options::default()
    })
}

/// A daemon that parks instances after `park_after_ms` (0: never), without a cap.
fn daemon(park_after_ms: u64) -> Daemon {
    daemon_capped(park_after_ms, 0)
}

/// What a client reads of a transcript, without what differs between runs
/// (event ids and times).
fn comparable(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .map(|event| json!({ "type": event["type"], "data": without_times(&event["data"]) }))
        .collect()
}

fn without_times(value: &Value) -> Value {
    match value {
        Value::Object(map) => map
            .iter()
            .filter(|(key, _)| !matches!(key.as_str(), "time" | "timestamp" | "duration_ms"))
            .map(|(key, value)| (key.clone(), without_times(value)))
            .collect(),
        Value::Array(items) => Value::Array(items.iter().map(without_times).collect()),
        other => other.clone(),
    }
}

/// Sends the mock's `kind` command (`permission` or `question`), waits for its request,
/// sits idle for `pause`, then answers it with `reply` and waits for the turn to end.
fn answer_after_a_pause(api: &Api, pause: Duration, kind: &str, reply: Value) {
    let offset = api.last_sequence("s");
    api.send("s", kind);
    let asked = api.wait_for_type("s", offset, &format!("{kind}.requested"));
    let id = asked.last().unwrap()["data"][format!("{kind}_id")]
        .as_str()
        .unwrap()
        .to_owned();
    std::thread::sleep(pause);
    expect_no_content(
        api.post_json(&format!("/v1/sessions/s/{kind}s/{id}/reply"), reply),
        kind,
    );
    api.wait_for_type("s", offset, "turn.ended");
}

/// Several turns with pauses longer than a short park delay, a stream paced by
/// the adapter's own timers (100 ms apart), and a permission and a question
/// answered after the session sat idle; the whole transcript.
fn script(api: &Api, pause: Duration) -> Vec<Value> {
    api.create("s", "mock");
    api.turn("s", "echo one");
    std::thread::sleep(pause);
    api.turn("s", "slow 4");
    std::thread::sleep(pause);

    answer_after_a_pause(api, pause, "permission", json!({ "reply": "once" }));
    answer_after_a_pause(api, pause, "question", json!({ "answers": [["yes"]] }));
    std::thread::sleep(pause);
    api.turn("s", "echo two");
    api.events("s")
}

#[test]
fn a_parked_session_reads_as_one_that_kept_its_instance() {
    let pause = Duration::from_millis(250);
    let kept = daemon(0);
    let expected = script(&Api::new(&kept), pause);
    let parking = daemon(40);
    let parked = script(&Api::new(&parking), pause);

    check_envelopes("s", 0, &parked);
    check_turns(&parked, true);
    assert_eq!(
        comparable(&parked),
        comparable(&expected),
        "parking changed the transcript:\n{}",
        pretty(&parked)
    );
}

#[test]
fn a_daemon_killed_while_sessions_are_parked_resumes_them() {
    let mut first = daemon(40);
    let api = Api::new(&first);
    api.create("s", "mock");
    let before = api.turn("s", "echo before");
    std::thread::sleep(Duration::from_millis(300));
    let data_dir = first.kill();

    let second = Daemon::start_with(Options {
        data_dir: Some(data_dir),
        args: vec!["--adapter-park-after-ms".into(), "40".into()],
        ..Options::default()
    });
    let api = Api::new(&second);
    let offset = api.last_sequence("s");
    let after = api.turn("s", "echo after");
    check_envelopes("s", offset, &after);
    let ids = |events: &[Value]| -> Vec<String> {
        events
            .iter()
            .filter(|e| e["type"] == "item.started")
            .map(|e| e["data"]["item"]["item_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let (before, after) = (ids(&before), ids(&after));
    assert!(!after.is_empty());
    assert!(
        after.iter().all(|id| !before.contains(id)),
        "item ids repeated after the restart: {before:?} then {after:?}"
    );
    assert_eq!(
        assistant_texts(&api.events("s")).last().map(String::as_str),
        Some("after")
    );
}

/// Anonymous memory of a process, in KiB: its heap and the pages its instances
/// touched. Not `Private_Dirty`, which also counts pages of the daemon's own
/// binary while the linker's write of it is not yet on disk: the first run after
/// a build read 25 MiB more as the daemon ran code it had not run before.
fn anonymous_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("Anonymous:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("Anonymous")
}

/// [`anonymous_kib`] once two readings 200 ms apart differ by less than
/// 1% (or after 5 s).
fn settled_anonymous_kib(pid: u32) -> u64 {
    let mut last = anonymous_kib(pid);
    for _ in 0..25 {
        std::thread::sleep(Duration::from_millis(200));
        let now = anonymous_kib(pid);
        if now.abs_diff(last) * 100 < last {
            return now;
        }
        last = now;
    }
    last
}

/// Memory maps of a process (each live adapter instance has a few of its own).
fn memory_maps(pid: u32) -> usize {
    std::fs::read_to_string(format!("/proc/{pid}/maps"))
        .unwrap()
        .lines()
        .count()
}

/// What `sessions` mock sessions add to a daemon after one turn each and a second
/// of rest: anonymous memory per session in KiB, and memory maps in all. Then every
/// session answers one more turn.
fn growth(daemon: &Daemon, sessions: usize) -> (u64, usize) {
    let api = Api::new(daemon);
    // The baseline is taken once the daemon has settled: a daemon just started
    // still holds what its start-up work allocated for a while (measured above
    // what 300 sessions later held, once), and the first session loads the
    // mock component.
    api.create("warm-up", "mock");
    api.send("warm-up", "echo warm");
    api.wait_for_type("warm-up", 0, "turn.ended");
    let idle = settled_anonymous_kib(daemon.pid());
    let idle_maps = memory_maps(daemon.pid());
    let ids: Vec<String> = (0..sessions).map(|n| format!("m{n}")).collect();
    for id in &ids {
        api.create(id, "mock");
        api.send(id, "echo hello");
    }
    for id in &ids {
        api.wait_for_type(id, 0, "turn.ended");
    }
    std::thread::sleep(Duration::from_secs(1));
    let memory = anonymous_kib(daemon.pid()).saturating_sub(idle) / sessions as u64;
    let maps = memory_maps(daemon.pid()).saturating_sub(idle_maps);
    for id in &ids {
        let offset = api.last_sequence(id);
        api.send(id, "echo again");
        let turn = api.wait_for_type(id, offset, "turn.ended");
        assert_eq!(assistant_texts(&turn), ["again"], "session {id}");
    }
    (memory, maps)
}

#[test]
fn parked_sessions_give_their_instance_memory_back() {
    const SESSIONS: usize = 300;
    let (live, live_maps) = growth(&daemon(0), SESSIONS);
    let (parked, parked_maps) = growth(&daemon(100), SESSIONS);
    eprintln!(
        "per session: {live} KiB anonymous memory with live instances, {parked} KiB parked; \
         memory maps added: {live_maps} live, {parked_maps} parked"
    );
    // Each live instance maps its own memory (about 4 maps); a parked session maps
    // nothing (what the parking daemon adds is its runtime's threads' stacks).
    assert!(
        live_maps >= 3 * SESSIONS && parked_maps <= SESSIONS / 2,
        "memory maps added by {SESSIONS} sessions: {live_maps} live, {parked_maps} parked"
    );
    // An instance is about 30 KiB (its store and the guest pages it touched); what the
    // allocator keeps of it varies with the machine's load, so only the direction is held.
    assert!(
        parked < live,
        "parking saved nothing: {parked} KiB a session parked, {live} KiB live"
    );
}

/// Sessions holding an instance, in `/metrics`.
const LIVE_INSTANCES: &str = "agentplex_adapter_instances";
/// Instances parked because the cap was reached, in `/metrics`.
const PARKED_FOR_ROOM: &str = "agentplex_adapter_instances_parked_for_room_total";

/// A figure of the daemon's `/metrics` document (without labels).
fn metric(api: &Api, name: &str) -> f64 {
    let document = api.get("/metrics").text().unwrap();
    document
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("{name} in /metrics:\n{document}"))
}

#[test]
fn past_the_cap_the_least_recently_used_sessions_park_and_read_the_same() {
    const CAP: usize = 3;
    const SESSIONS: usize = 8;
    // Parking on idle time never happens here: only the cap parks.
    let kept = daemon(0);
    let capped = daemon_capped(0, CAP);
    let mut transcripts = Vec::new();
    for daemon in [&kept, &capped] {
        let api = Api::new(daemon);
        let ids: Vec<String> = (0..SESSIONS).map(|n| format!("c{n}")).collect();
        for id in &ids {
            api.create(id, "mock");
            api.turn(id, &format!("echo first {id}"));
        }
        let live = metric(&api, LIVE_INSTANCES);
        let parked = metric(&api, PARKED_FOR_ROOM);
        transcripts.push((live, parked));
        // The first sessions, parked to make room, take their second turn on an
        // instance rebuilt from their snapshot (parking the least recent again).
        for id in &ids {
            let offset = api.last_sequence(id);
            let turn = api.turn(id, &format!("echo second {id}"));
            check_envelopes(id, offset, &turn);
            let all = api.events(id);
            check_envelopes(id, 0, &all);
            check_turns(&all, true);
            assert_eq!(
                assistant_texts(&all),
                [format!("first {id}"), format!("second {id}")],
                "session {id}"
            );
        }
        transcripts.push((metric(&api, LIVE_INSTANCES), metric(&api, PARKED_FOR_ROOM)));
    }
    let [kept_first, kept_second, capped_first, capped_second] = transcripts[..] else {
        unreachable!()
    };
    assert_eq!(kept_first, (SESSIONS as f64, 0.0), "without a cap");
    assert_eq!(kept_second, (SESSIONS as f64, 0.0), "without a cap");
    assert_eq!(
        capped_first,
        (CAP as f64, (SESSIONS - CAP) as f64),
        "(live, parked for room) after one turn each, cap {CAP}"
    );
    // Each second turn in creation order finds its session parked and the
    // least recently used one live: every one of them parks another.
    assert_eq!(
        capped_second,
        (CAP as f64, (2 * SESSIONS - CAP) as f64),
        "(live, parked for room) after a second turn each"
    );
}

#[test]
fn a_restart_past_the_cap_starts_the_extra_sessions_parked() {
    const CAP: usize = 2;
    const SESSIONS: usize = 5;
    let args = || {
        vec![
            "--adapter-park-after-ms".into(),
            "0".into(),
            "--max-live-instances".into(),
            CAP.to_string(),
        ]
    };
    let mut first = Daemon::start_with(Options {
        args: args(),
        ..Options::default()
    });
    let api = Api::new(&first);
    let ids: Vec<String> = (0..SESSIONS).map(|n| format!("r{n}")).collect();
    for id in &ids {
        api.create(id, "mock");
        api.turn(id, &format!("echo before {id}"));
    }
    let data_dir = first.kill();

    let second = Daemon::start_with(Options {
        data_dir: Some(data_dir),
        args: args(),
        ..Options::default()
    });
    let api = Api::new(&second);
    // Restored past the cap, they start parked: none had to be asked to.
    assert_eq!(metric(&api, LIVE_INSTANCES), CAP as f64);
    assert_eq!(metric(&api, PARKED_FOR_ROOM), 0.0);
    for id in &ids {
        let offset = api.last_sequence(id);
        let turn = api.turn(id, &format!("echo after {id}"));
        check_envelopes(id, offset, &turn);
        assert_eq!(
            assistant_texts(&api.events(id)),
            [format!("before {id}"), format!("after {id}")],
            "session {id}"
        );
    }
    // The two restored live took their turn on their instance; each of the
    // three others parked the least recently used to make room.
    assert_eq!(metric(&api, PARKED_FOR_ROOM), (SESSIONS - CAP) as f64);
}
