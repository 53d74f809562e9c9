//! The model gateway end to end (`--gateway`, docs/gateway.md): a real process of
//! a mock session calls the Anthropic Messages API the way an agent does, from the
//! variables the daemon gave it, and the scripted model server answers. The call
//! reaches the server with the real key and headers; the agent saw only its
//! session's endpoint and token; each call is one `model.usage` event with the
//! server's counts and the price table's cost; the totals are in the turn, the
//! session and `/metrics`; the token is dead once the session ended.

use std::path::Path;

use agentplex_model_server::ModelServer;
use common::{Daemon, Options};

use super::*;

/// The key the daemon holds; no process of a session may see it.
const REAL_KEY: &str = "sk-ant-real-key-for-the-gateway-test";

/// Prices per million tokens for the scripted model, in the file given to `--prices`.
const PRICES: &str = r#"{"version": 1, "asOf": "2026-12-01", "models": [
  {"match": "scripted-model", "input": 2.0, "output": 10.0, "cacheRead": 0.5, "cacheWrite": 4.0}
]}"#;

/// What the agent stand-in does: two calls (streamed, then whole) from the
/// variables it was given, and a report of its whole environment and the answers.
const AGENT: &str = r#"
import json, os, sys, urllib.request
base, key = os.environ["ANTHROPIC_BASE_URL"], os.environ.get("ANTHROPIC_API_KEY", "")
answers = []
for stream in (True, False):
    body = {"model": "scripted-model", "max_tokens": 64, "stream": stream,
            "messages": [{"role": "user", "content": "hello\nusage: cache_read=20 cache_write=30"}]}
    request = urllib.request.Request(base + "/v1/messages", data=json.dumps(body).encode(),
        headers={"x-api-key": key, "anthropic-version": "2023-06-01",
                 "anthropic-beta": "gateway-test-beta", "content-type": "application/json"})
    answers.append(urllib.request.urlopen(request).read().decode())
json.dump({"env": dict(os.environ), "answers": answers}, open(sys.argv[1], "w"))
"#;

/// A daemon with the gateway, its upstream the model server, holding the real key.
fn metered_daemon(model: &ModelServer, dir: &Path) -> Daemon {
    let prices = dir.join("prices.json");
    std::fs::write(&prices, PRICES).unwrap();
    Daemon::start_with(Options {
        args: vec![
            "--gateway".into(),
            "--prices".into(),
            prices.display().to_string(),
        ],
        env: vec![
            ("ANTHROPIC_BASE_URL".into(), model.url()),
            ("ANTHROPIC_API_KEY".into(), REAL_KEY.into()),
        ],
        ..Options::default()
    })
}

#[test]
fn every_model_call_of_a_session_is_metered_through_the_gateway() {
    let model = ModelServer::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let daemon = metered_daemon(&model, dir.path());
    let api = Api::new(&daemon);
    api.create("metered", "mock");
    std::fs::write(dir.path().join("agent.py"), AGENT).unwrap();
    let report_path = dir.path().join("report.json");
    let command = format!(
        "shell python3 {} {}",
        dir.path().join("agent.py").display(),
        report_path.display()
    );
    let events = api.turn("metered", &command);

    // The agent saw its endpoint and token, and no real key anywhere.
    let report: Value = serde_json::from_slice(&std::fs::read(&report_path).unwrap()).unwrap();
    let env = report["env"].as_object().unwrap();
    let base = env["ANTHROPIC_BASE_URL"].as_str().unwrap();
    let token = env["ANTHROPIC_API_KEY"].as_str().unwrap();
    assert!(
        base.starts_with("http://127.0.0.1:") && base.contains(token),
        "{base}"
    );
    assert!(token.starts_with("apx_"), "{token}");
    assert!(
        env.values()
            .all(|value| !value.as_str().unwrap().contains(REAL_KEY)),
        "the real key reached the agent: {env:?}"
    );
    // The answers came back as the server sent them, streamed and whole.
    assert!(report["answers"][0]
        .as_str()
        .unwrap()
        .contains("event: message_stop"));
    assert!(report["answers"][1].as_str().unwrap().contains("\"usage\""));

    // The server got the real key and the agent's headers, never the token.
    let requests = ok_json(reqwest::blocking::get(format!("{}/requests", model.url())).unwrap());
    let requests = requests.as_array().unwrap();
    assert_eq!(requests.len(), 2, "{requests:?}");
    for request in requests {
        assert_eq!(request["headers"]["x-api-key"], REAL_KEY, "{request}");
        assert_eq!(request["headers"]["anthropic-beta"], "gateway-test-beta");
        assert!(!request.to_string().contains(token), "{request}");
    }

    // One model.usage per call with the server's counts and the table's price:
    // 100 fresh input tokens at $2, 20 cache reads at $0.5, 30 cache writes at
    // $4 and 10 output tokens at $10, per million.
    let cost = (100.0 * 2.0 + 20.0 * 0.5 + 30.0 * 4.0 + 10.0 * 10.0) / 1e6;
    let calls: Vec<&Value> = events
        .iter()
        .filter(|event| event["type"] == "model.usage")
        .collect();
    assert_eq!(calls.len(), 2, "{}", pretty(&events));
    for call in &calls {
        assert_eq!(call["source"], "daemon");
        let data = &call["data"];
        assert_eq!(data["model"], "scripted-model");
        assert_eq!(data["format"], "anthropic-messages");
        assert_eq!(data["status"], 200);
        assert_eq!(data["complete"], true);
        let counts = [
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "reasoning_tokens",
        ]
        .map(|name| data[name].as_u64().unwrap());
        assert_eq!(counts, [150, 10, 20, 30, 0], "{data}");
        assert!(
            (data["cost_usd"].as_f64().unwrap() - cost).abs() < 1e-12,
            "{data}"
        );
    }

    // The turn's usage and the session's totals are the two calls'.
    let ended = find(&events, "turn.ended");
    assert_eq!(ended["data"]["usage"]["input_tokens"], 300, "{ended}");
    assert_eq!(ended["data"]["usage"]["output_tokens"], 20, "{ended}");
    let info = api.get_ok("/v1/sessions/metered");
    let usage = &info["usage"];
    assert_eq!(usage["metered"], true, "{info}");
    assert_eq!(usage["total"]["modelCalls"], 2, "{info}");
    assert_eq!(usage["lastTurn"]["inputTokens"], 300, "{info}");
    assert!((usage["total"]["costUsd"].as_f64().unwrap() - 2.0 * cost).abs() < 1e-12);

    // And in /metrics, by agent and model.
    let metrics = api.get("/metrics").text().unwrap();
    let calls_line = metrics
        .lines()
        .find(|line| {
            line.starts_with("agentplex_model_calls_total{") && line.contains("scripted-model")
        })
        .unwrap_or_else(|| panic!("no model calls in {metrics}"));
    assert!(
        calls_line.contains("agent=\"mock\"") && calls_line.ends_with(" 2"),
        "{calls_line}"
    );

    // Once the session ended, its token opens nothing.
    expect_no_content(
        api.post_empty("/v1/sessions/metered/terminate"),
        "terminate",
    );
    api.wait_for_info("metered", "ended", |info| info["ended"] == true);
    let after = reqwest::blocking::Client::new()
        .post(format!("{base}/v1/messages"))
        .header("x-api-key", token)
        .body("{}")
        .send()
        .unwrap();
    assert_eq!(after.status(), 401);
    let requests = ok_json(reqwest::blocking::get(format!("{}/requests", model.url())).unwrap());
    assert_eq!(
        requests.as_array().unwrap().len(),
        2,
        "a dead token reached the server"
    );
}

#[test]
fn without_the_gateway_agents_call_their_provider_as_before() {
    let model = ModelServer::start().unwrap();
    let daemon = Daemon::start_with(Options {
        env: vec![("ANTHROPIC_BASE_URL".into(), model.url())],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    api.create("direct", "mock");
    let events = api.turn("direct", "shell echo \"base=$ANTHROPIC_BASE_URL\"");
    let output = serde_json::to_string(&events).unwrap();
    assert!(
        output.contains(&format!("base={}", model.url())),
        "{output}"
    );
    assert!(events.iter().all(|event| event["type"] != "model.usage"));
    assert_eq!(api.get_ok("/v1/sessions/direct").get("usage"), None);
}

#[test]
fn a_price_file_that_does_not_parse_stops_the_daemon_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let prices = dir.path().join("prices.json");
    std::fs::write(
        &prices,
        "{\"version\": 1,\n \"asOf\": \"2026-12-01\",\n \"models\": [{\"match\": 3}]}",
    )
    .unwrap();
    let output = std::process::Command::new(common::binary())
        .args([
            "server",
            "--no-token",
            "--port",
            "0",
            "--gateway",
            "--prices",
        ])
        .arg(&prices)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("line 3"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

/// What the budget test's agent does: calls until one is refused, writing down
/// each call's status as it goes.
const SPENDER: &str = r#"
import json, os, sys, urllib.request, urllib.error
base, key = os.environ["ANTHROPIC_BASE_URL"], os.environ.get("ANTHROPIC_API_KEY", "")
statuses = []
for _ in range(6):
    body = {"model": "scripted-model", "max_tokens": 64, "stream": True,
            "messages": [{"role": "user", "content": "hello"}]}
    request = urllib.request.Request(base + "/v1/messages", data=json.dumps(body).encode(),
        headers={"x-api-key": key, "content-type": "application/json"})
    try:
        urllib.request.urlopen(request).read()
        statuses.append(200)
    except urllib.error.HTTPError as error:
        statuses.append(error.code)
        statuses.append(json.loads(error.read())["error"]["type"])
    with open(sys.argv[1], "w") as report:
        json.dump(statuses, report)
    if statuses[-1] != 200:
        break
"#;

/// The model server's request count.
fn upstream_calls(model: &ModelServer) -> usize {
    let requests = ok_json(reqwest::blocking::get(format!("{}/requests", model.url())).unwrap());
    requests.as_array().unwrap().len()
}

#[test]
fn a_session_budget_stops_its_calls_and_raising_it_lets_them_go_on() {
    let model = ModelServer::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let daemon = metered_daemon(&model, dir.path());
    let api = Api::new(&daemon);
    std::fs::write(dir.path().join("spender.py"), SPENDER).unwrap();
    let report = dir.path().join("statuses.json");
    let command = format!(
        "shell python3 {} {}",
        dir.path().join("spender.py").display(),
        report.display()
    );
    // Each call uses 110 tokens; one is held at about 100 (its prompt's size
    // and its max_tokens) before it goes. 250 tokens let two through.
    let created = ok_json(api.post_json(
        "/v1/sessions/capped",
        json!({"agent": "mock", "budget": {"maxTokens": 250}}),
    ));
    assert_eq!(created["healthy"], true, "{created}");
    assert_eq!(
        api.get_ok("/v1/sessions/capped")["budget"],
        json!({"maxTokens": 250})
    );

    let events = api.turn("capped", &command);
    assert_eq!(upstream_calls(&model), 2, "a refused call went upstream");
    let reached = find(&events, "budget.reached");
    assert_eq!(reached["source"], "daemon");
    let data = &reached["data"];
    assert_eq!(
        (&data["scope"], &data["limit"], &data["action"]),
        (&json!("session"), &json!("tokens"), &json!("refused")),
        "{reached}"
    );
    assert_eq!(data["max_tokens"], 250);
    assert_eq!(data["spent_tokens"], 220, "{reached}");
    let usage = &api.get_ok("/v1/sessions/capped")["usage"]["total"];
    assert_eq!(usage["modelCalls"], 2, "{usage}");

    // Raised, the next turn's calls go through again.
    let raised = api.client().put(daemon.url("/v1/sessions/capped/budget"));
    let raised = ok_json(raised.json(&json!({"maxTokens": 10_000})).send().unwrap());
    assert_eq!(raised, json!({"maxTokens": 10_000}));
    assert_eq!(api.get_ok("/v1/sessions/capped")["budget"], raised);
    api.turn("capped", &command);
    let statuses: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(statuses, json!([200, 200, 200, 200, 200, 200]));
    assert_eq!(upstream_calls(&model), 8);
}

#[test]
fn a_budget_needs_the_gateway_and_a_sane_cap() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    let refused = api.post_json(
        "/v1/sessions/uncapped",
        json!({"agent": "mock", "budget": {"maxCostUsd": 1.0}}),
    );
    // The request is right; the daemon lacks what it needs (409, as the schema
    // allows the request).
    let problem = expect_problem(refused, 409, "not_configured");
    assert!(
        problem["detail"].as_str().unwrap().contains("--gateway"),
        "{problem}"
    );
    api.create("plain", "mock");
    let put = api.client().put(daemon.url("/v1/sessions/plain/budget"));
    expect_problem(
        put.json(&json!({"maxTokens": 5})).send().unwrap(),
        409,
        "not_configured",
    );
    let missing = api.client().put(daemon.url("/v1/sessions/nobody/budget"));
    expect_problem(
        missing.json(&json!({})).send().unwrap(),
        404,
        "session_not_found",
    );

    let model = ModelServer::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let metered = metered_daemon(&model, dir.path());
    let api = Api::new(&metered);
    for bad in [
        json!({"maxCostUsd": -1}),
        json!({"maxCost": 1}),
        json!({"maxTokens": -5}),
    ] {
        let response = api.post_json("/v1/sessions/bad", json!({"agent": "mock", "budget": bad}));
        assert_eq!(response.status(), 400, "{bad}");
    }
}
