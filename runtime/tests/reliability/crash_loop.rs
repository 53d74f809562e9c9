//! Crash loops: the daemon is killed with SIGKILL again and again, at moments
//! drawn from a seeded generator (the seed is printed; `RELIABILITY_SEED` replays
//! it), while several mock sessions take messages from several writers and stream
//! to several SSE readers. After each restart on the same data dir, every
//! acknowledged thing must be there: each session's transcript is numbered 1..n
//! without gaps or duplicates and holds every event any reader was sent,
//! unchanged; every message the daemon answered 2xx ran exactly once, in the order
//! its writer sent it; a message whose answer was lost with the daemon ran at
//! most once; nothing else ran.
//!
//! CI runs 8 rounds; `RELIABILITY_LONG=1` runs 50.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::api::{user_texts, Api};
use crate::common::load::{check_seen, drive, follow, stored_transcript, Seen, Sent};
use crate::common::{wait_until, Daemon, Options};

const SESSIONS: usize = 4;
const WRITERS_PER_SESSION: usize = 2;
/// How long after the load starts the daemon may be killed, in milliseconds.
const KILL_AFTER_MS: std::ops::RangeInclusive<u64> = 50..=1500;
/// How long the restarted daemon may take to run the messages the killed one
/// accepted.
const DRAIN_DEADLINE: Duration = Duration::from_secs(60);

fn rounds() -> usize {
    if std::env::var_os("RELIABILITY_LONG").is_some_and(|v| v == "1") {
        50
    } else {
        8
    }
}

/// The seed of this run: `RELIABILITY_SEED` or the clock.
fn seed() -> u64 {
    std::env::var("RELIABILITY_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        })
}

/// One session under load and everything its clients were given, over all rounds.
struct Session {
    id: String,
    /// Every event any reader of an earlier round was sent.
    known: BTreeMap<u64, Value>,
    /// One log per SSE reader of this round (a reader may see an event once only).
    readers: Vec<Seen>,
    /// One log per writer, across rounds.
    writers: Vec<Sent>,
}

impl Session {
    /// Starts this round's clients: the writers, a reader from the end of the
    /// stored transcript and one from a random earlier point.
    fn load(
        &mut self,
        daemon: &Daemon,
        round: usize,
        rng: &mut fastrand::Rng,
        stop: &Arc<AtomicBool>,
    ) -> Vec<thread::JoinHandle<()>> {
        let last = Api::new(daemon).last_sequence(&self.id);
        let mut threads = Vec::new();
        for offset in [last, rng.u64(0..=last)] {
            let seen = Seen::default();
            threads.push(follow(&daemon.endpoint, &self.id, offset, seen.clone()));
            self.readers.push(seen);
        }
        for (writer, sent) in self.writers.iter().enumerate() {
            threads.push(drive(
                &daemon.endpoint,
                &self.id,
                &format!("w{writer} r{round}"),
                Duration::from_millis(rng.u64(2..=20)),
                stop.clone(),
                sent.clone(),
            ));
        }
        threads
    }

    /// Checks the transcript against what every client was given (and keeps what
    /// this round's readers saw for the next checks); returns its length and how
    /// many messages were acknowledged and left unanswered so far.
    fn check(&mut self, api: &Api) -> (usize, usize, usize) {
        for reader in self.readers.drain(..) {
            for (sequence, event) in std::mem::take(&mut *reader.lock().unwrap()) {
                let known = self.known.entry(sequence).or_insert_with(|| event.clone());
                assert_eq!(*known, event, "{}: event {sequence} changed", self.id);
            }
        }
        let events = stored_transcript(api, &self.id);
        check_seen(&self.id, &events, &self.known);
        let ran = user_texts(&events);
        let mut all_sent = BTreeSet::new();
        let (mut acknowledged, mut unanswered) = (0, 0);
        for sent in &self.writers {
            let sent = sent.lock().unwrap();
            check_messages(&self.id, &ran, &sent);
            all_sent.extend(sent.iter().map(|(text, _)| text.clone()));
            acknowledged += sent.iter().filter(|(_, ok)| *ok).count();
            unanswered += sent.iter().filter(|(_, ok)| !*ok).count();
        }
        for text in &ran {
            assert!(
                all_sent.contains(text),
                "{}: ran {text:?}, which nobody sent",
                self.id
            );
        }
        (events.len(), acknowledged, unanswered)
    }
}

/// The messages of one writer that ran (`ran`, all the session's, in order) must be
/// what it sent, in order, each once, leaving out only messages never acknowledged.
fn check_messages(session: &str, ran: &[String], sent: &[(String, bool)]) {
    let mine: BTreeSet<&str> = sent.iter().map(|(text, _)| text.as_str()).collect();
    let mut next = 0;
    for text in ran.iter().filter(|text| mine.contains(text.as_str())) {
        let position = sent[next..]
            .iter()
            .position(|(sent, _)| sent == text)
            .unwrap_or_else(|| panic!("{session}: {text:?} ran twice or out of order"))
            + next;
        if let Some((lost, _)) = sent[next..position].iter().find(|(_, ok)| *ok) {
            panic!("{session}: the acknowledged message {lost:?} never ran");
        }
        next = position + 1;
    }
    if let Some((lost, _)) = sent[next..].iter().find(|(_, ok)| *ok) {
        panic!("{session}: the acknowledged message {lost:?} never ran");
    }
}

/// Waits until every session ran the messages it had accepted.
fn drain(api: &Api, sessions: &[Session]) {
    for session in sessions {
        wait_until(DRAIN_DEADLINE, &format!("{} drained", session.id), || {
            let info = api.session_info(&session.id);
            info["status"] == "idle" && info["queuedMessages"] == 0
        });
    }
}

#[test]
fn a_daemon_killed_again_and_again_loses_nothing_it_acknowledged() {
    let seed = seed();
    let rounds = rounds();
    eprintln!("crash loop: {rounds} rounds, seed {seed} (RELIABILITY_SEED={seed} replays it)");
    let mut rng = fastrand::Rng::with_seed(seed);
    let started = Instant::now();
    let mut daemon = Daemon::start();
    let mut sessions: Vec<Session> = (0..SESSIONS)
        .map(|i| Session {
            id: format!("crash-{i}"),
            known: BTreeMap::new(),
            readers: Vec::new(),
            writers: (0..WRITERS_PER_SESSION).map(|_| Sent::default()).collect(),
        })
        .collect();
    for session in &sessions {
        Api::new(&daemon).create(&session.id, "mock");
    }
    for round in 0..rounds {
        let stop = Arc::new(AtomicBool::new(false));
        let threads: Vec<_> = sessions
            .iter_mut()
            .flat_map(|session| session.load(&daemon, round, &mut rng, &stop))
            .collect();
        let kill_after = rng.u64(KILL_AFTER_MS);
        thread::sleep(Duration::from_millis(kill_after));
        let data_dir = daemon.kill();
        stop.store(true, Ordering::Relaxed);
        for thread in threads {
            thread.join().expect("a client thread");
        }
        let restart = Instant::now();
        daemon = Daemon::start_with(Options {
            data_dir: Some(data_dir),
            ..Options::default()
        });
        let healthy = restart.elapsed();
        let api = Api::new(&daemon);
        drain(&api, &sessions);
        let (mut events, mut acknowledged, mut unanswered) = (0, 0, 0);
        for session in &mut sessions {
            let (e, a, u) = session.check(&api);
            (events, acknowledged, unanswered) = (events + e, acknowledged + a, unanswered + u);
        }
        eprintln!(
            "crash loop: round {round}: killed after {kill_after} ms, healthy again in {} ms; \
             {events} events, {acknowledged} messages acknowledged, {unanswered} unanswered, all there",
            healthy.as_millis()
        );
    }
    eprintln!(
        "crash loop: {rounds} rounds passed in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
