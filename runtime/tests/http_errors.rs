//! The edges of the HTTP API against the real daemon binary: every error code the
//! mock can trigger as a problem document, authentication, CORS, body limits,
//! bodiless POSTs, the one rule for request bodies, and the OpenAPI route.

mod common;
#[path = "http_errors/documented_refusals.rs"]
mod documented_refusals;
#[path = "http_errors/refused_bodies.rs"]
mod refused_bodies;
#[path = "http_errors/request_bodies.rs"]
mod request_bodies;

use common::api::*;
use common::sse::{streaming_client, SseStream};
use common::{Daemon, Options};
use reqwest::header::{HeaderMap, AUTHORIZATION, CONTENT_TYPE};
use serde_json::{json, Value};

/// The session routes, with a method, an example path and a body where one is needed.
fn session_routes(id: &str) -> Vec<(&'static str, String, Option<Value>)> {
    let s = format!("/v1/sessions/{id}");
    vec![
        (
            "POST",
            format!("{s}/messages"),
            Some(json!({ "message": "hi" })),
        ),
        (
            "POST",
            format!("{s}/messages/stream"),
            Some(json!({ "message": "hi" })),
        ),
        ("GET", format!("{s}/events"), None),
        ("GET", format!("{s}/events/sse"), None),
        (
            "POST",
            format!("{s}/questions/q1/reply"),
            Some(json!({ "answers": [["a"]] })),
        ),
        ("POST", format!("{s}/questions/q1/reject"), None),
        (
            "POST",
            format!("{s}/permissions/p1/reply"),
            Some(json!({ "reply": "once" })),
        ),
        ("POST", format!("{s}/cancel"), None),
        ("POST", format!("{s}/terminate"), None),
    ]
}

fn request(
    api: &Api,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> reqwest::blocking::Response {
    match (method, body) {
        ("GET", _) => api.get(path),
        ("POST", Some(body)) => api.post_json(path, body.clone()),
        ("POST", None) => api.post_empty(path),
        _ => unreachable!(),
    }
}

#[test]
fn health_agents_and_openapi() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    let health = api.get_ok("/v1/health");
    assert_eq!(health["status"], "ok");
    assert!(health["version"].is_string(), "{health}");

    let mock = api.agent("mock");
    assert_eq!(mock["installed"], true);
    assert!(mock["credentialsAvailable"].is_boolean());
    assert!(
        mock["adapterVersion"]
            .as_str()
            .is_some_and(|v| !v.is_empty()),
        "{mock}"
    );
    for capability in [
        "planMode",
        "permissions",
        "questions",
        "toolCalls",
        "toolResults",
        "textMessages",
        "images",
        "fileAttachments",
        "sessionLifecycle",
        "errorEvents",
        "reasoning",
        "status",
        "commandExecution",
        "fileChanges",
        "mcpTools",
        "streamingDeltas",
        "itemStarted",
        "sharedProcess",
    ] {
        assert!(
            mock["capabilities"][capability].is_boolean(),
            "capability {capability}: {mock}"
        );
    }
    let modes = api.get_ok("/v1/agents/mock/modes");
    let ids: Vec<&str> = modes["modes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"build") && ids.contains(&"plan"), "{modes}");
    let models = api.get_ok("/v1/agents/mock/models");
    assert!(
        models["models"].as_array().is_some_and(|m| !m.is_empty()),
        "{models}"
    );

    let doc = api.get_ok("/v1/openapi.json");
    assert!(
        doc["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.1")),
        "OpenAPI 3.1: {}",
        doc["openapi"]
    );
    let paths = doc["paths"].as_object().expect("paths");
    // Parameter names are the document's business; compare with `{}` placeholders.
    let normalized: Vec<(String, &Value)> = paths
        .iter()
        .map(|(path, item)| (placeholders(path), item))
        .collect();
    let routes = [
        ("get", "/v1/health"),
        ("get", "/v1/openapi.json"),
        ("get", "/v1/agents"),
        ("get", "/v1/agents/{}/modes"),
        ("get", "/v1/agents/{}/models"),
        ("post", "/v1/agents/{}/install"),
        ("get", "/v1/sessions"),
        ("post", "/v1/sessions/{}"),
        ("post", "/v1/sessions/{}/messages"),
        ("post", "/v1/sessions/{}/messages/stream"),
        ("get", "/v1/sessions/{}/events"),
        ("get", "/v1/sessions/{}/events/sse"),
        ("post", "/v1/sessions/{}/questions/{}/reply"),
        ("post", "/v1/sessions/{}/questions/{}/reject"),
        ("post", "/v1/sessions/{}/permissions/{}/reply"),
        ("post", "/v1/sessions/{}/cancel"),
        ("post", "/v1/sessions/{}/terminate"),
    ];
    for (method, route) in routes {
        let item = normalized
            .iter()
            .find(|(path, _)| path == route)
            .unwrap_or_else(|| {
                panic!(
                    "{route} missing from the OpenAPI paths: {:?}",
                    paths.keys().collect::<Vec<_>>()
                )
            })
            .1;
        assert!(
            item.get(method).is_some(),
            "{method} {route} missing from the OpenAPI document"
        );
    }
}

fn placeholders(path: &str) -> String {
    let mut out = String::new();
    let mut in_param = false;
    for c in path.chars() {
        match c {
            '{' => {
                in_param = true;
                out.push_str("{}");
            }
            '}' => in_param = false,
            c if !in_param => out.push(c),
            _ => {}
        }
    }
    out
}

#[test]
fn bad_requests_are_invalid_request_problems() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    // Bad JSON, missing and mistyped fields.
    expect_problem(
        api.post_raw("/v1/sessions/s", "{\"agent\":"),
        400,
        "invalid_request",
    );
    expect_problem(
        api.post_raw("/v1/sessions/s", "not json"),
        400,
        "invalid_request",
    );
    expect_problem(
        api.post_json("/v1/sessions/s", json!({})),
        400,
        "invalid_request",
    );
    expect_problem(
        api.post_json("/v1/sessions/s", json!({ "agent": 7 })),
        400,
        "invalid_request",
    );
    // Bad session ids.
    expect_problem(
        api.post_json("/v1/sessions/bad%20id!", json!({ "agent": "mock" })),
        400,
        "invalid_request",
    );
    let long = "x".repeat(129);
    expect_problem(
        api.post_json(&format!("/v1/sessions/{long}"), json!({ "agent": "mock" })),
        400,
        "invalid_request",
    );
    expect_problem(
        api.post_json("/v1/sessions/%C3%BC", json!({ "agent": "mock" })),
        400,
        "invalid_request",
    );

    // An unknown permission mode is a bad request (0.1.x: "invalid permission mode").
    let problem = api.post_json(
        "/v1/sessions/s",
        json!({ "agent": "mock", "permissionMode": "sometimes" }),
    );
    expect_problem(problem, 400, "invalid_request");

    // Nothing was created by the failures above.
    assert_eq!(api.get_ok("/v1/sessions")["sessions"], json!([]));

    api.create("s", "mock");
    // A message needs text or parts; the body must be JSON of the right shape.
    expect_problem(
        api.post_json("/v1/sessions/s/messages", json!({})),
        400,
        "invalid_request",
    );
    expect_problem(
        api.post_json("/v1/sessions/s/messages", json!({ "message": ["x"] })),
        400,
        "invalid_request",
    );
    expect_problem(
        api.post_raw("/v1/sessions/s/messages", "{"),
        400,
        "invalid_request",
    );
    expect_problem(
        api.post_json("/v1/sessions/s/messages/stream", json!({})),
        400,
        "invalid_request",
    );
    // Bad query values.
    expect_problem(
        api.get("/v1/sessions/s/events?offset=abc"),
        400,
        "invalid_request",
    );
    expect_problem(
        api.get("/v1/sessions/s/events?limit=-1"),
        400,
        "invalid_request",
    );
    expect_problem(
        api.get("/v1/sessions/s/events?include_raw=maybe"),
        400,
        "invalid_request",
    );
    // Bad replies.
    expect_problem(
        api.post_raw("/v1/sessions/s/permissions/p/reply", "{\"reply\":"),
        400,
        "invalid_request",
    );
    expect_problem(
        api.post_json(
            "/v1/sessions/s/permissions/p/reply",
            json!({ "reply": "never" }),
        ),
        400,
        "invalid_request",
    );
    expect_problem(
        api.post_json("/v1/sessions/s/questions/q/reply", json!({})),
        400,
        "invalid_request",
    );
    // None of this disturbed the session.
    assert_eq!(api.events("s").len(), 1);
}

#[test]
fn agents_modes_and_sessions_errors() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);

    let problem = expect_problem(
        api.post_json("/v1/sessions/a", json!({ "agent": "nope" })),
        400,
        "unsupported_agent",
    );
    assert_eq!(problem["agent"], "nope", "{problem}");
    // An unknown agent in the path is a resource that is not there: 404, same code.
    expect_problem(api.get("/v1/agents/nope/modes"), 404, "unsupported_agent");
    expect_problem(api.get("/v1/agents/nope/models"), 404, "unsupported_agent");
    expect_problem(
        api.post_empty("/v1/agents/nope/install"),
        404,
        "unsupported_agent",
    );

    let body = json!({ "agent": "mock", "agentMode": "nonexistent" });
    expect_problem(
        api.post_json("/v1/sessions/a", body),
        400,
        "mode_not_supported",
    );

    // The failed creations left nothing behind: the id is still free.
    assert_eq!(api.get_ok("/v1/sessions")["sessions"], json!([]));
    api.create("a", "mock");
    let problem = expect_problem(
        api.post_json("/v1/sessions/a", json!({ "agent": "mock" })),
        409,
        "session_already_exists",
    );
    assert_eq!(problem["sessionId"], "a");
    assert_eq!(
        api.events("a").len(),
        1,
        "the existing session is untouched"
    );

    // Every session route answers session_not_found for an unknown id.
    for (method, path, body) in session_routes("missing") {
        let problem = expect_problem(
            request(&api, method, &path, body.as_ref()),
            404,
            "session_not_found",
        );
        assert_eq!(
            problem["sessionId"], "missing",
            "{method} {path}: {problem}"
        );
    }

    // Unknown routes and methods.
    expect_problem(api.get("/v1/nope"), 404, "not_found");
    expect_problem(api.get("/nope"), 404, "not_found");
    expect_problem(api.get("/v1/sessions/a/nope"), 404, "not_found");
    let delete = api
        .client()
        .delete(daemon.url("/v1/sessions"))
        .send()
        .unwrap();
    expect_problem(delete, 405, "method_not_allowed");
    expect_problem(
        api.get("/v1/sessions/a/messages"),
        405,
        "method_not_allowed",
    );
    expect_problem(
        api.get("/v1/sessions/a/terminate"),
        405,
        "method_not_allowed",
    );
    let put = api.client().put(daemon.url("/v1/health")).send().unwrap();
    expect_problem(put, 405, "method_not_allowed");
}

#[test]
fn bodiless_posts_accept_an_empty_body_without_content_type() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    expect_no_content(api.post_empty("/v1/agents/mock/install"), "install");
    expect_no_content(
        api.post_json("/v1/agents/mock/install", json!({})),
        "install {}",
    );
    api.create("e", "mock");
    expect_no_content(api.post_empty("/v1/sessions/e/cancel"), "cancel");
    expect_no_content(
        api.post_json("/v1/sessions/e/cancel", json!({})),
        "cancel {}",
    );
    let offset = api.last_sequence("e");
    api.send("e", "question");
    api.wait_for_type("e", offset, "question.requested");
    expect_no_content(
        api.post_empty("/v1/sessions/e/questions/mock_1_question/reject"),
        "reject",
    );
    api.wait_for_type("e", offset, "turn.ended");
    // A JSON content type with an empty body, as some clients send.
    let empty_json = api
        .client()
        .post(daemon.url("/v1/sessions/e/terminate"))
        .header(CONTENT_TYPE, "application/json")
        .send()
        .unwrap();
    expect_no_content(empty_json, "terminate");
    expect_no_content(
        api.post_empty("/v1/sessions/e/terminate"),
        "terminate again",
    );
    assert_eq!(api.events("e").last().unwrap()["type"], "session.ended");
}

#[test]
fn the_token_guards_every_route_but_health_and_the_document() {
    let token = "s3cret-token";
    let daemon = Daemon::start_with(Options {
        token: Some(token.into()),
        args: vec![],
        ..Options::default()
    });
    let api = Api::new(&daemon); // sends the token
    let anonymous = reqwest::blocking::Client::new();
    let url = |path: &str| daemon.url(path);

    // Health and the API's description are open.
    let health = anonymous.get(url("/v1/health")).send().unwrap();
    assert_eq!(health.status(), 200);
    let document = anonymous.get(url("/v1/openapi.json")).send().unwrap();
    assert_eq!(document.status(), 200);

    // Missing, wrong, or malformed credentials.
    for headers in [
        vec![],
        vec![(AUTHORIZATION.as_str(), "Bearer wrong")],
        vec![(AUTHORIZATION.as_str(), "Bearer s3cret-token-and-more")],
        vec![(AUTHORIZATION.as_str(), "Bearer s3cret")],
        vec![(AUTHORIZATION.as_str(), "Basic czNjcmV0LXRva2Vu")],
        vec![(AUTHORIZATION.as_str(), token)],
        vec![("x-sandbox-token", "wrong")],
        vec![("x-sandbox-token", "")],
    ] {
        let mut map = HeaderMap::new();
        for (name, value) in &headers {
            map.insert(
                reqwest::header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        let response = anonymous
            .get(url("/v1/sessions"))
            .headers(map)
            .send()
            .unwrap();
        let challenge = response.headers().get("www-authenticate").cloned();
        expect_problem(response, 401, "token_invalid");
        assert_eq!(
            challenge.as_ref().and_then(|v| v.to_str().ok()),
            Some("Bearer realm=\"sandbox-agent\""),
            "a 401 names the scheme"
        );
    }
    // Both header forms work.
    assert_eq!(
        anonymous
            .get(url("/v1/sessions"))
            .bearer_auth(token)
            .send()
            .unwrap()
            .status(),
        200
    );
    assert_eq!(
        anonymous
            .get(url("/v1/sessions"))
            .header("x-sandbox-token", token)
            .send()
            .unwrap()
            .status(),
        200
    );

    // Every other route needs it, creating a session included (and nothing is created).
    let create = anonymous
        .post(url("/v1/sessions/t"))
        .json(&json!({ "agent": "mock" }))
        .send()
        .unwrap();
    expect_problem(create, 401, "token_invalid");
    for path in [
        "/v1/agents",
        "/v1/agents/mock/modes",
        "/v1/agents/mock/models",
        "/v1/sessions",
        "/v1/fs/entries",
        "/v1/fs/stat?path=x",
        "/v1/fs/file?path=x",
    ] {
        expect_problem(
            anonymous.get(url(path)).send().unwrap(),
            401,
            "token_invalid",
        );
    }
    expect_problem(
        anonymous
            .post(url("/v1/agents/mock/install"))
            .send()
            .unwrap(),
        401,
        "token_invalid",
    );
    assert_eq!(api.get_ok("/v1/sessions")["sessions"], json!([]));

    api.create("t", "mock");
    for (method, path, body) in session_routes("t") {
        let builder = match method {
            "GET" => anonymous.get(url(&path)),
            _ => anonymous.post(url(&path)),
        };
        let builder = match body {
            Some(body) => builder.json(&body),
            None => builder,
        };
        let response = builder.header("x-sandbox-token", "wrong").send().unwrap();
        expect_problem(response, 401, "token_invalid");
    }
    assert_eq!(api.events("t").len(), 1, "rejected requests did nothing");
    assert_eq!(api.session_info("t")["ended"], false);

    // The SSE routes accept the token, either way.
    let client = streaming_client();
    let sse = |builder: reqwest::blocking::RequestBuilder| SseStream::open(builder).take(1);
    let first = sse(client
        .get(url("/v1/sessions/t/events/sse"))
        .header("x-sandbox-token", token));
    assert_eq!(first[0]["type"], "session.started");
    let first = sse(client
        .get(url("/v1/sessions/t/events/sse"))
        .bearer_auth(token));
    assert_eq!(first[0]["type"], "session.started");
    let events = SseStream::open(
        client
            .post(url("/v1/sessions/t/messages/stream"))
            .bearer_auth(token)
            .json(&json!({ "message": "hi" })),
    )
    .read_to_end();
    assert_eq!(events.last().unwrap()["type"], "turn.ended");
}

#[test]
fn request_bodies_are_limited() {
    let daemon = Daemon::start_with(Options {
        token: None,
        args: vec!["--body-limit".into(), "1000".into()],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let big = "x".repeat(2000);
    expect_problem(
        api.post_json("/v1/sessions/big", json!({ "agent": "mock", "title": big })),
        413,
        "payload_too_large",
    );
    assert_eq!(api.get_ok("/v1/sessions")["sessions"], json!([]));
    api.create("big", "mock");
    expect_problem(
        api.post_json("/v1/sessions/big/messages", json!({ "message": big })),
        413,
        "payload_too_large",
    );
    expect_problem(
        api.post_json(
            "/v1/sessions/big/messages/stream",
            json!({ "message": big }),
        ),
        413,
        "payload_too_large",
    );
    let big_answer = json!({ "answers": [[big]] });
    expect_problem(
        api.post_json("/v1/sessions/big/questions/q/reply", big_answer),
        413,
        "payload_too_large",
    );
    // Small requests still work.
    let turn = api.turn("big", "small enough");
    assert_eq!(assistant_texts(&turn), ["small enough"]);
}

#[test]
fn cors_is_off_by_default() {
    let daemon = Daemon::start();
    let client = reqwest::blocking::Client::new();
    let preflight = client
        .request(
            reqwest::Method::OPTIONS,
            daemon.url("/v1/sessions/x/messages"),
        )
        .header("Origin", "http://example.test")
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "content-type")
        .send()
        .unwrap();
    assert_no_cors_headers(preflight.headers());
    let get = client
        .get(daemon.url("/v1/health"))
        .header("Origin", "http://example.test")
        .send()
        .unwrap();
    assert_eq!(get.status(), 200);
    assert_no_cors_headers(get.headers());
}

#[track_caller]
fn assert_no_cors_headers(headers: &HeaderMap) {
    let cors: Vec<_> = headers
        .keys()
        .filter(|name| name.as_str().starts_with("access-control-"))
        .collect();
    assert!(cors.is_empty(), "no CORS headers expected, got {cors:?}");
}

#[test]
fn cors_answers_configured_origins() {
    let token = "cors-token";
    let args = vec!["--cors-allow-origin".into(), "http://example.test".into()];
    let daemon = Daemon::start_with(Options {
        token: Some(token.into()),
        args,
        ..Options::default()
    });
    let client = reqwest::blocking::Client::new();
    let preflight = |origin: &str| {
        client
            .request(
                reqwest::Method::OPTIONS,
                daemon.url("/v1/sessions/x/messages"),
            )
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .header(
                "Access-Control-Request-Headers",
                "authorization, content-type",
            )
            .send()
            .unwrap()
    };

    // A preflight needs no token.
    let response = preflight("http://example.test");
    assert!(
        response.status().is_success(),
        "preflight answered {}",
        response.status()
    );
    let headers = response.headers();
    let header = |name: &str| {
        headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_ascii_lowercase())
            .unwrap_or_default()
    };
    assert_eq!(header("access-control-allow-origin"), "http://example.test");
    assert!(
        header("access-control-allow-methods").contains("post"),
        "{headers:?}"
    );
    let allowed_headers = header("access-control-allow-headers");
    assert!(
        allowed_headers.contains("authorization") && allowed_headers.contains("content-type"),
        "{headers:?}"
    );

    // Actual requests carry the origin header too.
    let get = client
        .get(daemon.url("/v1/sessions"))
        .header("Origin", "http://example.test")
        .bearer_auth(token)
        .send()
        .unwrap();
    assert_eq!(get.status(), 200);
    assert_eq!(
        get.headers().get("access-control-allow-origin").unwrap(),
        "http://example.test"
    );

    // Other origins get no grant.
    let response = preflight("http://evil.test");
    assert!(
        response
            .headers()
            .get("access-control-allow-origin")
            .is_none(),
        "{:?}",
        response.headers()
    );
}

/// MCP servers and skills for an agent that cannot take them are refused with a 400
/// naming the capability (never dropped silently); a disabled server and an empty
/// skill list ask for nothing; a misspelt field and a malformed server are 400s.
#[test]
fn mcp_and_skills_are_refused_for_an_agent_without_them() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    let mock = api.agent("mock");
    assert_eq!(mock["capabilities"]["mcpServers"], json!(false), "{mock}");
    assert_eq!(mock["capabilities"]["skills"], json!(false), "{mock}");

    let server = json!({ "calc": { "type": "local", "command": ["node", "add.mjs"] } });
    let problem = expect_problem(
        api.post_json("/v1/sessions/m1", json!({ "agent": "mock", "mcp": server })),
        400,
        "invalid_request",
    );
    assert!(
        problem["detail"].as_str().unwrap().contains("mcp-servers"),
        "{problem}"
    );
    let skills = json!({ "sources": [{ "type": "local", "source": "/" }] });
    let problem = expect_problem(
        api.post_json(
            "/v1/sessions/m2",
            json!({ "agent": "mock", "skills": skills }),
        ),
        400,
        "invalid_request",
    );
    assert!(
        problem["detail"].as_str().unwrap().contains("skills"),
        "{problem}"
    );
    // Disabled servers and empty skill lists ask for nothing.
    let disabled = json!({ "calc": { "type": "local", "command": "x", "enabled": false } });
    let created = api.post_json(
        "/v1/sessions/m3",
        json!({ "agent": "mock", "mcp": disabled, "skills": { "sources": [] } }),
    );
    assert_eq!(ok_json(created)["healthy"], json!(true));
    // A misspelt field is refused, not ignored.
    let problem = expect_problem(
        api.post_json("/v1/sessions/m5", json!({ "agent": "mock", "mpc": {} })),
        400,
        "invalid_request",
    );
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("unknown field `mpc`"),
        "{problem}"
    );
    // A malformed server is a 400 from the body's schema.
    expect_problem(
        api.post_json(
            "/v1/sessions/m4",
            json!({ "agent": "mock", "mcp": { "x": { "type": "pipe" } } }),
        ),
        400,
        "invalid_request",
    );
}
