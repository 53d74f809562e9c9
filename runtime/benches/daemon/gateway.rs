//! The daemon bench's model gateway part: 32 streams of model calls at once,
//! straight to the scripted model server and through a session's endpoint of
//! the daemon's gateway (`--gateway`), in alternating rounds. It reports the
//! time to the first byte of each answer and the gaps between the pieces of a
//! streamed answer as they reach the client, for both ways, and what the
//! gateway adds, under two loads: answers streamed as a model's come (a piece
//! every 10 ms, the goal's reading of 32 agents streaming), and answers sent
//! whole at once, each stream calling again as soon as one ended (the cores
//! saturated: the latency then measures the queue the added work makes).

use std::path::Path;
use std::time::{Duration, Instant};

use agentplex_client::CreateSessionRequest;
use agentplex_model_server::ModelServer;
use futures::StreamExt;

use super::common::{percentile, us};
use super::{Daemon, Table};

/// Streams at once.
const STREAMS: usize = 32;
/// The loads: a label, the `pace:` of the answers (none: at once), and the
/// calls each stream makes one after the other, per round.
const LOADS: [(&str, Option<u64>, usize); 2] = [
    ("paced answers, a piece every 10 ms", Some(10), 3),
    ("back-to-back calls, cores saturated", None, 10),
];
/// Rounds, each timing both ways (the first round is a warm-up, not counted).
const ROUNDS: usize = 4;
/// The key the daemon holds for the model server.
const KEY: &str = "sk-bench-gateway";

/// Where a call goes: a base URL in `ANTHROPIC_BASE_URL`'s form, and the key.
struct Way {
    label: &'static str,
    base: String,
    key: String,
}

/// What the calls of one way measured.
#[derive(Default)]
struct Timings {
    first_byte: Vec<Duration>,
    gaps: Vec<Duration>,
}

/// Measures both ways and adds their rows to `table`.
pub async fn gateway(table: &mut Table, scratch: &Path, cache_dir: &Path) {
    let model = ModelServer::start().expect("starting the model server");
    let env = [
        ("ANTHROPIC_BASE_URL", model.url()),
        ("ANTHROPIC_API_KEY", KEY.to_owned()),
    ];
    let daemon = Daemon::start_with_env(scratch, cache_dir, &["--gateway"], &env);
    let (base, token) = session_endpoint(&daemon, scratch).await;
    let ways = [
        Way {
            label: "straight to the model server",
            base: model.url(),
            key: KEY.to_owned(),
        },
        Way {
            label: "through the daemon's gateway",
            base,
            key: token,
        },
    ];
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(STREAMS)
        .build()
        .unwrap();
    for (label, pace, calls) in LOADS {
        let mut timings: Vec<Timings> = ways.iter().map(|_| Timings::default()).collect();
        for round in 0..ROUNDS {
            for (way, timings) in ways.iter().zip(&mut timings) {
                let measured = round_of(&client, way, pace, calls).await;
                if round > 0 {
                    timings.first_byte.extend(measured.first_byte);
                    timings.gaps.extend(measured.gaps);
                }
            }
        }
        report(table, label, &ways, &mut timings);
    }
}

/// The endpoint and token a mock session's processes get, as its `shell` sees
/// them.
async fn session_endpoint(daemon: &Daemon, scratch: &Path) -> (String, String) {
    let client = daemon.client();
    let request = CreateSessionRequest {
        agent: "mock".into(),
        ..Default::default()
    };
    client
        .create_session("gateway-bench", &request)
        .await
        .unwrap();
    let file = scratch.join("gateway-bench-endpoint");
    let command = format!(
        "shell printf '%s\\n%s' \"$ANTHROPIC_BASE_URL\" \"$ANTHROPIC_API_KEY\" > {}",
        file.display()
    );
    let message = agentplex_client::MessageRequest {
        message: Some(command),
        ..Default::default()
    };
    client
        .send_message("gateway-bench", &message)
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        if let Some((base, token)) = text.split_once('\n').filter(|(_, t)| !t.is_empty()) {
            return (base.to_owned(), token.to_owned());
        }
        assert!(
            Instant::now() < deadline,
            "the mock session never showed its endpoint"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// One round of `STREAMS` streams making `calls` calls each.
async fn round_of(client: &reqwest::Client, way: &Way, pace: Option<u64>, calls: usize) -> Timings {
    let streams = (0..STREAMS).map(|_| async move {
        let mut timings = Timings::default();
        for _ in 0..calls {
            call(client, way, pace, &mut timings).await;
        }
        timings
    });
    let mut all = Timings::default();
    for timings in futures::future::join_all(streams).await {
        all.first_byte.extend(timings.first_byte);
        all.gaps.extend(timings.gaps);
    }
    all
}

/// One streamed Messages call: the time to its first byte and the gaps
/// between the pieces that follow.
async fn call(client: &reqwest::Client, way: &Way, pace: Option<u64>, timings: &mut Timings) {
    let mut text = "the gateway bench streams this sentence back word by word".to_owned();
    if let Some(pace) = pace {
        text.push_str(&format!("\npace: {pace}"));
    }
    let body = serde_json::json!({
        "model": "claude-sonnet-4-5", "max_tokens": 256, "stream": true,
        "messages": [{"role": "user", "content": text}],
    });
    let sent = Instant::now();
    let response = client
        .post(format!("{}/v1/messages", way.base))
        .header("x-api-key", &way.key)
        .header("anthropic-version", "2023-06-01")
        .json(&body)
        .send()
        .await
        .expect("a model call");
    assert!(
        response.status().is_success(),
        "{}: {}",
        way.label,
        response.status()
    );
    let mut pieces = response.bytes_stream();
    let mut last = None;
    while let Some(piece) = pieces.next().await {
        piece.expect("the answer's bytes");
        let now = Instant::now();
        match last {
            None => timings.first_byte.push(now - sent),
            Some(before) => timings.gaps.push(now - before),
        }
        last = Some(now);
    }
}

/// The rows: each way's first byte and gaps, then what the gateway adds.
fn report(table: &mut Table, load: &str, ways: &[Way], timings: &mut [Timings]) {
    table.section(&format!(
        "Model gateway overhead ({STREAMS} streams of Anthropic calls at once, {load})"
    ));
    let mut figures = Vec::new();
    for (way, timings) in ways.iter().zip(timings.iter_mut()) {
        let first = [50.0, 99.0].map(|p| percentile(&mut timings.first_byte, p));
        let gaps = [50.0, 99.0].map(|p| percentile(&mut timings.gaps, p));
        table.row(
            &format!("time to first byte, {}", way.label),
            format!("{} / {}", us(first[0]), us(first[1])),
            format!("p50 / p99, {} calls", timings.first_byte.len()),
        );
        table.row(
            &format!("gap between streamed pieces, {}", way.label),
            format!("{} / {}", us(gaps[0]), us(gaps[1])),
            format!("p50 / p99, {} gaps", timings.gaps.len()),
        );
        figures.push((first, gaps));
    }
    type Figures = ([Duration; 2], [Duration; 2]);
    let added = |pick: fn(&Figures) -> Duration| {
        let (direct, gateway) = (pick(&figures[0]), pick(&figures[1]));
        let micros = gateway.as_secs_f64() * 1e6 - direct.as_secs_f64() * 1e6;
        format!("{micros:+.0} µs")
    };
    table.row(
        "added by the gateway: first byte p50 / p99",
        format!("{} / {}", added(|f| f.0[0]), added(|f| f.0[1])),
        "goal +300 µs / +1000 µs".into(),
    );
    table.row(
        "added by the gateway: streamed piece gap p99",
        added(|f| f.1[1]),
        "goal +100 µs".into(),
    );
}
