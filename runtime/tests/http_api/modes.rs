//! `PUT /v1/sessions/{id}/modes` with the mock agent: the modes change from the
//! next message on, `GET` answers them, the session and its transcript say so, they survive a
//! daemon restart and a move, and what cannot be changed is refused as a problem.

use super::*;

/// The mock's answer to `shell <command>` as one line of text.
fn shell(api: &Api, id: &str, command: &str) -> String {
    assistant_texts(&api.turn(id, &format!("shell {command}"))).join("")
}

#[test]
fn the_modes_change_from_the_next_message_and_outlive_a_restart_and_a_move() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("mo", "mock");
    assert_ne!(
        shell(&api, "mo", "echo before"),
        "Plan mode: I would run `echo before`."
    );

    let answer = ok_json(api.put_json("/v1/sessions/mo/modes", json!({"agentMode": "plan"})));
    assert_eq!(
        answer,
        json!({"agentMode": "plan", "permissionMode": "default"})
    );
    let info = api.session_info("mo");
    assert_eq!(
        (&info["agentMode"], &info["permissionMode"]),
        (&json!("plan"), &json!("default"))
    );
    assert_eq!(
        shell(&api, "mo", "echo planned"),
        "Plan mode: I would run `echo planned`."
    );
    let changed: Vec<Value> = api
        .events("mo")
        .into_iter()
        .filter(|e| e["data"]["item"]["content"][0]["label"] == "modes changed")
        .collect();
    assert_eq!(changed.len(), 1, "{}", pretty(&changed));
    assert_eq!(changed[0]["type"], "item.completed");
    assert_eq!(changed[0]["data"]["item"]["kind"], "status");
    assert_eq!(
        changed[0]["data"]["item"]["content"][0]["detail"],
        r#"{"agentMode":"plan","permissionMode":"default"}"#
    );

    // A field left out keeps its value.
    let answer =
        ok_json(api.put_json("/v1/sessions/mo/modes", json!({"permissionMode": "bypass"})));
    assert_eq!(
        answer,
        json!({"agentMode": "plan", "permissionMode": "bypass"})
    );
    // GET answers them; the mock offers nothing of its own.
    assert_eq!(
        api.get_ok("/v1/sessions/mo/modes"),
        json!({"agentMode": "plan", "permissionMode": "bypass"})
    );
    expect_problem(
        api.get("/v1/sessions/nobody/modes"),
        404,
        "session_not_found",
    );

    // The modes are the session's after a restart, in its entry and at work.
    let data_dir = daemon.stop_keeping_data();
    let daemon = Daemon::start_with(common::Options {
        data_dir: Some(data_dir),
        ..common::Options::default()
    });
    let api = Api::new(&daemon);
    let info = api.session_info("mo");
    assert_eq!(
        (&info["agentMode"], &info["permissionMode"]),
        (&json!("plan"), &json!("bypass"))
    );
    assert_eq!(
        shell(&api, "mo", "echo after"),
        "Plan mode: I would run `echo after`."
    );
    // And after a move to another daemon.
    let elsewhere = Daemon::start();
    let moved = Api::new(&elsewhere);
    ok_json(moved.import("mo", "", api.export("mo"), &[]));
    let info = moved.session_info("mo");
    assert_eq!(
        (&info["agentMode"], &info["permissionMode"]),
        (&json!("plan"), &json!("bypass"))
    );
    ok_json(api.put_json(
        "/v1/sessions/mo/modes",
        json!({"agentMode": "build", "permissionMode": "default"}),
    ));
    assert_ne!(
        shell(&api, "mo", "echo built"),
        "Plan mode: I would run `echo built`."
    );
    // An ended session moves with the modes it ended with.
    ok_json(api.put_json("/v1/sessions/mo/modes", json!({"agentMode": "plan"})));
    expect_no_content(api.post_empty("/v1/sessions/mo/terminate"), "terminate");
    ok_json(moved.import("mo-ended", "", api.export("mo"), &[]));
    let info = moved.session_info("mo-ended");
    assert_eq!(
        (&info["agentMode"], &info["ended"]),
        (&json!("plan"), &json!(true))
    );
}

#[test]
fn what_cannot_be_changed_is_refused_as_a_problem() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("mx", "mock");
    let put = |id: &str, body: Value| api.put_json(&format!("/v1/sessions/{id}/modes"), body);
    let problem = expect_problem(
        put("mx", json!({"agentMode": "architect"})),
        400,
        "mode_not_supported",
    );
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains(r#"no mode "architect""#),
        "{problem}"
    );
    expect_problem(
        put("mx", json!({"permissionMode": "sometimes"})),
        400,
        "invalid_request",
    );
    expect_problem(put("mx", json!({"mode": "plan"})), 400, "invalid_request");
    expect_problem(
        put("nope", json!({"agentMode": "plan"})),
        404,
        "session_not_found",
    );
    // Nothing changed.
    let info = api.session_info("mx");
    assert_eq!(
        (&info["agentMode"], &info["permissionMode"]),
        (&json!("build"), &json!("default"))
    );
    expect_no_content(api.post_empty("/v1/sessions/mx/terminate"), "terminate");
    expect_problem(
        put("mx", json!({"agentMode": "plan"})),
        409,
        "session_ended",
    );
}

/// The details of session `id`'s `modes changed` items.
fn changes(api: &Api, id: &str) -> Vec<Value> {
    let events = api.events(id).into_iter();
    let part = |e: &Value| e["data"]["item"]["content"][0].clone();
    let changed = events
        .map(|e| part(&e))
        .filter(|p| p["label"] == "modes changed");
    changed.map(|p| p["detail"].clone()).collect()
}

/// The mock's answer to `settings`: the modes, model and variant it runs with.
fn settings(api: &Api, id: &str) -> String {
    assistant_texts(&api.turn(id, "settings")).join("")
}

#[test]
fn the_model_changes_from_the_next_message_and_outlives_a_restart() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("mm", "mock");
    let agents = ok_json(api.get("/v1/agents"));
    let mock = agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|agent| agent["id"] == "mock")
        .expect("the mock is listed");
    assert_eq!(mock["capabilities"]["modeChange"], true, "{mock}");
    assert_eq!(mock["capabilities"]["modelChange"], true, "{mock}");
    assert_eq!(
        settings(&api, "mm"),
        "Agent mode build, permission mode default, model the default."
    );

    let answer = ok_json(api.put_json("/v1/sessions/mm/modes", json!({"model": "mock-large"})));
    assert_eq!(
        answer,
        json!({"agentMode": "build", "permissionMode": "default", "model": "mock-large"})
    );
    assert_eq!(api.session_info("mm")["model"], "mock-large");
    assert_eq!(
        settings(&api, "mm"),
        "Agent mode build, permission mode default, model mock-large."
    );
    assert_eq!(
        changes(&api, "mm"),
        [json!(
            r#"{"agentMode":"build","permissionMode":"default","model":"mock-large"}"#
        )]
    );
    // A change of mode keeps the model.
    let answer = ok_json(api.put_json("/v1/sessions/mm/modes", json!({"agentMode": "plan"})));
    assert_eq!(answer["model"], "mock-large", "{answer}");

    // Names that cannot be a model are refused, and change nothing; at create too
    // (where an empty one is none, as 0.1.x took it).
    for model in ["", " mock", "mock\n", "--help", &"m".repeat(201)] {
        let body = json!({ "model": model });
        let problem = expect_problem(
            api.put_json("/v1/sessions/mm/modes", body),
            400,
            "invalid_request",
        );
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .contains("invalid model"),
            "{problem}"
        );
    }

    for model in [" mock", "--help"] {
        let body = json!({ "agent": "mock", "model": model });
        expect_problem(
            api.post_json("/v1/sessions/mm-bad", body),
            400,
            "invalid_request",
        );
    }
    let created = api.post_json(
        "/v1/sessions/mm-empty",
        json!({ "agent": "mock", "model": "" }),
    );
    assert_eq!(ok_json(created)["healthy"], true);

    let data_dir = daemon.stop_keeping_data();
    let daemon = Daemon::start_with(common::Options {
        data_dir: Some(data_dir),
        ..common::Options::default()
    });
    let api = Api::new(&daemon);
    assert_eq!(api.session_info("mm")["model"], "mock-large");
    assert_eq!(
        settings(&api, "mm"),
        "Agent mode plan, permission mode default, model mock-large."
    );
}

#[test]
fn the_variant_changes_from_the_next_message_and_outlives_a_restart() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    let created = api.post_json(
        "/v1/sessions/mv",
        json!({"agent": "mock", "model": "mock-large"}),
    );
    assert_eq!(ok_json(created)["healthy"], true);
    let agents = ok_json(api.get("/v1/agents"));
    let mock = agents["agents"].as_array().unwrap().iter();
    let mock = mock.clone().find(|agent| agent["id"] == "mock").unwrap();
    assert_eq!(mock["capabilities"]["variantChange"], true, "{mock}");
    assert_eq!(
        settings(&api, "mv"),
        "Agent mode build, permission mode default, model mock-large."
    );

    let answer = ok_json(api.put_json("/v1/sessions/mv/modes", json!({"variant": "high"})));
    assert_eq!(
        answer,
        json!({"agentMode": "build", "permissionMode": "default", "model": "mock-large",
            "variant": "high"})
    );
    assert_eq!(api.session_info("mv")["variant"], "high");
    assert_eq!(ok_json(api.get("/v1/sessions/mv/modes"))["variant"], "high");
    assert_eq!(
        settings(&api, "mv"),
        "Agent mode build, permission mode default, model mock-large, variant high."
    );
    assert_eq!(
        changes(&api, "mv"),
        [json!(
            r#"{"agentMode":"build","permissionMode":"default","model":"mock-large","variant":"high"}"#
        )]
    );
    // A change of model keeps the variant; one of the variant, the model.
    let answer = ok_json(api.put_json("/v1/sessions/mv/modes", json!({"model": "mock"})));
    assert_eq!(answer["variant"], "high", "{answer}");
    let answer = ok_json(api.put_json("/v1/sessions/mv/modes", json!({"variant": "low"})));
    assert_eq!(answer["model"], "mock", "{answer}");

    // Names that cannot be a variant are refused, and change nothing; at create
    // too (where an empty one is none, as 0.1.x took it).
    for variant in ["", " high", "high\n", "--help", &"v".repeat(201)] {
        let problem = expect_problem(
            api.put_json("/v1/sessions/mv/modes", json!({ "variant": variant })),
            400,
            "invalid_request",
        );
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.contains("invalid variant"), "{problem}");
    }
    let body = json!({ "agent": "mock", "variant": "--help" });
    let refused = api.post_json("/v1/sessions/mv-bad", body);
    expect_problem(refused, 400, "invalid_request");
    let body = json!({ "agent": "mock", "variant": "" });
    assert_eq!(
        ok_json(api.post_json("/v1/sessions/mv-empty", body))["healthy"],
        true
    );

    let data_dir = daemon.stop_keeping_data();
    let daemon = Daemon::start_with(common::Options {
        data_dir: Some(data_dir),
        ..common::Options::default()
    });
    let api = Api::new(&daemon);
    assert_eq!(api.session_info("mv")["variant"], "low");
    assert_eq!(
        settings(&api, "mv"),
        "Agent mode build, permission mode default, model mock, variant low."
    );
}
