//! Broken agent processes, through the real daemon and a real adapter (Claude
//! Code's: one long-lived process per session) whose binary is a stand-in,
//! `fake_agent.py`, that exits in the middle of a turn, floods stdout with 100 MiB,
//! writes bytes that are not UTF-8, writes one 50 MiB line, stops answering, and
//! always ignores SIGTERM.
//!
//! Proves: each session either ends with an `error` and a `session.ended` that say
//! why (with the agent's stderr) or carries on; the daemon's memory stays bounded
//! through the flood and the long line; every agent process is killed when its
//! session ends, is deleted or its daemon stops (SIGTERM or not), and is reaped (no
//! zombie children); the daemon's descriptors come back to where they were; and a
//! mock session streaming alongside the whole time loses nothing and sees no error.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tempfile::TempDir;

use crate::common::api::*;
use crate::common::load::{check_transcript, drive, follow, Seen, Sent};
use crate::common::procfs::{self, RssSampler};
use crate::common::{wait_until, Daemon, Options};

/// The stand-in agent (a Python script), installed as the agent's binary.
const FAKE_AGENT: &str = include_str!("fake_agent.py");
/// The adapter whose binary the stand-in replaces.
const AGENT: &str = "claude";
const MIB: u64 = 1 << 20;
/// The daemon's default `--max-line-bytes`.
const MAX_LINE_BYTES: u64 = 16 * MIB;
/// How long a cancelled turn the agent ignores takes to end: the adapter's
/// 10-second interrupt timer, then the kill, on a loaded machine.
const CANCEL_DEADLINE: Duration = Duration::from_secs(40);
/// The agents' grace between SIGTERM and SIGKILL when the daemon stops
/// (`--agent-stop-grace-ms`); the stand-in ignores SIGTERM, so it is killed after it.
const STOP_GRACE: Duration = Duration::from_secs(1);
/// How long the daemon may take past the grace to stop on a loaded machine.
const STOP_SLACK: Duration = Duration::from_secs(5);
/// How long the 100 MiB flood may take on a loaded debug build.
const FLOOD_DEADLINE: Duration = Duration::from_secs(240);

/// A daemon whose agent binary is the stand-in, and the folder where each agent
/// process it starts notes its pid.
struct Bench {
    daemon: Daemon,
    pids: TempDir,
    install: TempDir,
}

impl Bench {
    fn start() -> Bench {
        let install = tempfile::tempdir().unwrap();
        let binary = install.path().join(AGENT);
        std::fs::write(&binary, FAKE_AGENT).unwrap();
        std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
        Bench::on(install, tempfile::tempdir().unwrap(), None)
    }

    fn on(install: TempDir, pids: TempDir, data_dir: Option<TempDir>) -> Bench {
        let daemon = Daemon::start_with(Options {
            args: vec![
                "--install-dir".into(),
                path(install.path()),
                "--agent-stop-grace-ms".into(),
                STOP_GRACE.as_millis().to_string(),
            ],
            env: vec![("FAKE_AGENT_PIDS".into(), path(pids.path()))],
            data_dir,
            ..Options::default()
        });
        Bench {
            daemon,
            pids,
            install,
        }
    }

    /// Every agent process started so far.
    fn agent_pids(&self) -> BTreeSet<u32> {
        std::fs::read_dir(self.pids.path())
            .unwrap()
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
            .collect()
    }

    /// Waits for the agent process that follows `known` and returns its pid.
    fn new_agent(&self, known: &BTreeSet<u32>) -> u32 {
        let mut found = None;
        wait_until(DEADLINE, "an agent process started", || {
            found = self.agent_pids().difference(known).next().copied();
            found.is_some()
        });
        let pid = found.unwrap();
        // Python takes a while to start: a SIGTERM before the stand-in ignores it
        // would end it at once, and the tests that count on a deaf agent would not.
        wait_until(DEADLINE, "the agent ignoring SIGTERM", || {
            procfs::ignores_signal(pid, libc::SIGTERM)
        });
        pid
    }

    /// Creates a session of the stand-in and returns its agent's pid.
    fn create(&self, api: &Api, id: &str) -> u32 {
        let known = self.agent_pids();
        api.create(id, AGENT);
        self.new_agent(&known)
    }

    /// Fails unless the daemon has no zombie children (after a grace period for
    /// reaping the last ones).
    fn assert_no_zombies(&self) {
        let pid = self.daemon.pid();
        wait_until(DEADLINE, "rid of zombie children", || {
            procfs::zombie_children(pid).is_empty()
        });
    }
}

fn path(path: &Path) -> String {
    path.display().to_string()
}

/// Waits until an agent process is gone (or a zombie: [`Bench::assert_no_zombies`]
/// checks those are reaped).
fn wait_gone(pid: u32, why: &str) {
    wait_until(DEADLINE, &format!("agent {pid} gone after {why}"), || {
        !procfs::is_running(pid)
    });
}

/// Waits until the running turn of `id` is over, on the session's status rather
/// than on a transcript that may be long.
fn wait_turn_over(api: &Api, id: &str, timeout: Duration) {
    wait_until(timeout, &format!("{id}'s turn over"), || {
        api.session_info(id)["status"] != "running"
    });
}

/// (a) An agent that exits in the middle of a turn ends its session with an error
/// naming the exit code, and `session.ended` carries its stderr.
fn exits_mid_turn(bench: &Bench, api: &Api, id: &str) {
    let pid = bench.create(api, id);
    api.send(id, "exit 3");
    let events = api.wait_for_type(id, 0, "session.ended");
    check_envelopes(id, 0, &events);
    check_turns(&events, true);
    let error = &find(&events, "error")["data"];
    assert_eq!(error["code"], "agent_exited", "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("exit code 3"),
        "{error}"
    );
    let ended = &events.last().unwrap()["data"];
    assert_eq!(
        (&ended["reason"], &ended["exit_code"]),
        (&json!("error"), &json!(3)),
        "{ended}"
    );
    let stderr = ended["stderr"]["head"].as_str().unwrap_or_default();
    assert!(
        (1..=3).all(|n| stderr.contains(&format!("fatal problem {n} of 3"))),
        "the stderr tail is in session.ended: {ended}"
    );
    expect_problem(
        api.post_json(
            &format!("/v1/sessions/{id}/messages"),
            json!({ "message": "echo hi" }),
        ),
        409,
        "session_ended",
    );
    wait_gone(pid, "exiting");
}

/// (c) Bytes that are not UTF-8 (a line that is not JSON, and a JSON line with bad
/// bytes in a string) are replaced, not fatal: the turn ends and the session goes on.
fn writes_invalid_utf8(bench: &Bench, api: &Api, id: &str) {
    let pid = bench.create(api, id);
    let turn = api.turn(id, "garbage");
    check_turns(&turn, true);
    let unparsed = find(&turn, "agent.unparsed");
    assert_eq!(unparsed["data"]["location"], "stdout", "{unparsed}");
    assert_eq!(
        assistant_texts(&turn),
        ["broken \u{FFFD}\u{FFFD} bytes", "after the garbage"]
    );
    let raw = api.events_page(id, "offset=0&include_raw=true")["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "agent.unparsed")
        .map(|e| e["raw"].clone())
        .unwrap();
    assert_eq!(raw, json!("\u{FFFD}\u{FFFD} not UTF-8 \u{FFFD}( at all"));
    assert_eq!(
        assistant_texts(&api.turn(id, "echo still here")),
        ["still here"]
    );
    assert!(procfs::is_running(pid), "the same agent process goes on");
}

/// (e) An agent that never answers: a cancel ends the turn once the adapter gives
/// up on the interrupt and kills the process (SIGTERM would not do); the next
/// message starts a new process.
fn never_answers_then_cancelled(bench: &Bench, api: &Api, id: &str) {
    let pid = bench.create(api, id);
    api.send(id, "hang");
    expect_no_content(
        api.post_empty(&format!("/v1/sessions/{id}/cancel")),
        "cancel",
    );
    let events = api.wait_for_within(CANCEL_DEADLINE, id, 0, "turn.ended", |e| {
        e["type"] == "turn.ended"
    });
    check_turns(&events, true);
    assert_eq!(
        events.last().unwrap()["data"]["metadata"]["cancelled"],
        true
    );
    wait_gone(pid, "a cancel the agent ignored");
    let known = bench.agent_pids();
    let turn = api.turn(id, "echo back again");
    assert_eq!(assistant_texts(&turn), ["back again"]);
    let next = bench.new_agent(&known);
    assert_ne!(next, pid);
}

/// (e, f) A session whose agent never answers and ignores SIGTERM is deleted: the
/// process is gone.
fn never_answers_then_deleted(bench: &Bench, api: &Api, id: &str) {
    let pid = bench.create(api, id);
    api.send(id, "hang");
    expect_no_content(api.delete(&format!("/v1/sessions/{id}")), "delete");
    wait_gone(pid, "deleting its session");
    expect_problem(
        api.get(&format!("/v1/sessions/{id}/events")),
        404,
        "session_not_found",
    );
}

/// Resident memory of the daemon, in MiB: before `work` and at its peak during it.
struct Memory {
    before: f64,
    peak: f64,
}

impl Memory {
    /// Runs `work` while sampling the daemon's resident memory.
    fn during(daemon: &Daemon, work: impl FnOnce()) -> Memory {
        let before = procfs::rss_kib(daemon.pid());
        let sampler = RssSampler::start(daemon.pid(), Duration::from_millis(10));
        work();
        let peak = sampler
            .finish()
            .into_iter()
            .max()
            .unwrap_or(before)
            .max(before);
        Memory {
            before: before as f64 / 1024.0,
            peak: peak as f64 / 1024.0,
        }
    }

    fn growth(&self) -> f64 {
        self.peak - self.before
    }
}

/// (d) One line of 50 MiB: reported as too long (with its length), never held
/// whole, and the session goes on.
fn writes_one_huge_line(bench: &Bench, api: &Api, id: &str) -> Memory {
    bench.create(api, id);
    let size = 50 * MIB;
    let memory = Memory::during(&bench.daemon, || {
        api.send(id, "longline 50");
        wait_turn_over(api, id, FLOOD_DEADLINE);
    });
    let turn = api.events(id);
    let unparsed = &find(&turn, "agent.unparsed")["data"];
    assert_eq!(
        unparsed["error"],
        format!("line of {size} bytes is longer than the {MAX_LINE_BYTES}-byte limit"),
        "{unparsed}"
    );
    assert_eq!(
        assistant_texts(&turn),
        [format!("after a line of {size} bytes")]
    );
    memory
}

/// (b) `mib` MiB of lines that are not JSON, `line_bytes` each: every line is
/// reported, then the turn ends normally.
fn floods_stdout(bench: &Bench, api: &Api, id: &str, mib: u64, line_bytes: u64) -> Memory {
    let offset = api.last_sequence(id);
    let memory = Memory::during(&bench.daemon, || {
        api.send(id, &format!("flood {mib} {line_bytes}"));
        wait_turn_over(api, id, FLOOD_DEADLINE);
    });
    let turn = api.events_after(id, offset);
    let lines = (mib * MIB).div_ceil(line_bytes);
    let unparsed = turn
        .iter()
        .filter(|e| e["type"] == "agent.unparsed")
        .count() as u64;
    assert_eq!(unparsed, lines, "every line of the flood is reported");
    let answer = assistant_texts(&turn);
    assert_eq!(answer.len(), 1, "{answer:?}");
    assert!(answer[0].starts_with("flooded "), "{answer:?}");
    memory
}

/// A mock session that streams turns alongside the broken ones, with an SSE reader.
struct Bystander {
    stop: Arc<AtomicBool>,
    seen: Seen,
    sent: Sent,
    threads: Vec<std::thread::JoinHandle<()>>,
}

const BYSTANDER: &str = "bystander";

impl Bystander {
    fn start(daemon: &Daemon, api: &Api) -> Bystander {
        api.create(BYSTANDER, "mock");
        let stop = Arc::new(AtomicBool::new(false));
        let (seen, sent) = (Seen::default(), Sent::default());
        let threads = vec![
            follow(&daemon.endpoint, BYSTANDER, 0, seen.clone()),
            drive(
                &daemon.endpoint,
                BYSTANDER,
                "bystander",
                Duration::from_millis(50),
                stop.clone(),
                sent.clone(),
            ),
        ];
        Bystander {
            stop,
            seen,
            sent,
            threads,
        }
    }

    /// Events the reader has seen so far.
    fn seen(&self) -> usize {
        self.seen.lock().unwrap().len()
    }

    /// Stops writing, lets the queue drain, and checks that every message was
    /// acknowledged and answered, and that the reader saw the stored transcript.
    fn finish(mut self, api: &Api) {
        self.stop.store(true, Ordering::Relaxed);
        self.threads.pop().unwrap().join().unwrap();
        api.wait_for_info(BYSTANDER, "done with its queue", |info| {
            info["status"] == "idle" && info["queuedMessages"] == 0
        });
        let last = api.last_sequence(BYSTANDER);
        wait_until(DEADLINE, "the bystander's reader caught up", || {
            self.seen.lock().unwrap().keys().next_back() == Some(&last)
        });
        let events = check_transcript(api, BYSTANDER, &self.seen.lock().unwrap());
        check_envelopes(BYSTANDER, 0, &events);
        check_turns(&events, true);
        assert!(
            events.iter().all(|e| e["type"] != "error"),
            "the bystander saw an error"
        );
        let sent = self.sent.lock().unwrap();
        assert!(sent.iter().all(|(_, acknowledged)| *acknowledged));
        let expected: Vec<&str> = sent
            .iter()
            .map(|(text, _)| text.strip_prefix("echo ").unwrap())
            .collect();
        assert_eq!(assistant_texts(&events), expected);
    }
}

#[test]
fn broken_agents_end_or_recover_and_leave_nothing_behind() {
    let bench = Bench::start();
    let api = Api::new(&bench.daemon);
    let daemon = bench.daemon.pid();
    let bystander = Bystander::start(&bench.daemon, &api);
    // Warm up (the adapter loaded, connections pooled) before the baseline.
    bench.create(&api, "warm-up");
    api.turn("warm-up", "echo warm");
    expect_no_content(api.delete("/v1/sessions/warm-up"), "delete");
    let fds_before = procfs::fd_count(daemon);

    for round in 0..3 {
        exits_mid_turn(&bench, &api, &format!("exits-{round}"));
        writes_invalid_utf8(&bench, &api, &format!("garbage-{round}"));
        never_answers_then_deleted(&bench, &api, &format!("deleted-{round}"));
    }
    never_answers_then_cancelled(&bench, &api, "cancelled");
    let long_line = writes_one_huge_line(&bench, &api, "long-line");
    let before_floods = bystander.seen();
    bench.create(&api, "flood-4k");
    let small = floods_stdout(&bench, &api, "flood-4k", 100, 4 << 10);
    bench.create(&api, "flood-1m");
    let large = floods_stdout(&bench, &api, "flood-1m", 100, MIB);
    let larger = floods_stdout(&bench, &api, "flood-1m", 300, MIB);
    assert!(
        bystander.seen() > before_floods,
        "the bystander made progress during the floods"
    );
    // Reading back the 400 events of 1 MiB (without their raw payloads).
    let read = Memory::during(&bench.daemon, || {
        api.events("flood-1m");
    });
    eprintln!(
        "broken agents: daemon RSS {:.1} MiB before the 50 MiB line, peak +{:.1} MiB during it; \
         100 MiB in 4 KiB lines: peak +{:.1} MiB; 100 MiB in 1 MiB lines: {:.1} -> {:.1} MiB; \
         300 MiB more: peak {:.1} MiB; reading that transcript back: {:.1} -> {:.1} MiB",
        long_line.before,
        long_line.growth(),
        small.growth(),
        large.before,
        large.peak,
        larger.peak,
        read.before,
        read.peak
    );
    // Nothing holds a whole line too long, and a flood is not held whole (before
    // the budgets in bytes, 100 MiB in 1 MiB lines grew the daemon by 200 MiB and
    // more): the peak is what the budgets allow, however long the flood goes on.
    assert!(long_line.growth() < 40.0, "a 50 MiB line is held whole");
    assert!(small.growth() < 64.0, "a flood of short lines is held");
    assert!(large.growth() < 150.0, "a flood of long lines is held");
    assert!(
        larger.peak < large.peak + 32.0,
        "the daemon's memory grows with the length of the flood"
    );

    // Deleting a transcript of hundreds of megabytes takes the store a while.
    let patient = reqwest::blocking::Client::builder()
        .timeout(FLOOD_DEADLINE)
        .build()
        .unwrap();
    for id in ["cancelled", "long-line", "flood-4k", "flood-1m"]
        .into_iter()
        .map(str::to_owned)
        .chain((0..3).map(|round| format!("garbage-{round}")))
    {
        let started = Instant::now();
        let response = patient
            .delete(bench.daemon.url(&format!("/v1/sessions/{id}")))
            .send()
            .unwrap();
        expect_no_content(response, "delete");
        eprintln!("broken agents: deleting {id} took {:?}", started.elapsed());
    }
    for pid in bench.agent_pids() {
        wait_gone(pid, "its session was deleted");
    }
    bench.assert_no_zombies();
    bystander.finish(&api);
    let fds_after = procfs::fd_count(daemon);
    eprintln!("broken agents: daemon fds {fds_before} before, {fds_after} after");
    assert!(
        fds_after <= fds_before + 4,
        "descriptors leak: {fds_before} before, {fds_after} after"
    );
}

/// (f) An agent that ignores SIGTERM does not outlive its daemon: not when the
/// daemon stops on SIGTERM (it is killed after the grace, and the daemon exits
/// once it is gone, within the grace and a bound), and not when the daemon is
/// killed (the next daemon on the data dir kills what the previous one left).
#[test]
fn agents_that_ignore_sigterm_do_not_outlive_the_daemon() {
    let bench = Bench::start();
    let api = Api::new(&bench.daemon);
    let stopped = bench.create(&api, "stopped");
    api.send("stopped", "hang");
    let Bench {
        daemon,
        pids,
        install,
    } = bench;
    let started = Instant::now();
    assert!(daemon.stop().success());
    let took = started.elapsed();
    eprintln!("broken agents: the daemon stopped in {took:?} (grace {STOP_GRACE:?})");
    assert!(
        !procfs::is_running(stopped),
        "the agent outlived its daemon"
    );
    assert!(
        took >= STOP_GRACE,
        "the daemon did not give its agent the grace: {took:?}"
    );
    assert!(
        took < STOP_GRACE + STOP_SLACK,
        "the daemon took {took:?} to stop"
    );

    let bench = Bench::on(install, pids, None);
    let api = Api::new(&bench.daemon);
    let orphan = bench.create(&api, "orphaned");
    api.send("orphaned", "hang");
    api.wait_for_info("orphaned", "running", |info| info["status"] == "running");
    let Bench {
        mut daemon,
        pids,
        install,
    } = bench;
    let data_dir = daemon.kill();
    assert!(
        procfs::is_running(orphan),
        "a daemon killed with SIGKILL cannot kill its agents itself"
    );
    let bench = Bench::on(install, pids, Some(data_dir));
    wait_gone(orphan, "the next daemon started");
    bench.assert_no_zombies();
}
