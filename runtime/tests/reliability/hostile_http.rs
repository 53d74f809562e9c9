//! Hostile HTTP: oversized headers, URLs and bodies and malformed framing each get a
//! 4xx or a closed connection (never a 5xx, never a hang) and the daemon serves on;
//! connections that send nothing, half a request head or body, or trickle a head
//! (slowloris) are closed after the header deadline while normal requests keep
//! being served; and
//! thousands of idle SSE streams cost bounded memory, leave health quick, and
//! still deliver events.
//!
//! `RELIABILITY_LONG=1` raises the counts (see docs/reliability.md).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::blocking::Client;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::api::Api;
use crate::common::{Daemon, Options};
use crate::support::{get_request, heavy, long, memory_kib, raw, status_of, time_each, Latency};

const MIB: usize = 1 << 20;
/// Longest a refusal may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(30);

/// A daemon without a token, with extra flags.
fn daemon(args: &[&str]) -> Daemon {
    Daemon::start_with(Options {
        args: args.iter().map(|a| a.to_string()).collect(),
        ..Options::default()
    })
}

/// A client that opens a new connection for every request (the accept path is
/// what connection floods compete for).
fn fresh_connections() -> Client {
    Client::builder()
        .pool_max_idle_per_host(0)
        .timeout(HANG)
        .build()
        .unwrap()
}

/// Health answers 200.
#[track_caller]
fn assert_healthy(daemon: &Daemon) {
    let response = fresh_connections().get(daemon.url("/v1/health")).send();
    assert_eq!(response.map(|r| r.status().as_u16()).ok(), Some(200));
}

/// A POST of `body` to `path`, framed by `framing` (header lines).
fn post(path: &str, framing: &str, body: &[u8]) -> Vec<u8> {
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
         Content-Type: application/json\r\n{framing}\r\n"
    )
    .into_bytes();
    request.extend_from_slice(body);
    request
}

#[test]
fn oversized_and_malformed_requests_get_a_clean_refusal() {
    let _heavy = heavy();
    let daemon = daemon(&["--body-limit", "1048576"]);
    let big = "a".repeat(MIB);
    let session_body = format!("{{\"agent\":\"mock\",\"title\":\"{big}\"}}");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "1 MiB header",
            get_request("/v1/health", &[format!("X-Big: {big}")]),
        ),
        (
            "10,000 headers",
            get_request(
                "/v1/health",
                &(0..10_000).map(|i| format!("X-{i}: v")).collect::<Vec<_>>(),
            ),
        ),
        (
            "64 KiB path",
            get_request(&format!("/v1/sessions/{}", &big[..64 << 10]), &[]),
        ),
        (
            "1 MiB path",
            get_request(&format!("/v1/sessions/{big}"), &[]),
        ),
        (
            "1 MiB query",
            get_request(&format!("/v1/sessions?q={big}"), &[]),
        ),
        (
            "2 MiB body, declared",
            post(
                "/v1/sessions/big",
                &format!("Content-Length: {}\r\n", 2 * MIB),
                &[b'{'; 1024],
            ),
        ),
        (
            "1 MiB + body, sent",
            post(
                "/v1/sessions/big",
                &format!("Content-Length: {}\r\n", session_body.len()),
                session_body.as_bytes(),
            ),
        ),
        ("1 MiB + body, chunked", {
            let chunk = format!("{:x}\r\n{session_body}\r\n0\r\n\r\n", session_body.len());
            post(
                "/v1/sessions/big",
                "Transfer-Encoding: chunked\r\n",
                chunk.as_bytes(),
            )
        }),
        (
            "chunk size overflow",
            post(
                "/v1/sessions/big",
                "Transfer-Encoding: chunked\r\n",
                b"ffffffffffffffffffff\r\nx\r\n0\r\n\r\n",
            ),
        ),
        (
            "Content-Length and chunked",
            post(
                "/v1/sessions/big",
                "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n",
                b"0\r\n\r\n",
            ),
        ),
        (
            "two Content-Lengths",
            post(
                "/v1/sessions/big",
                "Content-Length: 2\r\nContent-Length: 40\r\n",
                b"{}",
            ),
        ),
        (
            "negative Content-Length",
            post("/v1/sessions/big", "Content-Length: -1\r\n", b"{}"),
        ),
        ("binary request line", b"\x00\x01\x02\xff\r\n\r\n".to_vec()),
        (
            "header without a colon",
            get_request("/v1/health", &["no colon here".into()]),
        ),
        (
            "HTTP/9.9",
            b"GET /v1/health HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n".to_vec(),
        ),
    ];
    println!("hostile requests (status or close, time):");
    for (name, request) in &cases {
        let outcome = raw(daemon.port, request, HANG);
        let status = outcome.status;
        println!(
            "  {name:28} {:>6} {:>8.1} ms",
            status.map_or("close".into(), |s| s.to_string()),
            outcome.elapsed.as_secs_f64() * 1e3
        );
        assert!(
            status.is_none_or(|s| (400..500).contains(&s)),
            "{name}: {}",
            outcome.response.chars().take(500).collect::<String>()
        );
        assert_healthy(&daemon);
    }
    // Nothing oversized was created, and the daemon still works in full.
    let api = Api::new(&daemon);
    assert_eq!(
        api.get_ok("/v1/sessions")["sessions"],
        serde_json::json!([])
    );
    api.create("after", "mock");
    assert!(api.turn("after", "still here").len() > 3);
}

#[test]
fn silent_and_half_sent_connections_are_closed_after_the_header_deadline() {
    let _heavy = heavy();
    let deadline = Duration::from_secs(2);
    let daemon = daemon(&["--header-read-timeout-ms", "2000"]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let port = daemon.port;
    let kinds: [(&str, &[u8]); 4] = [
        ("silent", b""),
        ("half a head", b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"),
        (
            "idle after a response",
            b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        ),
        (
            "half a body",
            b"POST /v1/sessions/x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{\"agent\":",
        ),
    ];
    for (name, sent) in kinds {
        let closed: Vec<Duration> = runtime.block_on(async {
            let tasks: Vec<_> = (0..100)
                .map(|_| {
                    tokio::spawn(async move {
                        let mut tcp = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
                        let start = Instant::now();
                        tcp.write_all(sent).await.unwrap();
                        let mut response = Vec::new();
                        // Until the server closes (a response, if any, comes before).
                        let read = tokio::time::timeout(HANG, tcp.read_to_end(&mut response)).await;
                        assert!(read.is_ok(), "{name}: still open after {HANG:?}");
                        let response = String::from_utf8_lossy(&response).into_owned();
                        assert!(
                            status_of(&response).is_none_or(|status| status < 500),
                            "{name}: {response}"
                        );
                        start.elapsed()
                    })
                })
                .collect();
            let mut closed = Vec::new();
            for task in tasks {
                closed.push(task.await.unwrap());
            }
            closed
        });
        let latency = Latency::of(closed.clone());
        println!("{name}: 100 connections closed after {latency}");
        assert!(
            closed
                .iter()
                .all(|after| *after >= deadline - Duration::from_millis(100)),
            "{name}: closed before the deadline: {latency}"
        );
    }
    assert_healthy(&daemon);
}

/// Slowloris: `count` connections that each send one more byte of a never-ending
/// header every `interval`, reconnecting when the daemon closes them.
struct Slowloris {
    stop: Arc<AtomicBool>,
    connected: Arc<AtomicUsize>,
    closed: Arc<AtomicUsize>,
}

impl Slowloris {
    fn start(
        runtime: &tokio::runtime::Runtime,
        port: u16,
        count: usize,
        interval: Duration,
    ) -> Self {
        let attack = Slowloris {
            stop: Arc::default(),
            connected: Arc::default(),
            closed: Arc::default(),
        };
        for _ in 0..count {
            let (stop, connected, closed) = (
                attack.stop.clone(),
                attack.connected.clone(),
                attack.closed.clone(),
            );
            runtime.spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let Ok(mut tcp) = TcpStream::connect(("127.0.0.1", port)).await else {
                        tokio::time::sleep(interval).await;
                        continue;
                    };
                    connected.fetch_add(1, Ordering::Relaxed);
                    let mut pending = b"GET /v1/health HTTP/1.1\r\nX-Slow: ".iter();
                    let mut buf = [0u8; 512];
                    while !stop.load(Ordering::Relaxed) {
                        let byte = *pending.next().unwrap_or(&b'a');
                        tokio::select! {
                            _ = tcp.read(&mut buf) => break,
                            () = tokio::time::sleep(interval) => {
                                if tcp.write_all(&[byte]).await.is_err() {
                                    break;
                                }
                            }
                        }
                    }
                    connected.fetch_sub(1, Ordering::Relaxed);
                    if !stop.load(Ordering::Relaxed) {
                        closed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
        attack
    }
}

impl Drop for Slowloris {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Health (a new connection each time) and a session create + one turn.
fn measure(daemon: &Daemon, round: &str) -> (Latency, Latency) {
    let client = fresh_connections();
    let health = time_each(200, || {
        let response = client.get(daemon.url("/v1/health")).send().unwrap();
        assert_eq!(response.status(), 200);
    });
    let api = Api::new(daemon);
    let mut n = 0;
    let turn = time_each(20, || {
        n += 1;
        let id = format!("{round}-{n}");
        api.create(&id, "mock");
        api.turn(&id, "hello");
    });
    (health, turn)
}

#[test]
fn slowloris_does_not_starve_normal_requests() {
    let _heavy = heavy();
    let count = if long() { 4000 } else { 1000 };
    let daemon = daemon(&["--header-read-timeout-ms", "3000"]);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (health, turn) = measure(&daemon, "quiet");

    let attack = Slowloris::start(&runtime, daemon.port, count, Duration::from_millis(500));
    assert!(
        crate::support::wait_until(HANG, || attack.connected.load(Ordering::Relaxed)
            >= count * 9 / 10),
        "only {} attackers connected",
        attack.connected.load(Ordering::Relaxed)
    );
    let started = Instant::now();
    let (health_attacked, turn_attacked) = measure(&daemon, "attacked");
    // Keep the attack on past the header deadline, so the daemon has closed them all once.
    while started.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let connected = attack.connected.load(Ordering::Relaxed);
    let closed = attack.closed.load(Ordering::Relaxed);
    drop(attack);
    drop(runtime);

    println!("slowloris, {count} connections trickling a byte every 500 ms:");
    println!("  health without: {health}");
    println!("  health during:  {health_attacked}");
    println!("  create + turn without: {turn}");
    println!("  create + turn during:  {turn_attacked}");
    println!("  attackers closed by the daemon: {closed} (connected at the end: {connected})");
    assert!(
        closed >= count,
        "the header deadline closed only {closed} of {count} trickling connections"
    );
    // Bounds with a wide margin for a loaded machine: served, and not starved.
    assert!(
        health_attacked.p99 < Duration::from_secs(2),
        "{health_attacked}"
    );
    assert!(
        turn_attacked.p99 < Duration::from_secs(10),
        "{turn_attacked}"
    );
    assert_healthy(&daemon);
}

/// Opens an SSE stream of `session` and reads its response head.
async fn open_sse(port: u16, session: String) -> TcpStream {
    let mut tcp = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let request =
        format!("GET /v1/sessions/{session}/events/sse HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(
            tcp.read(&mut byte).await.unwrap(),
            1,
            "stream closed in its head"
        );
        head.push(byte[0]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    tcp
}

/// Reads a stream until `needle` shows up (the bytes of the body, frames and all).
async fn read_until(tcp: &mut TcpStream, needle: &str) {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains(needle) {
        let n = tcp.read(&mut buf).await.unwrap();
        assert!(n > 0, "stream ended before {needle}");
        seen.extend_from_slice(&buf[..n]);
    }
}

#[test]
fn thousands_of_idle_sse_streams_cost_bounded_memory_and_still_deliver() {
    let _heavy = heavy();
    let count = if long() { 10_000 } else { 2_000 };
    const SESSIONS: usize = 4;
    const PER_CONNECTION_BOUND_KIB: u64 = 40;
    let daemon = daemon(&[]);
    let api = Api::new(&daemon);
    let ids: Vec<String> = (0..SESSIONS).map(|i| format!("idle-{i}")).collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let port = daemon.port;
    // Warm up what the first streams and turns allocate once.
    for id in &ids {
        api.create(id, "mock");
        api.turn(id, "warm up");
        runtime.block_on(open_sse(port, id.clone()));
    }
    std::thread::sleep(Duration::from_millis(500));
    let (rss_before, pss_before) = memory_kib(daemon.pid());

    let opening = Instant::now();
    let mut streams = runtime.block_on(async {
        let limit = Arc::new(tokio::sync::Semaphore::new(200));
        let tasks: Vec<_> = (0..count)
            .map(|i| {
                let (limit, session) = (limit.clone(), ids[i % SESSIONS].clone());
                tokio::spawn(async move {
                    let _permit = limit.acquire().await.unwrap();
                    open_sse(port, session).await
                })
            })
            .collect();
        let mut streams = Vec::new();
        for task in tasks {
            streams.push(task.await.unwrap());
        }
        streams
    });
    let opened_in = opening.elapsed();
    std::thread::sleep(Duration::from_millis(500));
    let (rss_after, pss_after) = memory_kib(daemon.pid());
    let health = time_each(50, || assert_healthy(&daemon));

    // A turn in every session reaches a sample of the streams.
    for id in &ids {
        api.send(id, "after the crowd");
    }
    let sample = 100.min(count);
    let delivered = Instant::now();
    runtime.block_on(async {
        let step = count / sample;
        let reads: Vec<_> = streams
            .iter_mut()
            .step_by(step)
            .map(|tcp| tokio::time::timeout(HANG, read_until(tcp, "after the crowd")))
            .collect();
        for read in futures::future::join_all(reads).await {
            read.expect("an event did not reach a stream");
        }
    });
    let delivered_in = delivered.elapsed();
    drop(streams);
    drop(runtime);

    let per_rss = rss_after.saturating_sub(rss_before) as f64 / count as f64;
    let per_pss = pss_after.saturating_sub(pss_before) as f64 / count as f64;
    println!("{count} idle SSE streams over {SESSIONS} sessions, opened in {opened_in:?}:");
    println!("  RSS {rss_before} -> {rss_after} KiB ({per_rss:.1} KiB per stream)");
    println!("  PSS {pss_before} -> {pss_after} KiB ({per_pss:.1} KiB per stream)");
    println!("  health while they are open: {health}");
    println!("  a turn reached {sample} sampled streams in {delivered_in:?}");
    assert!(
        per_pss < PER_CONNECTION_BOUND_KIB as f64,
        "{per_pss:.1} KiB per idle stream"
    );
    assert!(health.p99 < Duration::from_secs(2), "{health}");
    assert_healthy(&daemon);
}
