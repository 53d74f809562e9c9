//! One rule for every JSON request body: it is one JSON object, and a field the
//! route does not know is refused with `400` `invalid_request` naming it, at any
//! depth. `null` stands for no body where a body is optional, and a whole number
//! may be written with a fraction of zero (JSON Schema's integers).

use std::collections::BTreeSet;

use super::*;

/// A body every JSON route reads (each route parses its body before it looks up
/// what the path names, so none of these needs a session or a process). Every
/// route is a `POST` but the ones [`PUT_ROUTES`] names.
fn body_routes() -> Vec<(&'static str, Value)> {
    vec![
        ("/v1/sessions/s/budget", json!({ "maxTokens": 1 })),
        ("/v1/sessions/s/policy", json!({ "rules": [] })),
        ("/v1/sessions/s/modes", json!({ "agentMode": "plan" })),
        ("/v1/agents/mock/install", json!({ "reinstall": true })),
        (
            "/v1/registry/mock",
            json!({ "env": ["X"], "reinstall": true }),
        ),
        ("/v1/sessions/s", json!({ "agent": "mock" })),
        ("/v1/sessions/s/messages", json!({ "message": "hi" })),
        ("/v1/sessions/s/messages/stream", json!({ "message": "hi" })),
        ("/v1/sessions/s/questions/q/reply", json!({ "answers": [] })),
        (
            "/v1/sessions/s/permissions/p/reply",
            json!({ "reply": "once" }),
        ),
        ("/v1/fs/move", json!({ "from": "a", "to": "b" })),
        ("/v1/processes", json!({ "command": "true" })),
        ("/v1/processes/run", json!({ "command": "true" })),
        ("/v1/processes/p/input", json!({ "data": "" })),
        (
            "/v1/processes/p/terminal/resize",
            json!({ "cols": 80, "rows": 24 }),
        ),
        ("/v1/desktop/start", json!({ "width": 640 })),
        ("/v1/desktop/mouse/move", json!({ "x": 1, "y": 1 })),
        ("/v1/desktop/mouse/click", json!({ "x": 1, "y": 1 })),
        ("/v1/desktop/mouse/down", json!({ "button": "left" })),
        ("/v1/desktop/mouse/up", json!({ "button": "left" })),
        (
            "/v1/desktop/mouse/drag",
            json!({ "startX": 1, "startY": 1, "endX": 2, "endY": 2 }),
        ),
        ("/v1/desktop/mouse/scroll", json!({ "x": 1, "y": 1 })),
        ("/v1/desktop/keyboard/type", json!({ "text": "a" })),
        ("/v1/desktop/keyboard/press", json!({ "key": "a" })),
        ("/v1/desktop/keyboard/down", json!({ "key": "a" })),
        ("/v1/desktop/keyboard/up", json!({ "key": "a" })),
        ("/v1/desktop/clipboard", json!({ "text": "a" })),
        ("/v1/desktop/windows/p/move", json!({ "x": 1, "y": 1 })),
        (
            "/v1/desktop/windows/p/resize",
            json!({ "width": 10, "height": 10 }),
        ),
        ("/v1/desktop/launch", json!({ "app": "true" })),
        ("/v1/desktop/open", json!({ "target": "a" })),
        ("/v1/desktop/recording/start", json!({ "fps": 5 })),
    ]
}

/// The routes of [`body_routes`] that take their body with `PUT`.
const PUT_ROUTES: &[&str] = &[
    "/v1/sessions/s/budget",
    "/v1/sessions/s/policy",
    "/v1/sessions/s/modes",
];

/// Sends `body` to `path` of `daemon` (without a token) with the route's method.
fn send(api: &Api, daemon: &Daemon, path: &str, body: Value) -> reqwest::blocking::Response {
    if PUT_ROUTES.contains(&path) {
        let request = api.client().put(daemon.url(path)).json(&body);
        return request.send().expect("PUT");
    }
    api.post_json(path, body)
}

/// The routes whose body the document says is JSON (but ACP's), with their path
/// parameters filled as [`body_routes`] fills them.
fn documented_json_routes(api: &Api) -> BTreeSet<String> {
    let document = api.get_ok("/v1/openapi.json");
    let mut routes = BTreeSet::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        // ACP's JSON-RPC messages follow JSON-RPC's rules (errors are JSON-RPC
        // answers, unknown fields are extensions): http_api/acp.rs tests them.
        if path.starts_with("/v1/acp/") || path.starts_with("/acp/") {
            continue;
        }
        for operation in item.as_object().unwrap().values() {
            if !operation["requestBody"]["content"]["application/json"].is_null() {
                let filled = path
                    .replace("{agent}", "mock")
                    .replace("{session_id}", "s")
                    .replace("{question_id}", "q")
                    .replace("{permission_id}", "p")
                    .replace("{id}", "p");
                routes.insert(filled);
            }
        }
    }
    routes
}

fn refused_naming(response: reqwest::blocking::Response, field: &str) {
    let problem = expect_problem(response, 400, "invalid_request");
    let detail = problem["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains(&format!("unknown field `{field}`")),
        "{problem}"
    );
}

#[test]
fn every_json_body_refuses_an_unknown_field_naming_it() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    let tested: BTreeSet<String> = body_routes()
        .iter()
        .map(|(path, _)| path.to_string())
        .collect();
    assert_eq!(
        tested,
        documented_json_routes(&api),
        "every route with a JSON body is in body_routes()"
    );
    for (path, mut body) in body_routes() {
        body["colour"] = json!("red");
        refused_naming(send(&api, &daemon, path, body), "colour");
    }
    // Nothing was created or run by the refusals.
    assert_eq!(api.get_ok("/v1/sessions")["sessions"], json!([]));
    assert_eq!(api.get_ok("/v1/processes")["processes"], json!([]));
}

#[test]
fn objects_inside_a_body_refuse_unknown_fields_too() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    let local = json!({ "type": "local", "command": "x", "colour": 1 });
    let remote = json!({ "type": "remote", "url": "http://127.0.0.1:9", "colour": 1 });
    let nested = [
        json!({ "agent": "mock", "mcp": { "calc": local } }),
        json!({ "agent": "mock", "mcp": { "web": remote } }),
        json!({ "agent": "mock", "skills": { "sources": [], "colour": 1 } }),
        json!({ "agent": "mock", "skills": { "sources": [{ "type": "local", "source": ".", "colour": 1 }] } }),
    ];
    for body in nested {
        refused_naming(api.post_json("/v1/sessions/s", body), "colour");
    }
    // OAuth settings are one of two shapes (settings, or a boolean): refused all the same.
    let oauth = json!({ "type": "remote", "url": "http://127.0.0.1:9", "oauth": { "colour": 1 } });
    expect_problem(
        api.post_json(
            "/v1/sessions/s",
            json!({ "agent": "mock", "mcp": { "web": oauth } }),
        ),
        400,
        "invalid_request",
    );
    api.create("s", "mock");
    let messages = [
        json!({ "message": "hi", "attachments": [{ "path": "a.txt", "colour": 1 }] }),
        json!({ "parts": [{ "type": "text", "text": "hi", "colour": 1 }] }),
        json!({ "parts": [{ "type": "file", "path": "a.txt", "colour": 1 }] }),
    ];
    for body in messages {
        refused_naming(api.post_json("/v1/sessions/s/messages", body), "colour");
    }
    assert_eq!(api.events("s").len(), 1, "no message was sent");
}

#[test]
fn a_body_is_one_json_object() {
    // Installs would download from this mirror; nothing listens there.
    let daemon = Daemon::start_with(Options {
        args: [
            "--install-source",
            "release",
            "--releases-mirror",
            "http://127.0.0.1:9",
        ]
        .map(String::from)
        .to_vec(),
        ..Options::default()
    });
    let api = Api::new(&daemon);
    // serde would read a struct from an array of its fields: `[null, null]` was an
    // install with no options, and `["mock"]` a session of the mock agent.
    for (path, body) in [
        ("/v1/agents/claude/install", "[null, null]"),
        ("/v1/agents/claude/install", "[]"),
        ("/v1/sessions/s", "[\"mock\"]"),
        ("/v1/processes/run", "[\"true\"]"),
        ("/v1/fs/move", "\"a\""),
    ] {
        let problem = expect_problem(api.post_raw(path, body), 400, "invalid_request");
        assert_eq!(
            problem["detail"], "the body must be a JSON object",
            "{path} {body}"
        );
    }
    assert_eq!(api.get_ok("/v1/sessions")["sessions"], json!([]));
    // Where the body is optional, `null` is no body.
    expect_no_content(api.post_raw("/v1/agents/mock/install", "null"), "install");
    expect_no_content(api.post_raw("/v1/agents/mock/install", " "), "install");
}

#[test]
fn whole_numbers_may_be_written_with_a_fraction() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    let run = ok_json(api.post_json(
        "/v1/processes/run",
        json!({ "command": "true", "timeoutMs": 5000.0, "maxOutputBytes": 64.0 }),
    ));
    assert_eq!(run["exitCode"], 0, "{run}");
    let problem = expect_problem(
        api.post_json(
            "/v1/processes/run",
            json!({ "command": "true", "timeoutMs": 5000.5 }),
        ),
        400,
        "invalid_request",
    );
    assert!(
        problem["detail"].as_str().unwrap().contains("timeoutMs"),
        "the field is named: {problem}"
    );
}
