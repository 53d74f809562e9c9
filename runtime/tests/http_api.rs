//! The HTTP API end to end against the real daemon binary and its built-in `mock`
//! agent: sessions, the transcript (polling, SSE, `messages/stream`), the event
//! envelope, human-in-the-loop replies, queueing, cancel, terminate and a real
//! child process.

mod common;

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

#[test]
fn sessions_are_listed_and_transcripts_polled() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);

    let created = api.create("s1", "mock");
    assert_eq!(created["nativeSessionId"], "mock-s1");
    assert!(created.get("error").is_none_or(Value::is_null), "{created}");

    let info = api.session_info("s1");
    assert_eq!(info["agent"], "mock");
    assert_eq!(info["agentMode"], "build");
    assert_eq!(info["permissionMode"], "default");
    assert_eq!(info["nativeSessionId"], "mock-s1");
    assert_eq!(info["ended"], false);
    assert_eq!(info["status"], "idle");
    assert_eq!(info["queuedMessages"], 0);
    assert_eq!(info["eventCount"], 1, "session.started: {info}");
    assert!(
        info["createdAt"].as_i64().unwrap() > 0
            && info["updatedAt"].as_i64().unwrap() >= info["createdAt"].as_i64().unwrap()
    );

    let started = api.events("s1");
    assert_types(&started, &["session.started"]);
    assert_eq!(started[0]["data"]["metadata"]["agent"], "mock");

    let turn = api.turn("s1", "hello there");
    check_echo_turn(&turn, "hello there", "hello there");
    assert_eq!(sequence(&turn[0]), 2);

    // The 0.1.x `message` form and the `parts` form both work.
    let parts = json!({ "parts": [{ "type": "text", "text": "echo from parts" }] });
    let offset = api.last_sequence("s1");
    expect_no_content(
        api.post_json("/v1/sessions/s1/messages", parts),
        "parts message",
    );
    let turn = api.wait_for_type("s1", offset, "turn.ended");
    check_echo_turn(&turn, "echo from parts", "from parts");

    let all = api.events("s1");
    check_envelopes("s1", 0, &all);
    check_turns(&all, true);
    assert!(
        all.iter().all(|e| e["native_session_id"] == "mock-s1"),
        "native session id on every event"
    );
    let last = sequence(all.last().unwrap());
    let info = api.wait_for_info("s1", "idle", |i| i["status"] == "idle");
    assert_eq!(info["eventCount"], last);

    // `offset` is exclusive, `limit` caps the page, `hasMore` says whether more follow.
    let page = api.events_page("s1", "offset=3&limit=2");
    let page_events = page["events"].as_array().unwrap();
    assert_eq!(page_events.iter().map(sequence).collect::<Vec<_>>(), [4, 5]);
    assert_eq!(page["hasMore"], true);
    assert_eq!(page_events[..], all[3..5]);
    let page = api.events_page("s1", &format!("offset={}&limit=10", last - 1));
    assert_eq!(
        page["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(sequence)
            .collect::<Vec<_>>(),
        [last]
    );
    assert_eq!(page["hasMore"], false);
    let page = api.events_page("s1", &format!("offset={last}"));
    assert_eq!(page, json!({ "events": [], "hasMore": false }));
    let page = api.events_page("s1", "offset=1000");
    assert_eq!(page, json!({ "events": [], "hasMore": false }));
    // Reading the whole transcript page by page gives every event once.
    let mut paged = Vec::new();
    let mut offset = 0;
    loop {
        let page = api.events_page("s1", &format!("offset={offset}&limit=3"));
        let events = page["events"].as_array().unwrap().clone();
        offset = events.last().map_or(offset, sequence);
        paged.extend(events);
        if page["hasMore"] == false {
            break;
        }
    }
    assert_eq!(paged, all);
}

#[test]
fn raw_payloads_only_with_include_raw() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("raw", "mock");
    let turn = api.turn("raw", "unparsed");
    assert_shape(
        &turn,
        &[
            "turn.started",
            "item.started",
            "item.completed",
            "agent.unparsed",
            "turn.ended",
        ],
    );
    let seq = sequence(find(&turn, "agent.unparsed"));
    let unparsed = |query: &str| -> Value {
        let page = api.events_page("raw", &format!("offset={}&limit=1&{query}", seq - 1));
        page["events"][0].clone()
    };
    for query in ["", "include_raw=false", "includeRaw=false"] {
        let event = unparsed(query);
        assert_eq!(event["type"], "agent.unparsed");
        assert!(event.get("raw").is_none(), "no raw with {query:?}: {event}");
    }
    for query in ["include_raw=true", "includeRaw=true"] {
        let event = unparsed(query);
        assert_eq!(
            event["raw"],
            json!({ "raw": "mock" }),
            "raw with {query:?}: {event}"
        );
    }
    // Events without a native payload have no `raw` either way.
    let page = api.events_page("raw", "include_raw=true");
    for event in page["events"].as_array().unwrap() {
        assert_eq!(
            event.get("raw").is_some(),
            event["type"] == "agent.unparsed",
            "{event}"
        );
    }
}

#[test]
fn sse_replays_reconnects_and_goes_live() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    let client = streaming_client();
    let sse = |query: &str| client.get(daemon.url(&format!("/v1/sessions/live/events/sse{query}")));
    api.create("live", "mock");
    api.turn("live", "first message");
    let replayed_count = api.last_sequence("live") as usize;

    // Replay from the start, then live.
    let mut from_start = SseStream::open(sse(""));
    let replay = from_start.take(replayed_count);
    assert_eq!(replay, api.events("live"), "the replay is the transcript");
    // Replay from an offset (exclusive).
    let mut from_offset = SseStream::open(sse("?offset=3"));
    assert_eq!(
        from_offset.take(replayed_count - 3),
        api.events_after("live", 3)
    );
    // With raw payloads.
    let mut with_raw = SseStream::open(sse(&format!("?offset={replayed_count}&includeRaw=true")));

    // Live events follow the replay, in order, and match the polled transcript.
    api.send("live", "unparsed");
    let live = from_start.until_type("turn.ended");
    assert_eq!(
        live,
        api.events_after("live", replayed_count as u64)[..live.len()]
    );
    assert_shape(
        &live,
        &[
            "turn.started",
            "item.started",
            "item.completed",
            "agent.unparsed",
            "turn.ended",
        ],
    );
    assert!(
        live.iter().all(|e| e.get("raw").is_none()),
        "no raw without includeRaw"
    );
    let live_raw = with_raw.until_type("turn.ended");
    assert_eq!(
        find(&live_raw, "agent.unparsed")["raw"],
        json!({ "raw": "mock" })
    );
    let with_snake_raw =
        SseStream::open(sse(&format!("?offset={replayed_count}&include_raw=true")))
            .take(live.len());
    assert_eq!(
        find(&with_snake_raw, "agent.unparsed")["raw"],
        json!({ "raw": "mock" })
    );

    // A reconnect with Last-Event-ID gets exactly the following events; the header
    // wins over `offset`.
    let resume_after = 5u64;
    let mut resumed =
        SseStream::open(sse("?offset=1").header("Last-Event-ID", resume_after.to_string()));
    let first = resumed.next_event().unwrap();
    assert_eq!(sequence(&first), resume_after + 1);

    api.turn("live", "one more");
    // Terminating ends every stream after `session.ended`.
    expect_no_content(api.post_empty("/v1/sessions/live/terminate"), "terminate");
    let all = api.events("live");
    assert_eq!(all.last().unwrap()["type"], "session.ended");
    check_envelopes("live", 0, &all);
    check_turns(&all, true);

    let mut seen = replay;
    seen.extend(live);
    seen.extend(from_start.read_to_end());
    assert_eq!(
        seen, all,
        "replay + live = the transcript, no gap, no duplicate"
    );

    let mut seen = vec![first];
    seen.extend(resumed.read_to_end());
    assert_eq!(
        seen,
        all[resume_after as usize..],
        "Last-Event-ID resumes exactly after it"
    );

    let mut seen = api.events_after("live", 3)[..replayed_count - 3].to_vec();
    seen.extend(from_offset.read_to_end());
    assert_eq!(seen, all[3..]);

    // An ended session's stream replays and ends.
    assert_eq!(SseStream::open(sse("")).read_to_end(), all);
    let mut at_end = SseStream::open(sse("").header("Last-Event-ID", all.len().to_string()));
    at_end.assert_ended();

    expect_problem(
        api.client()
            .get(daemon.url("/v1/sessions/live/events/sse"))
            .header("Last-Event-ID", "abc")
            .send()
            .unwrap(),
        400,
        "invalid_request",
    );
    expect_problem(
        api.get("/v1/sessions/missing/events/sse"),
        404,
        "session_not_found",
    );
}

#[test]
fn message_stream_covers_exactly_one_turn() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    let client = streaming_client();
    let stream = |id: &str, text: &str| {
        SseStream::open(
            client
                .post(daemon.url(&format!("/v1/sessions/{id}/messages/stream")))
                .json(&json!({ "message": text })),
        )
    };
    api.create("st", "mock");
    api.turn("st", "before");
    let before = api.last_sequence("st");

    // A plain message: the stream ends by itself at turn.ended.
    let events = stream("st", "streamed reply").read_to_end();
    check_echo_turn(&events, "streamed reply", "streamed reply");
    assert_eq!(
        sequence(&events[0]),
        before + 1,
        "the stream starts with the turn"
    );
    assert_eq!(events, api.events_after("st", before));

    // A permission request ends the stream: the client has to answer.
    let offset = api.last_sequence("st");
    let events = stream("st", "permission").read_to_end();
    assert_types(
        &events,
        &[
            "turn.started",
            "item.started",
            "item.completed",
            "permission.requested",
        ],
    );
    assert_eq!(sequence(&events[0]), offset + 1);
    let info = api.wait_for_info("st", "awaiting input", |i| i["status"] == "awaiting_input");
    assert_eq!(info["ended"], false);
    let id = events[3]["data"]["permission_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let offset = api.last_sequence("st");
    let reply = api.post_json(
        &format!("/v1/sessions/st/permissions/{id}/reply"),
        json!({ "reply": "once" }),
    );
    expect_no_content(reply, "permission reply");
    api.wait_for_type("st", offset, "turn.ended");

    // So does a question.
    let events = stream("st", "question").read_to_end();
    assert_types(
        &events,
        &[
            "turn.started",
            "item.started",
            "item.completed",
            "question.requested",
        ],
    );
    let id = events[3]["data"]["question_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let offset = api.last_sequence("st");
    expect_no_content(
        api.post_empty(&format!("/v1/sessions/st/questions/{id}/reject")),
        "question reject",
    );
    api.wait_for_type("st", offset, "turn.ended");

    // A message streamed while another turn runs waits its turn, and streams only its own.
    let offset = api.last_sequence("st");
    api.send("st", "slow 3");
    let events = stream("st", "echo queued one").read_to_end();
    let all = api.events_after("st", offset);
    let slow_end = all.iter().position(|e| e["type"] == "turn.ended").unwrap();
    assert_eq!(
        events,
        all[slow_end + 1..],
        "only the queued message's turn"
    );
    check_echo_turn(&events, "echo queued one", "queued one");

    let all = api.events("st");
    check_envelopes("st", 0, &all);
    check_turns(&all, true);
}

#[test]
fn permissions_are_answered() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("perm", "mock");
    let reply_path = |id: &str| format!("/v1/sessions/perm/permissions/{id}/reply");

    for (turn, reply, status, answer) in [
        (
            1,
            "once",
            "accept",
            "Permission granted once: I may run `echo mock`.",
        ),
        (
            2,
            "reject",
            "reject",
            "Permission rejected: I did not run `echo mock`.",
        ),
        (
            3,
            "always",
            "accept_for_session",
            "Permission granted for this session: I may run `echo mock`, and will not ask again.",
        ),
    ] {
        let offset = api.last_sequence("perm");
        api.send("perm", "permission");
        let asked = api.wait_for_type("perm", offset, "permission.requested");
        assert_types(
            &asked,
            &[
                "turn.started",
                "item.started",
                "item.completed",
                "permission.requested",
            ],
        );
        let request = &asked[3]["data"];
        let id = format!("mock_{turn}_permission");
        assert_eq!(request["permission_id"], id);
        assert_eq!(request["action"], "command_execution");
        assert_eq!(request["status"], "requested");
        assert_eq!(request["metadata"]["command"], "echo mock", "{request}");
        let info = api.wait_for_info("perm", "awaiting input", |i| {
            i["status"] == "awaiting_input"
        });
        assert_eq!(info["queuedMessages"], 0);

        let offset = api.last_sequence("perm");
        expect_no_content(
            api.post_json(&reply_path(&id), json!({ "reply": reply })),
            reply,
        );
        let rest = api.wait_for_type("perm", offset, "turn.ended");
        assert_shape(
            &rest,
            &[
                "permission.resolved",
                "item.started",
                "item.delta*",
                "item.completed",
                "turn.ended",
            ],
        );
        let resolved = &rest[0]["data"];
        assert_eq!(
            (&resolved["permission_id"], &resolved["status"]),
            (&json!(id), &json!(status)),
            "{resolved}"
        );
        assert_eq!(resolved["action"], "command_execution");
        assert_eq!(assistant_texts(&rest), [answer]);
        api.wait_for_info("perm", "idle", |i| i["status"] == "idle");

        // An answered request is no longer pending.
        let again = api.post_json(&reply_path(&id), json!({ "reply": "once" }));
        let problem = expect_problem(again, 404, "request_not_found");
        assert_eq!(problem["sessionId"], "perm");
    }

    // After `always`, the same kind of request is granted without asking.
    let turn = api.turn("perm", "permission");
    assert_shape(
        &turn,
        &[
            "turn.started",
            "item.started",
            "item.completed",
            "permission.requested",
            "permission.resolved",
            "item.started",
            "item.delta*",
            "item.completed",
            "turn.ended",
        ],
    );
    assert_eq!(turn[4]["data"]["status"], "accept_for_session");

    expect_problem(
        api.post_json(&reply_path("nope"), json!({ "reply": "once" })),
        404,
        "request_not_found",
    );
    expect_problem(
        api.post_json(&reply_path("nope"), json!({ "reply": "maybe" })),
        400,
        "invalid_request",
    );
    expect_problem(
        api.post_json(&reply_path("nope"), json!({})),
        400,
        "invalid_request",
    );
    expect_problem(
        api.post_json(
            "/v1/sessions/missing/permissions/x/reply",
            json!({ "reply": "once" }),
        ),
        404,
        "session_not_found",
    );

    let all = api.events("perm");
    check_envelopes("perm", 0, &all);
    check_turns(&all, true);
}

#[test]
fn questions_are_answered_or_rejected() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("q", "mock");

    // Answered.
    let offset = api.last_sequence("q");
    api.send("q", "question");
    let asked = api.wait_for_type("q", offset, "question.requested");
    assert_types(
        &asked,
        &[
            "turn.started",
            "item.started",
            "item.completed",
            "question.requested",
        ],
    );
    let question = &asked[3]["data"];
    assert_eq!(question["question_id"], "mock_1_question");
    assert_eq!(question["prompt"], "Choose a color");
    assert_eq!(question["options"], json!(["Red", "Blue"]));
    assert_eq!(question["status"], "requested");
    assert_eq!(
        api.wait_for_info("q", "awaiting input", |i| i["status"] == "awaiting_input")["ended"],
        false
    );
    let offset = api.last_sequence("q");
    let reply = api.post_json(
        "/v1/sessions/q/questions/mock_1_question/reply",
        json!({ "answers": [["Blue"]] }),
    );
    expect_no_content(reply, "question reply");
    let rest = api.wait_for_type("q", offset, "turn.ended");
    assert_shape(
        &rest,
        &[
            "question.resolved",
            "item.started",
            "item.delta*",
            "item.completed",
            "turn.ended",
        ],
    );
    let resolved = &rest[0]["data"];
    assert_eq!(resolved["question_id"], "mock_1_question");
    assert_eq!(resolved["status"], "answered");
    assert_eq!(resolved["response"], "Blue");
    assert_eq!(assistant_texts(&rest), ["You answered: Blue."]);
    expect_problem(
        api.post_json(
            "/v1/sessions/q/questions/mock_1_question/reply",
            json!({ "answers": [["Red"]] }),
        ),
        404,
        "request_not_found",
    );

    // Rejected, with an empty body as the 0.1.x SDK sends it.
    let offset = api.last_sequence("q");
    api.send("q", "question");
    let asked = api.wait_for_type("q", offset, "question.requested");
    let id = asked.last().unwrap()["data"]["question_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(id, "mock_2_question");
    let offset = api.last_sequence("q");
    expect_no_content(
        api.post_empty(&format!("/v1/sessions/q/questions/{id}/reject")),
        "question reject",
    );
    let rest = api.wait_for_type("q", offset, "turn.ended");
    assert_shape(
        &rest,
        &[
            "question.resolved",
            "item.started",
            "item.delta*",
            "item.completed",
            "turn.ended",
        ],
    );
    assert_eq!(rest[0]["data"]["status"], "rejected");
    assert_eq!(rest[0]["data"]["question_id"], id.as_str());
    assert!(
        rest[0]["data"].get("response").is_none_or(Value::is_null),
        "{}",
        rest[0]
    );
    assert_eq!(assistant_texts(&rest), ["You declined to answer."]);

    expect_problem(
        api.post_empty("/v1/sessions/q/questions/nope/reject"),
        404,
        "request_not_found",
    );
    expect_problem(
        api.post_json(
            "/v1/sessions/q/questions/nope/reply",
            json!({ "answers": [["Red"]] }),
        ),
        404,
        "request_not_found",
    );
    expect_problem(
        api.post_json(
            "/v1/sessions/q/questions/nope/reply",
            json!({ "answers": "Red" }),
        ),
        400,
        "invalid_request",
    );
    expect_problem(
        api.post_empty("/v1/sessions/missing/questions/x/reject"),
        404,
        "session_not_found",
    );

    let all = api.events("q");
    check_envelopes("q", 0, &all);
    check_turns(&all, true);
}

#[test]
fn messages_sent_during_a_turn_are_queued_in_order() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("queue", "mock");

    // During a `slow` turn (10 s of ticks unless cancelled).
    let offset = api.last_sequence("queue");
    api.send("queue", "slow 100");
    api.wait_for_type("queue", offset, "item.delta");
    let info = api.session_info("queue");
    assert_eq!(
        (&info["status"], &info["queuedMessages"]),
        (&json!("running"), &json!(0)),
        "{info}"
    );
    api.send("queue", "echo first queued");
    let info = api.wait_for_info("queue", "one queued", |i| i["queuedMessages"] == 1);
    assert_eq!(info["status"], "running");
    api.send("queue", "echo second queued");
    api.wait_for_info("queue", "two queued", |i| i["queuedMessages"] == 2);
    let events = api.events_after("queue", offset);
    assert_eq!(
        events
            .iter()
            .filter(|e| e["type"] == "turn.started")
            .count(),
        1,
        "queued messages wait:\n{}",
        pretty(&events)
    );

    // Ending the running turn starts the queued ones, one after the other, in order.
    expect_no_content(api.post_empty("/v1/sessions/queue/cancel"), "cancel");
    let info = api.wait_for_info("queue", "idle", |i| i["status"] == "idle");
    assert_eq!(info["queuedMessages"], 0);
    let events = api.events_after("queue", offset);
    let turns: Vec<&[Value]> = events
        .split_inclusive(|e| e["type"] == "turn.ended")
        .collect();
    assert_eq!(
        turns.len(),
        3,
        "three turns, one after the other:\n{}",
        pretty(&events)
    );
    assert_eq!(
        turns[0].last().unwrap()["data"]["metadata"]["cancelled"],
        true
    );
    check_echo_turn(turns[1], "echo first queued", "first queued");
    check_echo_turn(turns[2], "echo second queued", "second queued");

    // A turn that waits for a permission holds the queue until it is answered.
    let offset = api.last_sequence("queue");
    api.send("queue", "permission");
    let asked = api.wait_for_type("queue", offset, "permission.requested");
    api.send("queue", "echo after the permission");
    let info = api.wait_for_info("queue", "one queued", |i| i["queuedMessages"] == 1);
    assert_eq!(info["status"], "awaiting_input");
    assert_eq!(
        api.events_after("queue", offset),
        asked,
        "nothing runs while the turn waits"
    );
    let id = asked.last().unwrap()["data"]["permission_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let reply = api.post_json(
        &format!("/v1/sessions/queue/permissions/{id}/reply"),
        json!({ "reply": "once" }),
    );
    expect_no_content(reply, "permission reply");
    let info = api.wait_for_info("queue", "idle", |i| {
        i["status"] == "idle" && i["queuedMessages"] == 0
    });
    assert_eq!(info["ended"], false);
    let events = api.events_after("queue", offset);
    let turns: Vec<&[Value]> = events
        .split_inclusive(|e| e["type"] == "turn.ended")
        .collect();
    assert_eq!(turns.len(), 2, "{}", pretty(&events));
    assert_eq!(
        assistant_texts(turns[0]),
        ["Permission granted once: I may run `echo mock`."]
    );
    check_echo_turn(
        turns[1],
        "echo after the permission",
        "after the permission",
    );

    let all = api.events("queue");
    check_envelopes("queue", 0, &all);
    check_turns(&all, true);
}

#[test]
fn cancel_ends_the_running_turn_and_keeps_the_session() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("c", "mock");

    // Idle: a no-op.
    let before = api.last_sequence("c");
    expect_no_content(api.post_empty("/v1/sessions/c/cancel"), "idle cancel");
    assert_eq!(api.last_sequence("c"), before);

    // `slow 100` would stream for 10 s.
    api.send("c", "slow 100");
    api.wait_for_type("c", before, "item.delta");
    api.send("c", "echo after the cancel");
    let cancelled_at = Instant::now();
    expect_no_content(api.post_empty("/v1/sessions/c/cancel"), "cancel");
    let turn = api.wait_for_type("c", before, "turn.ended");
    assert!(
        cancelled_at.elapsed() < Duration::from_secs(2),
        "the turn ended promptly"
    );
    assert_shape(
        &turn,
        &[
            "turn.started",
            "item.started",
            "item.completed",
            "item.started",
            "item.delta*",
            "item.completed",
            "turn.ended",
        ],
    );
    let message = &turn[turn.len() - 2]["data"]["item"];
    assert_eq!(
        message["status"], "failed",
        "the interrupted message: {message}"
    );
    assert!(item_text(message).starts_with("tick 1/100\n"), "{message}");
    assert_eq!(
        turn.last().unwrap()["data"]["metadata"]["cancelled"],
        true,
        "{}",
        turn.last().unwrap()
    );

    // The queued message runs next, and the session stays usable.
    let rest = api.wait_for_type("c", sequence(turn.last().unwrap()), "turn.ended");
    check_echo_turn(&rest, "echo after the cancel", "after the cancel");
    let again = api.turn("c", "still here");
    check_echo_turn(&again, "still here", "still here");
    let info = api.wait_for_info("c", "idle", |i| i["status"] == "idle");
    assert_eq!(info["ended"], false);

    // A cancelled turn that waited for a permission resolves it as rejected.
    let offset = api.last_sequence("c");
    api.send("c", "permission");
    api.wait_for_type("c", offset, "permission.requested");
    expect_no_content(api.post_empty("/v1/sessions/c/cancel"), "cancel");
    let turn = api.wait_for_type("c", offset, "turn.ended");
    assert_types(
        &turn,
        &[
            "turn.started",
            "item.started",
            "item.completed",
            "permission.requested",
            "permission.resolved",
            "turn.ended",
        ],
    );
    assert_eq!(turn[4]["data"]["status"], "reject");
    api.wait_for_info("c", "idle", |i| i["status"] == "idle");

    let all = api.events("c");
    check_envelopes("c", 0, &all);
    check_turns(&all, true);
    expect_problem(
        api.post_empty("/v1/sessions/missing/cancel"),
        404,
        "session_not_found",
    );
}

#[test]
fn terminate_ends_the_session() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("t", "mock");
    let offset = api.last_sequence("t");
    api.send("t", "slow 100");
    api.wait_for_type("t", offset, "item.delta");

    let terminated_at = Instant::now();
    expect_no_content(api.post_empty("/v1/sessions/t/terminate"), "terminate");
    let rest = api.wait_for_type("t", offset, "session.ended");
    assert!(
        terminated_at.elapsed() < Duration::from_secs(2),
        "terminated promptly"
    );
    assert_shape(
        &rest,
        &[
            "turn.started",
            "item.started",
            "item.completed",
            "item.started",
            "item.delta*",
            "item.completed",
            "turn.ended",
            "session.ended",
        ],
    );
    let ended = &rest.last().unwrap()["data"];
    assert_eq!(
        (&ended["reason"], &ended["terminated_by"]),
        (&json!("terminated"), &json!("daemon")),
        "{ended}"
    );

    let info = api.wait_for_info("t", "ended", |i| i["ended"] == true);
    assert_eq!(
        (&info["status"], &info["queuedMessages"]),
        (&json!("ended"), &json!(0))
    );
    let all = api.events("t");
    assert_eq!(
        all.last().unwrap()["type"],
        "session.ended",
        "nothing after session.ended"
    );
    check_envelopes("t", 0, &all);
    check_turns(&all, true);

    // Ended: no more messages, but terminate stays idempotent and the transcript readable.
    let problem = expect_problem(
        api.post_json("/v1/sessions/t/messages", json!({ "message": "hi" })),
        409,
        "session_ended",
    );
    assert_eq!(problem["sessionId"], "t");
    expect_problem(
        api.post_json("/v1/sessions/t/messages/stream", json!({ "message": "hi" })),
        409,
        "session_ended",
    );
    expect_no_content(
        api.post_empty("/v1/sessions/t/terminate"),
        "second terminate",
    );
    expect_no_content(
        api.post_json("/v1/sessions/t/terminate", json!({})),
        "third terminate",
    );
    assert_eq!(api.events("t"), all, "terminating again adds nothing");
    expect_problem(
        api.post_empty("/v1/sessions/missing/terminate"),
        404,
        "session_not_found",
    );

    // An idle session terminates with just session.ended.
    api.create("t2", "mock");
    expect_no_content(
        api.post_empty("/v1/sessions/t2/terminate"),
        "terminate idle",
    );
    let events = api.wait_for_type("t2", 0, "session.ended");
    assert_types(&events, &["session.started", "session.ended"]);
    assert_eq!(events[1]["data"]["reason"], "terminated");
    assert_eq!(events[1]["data"]["terminated_by"], "daemon");
}

#[test]
fn shell_runs_a_real_child_process() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("sh", "mock");

    let turn = api.turn("sh", "shell echo hi");
    assert_shape(
        &turn,
        &[
            "turn.started",
            "item.started",
            "item.completed",
            "item.started",
            "item.completed",
            "item.started",
            "item.delta*",
            "item.completed",
            "item.started",
            "item.delta*",
            "item.completed",
            "turn.ended",
        ],
    );
    let call = &turn[4]["data"]["item"];
    assert_eq!(call["kind"], "tool_call");
    assert_eq!(call["content"][0]["name"], "shell");
    let call_id = call["content"][0]["call_id"].as_str().unwrap();
    let result = &turn[7]["data"]["item"];
    assert_eq!(
        (&result["kind"], &result["status"]),
        (&json!("tool_result"), &json!("completed")),
        "{result}"
    );
    assert_eq!(result["content"][0]["call_id"], call_id);
    let output = result["content"][0]["output"].as_str().unwrap();
    assert_eq!(output, "hi\n");
    assert_eq!(
        streamed_text(&turn, result["item_id"].as_str().unwrap()),
        "hi\n",
        "the output streams as deltas"
    );

    // What only a shell does: expand, compute, and fail with an exit code.
    let turn = api.turn("sh", "shell echo $((6 * 7)) && exit 3");
    let result = turn
        .iter()
        .find(|e| e["type"] == "item.completed" && e["data"]["item"]["kind"] == "tool_result")
        .expect("a tool result");
    let result = &result["data"]["item"];
    assert_eq!(result["content"][0]["output"], "42\n");
    assert_eq!(
        result["status"], "failed",
        "a non-zero exit fails the result: {result}"
    );
    let summary = assistant_texts(&turn).join("");
    assert!(
        summary.contains("exit code 3"),
        "the summary names the exit code: {summary}"
    );

    let all = api.events("sh");
    check_envelopes("sh", 0, &all);
    check_turns(&all, true);
}
