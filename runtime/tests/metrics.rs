//! `GET /metrics` (docs/operate.md): behind the token, in the OpenMetrics text
//! format, and its figures agree with what the daemon did: requests by route and
//! status, sessions by agent and status, every event of the transcript counted
//! once, each turn timed, adapter calls and commits timed, and the process's
//! memory, files and threads.

mod common;

use std::collections::BTreeMap;

use common::api::Api;
use common::{Daemon, Options};

/// The samples of a metrics document: `name{labels}` (labels as written) to value.
fn samples(document: &str) -> BTreeMap<String, f64> {
    assert!(document.ends_with("# EOF\n"), "not an OpenMetrics document");
    document
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let (series, value) = line.rsplit_once(' ').expect("a sample");
            (series.to_owned(), value.parse().expect("a number"))
        })
        .collect()
}

fn scrape(api: &Api) -> BTreeMap<String, f64> {
    let response = api.get("/metrics");
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        content_type.starts_with("application/openmetrics-text"),
        "{content_type}"
    );
    samples(&response.text().unwrap())
}

fn value(samples: &BTreeMap<String, f64>, series: &str) -> f64 {
    *samples
        .get(series)
        .unwrap_or_else(|| panic!("no {series} in {samples:#?}"))
}

#[test]
fn metrics_count_what_the_daemon_did() {
    let daemon = Daemon::start_with(Options {
        token: Some("metrics-token".into()),
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let anonymous = reqwest::blocking::get(daemon.url("/metrics")).unwrap();
    assert_eq!(anonymous.status(), 401, "metrics without the token");

    api.create("measured", "mock");
    api.turn("measured", "echo one");
    api.turn("measured", "slow 3");
    api.create("stopped", "mock");
    assert!(api
        .post_empty("/v1/sessions/stopped/terminate")
        .status()
        .is_success());
    assert_eq!(api.get("/v1/no-such-route").status(), 404);

    let samples = scrape(&api);
    let sessions = |status: &str| {
        value(
            &samples,
            &format!(r#"agentplex_sessions{{agent="mock",status="{status}"}}"#),
        )
    };
    assert_eq!((sessions("idle"), sessions("ended")), (1.0, 1.0));
    let events = api.events("measured").len() + api.events("stopped").len();
    assert_eq!(
        value(&samples, r#"agentplex_events_total{agent="mock"}"#),
        events as f64,
        "every event counted once"
    );
    assert_eq!(
        value(
            &samples,
            r#"agentplex_turn_duration_seconds_count{agent="mock"}"#
        ),
        2.0
    );
    let turns = value(
        &samples,
        r#"agentplex_turn_duration_seconds_sum{agent="mock"}"#,
    );
    assert!(turns >= 0.3, "`slow 3` lasts 300 ms: {turns}");
    assert!(
        value(
            &samples,
            r#"agentplex_adapter_call_duration_seconds_count{agent="mock"}"#
        ) >= 4.0
    );
    assert!(value(&samples, "agentplex_store_commit_duration_seconds_count") >= 4.0);
    assert_eq!(
        value(&samples, "agentplex_store_commit_failures_total"),
        0.0
    );
    let requests = |method: &str, route: &str, status: u16| {
        value(
            &samples,
            &format!(
                r#"agentplex_http_requests_total{{method="{method}",route="{route}",status="{status}"}}"#
            ),
        )
    };
    assert_eq!(
        requests("POST", "/v1/sessions/{session_id}/messages", 204),
        2.0
    );
    assert_eq!(requests("POST", "/v1/sessions/{session_id}", 200), 2.0);
    assert_eq!(requests("GET", "unmatched", 404), 1.0);
    assert!(value(&samples, "agentplex_process_resident_memory_bytes") > f64::from(1 << 20));
    assert!(value(&samples, "agentplex_process_open_fds") > 3.0);
    assert!(value(&samples, "agentplex_process_threads") >= 1.0);

    // A session deleted is no longer held.
    assert!(api.delete("/v1/sessions/stopped").status().is_success());
    let samples = scrape(&api);
    assert!(!samples.contains_key(r#"agentplex_sessions{agent="mock",status="ended"}"#));
}
