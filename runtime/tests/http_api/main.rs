//! The HTTP API end to end against the real daemon binary and its built-in `mock`
//! agent: sessions, the transcript (polling, SSE, `messages/stream`), the event
//! envelope, human-in-the-loop replies, queueing, cancel, terminate and a real
//! child process.

#[path = "../common/mod.rs"]
mod common;

mod acp;
mod metering;
mod modes;
mod policy;
mod requests;
mod transcripts;
mod turns;

use std::time::{Duration, Instant};

use common::api::*;
use common::sse::{streaming_client, SseStream};
use common::Daemon;
use serde_json::{json, Value};

/// The turn of a plain echoed message: opening, a streamed assistant message, end.
const ECHO_TURN: &[&str] = &[
    "turn.started",
    "item.started",
    "item.completed",
    "item.started",
    "item.delta*",
    "item.completed",
    "turn.ended",
];

#[track_caller]
fn assert_shape(events: &[Value], expected: &[&str]) {
    assert_eq!(
        types_collapsing_deltas(events),
        expected,
        "event types differ; events:\n{}",
        pretty(events)
    );
}

/// The user item of a turn, and the assistant's text, checked for an echo turn.
#[track_caller]
fn check_echo_turn(events: &[Value], sent: &str, reply: &str) {
    assert_shape(events, ECHO_TURN);
    let user = &events[2]["data"]["item"];
    assert_eq!(
        (&user["kind"], &user["role"], &user["status"]),
        (&json!("message"), &json!("user"), &json!("completed"))
    );
    assert_eq!(item_text(user), sent);
    let assistant = &events[events.len() - 2]["data"]["item"];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["status"], "completed");
    assert_eq!(item_text(assistant), reply);
    let item_id = assistant["item_id"].as_str().unwrap();
    assert_eq!(
        events[3]["data"]["item"]["item_id"], item_id,
        "the streamed item is the completed one"
    );
    let deltas = events.iter().filter(|e| e["type"] == "item.delta").count();
    assert!(
        deltas >= 2,
        "a reply streams in several deltas, got {deltas}"
    );
    assert_eq!(
        streamed_text(events, item_id),
        reply,
        "the deltas add up to the reply"
    );
    assert_eq!(events[0]["data"]["phase"], "started");
    assert_eq!(events.last().unwrap()["data"]["phase"], "ended");
}
