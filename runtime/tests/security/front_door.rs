//! A web page the user visits attacks a daemon on the same machine.
//!
//! Without a token, a page may send a POST with no preflight (a CORS "simple
//! request": no content type, or `text/plain`) and the browser carries it out,
//! though it hides the answer; and a page on a domain that the attacker makes
//! resolve to 127.0.0.1 (DNS rebinding) reads every answer as its own. The
//! requests below are the ones such pages make, headers as a browser sends them;
//! the daemon must refuse every one (403) and change nothing, while programs (no
//! `Origin`) and the daemon's own page go on working.

use std::path::Path;

use serde_json::{json, Value};

use super::common::api::*;
use super::common::{Daemon, Options};
use super::raw::{send, Answer};

/// A daemon without a token whose home directory (where relative paths start) is `home`.
fn no_token_daemon(home: &Path, args: &[&str]) -> Daemon {
    Daemon::start_with(Options {
        env: vec![("HOME".into(), home.display().to_string())],
        args: args.iter().map(|a| a.to_string()).collect(),
        ..Options::default()
    })
}

/// A tar archive holding an executable `name` that writes a marker when run.
fn planted_program(name: &str) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    let script = b"#!/bin/sh\necho planted > /tmp/planted\n";
    let mut header = tar::Header::new_gnu();
    header.set_size(script.len() as u64);
    header.set_mode(0o755);
    builder.append_data(&mut header, name, &script[..]).unwrap();
    builder.into_inner().unwrap()
}

fn assert_refused(answer: &Answer, code: &str, what: &str) {
    assert_eq!(answer.status, 403, "{what}: {answer:?}");
    assert_eq!(answer.code(), code, "{what}: {answer:?}");
}

/// The headers a browser sends with a request a page at `origin` makes to the
/// daemon (the page's script cannot change them).
fn from_page(origin: &str) -> Vec<String> {
    vec![
        format!("Origin: {origin}"),
        "Sec-Fetch-Site: cross-site".into(),
        "Sec-Fetch-Mode: no-cors".into(),
    ]
}

fn refs(headers: &[String]) -> Vec<&str> {
    headers.iter().map(String::as_str).collect()
}

#[test]
fn a_foreign_page_changes_nothing_on_a_daemon_without_a_token() {
    let home = tempfile::tempdir().unwrap();
    let daemon = no_token_daemon(home.path(), &[]);
    let api = Api::new(&daemon);
    let port = daemon.port;
    api.create("victim", "mock");
    let process = ok_json(api.post_json(
        "/v1/processes",
        json!({ "command": "sleep", "args": ["60"] }),
    ));
    let process_id = process["id"].as_str().unwrap().to_owned();
    let evil = from_page("http://evil.example");

    // An executable dropped where agents are installed, in an archive sent as a
    // simple request: without a content type, then as text.
    let archive = planted_program("claude");
    for content_type in [None, Some("Content-Type: text/plain")] {
        let mut headers = refs(&evil);
        headers.extend(content_type);
        let answer = send(
            port,
            "POST",
            "/v1/fs/upload-batch?path=.local/share/agentplex/bin",
            &headers,
            &archive,
        );
        assert_refused(&answer, "cross_origin_refused", "upload from a page");
    }
    assert!(
        !home.path().join(".local/share/agentplex/bin").exists(),
        "the page's archive was unpacked"
    );

    // Ending sessions, killing processes, starting installs, writing files.
    let initialize: &[u8] =
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#;
    let attacks: [(&str, String, &[u8]); 9] = [
        // An ACP connection (then sessions, prompts) opened by the page.
        ("POST", "/v1/acp/page?agent=mock".into(), initialize),
        ("POST", "/acp/mock".into(), initialize),
        ("POST", "/v1/sessions/victim/terminate".into(), b""),
        ("POST", "/v1/sessions/victim/cancel".into(), b""),
        ("POST", format!("/v1/processes/{process_id}/kill"), b""),
        ("DELETE", format!("/v1/processes/{process_id}"), b""),
        (
            "POST",
            "/v1/agents/mock/install".into(),
            b"{\"reinstall\":true}",
        ),
        ("POST", "/v1/fs/mkdir?path=made-by-a-page".into(), b""),
        // An agent of the ACP registry, added and given the user's key.
        (
            "POST",
            "/v1/registry/claude-code-acp".into(),
            b"{\"env\":[\"ANTHROPIC_API_KEY\"]}",
        ),
    ];
    for (method, path, body) in &attacks {
        let answer = send(port, method, path, &refs(&evil), body);
        assert_refused(&answer, "cross_origin_refused", &format!("{method} {path}"));
        // A page's script may leave `Origin` out only where the browser does too:
        // the fetch metadata still says where the request comes from.
        let answer = send(port, method, path, &["Sec-Fetch-Site: cross-site"], body);
        assert_refused(&answer, "cross_origin_refused", &format!("{method} {path}"));
        // Another port of localhost is another origin (a dev server the user runs).
        let answer = send(port, method, path, &["Origin: http://localhost:3000"], body);
        assert_refused(&answer, "cross_origin_refused", &format!("{method} {path}"));
    }
    assert!(!home.path().join("made-by-a-page").exists());
    let agents = api.get_ok("/v1/agents").to_string();
    assert!(
        !agents.contains("claude-code-acp"),
        "the page added an agent: {agents}"
    );
    assert_eq!(api.session_info("victim")["ended"], json!(false));
    assert_eq!(
        api.get_ok(&format!("/v1/processes/{process_id}"))["status"],
        json!("running")
    );

    // A terminal WebSocket opened by the page is refused before the handshake.
    let terminal = ok_json(api.post_json("/v1/processes", json!({ "command": "sh", "tty": true })));
    let ws_path = format!(
        "/v1/processes/{}/terminal/ws",
        terminal["id"].as_str().unwrap()
    );
    let mut handshake = refs(&evil);
    handshake.extend([
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Version: 13",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    ]);
    let answer = send(port, "GET", &ws_path, &handshake, b"");
    assert_eq!(answer.status, 403, "{answer:?}");
    // So is an ACP WebSocket, and no ACP connection was opened by the page.
    let answer = send(port, "GET", "/acp/mock", &handshake, b"");
    assert_eq!(answer.status, 403, "{answer:?}");
    assert_eq!(api.get_ok("/v1/acp")["servers"], json!([]));

    // The daemon's own page and programs are served as before.
    let own = format!("Origin: http://127.0.0.1:{port}");
    let answer = send(
        port,
        "POST",
        "/v1/fs/mkdir?path=made-by-the-inspector",
        &[&own, "Sec-Fetch-Site: same-origin"],
        b"",
    );
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(home.path().join("made-by-the-inspector").is_dir());
    let answer = send(port, "POST", "/v1/sessions/victim/terminate", &[], b"");
    assert_eq!(answer.status, 204, "{answer:?}");
}

#[test]
fn an_upload_must_say_it_is_an_archive() {
    let home = tempfile::tempdir().unwrap();
    let daemon = no_token_daemon(home.path(), &[]);
    let archive = planted_program("tool");
    for headers in [
        vec![],
        vec!["Content-Type: text/plain"],
        vec!["Content-Type: application/x-www-form-urlencoded"],
    ] {
        let answer = send(
            daemon.port,
            "POST",
            "/v1/fs/upload-batch?path=up",
            &headers,
            &archive,
        );
        assert_eq!(answer.status, 415, "{headers:?}: {answer:?}");
        assert_eq!(answer.code(), "unsupported_media_type");
    }
    assert!(!home.path().join("up").exists());
    for content_type in [
        "application/x-tar",
        "application/gzip; charset=binary",
        "application/octet-stream",
    ] {
        let header = format!("Content-Type: {content_type}");
        let body = if content_type.starts_with("application/gzip") {
            use std::io::Write;
            let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gzip.write_all(&archive).unwrap();
            gzip.finish().unwrap()
        } else {
            archive.clone()
        };
        let answer = send(
            daemon.port,
            "POST",
            "/v1/fs/upload-batch?path=up",
            &[&header],
            &body,
        );
        assert_eq!(answer.status, 200, "{content_type}: {answer:?}");
    }
    assert!(home.path().join("up/tool").is_file());
}

#[test]
fn a_rebound_name_reads_nothing_and_runs_nothing() {
    let home = tempfile::tempdir().unwrap();
    let daemon = no_token_daemon(home.path(), &[]);
    let port = daemon.port;
    std::fs::write(home.path().join("secret.txt"), "private").unwrap();
    // The page's own origin, as the browser sees it once the name points here.
    let host = format!("Host: rebind.example:{port}");
    let origin = format!("Origin: http://rebind.example:{port}");
    let same_origin = [
        host.as_str(),
        origin.as_str(),
        "Sec-Fetch-Site: same-origin",
    ];
    let run = json!({ "command": "sh", "args": ["-c", "echo ran > ran.txt"], "cwd": home.path() });
    let reads = [
        "/v1/agents",
        "/v1/sessions",
        "/v1/fs/file?path=secret.txt",
        "/v1/fs/entries?path=.",
        "/metrics",
        "/ui/",
        "/v1/processes",
    ];
    for path in reads {
        let answer = send(port, "GET", path, &[&host], b"");
        assert_refused(&answer, "host_not_allowed", path);
        assert!(!answer.body.contains("private"));
    }
    let mut json_headers = same_origin.to_vec();
    json_headers.push("Content-Type: application/json");
    let answer = send(
        port,
        "POST",
        "/v1/processes/run",
        &json_headers,
        run.to_string().as_bytes(),
    );
    assert_refused(&answer, "host_not_allowed", "POST /v1/processes/run");
    assert!(!home.path().join("ran.txt").exists());
    // Liveness probes keep their answer (it holds nothing).
    assert_eq!(send(port, "GET", "/v1/health", &[&host], b"").status, 200);
    // The loopback names are answered in every spelling.
    for name in [
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        "127.0.0.1".to_owned(),
    ] {
        let header = format!("Host: {name}");
        assert_eq!(
            send(port, "GET", "/v1/sessions", &[&header], b"").status,
            200,
            "{name}"
        );
    }

    // A name the operator allows is answered.
    let allowed = no_token_daemon(home.path(), &["--allowed-host", "rebind.example"]);
    let answer = send(
        allowed.port,
        "GET",
        "/v1/sessions",
        &[&format!("Host: rebind.example:{}", allowed.port)],
        b"",
    );
    assert_eq!(answer.status, 200, "{answer:?}");
}

#[test]
fn with_a_token_the_names_answered_are_the_operators_choice() {
    let token = "front-door-token-0123456789";
    let bearer = format!("Authorization: Bearer {token}");
    let open = Daemon::start_with(Options {
        token: Some(token.into()),
        ..Options::default()
    });
    // Behind a proxy or a sandbox provider: any name, the token protects.
    let answer = send(
        open.port,
        "GET",
        "/v1/sessions",
        &["Host: 2468-abc.sandbox.example", &bearer],
        b"",
    );
    assert_eq!(answer.status, 200, "{answer:?}");
    let listed: Value = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(listed["sessions"], json!([]));
    // A page cannot send the token without a preflight the daemon does not grant.
    let answer = send(
        open.port,
        "POST",
        "/v1/agents/mock/install",
        &["Origin: http://evil.example"],
        b"",
    );
    assert_eq!(answer.status, 401, "{answer:?}");

    let pinned = Daemon::start_with(Options {
        token: Some(token.into()),
        args: vec!["--allowed-host".into(), ".sandbox.example".into()],
        ..Options::default()
    });
    let answer = send(
        pinned.port,
        "GET",
        "/v1/sessions",
        &["Host: 2468-abc.sandbox.example", &bearer],
        b"",
    );
    assert_eq!(answer.status, 200, "{answer:?}");
    let answer = send(
        pinned.port,
        "GET",
        "/v1/sessions",
        &["Host: other.example", &bearer],
        b"",
    );
    assert_refused(&answer, "host_not_allowed", "a name not allowed");
}
