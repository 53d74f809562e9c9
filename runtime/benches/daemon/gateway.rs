//! The daemon bench's model gateway part: 32 streams of model calls at once,
//! three ways in alternating rounds: straight to the scripted model server,
//! through a session's endpoint of the daemon's gateway (`--gateway`), and
//! through the gateway of a daemon that holds no key and sends its calls to a
//! broker (`agentplex gateway --keys`, `--broker`), which forwards them to the
//! model server; and, for what any hop costs on the machine, through one and
//! through two bare TCP relays (`relay.rs`). It reports the time to the first
//! byte of each answer and the gaps between the events of a streamed answer as
//! they reach the client (an event arrives with the piece that ends it, so a
//! way that hands on in one piece what came in several is not counted fewer,
//! larger gaps), for each way, and what the gateway adds, under three loads: answers streamed as
//! a model's come (a piece every 10 ms) with the streams' calls starting at
//! their own times (the goal's reading of 32 agents streaming), the same with
//! all 32 calls starting at the same instant, and answers sent whole at once,
//! each stream calling again as soon as one ended (the cores saturated: the
//! latency then measures the queue the added work makes).

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use agentplex_client::CreateSessionRequest;
use agentplex_model_server::ModelServer;
use futures::StreamExt;

use super::common::daemons::Binary;
use super::common::{percentile, rounds, spawn_and_read_line, stop, us};
use super::relay::Relay;
use super::{Daemon, Table};

/// Streams at once, unless `AGENTPLEX_GATEWAY_STREAMS` says (1 measures a
/// call alone, with nothing beside it).
const STREAMS: usize = 32;
/// How the streams' calls come.
struct Load {
    label: &'static str,
    /// The answers' `pace:`, in milliseconds (none: sent whole at once).
    pace: Option<u64>,
    /// Calls each stream makes one after the other, per round.
    calls: usize,
    /// How late stream `n` starts its first call: `n` times this. A paced
    /// answer takes about 30 ms (three pieces of text 10 ms apart), so 1 ms
    /// spreads the 32 streams' calls over one answer; they all stream at once.
    stagger: Duration,
}

/// The loads measured.
const LOADS: [Load; 3] = [
    Load {
        label: "paced answers, a piece every 10 ms, calls starting at their own times",
        pace: Some(10),
        calls: 6,
        stagger: Duration::from_millis(1),
    },
    Load {
        label: "paced answers, all 32 calls starting at the same instant",
        pace: Some(10),
        calls: 3,
        stagger: Duration::ZERO,
    },
    Load {
        label: "back-to-back calls, cores saturated",
        pace: None,
        calls: 10,
        stagger: Duration::ZERO,
    },
];
/// Rounds, each timing every way (the first round is a warm-up, not counted),
/// unless `AGENTPLEX_GATEWAY_ROUNDS` says.
const ROUNDS: usize = 8;
/// The key the daemon (or the broker) holds for the model server.
const KEY: &str = "sk-bench-gateway";

/// Where a call goes: a base URL in `ANTHROPIC_BASE_URL`'s form, and the key.
#[derive(Clone)]
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

/// Measures every way and adds their rows to `table`.
pub async fn gateway(table: &mut Table, scratch: &Path, cache_dir: &Path) {
    let model = ModelServer::start().expect("starting the model server");
    let env = [
        ("ANTHROPIC_BASE_URL", model.url()),
        ("ANTHROPIC_API_KEY", KEY.to_owned()),
    ];
    let daemon = Daemon::start_with_env(scratch, cache_dir, &["--gateway"], &env);
    let (base, token) = session_endpoint(&daemon, scratch, "gateway-bench").await;
    let broker = Broker::start(scratch, &model.url());
    let token_file = broker.token_file.to_str().expect("a UTF-8 scratch path");
    let args = [
        "--gateway",
        "--broker",
        &broker.url,
        "--broker-token-file",
        token_file,
    ];
    let brokered = Daemon::start_with_env(scratch, cache_dir, &args, &[]);
    let (brokered_base, brokered_token) =
        session_endpoint(&brokered, scratch, "gateway-bench-broker").await;
    let model_addr = model
        .url()
        .trim_start_matches("http://")
        .parse()
        .expect("the model server's address");
    let relay = Relay::start(model_addr);
    let second_relay = Relay::start(relay.addr());
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
        Way {
            label: "through the daemon and a broker",
            base: brokered_base,
            key: brokered_token,
        },
        Way {
            label: "through a bare TCP relay",
            base: format!("http://{}", relay.addr()),
            key: KEY.to_owned(),
        },
        Way {
            label: "through two bare TCP relays",
            base: format!("http://{}", second_relay.addr()),
            key: KEY.to_owned(),
        },
    ];
    let rounds = rounds("AGENTPLEX_GATEWAY_ROUNDS", ROUNDS);
    let streams = streams();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(streams)
        .build()
        .unwrap();
    for load in &LOADS {
        let mut timings: Vec<Timings> = ways.iter().map(|_| Timings::default()).collect();
        for round in 0..rounds {
            for (way, timings) in ways.iter().zip(&mut timings) {
                let measured = round_of(&client, way, load, streams).await;
                if round > 0 {
                    timings.first_byte.extend(measured.first_byte);
                    timings.gaps.extend(measured.gaps);
                }
            }
        }
        report(table, load.label, &ways, &mut timings, streams);
    }
}

/// A broker (`agentplex gateway --keys`) holding the key of the model server
/// at `model_url` as the `anthropic` provider's, and the token file of the one
/// sandbox it knows; stopped on drop.
struct Broker {
    child: Child,
    url: String,
    token_file: PathBuf,
}

impl Broker {
    /// Makes a sandbox token and a keys file in `scratch`, starts the broker on
    /// a free port and reads its URL from its listening line.
    fn start(scratch: &Path, model_url: &str) -> Broker {
        let binary = Binary::ours().path;
        let token_file = scratch.join("gateway-bench-broker.token");
        let made = Command::new(&binary)
            .args(["gateway", "--new-token", "--out"])
            .arg(&token_file)
            .output()
            .expect("making a sandbox token");
        assert!(made.status.success(), "gateway --new-token failed");
        let printed: serde_json::Value = serde_json::from_slice(&made.stdout).unwrap();
        let keys = serde_json::json!({
            "providers": {"anthropic": {"baseUrl": model_url, "key": KEY}},
            "sandboxes": {"bench": {"tokenSha256": printed["tokenSha256"]}},
        });
        let keys_file = scratch.join("gateway-bench-keys.json");
        std::fs::write(&keys_file, keys.to_string()).unwrap();
        let mut command = Command::new(&binary);
        command
            .args(["gateway", "--port", "0", "--log-level", "warn", "--keys"])
            .arg(&keys_file);
        let (child, line) = spawn_and_read_line(&mut command, "the broker");
        let url = line
            .strip_prefix("agentplex gateway listening on ")
            .unwrap_or_else(|| panic!("not a listening line: {line:?}"))
            .to_owned();
        Broker {
            child,
            url,
            token_file,
        }
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

/// The endpoint and token the processes of a new mock session `id` get, as its
/// `shell` sees them.
async fn session_endpoint(daemon: &Daemon, scratch: &Path, id: &str) -> (String, String) {
    let client = daemon.client();
    let request = CreateSessionRequest {
        agent: "mock".into(),
        ..Default::default()
    };
    client.create_session(id, &request).await.unwrap();
    let file = scratch.join(format!("{id}-endpoint"));
    let command = format!(
        "shell printf '%s\\n%s' \"$ANTHROPIC_BASE_URL\" \"$ANTHROPIC_API_KEY\" > {}",
        file.display()
    );
    let message = agentplex_client::MessageRequest {
        message: Some(command),
        ..Default::default()
    };
    client.send_message(id, &message).await.unwrap();
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

/// How many streams call at once.
fn streams() -> usize {
    std::env::var("AGENTPLEX_GATEWAY_STREAMS").map_or(STREAMS, |value| {
        value
            .parse()
            .ok()
            .filter(|streams| *streams > 0)
            .expect("AGENTPLEX_GATEWAY_STREAMS is a whole number above 0")
    })
}

/// One round of `streams` streams making the load's calls, each stream a task
/// of its own.
async fn round_of(client: &reqwest::Client, way: &Way, load: &Load, streams: usize) -> Timings {
    let streams: Vec<_> = (0..streams)
        .map(|n| {
            let (client, way) = (client.clone(), way.clone());
            let (pace, calls) = (load.pace, load.calls);
            let late = load.stagger * u32::try_from(n).unwrap();
            tokio::spawn(async move {
                tokio::time::sleep(late).await;
                let mut timings = Timings::default();
                for _ in 0..calls {
                    call(&client, &way, pace, &mut timings).await;
                }
                timings
            })
        })
        .collect();
    let mut all = Timings::default();
    for timings in futures::future::join_all(streams).await {
        let timings = timings.expect("a stream of calls");
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
    let mut first = true;
    // The last byte before this piece, and when the event before ended.
    let (mut before, mut last_event) = (0u8, None);
    while let Some(piece) = pieces.next().await {
        let piece = piece.expect("the answer's bytes");
        let now = Instant::now();
        if std::mem::take(&mut first) {
            timings.first_byte.push(now - sent);
        }
        // Each event ended in this piece (at a blank line) arrived now: a
        // gateway may hand on in one piece what came in several, so the gaps
        // are the events', not the pieces'.
        let ended = std::iter::once(&before)
            .chain(&piece)
            .zip(piece.iter())
            .filter(|(one, two)| **one == b'\n' && **two == b'\n')
            .count();
        for _ in 0..ended {
            if let Some(event) = last_event {
                timings.gaps.push(now - event);
            }
            last_event = Some(now);
        }
        before = piece.last().copied().unwrap_or(before);
    }
}

/// The rows: each way's first byte and gaps, then what each way through the
/// gateway adds to the first (straight).
fn report(table: &mut Table, load: &str, ways: &[Way], timings: &mut [Timings], streams: usize) {
    table.section(&format!(
        "Model gateway overhead ({streams} streams of Anthropic calls at once, {load})"
    ));
    let mut figures = Vec::new();
    for (way, timings) in ways.iter().zip(timings.iter_mut()) {
        let first = [50.0, 99.0].map(|p| percentile(&mut timings.first_byte, p));
        let gaps = (!timings.gaps.is_empty())
            .then(|| [50.0, 99.0].map(|p| percentile(&mut timings.gaps, p)));
        table.row(
            &format!("time to first byte, {}", way.label),
            format!("{} / {}", us(first[0]), us(first[1])),
            format!("p50 / p99, {} calls", timings.first_byte.len()),
        );
        table.row(
            &format!("gap between streamed events, {}", way.label),
            gaps.map_or("none".into(), |gaps| {
                format!("{} / {}", us(gaps[0]), us(gaps[1]))
            }),
            match gaps {
                Some(_) => format!("p50 / p99, {} gaps", timings.gaps.len()),
                None => "no streamed events".into(),
            },
        );
        figures.push((first, gaps));
    }
    type Figures = ([Duration; 2], Option<[Duration; 2]>);
    let micros = |direct: Duration, through: Duration| {
        let micros = through.as_secs_f64() * 1e6 - direct.as_secs_f64() * 1e6;
        format!("{micros:+.0} µs")
    };
    for (way, through) in ways.iter().zip(&figures).skip(1) {
        let added = |pick: fn(&Figures) -> Duration| micros(pick(&figures[0]), pick(through));
        table.row(
            &format!("added {}: first byte p50 / p99", way.label),
            format!("{} / {}", added(|f| f.0[0]), added(|f| f.0[1])),
            "goal +300 µs / +1000 µs".into(),
        );
        let gap = match (figures[0].1, through.1) {
            (Some(direct), Some(through)) => micros(direct[1], through[1]),
            _ => "none to compare".into(),
        };
        table.row(
            &format!("added {}: streamed event gap p99", way.label),
            gap,
            "goal +100 µs".into(),
        );
    }
}
