//! The web inspector's files at `/ui` against the real daemon binary: served without the
//! token (the page asks for it), with content types, cache validators and the security
//! headers, and kept out of the API's description. The page itself is tested in a browser
//! by `inspector/test/`.

mod common;

use common::{Daemon, Options};
use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};

#[test]
fn the_inspector_is_served_without_the_token() {
    let daemon = Daemon::start_with(Options {
        token: Some("ui-token".into()),
        args: vec![],
        ..Options::default()
    });
    let client = reqwest::blocking::Client::new();
    for (path, content_type, needle) in [
        ("/ui", "text/html; charset=utf-8", "src=\"ui/app.js\""),
        ("/ui/", "text/html; charset=utf-8", "src=\"app.js\""),
        (
            "/ui/app.js",
            "text/javascript; charset=utf-8",
            "sessionStorage",
        ),
        ("/ui/app.css", "text/css; charset=utf-8", ".transcript"),
    ] {
        let response = client.get(daemon.url(path)).send().unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let headers = response.headers().clone();
        assert_eq!(headers[CONTENT_TYPE], content_type, "{path}");
        assert_eq!(headers[CACHE_CONTROL], "no-cache", "{path}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        let policy = headers["content-security-policy"].to_str().unwrap();
        assert!(policy.contains("script-src 'self'"), "{path}: {policy}");
        assert!(response.text().unwrap().contains(needle), "{path}");
        let again = client
            .get(daemon.url(path))
            .header(IF_NONE_MATCH, headers[ETAG].clone())
            .send()
            .unwrap();
        assert_eq!(again.status(), 304, "{path}");
    }
    let missing = client.get(daemon.url("/ui/nope.js")).send().unwrap();
    assert_eq!(missing.status(), 404);
    assert_eq!(missing.headers()[CONTENT_TYPE], "application/problem+json");
    let post = client.post(daemon.url("/ui")).send().unwrap();
    assert_eq!(post.status(), 405);
    // The API still needs the token.
    let sessions = client.get(daemon.url("/v1/sessions")).send().unwrap();
    assert_eq!(sessions.status(), 401);
    // Not an API route: the OpenAPI document does not name it.
    let document = client
        .get(daemon.url("/v1/openapi.json"))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(!document.contains("\"/ui"));
}
