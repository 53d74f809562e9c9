//! Graceful stop: SIGTERM or SIGINT while sessions are mid-turn (mock `slow`
//! turns, a `shell` turn whose real process ignores SIGTERM and SIGINT, and one
//! whose process exits on SIGTERM) with SSE readers connected, and, for SIGTERM, a
//! client that sent half a request. The daemon stops accepting, ends every reader's
//! stream cleanly, sends the agents SIGTERM (the polite one hears it) and SIGKILL
//! after the grace period (`--agent-stop-grace-ms`), exits 0 within a bound (the
//! 10 s drain, or the grace if longer), leaves no process behind, and a new daemon
//! on the same data dir holds every event a reader saw and carries each session on
//! as after a crash. Agents that all exit on SIGTERM do not make the daemon wait
//! for the grace, with a durable store (suspended sessions) or an ephemeral one
//! (terminated sessions).

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
/// The mock session running a real process that exits on SIGTERM.
const POLITE: &str = "polite";
/// The agents' grace period between SIGTERM and SIGKILL in these tests.
const GRACE: Duration = Duration::from_secs(2);
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

/// The daemon's flag for an agent stop grace of `grace`.
fn grace_args(grace: Duration) -> Vec<String> {
    vec![
        "--agent-stop-grace-ms".into(),
        grace.as_millis().to_string(),
    ]
}

/// A `shell` command that runs a child until SIGTERM, then writes `marker` and exits.
fn polite_command(marker: &std::path::Path) -> String {
    format!(
        "shell trap 'echo stopped > {}; exit 0' TERM; echo running; sleep 600 & wait",
        marker.display()
    )
}

/// Waits until the `shell` session `id` shows its process's first line.
fn wait_running(api: &Api, id: &str) {
    api.wait_for(id, 0, "the process's line", |e| {
        e["data"]["delta"]
            .as_str()
            .is_some_and(|d| d.contains("running"))
    });
}

/// Starts the sessions' turns, stops the daemon with `signal` while they run (with
/// a half-sent request open if `half_sent`), checks the stop, restarts, and checks
/// that nothing a reader saw was lost and every session carries on.
fn stop_mid_turn(signal: Signal, half_sent: bool) {
    let mut daemon = Daemon::start_with(Options {
        args: grace_args(GRACE),
        ..Options::default()
    });
    let api = Api::new(&daemon);
    for id in SLOW {
        api.create(id, "mock");
        api.send(id, "slow 100");
    }
    api.create(SHELL, "mock");
    api.send(SHELL, "shell trap '' TERM INT; echo running; sleep 600");
    let marker_dir = tempfile::tempdir().unwrap();
    let marker = marker_dir.path().join("stopped");
    api.create(POLITE, "mock");
    api.send(POLITE, &polite_command(&marker));
    let readers: Vec<(&str, JoinHandle<Vec<Value>>)> = SLOW
        .iter()
        .chain([&SHELL, &POLITE])
        .map(|id| (*id, follow(&daemon, id)))
        .collect();
    for id in SLOW {
        api.wait_for(id, 0, "the fifth tick", |e| {
            e["data"]["delta"]
                .as_str()
                .is_some_and(|d| d.starts_with("tick 5/"))
        });
    }
    wait_running(&api, SHELL);
    wait_running(&api, POLITE);
    let processes = descendants(daemon.pid());
    assert!(
        processes.len() >= 4,
        "the shells and their sleeps run under the daemon: {processes:?}"
    );
    let mut half = half_sent.then(|| {
        let mut tcp = TcpStream::connect(("127.0.0.1", daemon.port)).unwrap();
        tcp.write_all(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            .unwrap();
        // Long enough for the server to have read the half head: a connection that
        // has sent nothing yet is idle, and closed at once by the stop.
        std::thread::sleep(Duration::from_millis(500));
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
        assert!(
            stopped.exit >= DRAIN,
            "the half-sent request was dropped before the drain bound: {:?}",
            stopped.exit
        );
    } else {
        assert!(stopped.exit < DRAIN, "{signal}: {:?}", stopped.exit);
    }
    assert!(
        stopped.exit >= GRACE,
        "{signal}: exit after {:?}, before the grace an agent ignoring SIGTERM has",
        stopped.exit
    );
    assert_eq!(
        std::fs::read_to_string(&marker).ok().as_deref(),
        Some("stopped\n"),
        "the polite agent did not hear SIGTERM"
    );
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
        if [SHELL, POLITE].contains(id) {
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
fn sigint_mid_turn_stops_after_the_grace() {
    let _heavy = crate::support::heavy();
    stop_mid_turn(Signal::SIGINT, false);
}

/// Agents that exit on SIGTERM: the daemon exits as soon as they are gone, long
/// before the grace period, whether its sessions are suspended (durable store) or
/// terminated (`--ephemeral`), and nothing of their process trees survives it.
fn polite_agents_do_not_wait_for_the_grace(ephemeral: bool) {
    let grace = Duration::from_secs(60);
    let mut args = grace_args(grace);
    if ephemeral {
        args.push("--ephemeral".into());
    }
    let mut daemon = Daemon::start_with(Options {
        args,
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let marker_dir = tempfile::tempdir().unwrap();
    let markers: Vec<_> = (0..3)
        .map(|n| marker_dir.path().join(format!("stopped-{n}")))
        .collect();
    for (n, marker) in markers.iter().enumerate() {
        let id = format!("polite-{n}");
        api.create(&id, "mock");
        api.send(&id, &polite_command(marker));
        wait_running(&api, &id);
    }
    // A session runs once its shell does; the shell's `sleep` may start a moment
    // later (CI saw five of the six on a loaded machine).
    let mut processes = descendants(daemon.pid());
    wait_until(Duration::from_secs(10), || {
        processes = descendants(daemon.pid());
        processes.len() >= 6
    });
    assert!(
        processes.len() >= 6,
        "the shells and their sleeps run under the daemon: {processes:?}"
    );
    let stopped = stop(&mut daemon, Signal::SIGTERM);
    println!(
        "polite agents ({}): exit 0 after {:?} (grace {grace:?})",
        if ephemeral { "ephemeral" } else { "durable" },
        stopped.exit
    );
    assert!(stopped.exit < SLACK, "{:?}", stopped.exit);
    for marker in &markers {
        assert_eq!(
            std::fs::read_to_string(marker).ok().as_deref(),
            Some("stopped\n"),
            "{} was not written: the agent did not hear SIGTERM",
            marker.display()
        );
    }
    assert!(
        wait_until(Duration::from_secs(5), || processes
            .iter()
            .all(|p| !p.alive())),
        "processes outlived the daemon: {:?}",
        processes.iter().filter(|p| p.alive()).collect::<Vec<_>>()
    );
}

#[test]
fn polite_agents_of_suspended_sessions_stop_without_the_grace() {
    let _heavy = crate::support::heavy();
    polite_agents_do_not_wait_for_the_grace(false);
}

#[test]
fn polite_agents_of_terminated_sessions_stop_without_the_grace() {
    let _heavy = crate::support::heavy();
    polite_agents_do_not_wait_for_the_grace(true);
}
