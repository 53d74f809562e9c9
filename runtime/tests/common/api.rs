//! A small blocking HTTP client over a test daemon: JSON requests with the daemon's
//! token, transcript polling with deadlines, and checks shared by the test files
//! (problem documents, the event envelope, the shape of turns).

use std::time::{Duration, Instant};

use reqwest::blocking::{Client, RequestBuilder, Response};
use reqwest::header::CONTENT_TYPE;
use reqwest::StatusCode;
use serde_json::{json, Value};

use super::Daemon;

/// How long a test waits for something the daemon does before failing.
pub const DEADLINE: Duration = Duration::from_secs(10);

/// Requests to one daemon, authenticated when it has a token.
pub struct Api<'a> {
    pub daemon: &'a Daemon,
    client: Client,
}

impl<'a> Api<'a> {
    pub fn new(daemon: &'a Daemon) -> Self {
        let client = Client::builder()
            .timeout(DEADLINE)
            .build()
            .expect("an HTTP client");
        Api { daemon, client }
    }

    /// The daemon's raw client, for requests a test builds itself.
    pub fn client(&self) -> &Client {
        &self.client
    }

    fn auth(&self, request: RequestBuilder) -> RequestBuilder {
        match &self.daemon.token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    pub fn get(&self, path: &str) -> Response {
        self.auth(self.client.get(self.daemon.url(path)))
            .send()
            .expect("GET")
    }

    pub fn delete(&self, path: &str) -> Response {
        self.auth(self.client.delete(self.daemon.url(path)))
            .send()
            .expect("DELETE")
    }

    pub fn post_json(&self, path: &str, body: Value) -> Response {
        self.auth(self.client.post(self.daemon.url(path)))
            .json(&body)
            .send()
            .expect("POST")
    }

    pub fn put_json(&self, path: &str, body: Value) -> Response {
        self.auth(self.client.put(self.daemon.url(path)))
            .json(&body)
            .send()
            .expect("PUT")
    }

    /// A POST of `body` as written, with a JSON content type: for bodies that are not
    /// what `post_json` would write (broken JSON, an array, whitespace).
    pub fn post_raw(&self, path: &str, body: &'static str) -> Response {
        self.auth(self.client.post(self.daemon.url(path)))
            .header(CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .expect("POST")
    }

    /// `GET /v1/sessions/{id}/export`: the archive's bytes (it must answer 200).
    pub fn export(&self, id: &str) -> Vec<u8> {
        let response = self.get(&format!("/v1/sessions/{id}/export"));
        assert_eq!(response.status().as_u16(), 200, "exporting {id}");
        response.bytes().expect("the archive").to_vec()
    }

    /// `POST /v1/sessions/{id}/import{query}` with `archive` as the body and
    /// `env` given as `x-agentplex-env` headers.
    pub fn import(
        &self,
        id: &str,
        query: &str,
        archive: Vec<u8>,
        env: &[(&str, &str)],
    ) -> Response {
        let mut request = self
            .auth(
                self.client
                    .post(self.daemon.url(&format!("/v1/sessions/{id}/import{query}"))),
            )
            .header(CONTENT_TYPE, "application/gzip")
            .body(archive);
        for (name, value) in env {
            request = request.header("x-agentplex-env", format!("{name}={value}"));
        }
        request.send().expect("POST import")
    }

    /// A POST with no body and no content type, as the 0.1.x SDK sends bodiless routes.
    pub fn post_empty(&self, path: &str) -> Response {
        self.auth(self.client.post(self.daemon.url(path)))
            .send()
            .expect("POST")
    }

    /// `GET` that must answer 200 with JSON.
    pub fn get_ok(&self, path: &str) -> Value {
        ok_json(self.get(path))
    }

    /// The `GET /v1/agents` entry of agent `id` (the test fails when it is not listed).
    pub fn agent(&self, id: &str) -> Value {
        let agents = self.get_ok("/v1/agents");
        agents["agents"]
            .as_array()
            .expect("an agents array")
            .iter()
            .find(|agent| agent["id"] == id)
            .unwrap_or_else(|| panic!("{id} is not listed: {agents}"))
            .clone()
    }

    /// Creates a session of `agent` and checks that it is healthy.
    pub fn create(&self, id: &str, agent: &str) -> Value {
        let body =
            ok_json(self.post_json(&format!("/v1/sessions/{id}"), json!({ "agent": agent })));
        assert_eq!(body["healthy"], json!(true), "creating {id}: {body}");
        body
    }

    /// Sends a text message; must be accepted with 204.
    pub fn send(&self, id: &str, text: &str) {
        let response = self.post_json(
            &format!("/v1/sessions/{id}/messages"),
            json!({ "message": text }),
        );
        expect_no_content(response, &format!("sending {text:?} to {id}"));
    }

    /// A page of the transcript.
    pub fn events_page(&self, id: &str, query: &str) -> Value {
        self.get_ok(&format!("/v1/sessions/{id}/events?{query}"))
    }

    /// Every event after `offset`.
    pub fn events_after(&self, id: &str, offset: u64) -> Vec<Value> {
        let page = self.events_page(id, &format!("offset={offset}"));
        assert_eq!(
            page["hasMore"],
            json!(false),
            "no limit, so nothing more: {page}"
        );
        page["events"].as_array().expect("events array").clone()
    }

    /// The whole transcript.
    pub fn events(&self, id: &str) -> Vec<Value> {
        self.events_after(id, 0)
    }

    /// Polls the transcript after `offset` until an event matches `done`; returns the
    /// events after `offset` up to and including the first match.
    pub fn wait_for(
        &self,
        id: &str,
        offset: u64,
        what: &str,
        done: impl Fn(&Value) -> bool,
    ) -> Vec<Value> {
        self.wait_for_within(DEADLINE, id, offset, what, done)
    }

    /// [`Self::wait_for`] with a deadline of `timeout` instead of [`DEADLINE`].
    pub fn wait_for_within(
        &self,
        timeout: Duration,
        id: &str,
        offset: u64,
        what: &str,
        done: impl Fn(&Value) -> bool,
    ) -> Vec<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let events = self.events_after(id, offset);
            if let Some(position) = events.iter().position(&done) {
                return events[..=position].to_vec();
            }
            assert!(
                Instant::now() < deadline,
                "session {id}: no {what} after sequence {offset} within {timeout:?}; got {}",
                types(&events).join(", ")
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Polls until an event of type `event_type` follows `offset`.
    pub fn wait_for_type(&self, id: &str, offset: u64, event_type: &str) -> Vec<Value> {
        self.wait_for(id, offset, event_type, |e| e["type"] == event_type)
    }

    /// Sends `text` and waits for its turn to end; returns the turn's events.
    pub fn turn(&self, id: &str, text: &str) -> Vec<Value> {
        let offset = self.last_sequence(id);
        self.send(id, text);
        self.wait_for_type(id, offset, "turn.ended")
    }

    /// Sequence of the newest event.
    pub fn last_sequence(&self, id: &str) -> u64 {
        self.events(id).last().map_or(0, sequence)
    }

    /// This session's entry of `GET /v1/sessions`.
    pub fn session_info(&self, id: &str) -> Value {
        let list = self.get_ok("/v1/sessions");
        list["sessions"]
            .as_array()
            .expect("sessions array")
            .iter()
            .find(|s| s["sessionId"] == id)
            .unwrap_or_else(|| panic!("session {id} not listed: {list}"))
            .clone()
    }

    /// Polls `GET /v1/sessions` until this session's entry satisfies `done`.
    pub fn wait_for_info(&self, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        self.wait_for_info_within(DEADLINE, id, what, done)
    }

    /// [`Self::wait_for_info`] with a deadline of `timeout` instead of [`DEADLINE`].
    pub fn wait_for_info_within(
        &self,
        timeout: Duration,
        id: &str,
        what: &str,
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let info = self.session_info(id);
            if done(&info) {
                return info;
            }
            assert!(
                Instant::now() < deadline,
                "session {id}: never {what} within {timeout:?}; last listing {info}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The body of a 200 response as JSON.
#[track_caller]
pub fn ok_json(response: Response) -> Value {
    let status = response.status();
    let text = response.text().expect("response body");
    assert_eq!(status, StatusCode::OK, "expected 200, got {status}: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// A 204 with an empty body.
#[track_caller]
pub fn expect_no_content(response: Response, what: &str) {
    let status = response.status();
    let text = response.text().expect("response body");
    assert_eq!(
        status,
        StatusCode::NO_CONTENT,
        "{what}: expected 204, got {status}: {text}"
    );
    assert!(text.is_empty(), "{what}: a 204 has no body, got {text:?}");
}

/// Checks an RFC 7807 problem document with `type` `urn:sandbox-agent:error:<code>`
/// and returns it.
#[track_caller]
pub fn expect_problem(response: Response, status: u16, code: &str) -> Value {
    let actual = response.status().as_u16();
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    let text = response.text().expect("response body");
    assert_eq!(
        actual, status,
        "expected {status} {code}, got {actual}: {text}"
    );
    assert_eq!(
        content_type, "application/problem+json",
        "content type of {code}: {text}"
    );
    let problem: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("problem is not JSON ({e}): {text}"));
    assert_eq!(
        problem["type"],
        format!("urn:sandbox-agent:error:{code}"),
        "{problem}"
    );
    assert_eq!(problem["status"], json!(status), "{problem}");
    assert!(
        problem["title"].as_str().is_some_and(|t| !t.is_empty()),
        "a problem has a title: {problem}"
    );
    assert!(
        problem["detail"].as_str().is_some_and(|t| !t.is_empty()),
        "a problem has a detail: {problem}"
    );
    problem
}

/// An event's sequence.
pub fn sequence(event: &Value) -> u64 {
    event["sequence"]
        .as_u64()
        .unwrap_or_else(|| panic!("event without a sequence: {event}"))
}

/// The `type`s of events, in order.
pub fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("?").to_owned())
        .collect()
}

/// The events' types as `&str`s, for comparing with a literal list.
#[track_caller]
pub fn assert_types(events: &[Value], expected: &[&str]) {
    let actual = types(events);
    assert_eq!(
        actual,
        expected,
        "event types differ; events:\n{}",
        pretty(events)
    );
}

pub fn pretty(events: &[Value]) -> String {
    events
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The events' types with every run of `item.delta` collapsed into one `item.delta*`.
pub fn types_collapsing_deltas(events: &[Value]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in types(events) {
        if t == "item.delta" {
            if out.last().map(String::as_str) != Some("item.delta*") {
                out.push("item.delta*".into());
            }
        } else {
            out.push(t);
        }
    }
    out
}

/// The text the `item.delta` events of `item_id` add up to.
pub fn streamed_text(events: &[Value], item_id: &str) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "item.delta" && e["data"]["item_id"] == item_id)
        .map(|e| e["data"]["delta"].as_str().expect("delta text"))
        .collect()
}

/// The concatenated `text` parts of an item.
pub fn item_text(item: &Value) -> String {
    item["content"]
        .as_array()
        .expect("item content")
        .iter()
        .filter(|part| part["type"] == "text")
        .map(|part| part["text"].as_str().unwrap_or_default())
        .collect()
}

/// The data of every `permission.decided` event, in order.
pub fn decisions(events: &[Value]) -> Vec<&Value> {
    events
        .iter()
        .filter(|e| e["type"] == "permission.decided")
        .map(|e| &e["data"])
        .collect()
}

/// The details, parsed as JSON, of the completed status items labelled
/// `label` in a transcript (the daemon's records: `agent offered`...), in order.
pub fn status_records(events: &[Value], label: &str) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["type"] == "item.completed")
        .flat_map(|e| {
            e["data"]["item"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|part| part["type"] == "status" && part["label"] == label)
        .filter_map(|part| serde_json::from_str(part["detail"].as_str()?).ok())
        .collect()
}

/// The completed assistant messages of a transcript, as text.
pub fn assistant_texts(events: &[Value]) -> Vec<String> {
    message_texts(events, "assistant")
}

/// The completed user messages of a transcript (the messages its turns ran), as text.
pub fn user_texts(events: &[Value]) -> Vec<String> {
    message_texts(events, "user")
}

fn message_texts(events: &[Value], role: &str) -> Vec<String> {
    events
        .iter()
        .filter(|e| {
            e["type"] == "item.completed"
                && e["data"]["item"]["role"] == role
                && e["data"]["item"]["kind"] == "message"
        })
        .map(|e| item_text(&e["data"]["item"]))
        .collect()
}

/// The first event of type `event_type`.
#[track_caller]
pub fn find<'e>(events: &'e [Value], event_type: &str) -> &'e Value {
    events
        .iter()
        .find(|e| e["type"] == event_type)
        .unwrap_or_else(|| panic!("no {event_type} in:\n{}", pretty(events)))
}

/// Checks the envelope of a contiguous run of a session's events starting after
/// `offset`: gap-free sequences, ids, RFC 3339 times, the session id, and a source
/// that agrees with `synthetic`.
#[track_caller]
pub fn check_envelopes(session_id: &str, offset: u64, events: &[Value]) {
    let mut ids = std::collections::BTreeSet::new();
    for (index, event) in events.iter().enumerate() {
        let object = event
            .as_object()
            .unwrap_or_else(|| panic!("event is not an object: {event}"));
        assert_eq!(
            sequence(event),
            offset + 1 + index as u64,
            "sequences are gap-free:\n{}",
            pretty(events)
        );
        let event_id = event["event_id"].as_str().unwrap_or_default();
        assert!(!event_id.is_empty(), "event_id: {event}");
        assert!(
            ids.insert(event_id.to_owned()),
            "event_id {event_id} repeats"
        );
        let time = event["time"].as_str().unwrap_or_default();
        assert!(is_rfc3339(time), "time {time:?} is not RFC 3339: {event}");
        assert_eq!(event["session_id"], session_id, "{event}");
        let synthetic = event["synthetic"]
            .as_bool()
            .unwrap_or_else(|| panic!("synthetic: {event}"));
        let source = event["source"].as_str().unwrap_or_default();
        assert!(source == "agent" || source == "daemon", "source: {event}");
        assert_eq!(
            source == "daemon",
            synthetic,
            "a synthetic event comes from the daemon: {event}"
        );
        assert!(
            event["type"].is_string() && object.contains_key("data"),
            "{event}"
        );
        if let Some(native) = object.get("native_session_id") {
            assert!(native.is_string(), "{event}");
        }
    }
}

/// Checks that every `turn.started` is followed by a completed user message item,
/// then a `turn.ended`, with no turn inside another. `complete` requires every turn
/// to have ended.
#[track_caller]
pub fn check_turns(events: &[Value], complete: bool) {
    let mut open: Option<(u64, bool)> = None; // (sequence of turn.started, user item seen)
    for event in events {
        match event["type"].as_str().unwrap_or_default() {
            "turn.started" => {
                assert!(
                    open.is_none(),
                    "turn.started {} inside a running turn:\n{}",
                    sequence(event),
                    pretty(events)
                );
                open = Some((sequence(event), false));
            }
            "item.completed" => {
                let item = &event["data"]["item"];
                if item["role"] == "user" {
                    let (started, seen) = open
                        .as_mut()
                        .unwrap_or_else(|| panic!("user item outside a turn: {event}"));
                    assert!(!*seen, "turn {started} has two user items");
                    assert_eq!(item["kind"], "message", "{event}");
                    assert_eq!(item["status"], "completed", "{event}");
                    *seen = true;
                }
            }
            "item.started" | "item.delta" if event["data"]["item"]["role"] != "user" => {
                if let Some((started, seen)) = open {
                    assert!(
                        seen,
                        "turn {started}: agent output before the user item: {event}"
                    );
                }
            }
            "turn.ended" => {
                let (started, seen) = open
                    .take()
                    .unwrap_or_else(|| panic!("turn.ended without turn.started: {event}"));
                assert!(seen, "turn {started} ended without a completed user item");
            }
            _ => {}
        }
    }
    if complete {
        assert!(open.is_none(), "a turn never ended:\n{}", pretty(events));
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
pub fn is_rfc3339(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes
            .get(range)
            .is_some_and(|b| b.iter().all(u8::is_ascii_digit))
    };
    if bytes.len() < 20
        || !(digits(0..4) && bytes[4] == b'-' && digits(5..7) && bytes[7] == b'-' && digits(8..10))
        || !matches!(bytes[10], b'T' | b't')
        || !(digits(11..13)
            && bytes[13] == b':'
            && digits(14..16)
            && bytes[16] == b':'
            && digits(17..19))
    {
        return false;
    }
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let n = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        rest = &fraction[n..];
    }
    match rest.as_bytes() {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => [h1, h2, m1, m2].iter().all(|b| b.is_ascii_digit()),
        _ => false,
    }
}
