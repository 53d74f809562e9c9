//! A session's memory does not grow with its transcript: a daemon restored on a
//! session of 1,000,000 stored events holds about what it holds for an empty one,
//! and streams the whole transcript from offset 0 a page at a time from the store.

mod common;

use std::io::{BufRead, BufReader};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::api::Api;
use common::procfs;
use common::{Daemon, Options};

const EVENTS: u64 = 1_000_000;

/// Resident memory of a process in KiB: what it holds (`RssAnon` + `RssShmem`:
/// its heap, stacks and shared maps) and in all (`VmRSS`, which adds the pages of
/// files it maps). The file-backed part is mostly the binary's own code as read in
/// from disk, which differs by up to 1 MiB between two runs of the same binary
/// doing the same requests; what a session costs is in the held part.
#[derive(Clone, Copy, Debug)]
struct Resident {
    held: u64,
    total: u64,
}

fn resident(pid: u32) -> Resident {
    let field = |name: &str| procfs::status_field(pid, name).expect("a live daemon");
    Resident {
        held: field("RssAnon") + field("RssShmem"),
        total: field("VmRSS"),
    }
}

/// What a process holds, in KiB (see [`Resident`]).
fn held_kib(pid: u32) -> u64 {
    resident(pid).held
}

/// Starts a daemon on `data_dir`, waits for it to settle, and returns it with
/// its resident memory.
fn settled(data_dir: tempfile::TempDir) -> (Daemon, Resident) {
    let daemon = Daemon::start_with(Options {
        data_dir: Some(data_dir),
        ..Options::default()
    });
    let api = Api::new(&daemon);
    // The same requests on both daemons: the listing and a page of each session.
    api.get_ok("/v1/sessions");
    for id in ["idle", "long"] {
        api.events_page(id, "offset=0&limit=10");
    }
    std::thread::sleep(Duration::from_millis(500));
    // The settled size: the least of a few samples, so work still finishing on a
    // busy machine (a CI running other suites) is not counted as the session's.
    let samples: Vec<Resident> = (0..5)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(200));
            resident(daemon.pid())
        })
        .collect();
    let least = Resident {
        held: samples.iter().map(|sample| sample.held).min().unwrap(),
        total: samples.iter().map(|sample| sample.total).min().unwrap(),
    };
    (daemon, least)
}

/// Writes `count` events for session `long` straight into the database, as a
/// daemon would have stored them (the envelope and `raw` apart).
fn store_events(data_dir: &std::path::Path, count: u64) {
    let db = rusqlite::Connection::open(data_dir.join("sessions.db")).unwrap();
    // In place of what the mock wrote at creation.
    db.execute("DELETE FROM events WHERE session_id = 'long'", [])
        .unwrap();
    db.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
         INSERT INTO events (session_id, sequence, event, raw)
         SELECT 'long', i,
           '{\"event_id\":\"evt_' || i || '\",\"sequence\":' || i ||
           ',\"time\":\"2026-11-26T00:00:00.000Z\",\"session_id\":\"long\",\"source\":\"agent\",' ||
           '\"synthetic\":false,\"type\":\"error\",\"data\":{\"message\":\"stored line ' || i ||
           ' of a long transcript\"}}',
           '{\"line\":' || i || '}'
         FROM n",
        [count as i64],
    )
    .unwrap();
    // A daemon checkpoints its log as it writes; one insert of a million rows
    // leaves it all in the write-ahead log, whose index the next daemon maps
    // (RSS that is the log's, not the session's).
    db.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
}

#[test]
fn a_million_event_session_costs_no_more_memory_and_replays_from_the_store() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("idle", "mock");
    api.create("long", "mock");
    let data_dir = daemon.stop_keeping_data();

    // The two sessions with empty transcripts, then with 1,000,000 events in one.
    let (daemon, empty_rss) = settled(data_dir);
    let data_dir = daemon.stop_keeping_data();
    store_events(data_dir.path(), EVENTS);
    let (daemon, long_rss) = settled(data_dir);
    let api = Api::new(&daemon);
    eprintln!("resident with an empty transcript {empty_rss:?} KiB, with {EVENTS} events {long_rss:?} KiB");
    assert!(
        long_rss.held < empty_rss.held + 1024,
        "a session of {EVENTS} events holds {} KiB more than an empty one",
        long_rss.held as i64 - empty_rss.held as i64
    );
    // Nor is the transcript's file mapped (~250 MB): the file-backed part stays
    // within its run-to-run spread.
    assert!(
        long_rss.total < empty_rss.total + 4 * 1024,
        "a session of {EVENTS} events has {} KiB more resident than an empty one",
        long_rss.total as i64 - empty_rss.total as i64
    );
    let long_rss = long_rss.held;
    let info = api.session_info("long");
    assert_eq!(info["eventCount"], EVENTS, "{info}");

    // A page from the middle comes from the store, with and without `raw`.
    let page = api.events_page("long", "offset=500000&limit=2&include_raw=true");
    let events = page["events"].as_array().unwrap();
    assert_eq!(events.len(), 2);
    assert_eq!(events[0]["sequence"], 500_001);
    assert_eq!(events[1]["raw"]["line"], 500_002);
    assert_eq!(page["hasMore"], true);
    let plain = api.events_page("long", "offset=999999");
    assert_eq!(plain["events"][0]["sequence"], EVENTS);
    assert!(plain["events"][0].get("raw").is_none());
    assert_eq!(plain["hasMore"], false);

    // The whole transcript over SSE from offset 0, in order, while the daemon's
    // memory is sampled: it must not hold the transcript (~250 MB of JSON).
    let streaming = Arc::new(AtomicBool::new(true));
    let peak = Arc::new(AtomicU64::new(0));
    let sampler = {
        let (streaming, peak, pid) = (streaming.clone(), peak.clone(), daemon.pid());
        std::thread::spawn(move || {
            while streaming.load(Ordering::Relaxed) {
                peak.fetch_max(held_kib(pid), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let client = reqwest::blocking::Client::builder()
        .timeout(None)
        .build()
        .unwrap();
    let response = client
        .get(daemon.url("/v1/sessions/long/events/sse?offset=0"))
        .send()
        .unwrap();
    let mut expected = 1;
    for line in BufReader::new(response).lines() {
        let line = line.unwrap();
        if let Some(id) = line.strip_prefix("id: ") {
            assert_eq!(id.parse::<u64>().unwrap(), expected, "out of order");
            expected += 1;
            if expected > EVENTS {
                break;
            }
        }
    }
    streaming.store(false, Ordering::Relaxed);
    sampler.join().unwrap();
    assert_eq!(expected, EVENTS + 1, "every event streamed");
    let peak = peak.load(Ordering::Relaxed);
    eprintln!("peak held while streaming {EVENTS} events: {peak} KiB");
    assert!(
        peak < long_rss + 32 * 1024,
        "streaming the transcript took the daemon from {long_rss} to {peak} KiB"
    );
}

#[test]
fn a_reader_that_stops_reading_does_not_grow_the_daemon() {
    use std::io::Write;
    const LINES: u64 = 100_000;
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("flood", "mock");
    let before = api.last_sequence("flood");
    // A reader that opens the stream and then reads nothing.
    let mut stalled = std::net::TcpStream::connect(("127.0.0.1", daemon.port)).unwrap();
    write!(
        stalled,
        "GET /v1/sessions/flood/events/sse?offset=0&include_raw=true HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let idle_rss = held_kib(daemon.pid());
    api.send("flood", &format!("shell seq 1 {LINES}"));
    // A workload, not one request: a debug daemon takes about 9 s for it alone on
    // 2 cores, and the CI runs this beside the million-event test.
    let flood = Duration::from_secs(120);
    let info = api.wait_for_info_within(flood, "flood", "the flood's turn to end", |info| {
        info["status"] == "idle" && info["eventCount"].as_u64().unwrap() > before + LINES
    });
    let flooded_rss = held_kib(daemon.pid());
    eprintln!(
        "held {idle_rss} KiB before, {flooded_rss} KiB after {} events with a stalled reader",
        info["eventCount"]
    );
    assert!(
        flooded_rss < idle_rss + 24 * 1024,
        "the daemon grew from {idle_rss} to {flooded_rss} KiB"
    );
    // The stalled reader still gets everything, in order, when it reads again.
    stalled
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let last = info["eventCount"].as_u64().unwrap();
    let mut reader = BufReader::new(stalled);
    let mut expected = 1;
    let mut line = String::new();
    while expected <= last {
        line.clear();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "stream ended early"
        );
        if let Some(id) = line.trim_end().strip_prefix("id: ") {
            assert_eq!(id.parse::<u64>().unwrap(), expected, "out of order");
            expected += 1;
        }
    }
}
