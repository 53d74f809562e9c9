//! What clients saw of a session, to check against what the daemon stored: a
//! follower records every event its SSE stream delivers, and the stored
//! transcript must hold each of them, identical, without gaps or duplicates.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::{json, Value};

use super::api::Api;

/// What clients of one session received, by sequence.
pub type Seen = Arc<Mutex<BTreeMap<u64, Value>>>;

/// Follows a session's SSE stream until the connection breaks, recording each event.
pub fn follow(endpoint: &str, session: &str, seen: Seen) -> thread::JoinHandle<()> {
    let url = format!("{endpoint}/v1/sessions/{session}/events/sse?offset=0&include_raw=true");
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

/// The whole stored transcript must be 1..=n with evt ids, and hold every event a
/// client saw, identical.
pub fn check_transcript(api: &Api, session: &str, seen: &BTreeMap<u64, Value>) -> Vec<Value> {
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
    for (sequence, event) in seen {
        let stored = events
            .get(*sequence as usize - 1)
            .unwrap_or_else(|| panic!("{session}: event {sequence} a client saw is lost"));
        assert_eq!(stored, event, "{session}: event {sequence} changed");
    }
    events
}
