//! Authentication against every route of the served OpenAPI document (paths ×
//! methods, placeholders filled): no route answers, or acts, without the token,
//! whatever wrong credentials come (none, a wrong token of the same or another
//! length, the token in the query, which the daemon does not accept); the right
//! token works in both headers; request-target tricks reach no data; CORS
//! preflights grant every documented method to an allowed origin and nothing to
//! another; and the token never appears in the daemon's output, even at the
//! `trace` log level.

use std::time::Duration;

use reqwest::blocking::{Client, RequestBuilder, Response};
use reqwest::Method;
use serde_json::{json, Value};

use crate::common::api::Api;
use crate::common::{Daemon, Options};
use crate::support::{get_request, raw};

/// The daemon's token in these tests (32 characters, like `openssl rand -hex 16`).
const TOKEN: &str = "0123456789abcdef0123456789abcdef";
/// Wrong tokens: same length differing in the last character, shorter, longer.
const SAME_LENGTH: &str = "0123456789abcdef0123456789abcdeX";
const SHORTER: &str = "0123456789abcdef";
const LONGER: &str = "0123456789abcdef0123456789abcdef0";
/// Routes that answer without a token (docs/api.md, Authentication).
const OPEN: &[&str] = &["/v1/health", "/v1/openapi.json"];
/// What a file readable through `/v1/fs/file` holds: no answer without the token may show it.
const SECRET: &str = "contents only the token may read";

/// One operation of the document, ready to send.
struct Operation {
    method: Method,
    /// The path with its placeholders filled and its query.
    target: String,
    /// The document's path, to name the operation.
    route: String,
}

/// Adds credentials (or not) to a request.
type Present = Box<dyn Fn(RequestBuilder) -> RequestBuilder>;

/// Ways of presenting credentials that must all be refused.
fn wrong_credentials() -> Vec<(&'static str, Present)> {
    vec![
        ("no token", Box::new(|r| r)),
        (
            "Bearer, same length",
            Box::new(|r| r.bearer_auth(SAME_LENGTH)),
        ),
        ("Bearer, shorter", Box::new(|r| r.bearer_auth(SHORTER))),
        ("Bearer, longer", Box::new(|r| r.bearer_auth(LONGER))),
        (
            "x-sandbox-token, same length",
            Box::new(|r| r.header("x-sandbox-token", SAME_LENGTH)),
        ),
        (
            "Basic with the token",
            Box::new(|r| r.basic_auth(TOKEN, None::<&str>)),
        ),
        (
            "token in ?access_token",
            Box::new(|r| r.query(&[("access_token", TOKEN)])),
        ),
        (
            "token in ?token",
            Box::new(|r| r.query(&[("token", TOKEN)])),
        ),
    ]
}

/// Every operation of the served document, placeholders filled: sessions `s`,
/// agent `mock`, other ids `x`, a `path` query naming `file` (the secret file).
fn operations(document: &Value, file: &str) -> Vec<Operation> {
    let mut operations = Vec::new();
    let paths = document["paths"].as_object().expect("the document's paths");
    for (route, item) in paths {
        for (method, operation) in item.as_object().expect("a path item") {
            let Ok(method) = Method::from_bytes(method.to_ascii_uppercase().as_bytes()) else {
                continue;
            };
            let mut target = String::new();
            for segment in route.split('/').skip(1) {
                target.push('/');
                target.push_str(match segment {
                    "{session_id}" => "s",
                    "{agent}" => "mock",
                    s if s.starts_with('{') => "x",
                    s => s,
                });
            }
            let takes_path = operation["parameters"]
                .as_array()
                .is_some_and(|p| p.iter().any(|p| p["name"] == "path" && p["in"] == "query"));
            if takes_path {
                target.push_str(&format!("?path={file}"));
            }
            operations.push(Operation {
                method,
                target,
                route: route.clone(),
            });
        }
    }
    operations
}

/// A request for `operation` with a body that would act if it were let through.
fn request(client: &Client, daemon: &Daemon, operation: &Operation) -> RequestBuilder {
    let builder = client.request(operation.method.clone(), daemon.url(&operation.target));
    let body = if operation.target.ends_with("/messages")
        || operation.target.ends_with("/messages/stream")
    {
        json!({ "message": "sent without the token" })
    } else if operation.route == "/v1/sessions/{session_id}" {
        json!({ "agent": "mock" })
    } else {
        json!({})
    };
    match operation.method {
        Method::POST | Method::PUT => builder.json(&body),
        _ => builder,
    }
}

/// A 401 `token_invalid` problem that shows nothing it was sent.
#[track_caller]
fn assert_refused(response: Response, what: &str) {
    let status = response.status();
    let text = response.text().unwrap_or_default();
    assert_eq!(status, 401, "{what}: {text}");
    assert!(
        text.contains("urn:sandbox-agent:error:token_invalid"),
        "{what}: {text}"
    );
    for shown in [TOKEN, SAME_LENGTH, SECRET] {
        assert!(!text.contains(shown), "{what} shows {shown:?}: {text}");
    }
}

#[test]
fn no_documented_route_answers_or_acts_without_the_token() {
    let daemon = Daemon::start_with(Options {
        token: Some(TOKEN.into()),
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let files = tempfile::tempdir().unwrap();
    let file = files.path().join("secret.txt");
    std::fs::write(&file, SECRET).unwrap();
    api.create("s", "mock");
    let events_before = api.events("s").len();

    let client = Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let document: Value = client
        .get(daemon.url("/v1/openapi.json"))
        .send()
        .unwrap()
        .json()
        .expect("the document, without a token");
    let operations = operations(&document, file.to_str().unwrap());
    assert!(operations.len() >= 25, "{} operations", operations.len());

    let mut refused = 0;
    let mut open = 0;
    for operation in &operations {
        let name = format!("{} {}", operation.method, operation.route);
        if OPEN.contains(&operation.route.as_str()) {
            let response = request(&client, &daemon, operation).send().unwrap();
            assert_eq!(response.status(), 200, "{name} is open");
            open += 1;
            continue;
        }
        for (how, present) in wrong_credentials() {
            // The WebSockets take the token as `?access_token` (browsers cannot set
            // headers on a WebSocket): the documented exceptions, tested in
            // tests/processes/terminal.rs and tests/desktop_api.rs. ACP's
            // `/acp/{agent}` takes it only with the upgrade, which these requests
            // are not, so it is refused here (the socket: tests/http_api/acp.rs).
            let socket = operation.route.ends_with("/terminal/ws")
                || operation.route == "/v1/desktop/stream/ws";
            if how == "token in ?access_token" && socket {
                continue;
            }
            let response = present(request(&client, &daemon, operation))
                .send()
                .unwrap();
            assert_refused(response, &format!("{name} with {how}"));
            refused += 1;
        }
        if operation.method == Method::GET {
            let head = client.head(daemon.url(&operation.target)).send().unwrap();
            assert_eq!(head.status(), 401, "HEAD {}", operation.route);
            refused += 1;
        }
        // Without CORS configured, OPTIONS passes the token check but answers no data.
        let options = client
            .request(Method::OPTIONS, daemon.url(&operation.target))
            .send()
            .unwrap();
        let status = options.status();
        let text = options.text().unwrap();
        assert!(
            !status.is_success() || text.is_empty(),
            "OPTIONS {}: {status} {text}",
            operation.route
        );
    }
    // Nothing the refused requests asked for happened.
    assert_eq!(api.events("s").len(), events_before, "no message got in");
    let sessions = api.get_ok("/v1/sessions")["sessions"].clone();
    assert_eq!(sessions.as_array().map(Vec::len), Some(1), "{sessions}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), SECRET);

    // The right token, in either header, passes every route (what the route then
    // answers depends on the placeholders; the query never carries it).
    let mut passed = 0;
    for operation in &operations {
        for header in ["authorization", "x-sandbox-token"] {
            let value = match header {
                "authorization" => format!("Bearer {TOKEN}"),
                _ => TOKEN.to_owned(),
            };
            let response = request(&client, &daemon, operation)
                .header(header, value)
                .send()
                .unwrap();
            assert_ne!(
                response.status(),
                401,
                "{} {} with {header}",
                operation.method,
                operation.route
            );
            passed += 1;
        }
    }
    println!(
        "auth: {} operations; {refused} requests with wrong or missing credentials all 401, \
         {open} open operations answer, {passed} requests with the token pass",
        operations.len()
    );
}

#[test]
fn request_target_tricks_reach_no_data() {
    let daemon = Daemon::start_with(Options {
        token: Some(TOKEN.into()),
        ..Options::default()
    });
    // Spellings a router or a proxy might map to a protected route, or to an open one.
    for target in [
        "/v1/health/../sessions",
        "/v1/openapi.json/../sessions",
        "/v1/health/%2e%2e/sessions",
        "//v1/sessions",
        "/v1//sessions",
        "/v1/sessions/",
        "/V1/SESSIONS",
        "/v1/%73essions",
        "/v1/health%00/../sessions",
        "/ui/../v1/sessions",
        "/ui/%2e%2e/v1/sessions",
        "http://127.0.0.1/v1/sessions",
        "*",
    ] {
        for credentials in [vec![], vec![format!("Authorization: Bearer {SAME_LENGTH}")]] {
            let outcome = raw(
                daemon.port,
                &get_request(target, &credentials),
                Duration::from_secs(30),
            );
            let status = outcome.status.unwrap_or(0);
            assert!(
                status == 401 || status == 400 || status == 404,
                "GET {target}: {}",
                outcome.response
            );
            assert!(
                !outcome.response.contains("\"sessions\""),
                "GET {target}: {}",
                outcome.response
            );
        }
    }
    // What the documentation leaves open is open: health, the document, the inspector.
    for open in ["/v1/health", "/v1/openapi.json", "/ui", "/ui/app.js"] {
        let outcome = raw(
            daemon.port,
            &get_request(open, &[]),
            Duration::from_secs(30),
        );
        assert_eq!(outcome.status, Some(200), "{open}: {}", outcome.response);
    }
}

#[test]
fn cors_preflights_grant_every_documented_method_to_allowed_origins_only() {
    let allowed = "http://allowed.test";
    let daemon = Daemon::start_with(Options {
        token: Some(TOKEN.into()),
        args: vec!["--cors-allow-origin".into(), allowed.into()],
        ..Options::default()
    });
    let client = Client::new();
    let document: Value = client
        .get(daemon.url("/v1/openapi.json"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let mut checked = 0;
    for operation in operations(&document, "x") {
        let preflight = |origin: &str| {
            client
                .request(Method::OPTIONS, daemon.url(&operation.target))
                .header("Origin", origin)
                .header("Access-Control-Request-Method", operation.method.as_str())
                .header(
                    "Access-Control-Request-Headers",
                    "authorization, content-type",
                )
                .send()
                .unwrap()
        };
        let name = format!("{} {}", operation.method, operation.route);
        let granted = preflight(allowed);
        assert!(
            granted.status().is_success(),
            "{name}: {}",
            granted.status()
        );
        let header = |name: &str| {
            granted
                .headers()
                .get(name)
                .map(|v| v.to_str().unwrap().to_ascii_uppercase())
                .unwrap_or_default()
        };
        assert_eq!(
            header("access-control-allow-origin"),
            allowed.to_uppercase()
        );
        assert!(
            header("access-control-allow-methods").contains(operation.method.as_str()),
            "{name}: {:?}",
            granted.headers()
        );
        assert!(header("access-control-allow-headers").contains("AUTHORIZATION"));

        let refused = preflight("http://other.test");
        assert!(
            refused
                .headers()
                .get("access-control-allow-origin")
                .is_none(),
            "{name}: {:?}",
            refused.headers()
        );
        // A cross-origin request still needs the token.
        if !OPEN.contains(&operation.route.as_str()) {
            let response = request(&client, &daemon, &operation)
                .header("Origin", allowed)
                .send()
                .unwrap();
            assert_refused(response, &format!("{name} from {allowed}"));
        }
        checked += 1;
    }
    println!("cors: {checked} operations preflighted from an allowed and another origin");
}

/// Runs a daemon at `level`, sends it right and wrong tokens in headers and in the
/// query, runs a turn with an SSE reader, stops it, and returns what it printed.
fn output_at_level(level: &str) -> String {
    let log = tempfile::NamedTempFile::new().unwrap();
    let daemon = Daemon::start_with(Options {
        token: Some(TOKEN.into()),
        env: vec![
            ("AGENTPLEX_LOG".into(), level.into()),
            ("RUST_LOG".into(), level.into()),
        ],
        output: Some(log.path().to_owned()),
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let client = Client::new();
    for token in [TOKEN, SAME_LENGTH, SHORTER] {
        for target in [
            "/v1/sessions",
            "/v1/sessions/none/events/sse",
            "/v1/processes/none/terminal/ws",
        ] {
            let url = daemon.url(target);
            let _ = client.get(&url).bearer_auth(token).send();
            let _ = client.get(&url).header("x-sandbox-token", token).send();
            let _ = client.get(&url).query(&[("access_token", token)]).send();
            let _ = client.get(&url).query(&[("token", token)]).send();
        }
    }
    api.create("logged", "mock");
    let sse = crate::common::sse::streaming_client()
        .get(daemon.url("/v1/sessions/logged/events/sse"))
        .bearer_auth(TOKEN)
        .send()
        .unwrap();
    assert_eq!(sse.status(), 200);
    api.turn("logged", "hello");
    drop(sse);
    assert!(daemon.stop().success());
    std::fs::read_to_string(log.path()).unwrap()
}

#[test]
fn the_token_never_appears_in_the_output() {
    for level in ["trace", "debug"] {
        let output = output_at_level(level);
        // The output is that of a verbose daemon, or this test proves nothing.
        assert!(
            output.contains("DEBUG") && output.contains("/v1/sessions"),
            "{level}: the daemon did not log its requests:\n{output}"
        );
        for token in [TOKEN, SAME_LENGTH, SHORTER] {
            assert!(
                !output.contains(token),
                "{level}: the output holds {token:?}:\n{}",
                output
                    .lines()
                    .filter(|line| line.contains(token))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
        println!(
            "logs at {level}: {} lines, {} bytes, no token",
            output.lines().count(),
            output.len()
        );
    }
}
