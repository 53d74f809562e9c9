//! Permission and question requests answered over HTTP.

use super::*;

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
