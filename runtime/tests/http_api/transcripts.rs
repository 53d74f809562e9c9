//! Listing sessions and reading their transcripts: polling, raw payloads, SSE,
//! the message stream of one turn.

use super::*;

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
    // One session alone reads as its entry in the list.
    assert_eq!(api.get_ok("/v1/sessions/s1"), api.session_info("s1"));
    expect_problem(api.get("/v1/sessions/nope"), 404, "session_not_found");

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
