//! The I/O the daemon performs for adapters: loopback HTTP and SSE, processes
//! shared between sessions, bounded output lines, and the loopback client kept
//! on loopback with bounded bodies and events. Driven through the
//! test-only `probe` component (see testing/guests/probe).

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{adapters_dir_with, Daemon, Options};
use serde_json::{json, Value};

fn start_with_probe(extra: &[&str]) -> (Daemon, tempfile::TempDir) {
    let adapters = adapters_dir_with(&["probe"]);
    let mut args = vec![
        "--adapters-dir".to_owned(),
        adapters.path().display().to_string(),
    ];
    args.extend(extra.iter().map(|a| a.to_string()));
    (
        Daemon::start_with(Options {
            args,
            ..Options::default()
        }),
        adapters,
    )
}

fn post(daemon: &Daemon, path: &str, body: Value) -> reqwest::blocking::Response {
    reqwest::blocking::Client::new()
        .post(daemon.url(path))
        .json(&body)
        .send()
        .unwrap()
}

fn create(daemon: &Daemon, id: &str, agent: &str) {
    let response = post(
        daemon,
        &format!("/v1/sessions/{id}"),
        json!({ "agent": agent }),
    );
    assert_eq!(response.status(), 200);
    assert_eq!(response.json::<Value>().unwrap()["healthy"], true);
}

fn send(daemon: &Daemon, id: &str, message: &str) {
    let response = post(
        daemon,
        &format!("/v1/sessions/{id}/messages"),
        json!({ "message": message }),
    );
    assert_eq!(response.status(), 204, "{}", response.text().unwrap());
}

fn events(daemon: &Daemon, id: &str) -> Vec<Value> {
    let url = daemon.url(&format!("/v1/sessions/{id}/events?include_raw=true"));
    let page: Value = reqwest::blocking::get(url).unwrap().json().unwrap();
    page["events"].as_array().unwrap().clone()
}

/// Polls the transcript until an event matches, or fails after a deadline.
fn wait_for(daemon: &Daemon, id: &str, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let all = events(daemon, id);
        if let Some(event) = all.iter().find(|e| matches(e)) {
            return event.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no {what} in session {id}: {all:#?}"
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// The `probe` entry of `GET /v1/agents`.
fn probe_agent(daemon: &Daemon) -> Value {
    let agents: Value = reqwest::blocking::get(daemon.url("/v1/agents"))
        .unwrap()
        .json()
        .unwrap();
    agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "probe")
        .unwrap()
        .clone()
}

fn unparsed_at(location_prefix: &'static str) -> impl Fn(&Value) -> bool {
    move |e| {
        e["type"] == "agent.unparsed"
            && e["data"]["location"]
                .as_str()
                .unwrap_or("")
                .starts_with(location_prefix)
    }
}

#[test]
fn adapters_reach_loopback_servers_over_http() {
    let (daemon, _adapters) = start_with_probe(&[]);
    create(&daemon, "fetcher", "probe");
    send(
        &daemon,
        "fetcher",
        &format!("fetch {}", daemon.url("/v1/health")),
    );
    let response = wait_for(
        &daemon,
        "fetcher",
        "HTTP response",
        unparsed_at("http:fetch"),
    );
    let body: Value = serde_json::from_str(response["raw"].as_str().unwrap_or_default())
        .unwrap_or_else(|_| response["raw"].clone());
    assert_eq!(body["status"], "ok", "{response:#}");
}

#[test]
fn adapters_follow_loopback_sse_streams() {
    let (daemon, _adapters) = start_with_probe(&[]);
    create(&daemon, "watched", "mock");
    send(&daemon, "watched", "hello from mock");
    create(&daemon, "watcher", "probe");
    send(
        &daemon,
        "watcher",
        &format!("sse {}", daemon.url("/v1/sessions/watched/events/sse")),
    );
    // The probe reports each SSE event's data (a universal event of `watched`).
    let seen = wait_for(&daemon, "watcher", "SSE event", |e| {
        unparsed_at("sse:")(e) && e["raw"]["type"] == "turn.ended"
    });
    assert_eq!(seen["raw"]["session_id"], "watched");
}

#[test]
fn a_shared_process_serves_every_session_that_asks_for_its_key() {
    let (daemon, _adapters) = start_with_probe(&[]);
    let script = "share k1 while true; do echo pid=$$; sleep 0.1; done";
    for id in ["first", "second"] {
        create(&daemon, id, "probe");
        send(&daemon, id, script);
    }
    let first = wait_for(
        &daemon,
        "first",
        "shared output",
        unparsed_at("stdout:shared"),
    );
    let second = wait_for(
        &daemon,
        "second",
        "shared output",
        unparsed_at("stdout:shared"),
    );
    assert_eq!(
        first["raw"], second["raw"],
        "both sessions read the same process"
    );

    let probe = probe_agent(&daemon);
    assert_eq!(probe["serverStatus"]["status"], "running", "{probe:#}");
    assert_eq!(probe["serverStatus"]["restartCount"], 0);

    // The process outlives the first session and stops with the last one.
    for id in ["first", "second"] {
        assert_eq!(
            post(&daemon, &format!("/v1/sessions/{id}/terminate"), json!({})).status(),
            204
        );
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let probe = probe_agent(&daemon);
        if probe["serverStatus"]["status"] == "stopped" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "shared process still running: {probe:#}"
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

#[test]
fn a_session_attaching_late_first_hears_the_shared_process_banner() {
    let (daemon, _adapters) = start_with_probe(&[]);
    let script = "share k2 echo banner-$$; while true; do sleep 0.1; echo tick; done";
    create(&daemon, "early", "probe");
    send(&daemon, "early", script);
    let banner = wait_for(&daemon, "early", "banner", |e| {
        unparsed_at("stdout:shared")(e) && e["raw"].as_str().unwrap_or("").starts_with("banner-")
    });
    // Attach once the banner is long gone from the live output.
    wait_for(&daemon, "early", "a later line", |e| {
        unparsed_at("stdout:shared")(e) && e["raw"] == "tick"
    });
    create(&daemon, "late", "probe");
    send(&daemon, "late", script);
    let replayed = wait_for(
        &daemon,
        "late",
        "replayed banner",
        unparsed_at("stdout:shared"),
    );
    assert_eq!(
        replayed["raw"], banner["raw"],
        "the first line the late session hears"
    );
}

#[test]
fn overlong_output_lines_are_reported_not_fed_to_the_adapter() {
    let (daemon, _adapters) = start_with_probe(&["--max-line-bytes", "1000"]);
    create(&daemon, "long", "probe");
    send(
        &daemon,
        "long",
        "share long head -c 5000 /dev/zero | tr '\\0' a; echo; echo short",
    );
    let too_long = wait_for(&daemon, "long", "overlong line report", |e| {
        e["type"] == "agent.unparsed" && e["source"] == "daemon"
    });
    assert!(
        too_long["data"]["error"]
            .as_str()
            .unwrap()
            .contains("5000 bytes"),
        "{too_long:#}"
    );
    assert_eq!(too_long["data"]["location"], "stdout:shared");
    // The next line still reaches the adapter.
    wait_for(&daemon, "long", "the line after", |e| {
        unparsed_at("stdout:shared")(e) && e["raw"] == "short"
    });
}

/// A server on some address of this machine that is not a loopback address
/// (`0.0.0.0` reaches this machine on Linux): its URL, and how many connections
/// it got.
fn server_elsewhere() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("0.0.0.0:0").unwrap();
    let url = format!("http://0.0.0.0:{}/", listener.local_addr().unwrap().port());
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = connections.clone();
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            counted.fetch_add(1, Ordering::SeqCst);
            drop(socket);
        }
    });
    (url, connections)
}

/// A loopback server that misbehaves by path: `/out` redirects to `outside`,
/// `/big` answers `len` bytes (without a length), `/sse` streams one event of
/// `len` bytes. Its base URL.
fn misbehaving_server(outside: String, len: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { continue };
            let mut head = Vec::new();
            let mut byte = [0; 1];
            while !head.ends_with(b"\r\n\r\n") && socket.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let head = String::from_utf8_lossy(&head);
            let path = head.split_whitespace().nth(1).unwrap_or_default();
            let (status, content_type, body) = match path {
                "/out" => ("302 Found", "text/plain", Vec::new()),
                "/big" => ("200 OK", "text/plain", vec![b'x'; len]),
                "/sse" => {
                    let event = format!("data: {}\n\n", "y".repeat(len));
                    ("200 OK", "text/event-stream", event.into_bytes())
                }
                _ => ("404 Not Found", "text/plain", Vec::new()),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nLocation: {outside}\r\nContent-Type: {content_type}\r\nConnection: close\r\n\r\n"
            );
            let _ = socket.write_all(head.as_bytes());
            let _ = socket.write_all(&body);
        }
    });
    base
}

#[test]
fn the_loopback_client_stays_on_loopback_and_bounds_what_it_reads() {
    let adapters = adapters_dir_with(&["probe"]);
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("daemon.log");
    let daemon = Daemon::start_with(Options {
        args: vec![
            "--adapters-dir".into(),
            adapters.path().display().to_string(),
            "--max-line-bytes".into(),
            "65536".into(),
        ],
        output: Some(log.clone()),
        ..Options::default()
    });
    let (outside, connections) = server_elsewhere();
    let base = misbehaving_server(outside, 1 << 20);
    for (id, command) in [
        ("redirected", format!("fetch {base}/out")),
        ("big", format!("fetch {base}/big")),
        ("streamed", format!("sse {base}/sse")),
    ] {
        create(&daemon, id, "probe");
        send(&daemon, id, &command);
    }
    let refusals = [
        "redirect to http://0.0.0.0",
        "the response body passed 65536 bytes",
        "an SSE event passed 65536 bytes",
    ];
    let logged = || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        refusals.map(|refusal| text.contains(refusal))
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while logged().contains(&false) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "a redirect led off the loopback interface"
    );
    for (id, location) in [
        ("redirected", "http:"),
        ("big", "http:"),
        ("streamed", "sse:"),
    ] {
        let reached = events(&daemon, id).into_iter().find(unparsed_at(location));
        assert!(reached.is_none(), "{id}: the adapter got {reached:#?}");
    }
    assert_eq!(logged(), [true; 3], "the refusals {refusals:?} in the log");
}
