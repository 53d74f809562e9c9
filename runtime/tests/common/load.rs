//! Load on a daemon's sessions and the checks that nothing a client was given got
//! lost: SSE readers that record every event they receive, writers that send mock
//! turns and record which messages the daemon acknowledged, and the comparison of
//! both with the stored transcript (after a restart, say).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{json, Value};

use super::api::Api;

/// What clients of one session received, by sequence.
pub type Seen = Arc<Mutex<BTreeMap<u64, Value>>>;

/// The messages a writer sent, in order, each with whether the daemon acknowledged
/// it (answered 2xx); a message whose answer never came is `false`.
pub type Sent = Arc<Mutex<Vec<(String, bool)>>>;

/// Follows a session's SSE stream from after `offset` until the connection breaks,
/// recording each event (an event streamed twice fails the test).
pub fn follow(endpoint: &str, session: &str, offset: u64, seen: Seen) -> thread::JoinHandle<()> {
    let url =
        format!("{endpoint}/v1/sessions/{session}/events/sse?offset={offset}&include_raw=true");
    thread::spawn(move || {
        let client = reqwest::blocking::Client::builder()
            .timeout(None)
            .build()
            .unwrap();
        let Ok(response) = client.get(&url).send() else {
            return;
        };
        for line in BufReader::new(response).lines() {
            let Ok(line) = line else { return };
            if let Some(data) = line.strip_prefix("data: ") {
                let event: Value = serde_json::from_str(data).expect("an event");
                let sequence = event["sequence"].as_u64().unwrap();
                let previous = seen.lock().unwrap().insert(sequence, event);
                assert!(previous.is_none(), "sequence {sequence} streamed twice");
            }
        }
    })
}

/// Sends messages (each a whole mock turn of several events), `pause` apart, until
/// told to stop or the daemon goes away; each message's text starts with `tag`
/// and is recorded in `sent`.
pub fn drive(
    endpoint: &str,
    session: &str,
    tag: &str,
    pause: Duration,
    stop: Arc<AtomicBool>,
    sent: Sent,
) -> thread::JoinHandle<()> {
    let url = format!("{endpoint}/v1/sessions/{session}/messages");
    let tag = tag.to_owned();
    thread::spawn(move || {
        let client = reqwest::blocking::Client::new();
        let mut n = 0;
        while !stop.load(Ordering::Relaxed) {
            n += 1;
            let text = format!("echo {tag} {n} with some words to stream");
            let answer = client.post(&url).json(&json!({ "message": text })).send();
            let acknowledged = answer
                .as_ref()
                .is_ok_and(|response| response.status().is_success());
            sent.lock().unwrap().push((text, acknowledged));
            if answer.is_err() {
                return;
            }
            thread::sleep(pause);
        }
    })
}

/// The whole stored transcript must be 1..=n with evt ids, and hold every event a
/// client saw, identical.
pub fn check_transcript(api: &Api, session: &str, seen: &BTreeMap<u64, Value>) -> Vec<Value> {
    let events = stored_transcript(api, session);
    check_seen(session, &events, seen);
    events
}

/// The whole stored transcript (with raw payloads), which must be numbered 1..=n
/// with evt ids.
fn stored_transcript(api: &Api, session: &str) -> Vec<Value> {
    let page = api.events_page(session, "offset=0&include_raw=true");
    let events = page["events"].as_array().unwrap().clone();
    for (index, event) in events.iter().enumerate() {
        let sequence = index as u64 + 1;
        assert_eq!(
            event["sequence"],
            json!(sequence),
            "{session}: gap or duplicate"
        );
        assert_eq!(event["event_id"], json!(format!("evt_{sequence}")));
    }
    events
}

/// Every event a client saw must be in the stored transcript `events`, identical.
fn check_seen(session: &str, events: &[Value], seen: &BTreeMap<u64, Value>) {
    for (sequence, event) in seen {
        let stored = events
            .get(*sequence as usize - 1)
            .unwrap_or_else(|| panic!("{session}: event {sequence} a client saw is lost"));
        assert_eq!(stored, event, "{session}: event {sequence} changed");
    }
}
