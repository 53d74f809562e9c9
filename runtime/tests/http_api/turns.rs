//! Turns: queued messages, cancel, terminate, and a real child process.

use super::*;

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
