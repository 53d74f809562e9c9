//! OpenTelemetry traces (docs/operate.md): with `--otlp-endpoint` the daemon sends
//! its request and session spans to an OTLP/HTTP collector — here a stand-in that
//! records what it is sent — by the time it has stopped; without it, nothing.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::api::Api;
use common::{Daemon, Options};

/// One request the collector received: its request line, headers and body.
struct Received {
    request_line: String,
    headers: String,
    body: Vec<u8>,
}

/// Accepts OTLP/HTTP exports on a loopback port and answers each with 200.
fn collector() -> (String, Arc<Mutex<Vec<Received>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let received: Arc<Mutex<Vec<Received>>> = Arc::default();
    let log = received.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut reader = BufReader::new(stream);
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let mut headers = String::new();
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line.trim().is_empty() {
                    break;
                }
                if let Some((name, value)) = line.split_once(':') {
                    if name.eq_ignore_ascii_case("content-length") {
                        length = value.trim().parse().unwrap();
                    }
                }
                headers.push_str(&line.to_ascii_lowercase());
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let mut stream = reader.into_inner();
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
            log.lock().unwrap().push(Received {
                request_line,
                headers,
                body,
            });
        }
    });
    (endpoint, received)
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

#[test]
fn request_and_session_spans_reach_the_collector() {
    let (endpoint, received) = collector();
    let daemon = Daemon::start_with(Options {
        args: vec!["--otlp-endpoint".into(), endpoint],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    api.create("traced", "mock");
    api.turn("traced", "echo traced");
    assert!(daemon.stop().success(), "the daemon stops cleanly");

    let received = received.lock().unwrap();
    assert!(!received.is_empty(), "nothing was exported");
    let body: Vec<u8> = received.iter().flat_map(|r| r.body.clone()).collect();
    for request in received.iter() {
        assert!(
            request.request_line.starts_with("POST /v1/traces "),
            "{}",
            request.request_line
        );
        assert!(
            request
                .headers
                .contains("content-type: application/x-protobuf"),
            "{}",
            request.headers
        );
    }
    // Protobuf keeps strings as they are: the service, the spans and their fields.
    for expected in [
        "agentplex",
        "request",
        "/v1/sessions/traced",
        "session",
        "traced",
        "mock",
    ] {
        assert!(
            contains(&body, expected),
            "{expected:?} is in no exported span"
        );
    }
}

#[test]
fn without_an_endpoint_nothing_is_sent() {
    let (endpoint, received) = collector();
    // The collector listens, but the daemon is not told about it.
    let daemon = Daemon::start_with(Options {
        env: vec![("AGENTPLEX_UNRELATED".into(), endpoint)],
        ..Options::default()
    });
    Api::new(&daemon).create("untraced", "mock");
    assert!(daemon.stop().success());
    assert!(received.lock().unwrap().is_empty());
}
