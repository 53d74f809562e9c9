//! Graceful stop: SIGTERM or SIGINT while sessions are mid-turn (mock `slow`
//! turns, and a `shell` turn whose real process ignores SIGTERM and SIGINT) with SSE
//! readers connected, and, for SIGTERM, a client that sent half a request. The
//! daemon stops accepting, ends every reader's stream cleanly, exits 0 within a
//! bound (the 10 s drain, or the sessions' stop if longer), leaves no process behind,
//! and a new daemon on the same data dir holds every event a reader saw and carries
//! each session on as after a crash.

use std::io::Write;
use std::net::TcpStream;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde_json::Value;

use crate::common::api::{sequence, Api};
use crate::common::sse::{streaming_client, SseStream};
use crate::common::{Daemon, Options};
use crate::support::{descendants, wait_until};

/// Mock sessions in a `slow` turn.
const SLOW: &[&str] = &["slow-0", "slow-1", "slow-2"];
/// The mock session running a real process that ignores SIGTERM and SIGINT.
const SHELL: &str = "shell";
/// How long the daemon may drain after the signal (`DRAIN_TIMEOUT` in
/// `server/conn.rs`) and the time allowed on top for stopping sessions on a
/// loaded machine.
const DRAIN: Duration = Duration::from_secs(10);
const SLACK: Duration = Duration::from_secs(10);

/// Follows a session's SSE stream on a thread until the server ends it; the events
/// it saw. A stream that breaks instead of ending fails the thread.
fn follow(daemon: &Daemon, session: &str) -> JoinHandle<Vec<Value>> {
    let mut stream = SseStream::open(
        streaming_client().get(daemon.url(&format!("/v1/sessions/{session}/events/sse"))),
    );
    std::thread::spawn(move || {
        let mut seen = Vec::new();
        while let Some(frame) = stream.next_frame(Duration::from_secs(120)) {
            seen.push(serde_json::from_str(&frame.data).expect("an event"));
        }
        seen
    })
}

/// What a stop looked like from outside.
struct Stopped {
    /// From the signal until the process exited.
    exit: Duration,
    /// From the signal until a new connection was refused while the process still
    /// ran, if that was seen.
    refusing: Option<Duration>,
}

/// Sends `signal` and waits for the exit, trying new connections meanwhile.
fn stop(daemon: &mut Daemon, signal: Signal) -> Stopped {
    let pid = Pid::from_raw(daemon.pid() as i32);
    let start = Instant::now();
    kill(pid, signal).expect("signalling the daemon");
    let mut refusing = None;
    let bound = DRAIN + SLACK;
    loop {
        if let Some(status) = daemon.wait_exit(Duration::from_millis(20)) {
            assert_eq!(status.code(), Some(0), "{signal}: exit {status}");
            return Stopped {
                exit: start.elapsed(),
                refusing,
            };
        }
        assert!(
            start.elapsed() < bound,
            "{signal}: still running after {bound:?}"
        );
        let address = std::net::SocketAddr::from(([127, 0, 0, 1], daemon.port));
        if refusing.is_none()
            && TcpStream::connect_timeout(&address, Duration::from_millis(100)).is_err()
        {
            refusing = Some(start.elapsed());
        }
    }
}

/// Starts the sessions' turns, stops the daemon with `signal` while they run (with
/// a half-sent request open if `half_sent`), checks the stop, restarts, and checks
/// that nothing a reader saw was lost and every session carries on.
fn stop_mid_turn(signal: Signal, half_sent: bool) {
    let mut daemon = Daemon::start_with(Options::default());
    let api = Api::new(&daemon);
    for id in SLOW {
        api.create(id, "mock");
        api.send(id, "slow 100");
    }
    api.create(SHELL, "mock");
    api.send(SHELL, "shell trap '' TERM INT; echo running; sleep 600");
    let readers: Vec<(&str, JoinHandle<Vec<Value>>)> = SLOW
        .iter()
        .chain([&SHELL])
        .map(|id| (*id, follow(&daemon, id)))
        .collect();
    for id in SLOW {
        api.wait_for(id, 0, "the fifth tick", |e| {
            e["data"]["delta"]
                .as_str()
                .is_some_and(|d| d.starts_with("tick 5/"))
        });
    }
    api.wait_for(SHELL, 0, "the process's line", |e| {
        e["data"]["delta"]
            .as_str()
            .is_some_and(|d| d.contains("running"))
    });
    let processes = descendants(daemon.pid());
    assert!(
        processes.len() >= 2,
        "the shell and its sleep run under the daemon: {processes:?}"
    );
    let mut half = half_sent.then(|| {
        let mut tcp = TcpStream::connect(("127.0.0.1", daemon.port)).unwrap();
        tcp.write_all(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
            .unwrap();
        tcp
    });

    let stopped = stop(&mut daemon, signal);
    println!(
        "{signal}{}: exit 0 after {:?}; new connections refused after {:?}",
        if half_sent {
            " with a half-sent request"
        } else {
            ""
        },
        stopped.exit,
        stopped.refusing
    );
    if half_sent {
        assert!(
            stopped.refusing.is_some_and(|at| at < stopped.exit),
            "the listener stayed open while draining"
        );
    } else {
        assert!(stopped.exit < DRAIN, "{signal}: {:?}", stopped.exit);
    }
    half.take();
    let seen: Vec<(&str, Vec<Value>)> = readers
        .into_iter()
        .map(|(id, reader)| (id, reader.join().expect("a stream that ended cleanly")))
        .collect();
    assert!(
        wait_until(Duration::from_secs(5), || processes
            .iter()
            .all(|p| !p.alive())),
        "processes outlived the daemon: {:?}",
        processes.iter().filter(|p| p.alive()).collect::<Vec<_>>()
    );

    let data_dir = std::mem::replace(&mut daemon.data_dir, tempfile::tempdir().unwrap());
    drop(daemon);
    let daemon = Daemon::start_with(Options {
        data_dir: Some(data_dir),
        ..Options::default()
    });
    let api = Api::new(&daemon);
    for (id, seen) in &seen {
        let stored = api.events(id);
        for event in seen {
            let at = sequence(event) as usize;
            assert_eq!(
                stored.get(at - 1),
                Some(event),
                "{id}: event {at} a reader saw is not stored as it was seen"
            );
        }
        let last = seen.last().map_or(0, sequence);
        if *id == SHELL {
            // The process went with the daemon: the turn it ran in is closed.
            api.wait_for_type(id, last, "turn.ended");
        } else {
            // The mock's turn lives in its snapshot: the ticks go on.
            api.wait_for_type(id, last, "item.delta");
            api.post_empty(&format!("/v1/sessions/{id}/cancel"));
            api.wait_for_type(id, last, "turn.ended");
        }
        let answer = api.turn(id, "echo carried on");
        assert!(answer.iter().all(|e| sequence(e) > last));
        println!("{id}: {} events seen by its reader, all stored", seen.len());
    }
}

#[test]
fn sigterm_mid_turn_with_a_half_sent_request_stops_within_the_drain_bound() {
    let _heavy = crate::support::heavy();
    stop_mid_turn(Signal::SIGTERM, true);
}

#[test]
fn sigint_mid_turn_stops_promptly() {
    let _heavy = crate::support::heavy();
    stop_mid_turn(Signal::SIGINT, false);
}
