//! The WebAssembly sandbox, through the real daemon: the test-only `probe` adapter
//! (testing/guests/probe) misbehaves on request, and each misbehaviour must end only
//! its own session, with an `error` event that names the cause, while the daemon
//! and every other session carry on. Outputs within the memory cap, however large,
//! are delivered whole.

mod common;

use common::api::*;
use common::{adapters_dir_with, Daemon, Options};
use serde_json::json;

#[test]
fn a_misbehaving_adapter_ends_only_its_own_session() {
    let adapters = adapters_dir_with(&["probe"]);
    let daemon = Daemon::start_with(Options {
        token: None,
        args: vec![
            "--adapters-dir".into(),
            adapters.path().display().to_string(),
            "--adapter-call-timeout-ms".into(),
            "500".into(),
            "--adapter-memory-mib".into(),
            "32".into(),
        ],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    // The probe, from the adapters folder, is compiled before it can be listed:
    // on a cold cache, a debug build and a busy machine that can take longer than
    // a request's usual deadline.
    let agents: serde_json::Value = reqwest::blocking::Client::builder()
        .timeout(std::time::Duration::from_secs(120))
        .build()
        .unwrap()
        .get(daemon.url("/v1/agents"))
        .send()
        .and_then(|response| response.error_for_status())
        .and_then(|response| response.json())
        .expect("GET /v1/agents");
    let ids: Vec<&str> = agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"probe") && ids.contains(&"mock"), "{agents}");

    // A mock turn runs across all the failures below, and must be unaffected.
    api.create("bystander", "mock");
    api.send("bystander", "slow 10");

    // (command, what the error message must name)
    let cases: [(&str, &[&str]); 8] = [
        ("loop", &["longer than 500 ms"]), // the CPU budget (epoch interruption)
        ("alloc", &["memory limit"]),      // the memory cap
        ("grow 48", &["memory limit"]),    // the cap, below the engine's reservation
        ("trap", &["trapped"]),            // a guest panic
        ("open", &["trapped", "wasi:filesystem"]), // no filesystem is granted
        ("badaction", &["invalid action", "loopback"]), // a request off the loopback interface
        ("garbage", &["invalid action", "not valid JSON"]), // an event field that is not JSON
        ("huge 64", &["memory limit"]),    // an output larger than the memory cap
    ];
    for (command, causes) in cases {
        let id = format!("probe-{}", command.split(' ').next().unwrap());
        api.create(&id, "probe");
        // The message that broke the adapter is answered with the failure.
        let sent = api.post_json(
            &format!("/v1/sessions/{id}/messages"),
            json!({ "message": command }),
        );
        let problem = expect_problem(sent, 500, "adapter_failed");
        assert_eq!(problem["agent"], "probe", "{problem}");
        let events = api.wait_for_type(&id, 0, "session.ended");
        assert_types(&events, &["session.started", "error", "session.ended"]);
        check_envelopes(&id, 0, &events);

        let error = &events[1];
        assert_eq!(
            (&error["source"], &error["synthetic"]),
            (&json!("daemon"), &json!(true)),
            "{error}"
        );
        assert_eq!(error["data"]["code"], "adapter_failed", "{error}");
        let message = error["data"]["message"].as_str().unwrap();
        for cause in causes {
            assert!(
                message.contains(cause),
                "{command}: the error names {cause:?}: {message}"
            );
        }
        let ended = &events[2]["data"];
        assert_eq!(
            (&ended["reason"], &ended["terminated_by"]),
            (&json!("error"), &json!("daemon")),
            "{ended}"
        );
        assert!(
            ended["message"]
                .as_str()
                .is_some_and(|m| causes.iter().all(|c| m.contains(c))),
            "{ended}"
        );

        // The session is over; the daemon is not.
        let info = api.wait_for_info(&id, "ended", |i| i["ended"] == true);
        assert_eq!(info["status"], "ended", "{info}");
        expect_problem(
            api.post_json(
                &format!("/v1/sessions/{id}/messages"),
                json!({ "message": "hi" }),
            ),
            409,
            "session_ended",
        );
        expect_no_content(
            api.post_empty(&format!("/v1/sessions/{id}/terminate")),
            "terminating a failed session",
        );
        assert_eq!(api.events(&id), events, "nothing after session.ended");
        assert_eq!(api.get_ok("/v1/health")["status"], "ok");
    }

    // Large outputs within the cap come through whole: 3 MiB of text in one
    // message, then a message in 5000 deltas.
    api.create("probe-large", "probe");
    let turn = api.turn("probe-large", "huge 3");
    let texts = assistant_texts(&turn);
    assert!(
        texts.len() == 1 && texts[0].len() == 3 << 20 && texts[0].bytes().all(|b| b == b'x'),
        "{:?}",
        texts.iter().map(String::len).collect::<Vec<_>>()
    );
    let offset = api.last_sequence("probe-large");
    api.send("probe-large", "flood 5000");
    let flood = api.wait_for("probe-large", offset, "the flood's completion", |e| {
        e["type"] == "item.completed" && e["data"]["item"]["item_id"] == "flood"
    });
    let deltas = flood.iter().filter(|e| e["type"] == "item.delta").count();
    assert_eq!(deltas, 5000);
    check_envelopes("probe-large", 0, &api.events("probe-large"));
    assert_eq!(api.session_info("probe-large")["ended"], false);

    // New sessions of both adapters still work.
    api.create("probe-ok", "probe");
    let turn = api.turn("probe-ok", "still alive");
    assert_eq!(assistant_texts(&turn), ["still alive"]);
    check_turns(&turn, true);
    api.create("mock-ok", "mock");
    assert_eq!(
        assistant_texts(&api.turn("mock-ok", "hello after the storm")),
        ["hello after the storm"]
    );

    // The bystander's turn finished normally, all ten ticks of it.
    let events = api.wait_for_type("bystander", 0, "turn.ended");
    assert!(
        events.iter().all(|e| e["type"] != "error"),
        "{}",
        pretty(&events)
    );
    let reply = assistant_texts(&events);
    assert_eq!(reply.len(), 1);
    assert!(reply[0].ends_with("tick 10/10\n"), "{reply:?}");
    let all = api.events("bystander");
    check_envelopes("bystander", 0, &all);
    check_turns(&all, true);
    assert_eq!(api.session_info("bystander")["ended"], false);
}
