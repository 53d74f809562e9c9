//! The model gateway on the real agents (`--gateway`): every model call of a turn
//! goes through the daemon, reaches the model server with the real key (the
//! agent only ever had its session's token), and is one `model.usage` event whose
//! counts are exactly those the server reported and whose cost is the price
//! table's; and a session's budget, once reached, keeps the next turn's calls
//! from the server until it is raised.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::harness::Harness;
use crate::common::api::{assistant_texts, ok_json, pretty, types};

/// The models the agents ask for under test (the pinned CLIs' defaults, or what
/// the conformance setup names; a dated snapshot of one is found too), each with
/// the same made-up prices per million tokens, so the check works every call's
/// cost out for itself.
const PRICED_MODELS: &[&str] = &[
    "scripted",
    "claude-opus-4-8",
    "claude-haiku-4-5",
    "claude-sonnet-4-6",
    "gemini-3.5-flash-lite",
    "gemini-3.5-flash",
    "gemini-3.8-flash",
    "gpt-5.5",
];
const INPUT: f64 = 2.0;
const OUTPUT: f64 = 10.0;
const CACHE_READ: f64 = 0.5;
const CACHE_WRITE: f64 = 4.0;

/// The price table the daemon is given.
fn price_table() -> String {
    let models: Vec<Value> = PRICED_MODELS
        .iter()
        .map(|model| {
            serde_json::json!({"match": model, "input": INPUT, "output": OUTPUT,
                               "cacheRead": CACHE_READ, "cacheWrite": CACHE_WRITE})
        })
        .collect();
    serde_json::json!({"version": 1, "asOf": "2026-12-01", "models": models}).to_string()
}

/// The token counts of a call (or of what the server reported for it).
fn counts(usage: &Value) -> [u64; 5] {
    [
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
    ]
    .map(|name| {
        usage[name]
            .as_u64()
            .unwrap_or_else(|| panic!("no {name} in {usage}"))
    })
}

/// What a call of these counts costs by [`price_table`].
fn expected_cost([input, output, cache_read, cache_write, _]: [u64; 5]) -> f64 {
    let fresh = input - cache_read - cache_write;
    (fresh as f64 * INPUT
        + cache_read as f64 * CACHE_READ
        + cache_write as f64 * CACHE_WRITE
        + output as f64 * OUTPUT)
        / 1e6
}

/// Replaces the harness's daemon with one whose model gateway prices with
/// [`price_table`]; the table's file lives as long as what this returns.
fn through_the_gateway(h: &mut Harness) -> tempfile::NamedTempFile {
    let prices = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(prices.path(), price_table()).unwrap();
    h.through_the_gateway(prices.path());
    prices
}

/// A turn through the gateway, checked call by call against the server's log.
pub fn metered_turn(h: &mut Harness) {
    let _prices = through_the_gateway(h);
    // OpenCode reads a project's configuration in the session's directory over
    // the global one: the key it gives is the one the gateway must send. And
    // with a key for its built-in provider of the same format (OpenRouter's,
    // Chat Completions), the model server's custom provider is metered too, on
    // a lane of its own.
    let project_config = h.path("opencode.json");
    let mut fields = json!({});
    if h.agent.id == "opencode" {
        let key = super::agents::OPENCODE_PROJECT_KEY;
        let config = json!({ "provider": { "scripted": { "options": { "apiKey": key } } } });
        std::fs::write(&project_config, config.to_string()).unwrap();
        fields = json!({ "env": { "OPENROUTER_API_KEY": "sk-or-conformance" } });
    }
    // Codex with an OpenAI key beside its configured provider's: the thread takes
    // the endpoint of the provider Codex calls, its own beside OpenAI's.
    if h.agent.id == "codex" {
        fields = json!({ "env": { "OPENAI_API_KEY": "sk-openai-conformance" } });
    }
    let session = h.create_with("default", fields);
    h.turn(&session, "hello metered\nusage: cache_read=20 reasoning=7");
    // An agent may make a call of its own around the turn's end (Qwen Code's
    // check of who speaks next): its `model.usage` can follow `turn.ended`. The
    // server's log and the session's transcript are compared once they hold
    // the same number of calls, or after 10 s.
    let deadline = Instant::now() + Duration::from_secs(10);
    let (requests, events) = loop {
        let requests = h.model_requests();
        let events = h.events(&session);
        let metered = events.iter().filter(|e| e["type"] == "model.usage").count();
        if metered == requests.len() || Instant::now() > deadline {
            break (requests, events);
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let calls: Vec<&Value> = events
        .iter()
        .filter(|event| event["type"] == "model.usage")
        .map(|event| &event["data"])
        .collect();
    assert!(!requests.is_empty(), "{}: no model call", h.agent.id);

    // Every request reached the server with the real key, never the token.
    for request in &requests {
        let headers = request["headers"].to_string();
        assert!(
            !headers.contains("apx_"),
            "the token went upstream: {request}"
        );
        let key = ["sk-scripted", "scripted-key"]
            .iter()
            .any(|key| headers.contains(key))
            || request["query"]
                .as_str()
                .is_some_and(|query| query.contains("scripted-key"));
        assert!(
            key,
            "{}: the real key did not arrive: {request}",
            h.agent.id
        );
        if h.agent.id == "opencode" {
            let key = super::agents::OPENCODE_PROJECT_KEY;
            assert!(headers.contains(key), "not the project's key: {request}");
        }
        // What Codex's provider adds to each call reaches it through the gateway.
        if h.agent.id == "codex" {
            let query = request["query"].as_str().unwrap_or_default();
            let wanted = format!("api-version={}", super::agents::CODEX_QUERY);
            assert!(query.contains(&wanted), "no {wanted}: {request}");
            assert!(
                headers.contains(super::agents::CODEX_HEADER),
                "no x-scripted-team header: {request}"
            );
        }
    }

    // One model.usage per call, with the counts the server reported, each
    // model's as many times as it was asked.
    let mut sent: BTreeMap<(String, [u64; 5]), usize> = BTreeMap::new();
    for request in &requests {
        let model = request["model"].as_str().unwrap_or_default().to_owned();
        *sent.entry((model, counts(&request["usage"]))).or_default() += 1;
    }
    let mut metered: BTreeMap<(String, [u64; 5]), usize> = BTreeMap::new();
    for call in &calls {
        let model = call["model"].as_str().unwrap().to_owned();
        *metered.entry((model, counts(call))).or_default() += 1;
    }
    assert_eq!(
        metered,
        sent,
        "{}: metered calls differ from what the server sent\n{}",
        h.agent.id,
        pretty(&events)
    );

    // Each call's cost is the table's, and the turn's usage the sum of the
    // calls metered before it ended.
    let ended = events
        .iter()
        .find(|event| event["type"] == "turn.ended")
        .expect("turn.ended");
    let mut total = [0u64; 2];
    for event in events.iter().filter(|e| e["type"] == "model.usage") {
        let call = &event["data"];
        let cost = call["cost_usd"].as_f64().unwrap_or_else(|| {
            panic!(
                "{}: {} is not in the check's table: {call}",
                h.agent.id, call["model"]
            )
        });
        let counts = counts(call);
        assert!((cost - expected_cost(counts)).abs() < 1e-12, "{call}");
        assert_eq!(call["status"], 200, "{call}");
        assert_eq!(call["complete"], true, "{call}");
        if event["sequence"].as_u64() < ended["sequence"].as_u64() {
            total[0] += counts[0];
            total[1] += counts[1];
        }
    }
    assert_eq!(ended["data"]["usage"]["input_tokens"], total[0], "{ended}");
    assert_eq!(ended["data"]["usage"]["output_tokens"], total[1], "{ended}");
    let info = h.api().get_ok(&format!("/v1/sessions/{session}"));
    assert_eq!(info["usage"]["metered"], true, "{info}");
    assert_eq!(info["usage"]["total"]["modelCalls"], calls.len(), "{info}");
    let _ = std::fs::remove_file(project_config);
}

/// A session's token budget on a real agent: capped at what its first turn spent,
/// the next turn's call never reaches the model server, the session gets a
/// `budget.reached` (session, refused) and the turn ends; raised, the next turn
/// goes through and answers.
pub fn budget_stops_a_turn(h: &mut Harness) {
    let _prices = through_the_gateway(h);
    let session = h.create("default");
    h.turn(&session, "hello budget");
    let info = h.api().get_ok(&format!("/v1/sessions/{session}"));
    let total = &info["usage"]["total"];
    let tokens = |name: &str| total[name].as_u64().unwrap_or_else(|| panic!("{info}"));
    let spent = tokens("inputTokens") + tokens("outputTokens");
    assert!(
        spent > 0,
        "{}: the first turn spent nothing: {info}",
        h.agent.id
    );
    set_budget(h, &session, spent);

    let calls = h.model_requests().len();
    let offset = h.last_sequence(&session);
    let ended = h.turn(&session, "hello over budget");
    let reached = h.wait_for_type(&session, offset, "budget.reached");
    let reached = &reached.last().unwrap()["data"];
    assert_eq!(
        h.model_requests().len(),
        calls,
        "{}: a call past the budget reached the model server\n{}",
        h.agent.id,
        pretty(&ended)
    );
    assert_eq!(reached["scope"], "session", "{reached}");
    assert_eq!(reached["action"], "refused", "{reached}");
    assert_eq!(reached["limit"], "tokens", "{reached}");
    assert_eq!(reached["max_tokens"], spent, "{reached}");

    // Room for a call as the gateway estimates it before it goes out (the whole
    // prompt the agent sends, which the scripted usage counts far below).
    set_budget(h, &session, spent + 1_000_000);
    let events = h.turn(&session, "hello within budget");
    assert!(
        h.model_requests().len() > calls,
        "{}: no call after the budget was raised\n{}",
        h.agent.id,
        pretty(&h.events(&session))
    );
    assert!(
        !assistant_texts(&events).is_empty(),
        "{}: no answer after the budget was raised: {:?}\n{}",
        h.agent.id,
        types(&events),
        pretty(&events)
    );
}

/// `PUT /v1/sessions/{session}/budget` with a cap of `max_tokens`.
fn set_budget(h: &Harness, session: &str, max_tokens: u64) {
    let url = h
        .sandbox
        .daemon
        .url(&format!("/v1/sessions/{session}/budget"));
    let cap = serde_json::json!({ "maxTokens": max_tokens });
    let response = h.api().client().put(url).json(&cap).send().unwrap();
    assert_eq!(ok_json(response), cap);
}
