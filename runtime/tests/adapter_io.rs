//! The I/O the daemon performs for adapters: loopback HTTP and SSE, processes
//! shared between sessions, and bounded output lines. Driven through the
//! test-only `probe` component (see testing/guests/probe).

mod common;

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
