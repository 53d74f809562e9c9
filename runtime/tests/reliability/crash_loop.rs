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
//! Each round reads only what is new since the previous one: a session keeps a hash
//! of every event verified so far and how far each writer's messages are accounted
//! for. The events verified before are checked against their hashes where a reader
//! saw them again, at the boundary (the last one) and in a random window each
//! round, and all of them after the last round.
//!
//! CI runs 8 rounds; `RELIABILITY_LONG=1` runs 50.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::api::{user_texts, Api};
use crate::common::load::{drive, follow, Seen, Sent};
use crate::common::{wait_until, Daemon, Options};

const SESSIONS: usize = 4;
const WRITERS_PER_SESSION: usize = 2;
/// How long after the load starts the daemon may be killed, in milliseconds.
const KILL_AFTER_MS: std::ops::RangeInclusive<u64> = 50..=1500;
/// How long the restarted daemon may take to run the messages the killed one
/// accepted.
const DRAIN_DEADLINE: Duration = Duration::from_secs(60);
/// How many of the events verified in earlier rounds are read again each round,
/// at a random place.
const RECHECKED: u64 = 256;

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
    /// One log per SSE reader of this round (a reader may see an event once only).
    readers: Vec<Seen>,
    /// One log per writer, across rounds.
    writers: Vec<Sent>,
    /// A hash of each stored event verified so far, in sequence order.
    verified: Vec<u64>,
    /// Per writer, how many of its messages are accounted for: each one ran, or
    /// was never acknowledged and a later one ran.
    accounted: Vec<usize>,
    /// Each sent message's writer and place in that writer's log.
    senders: HashMap<String, (usize, usize)>,
    /// Per writer, how many of its messages are in `senders`.
    indexed: Vec<usize>,
}

/// What one check of a session found.
#[derive(Default, Clone, Copy)]
struct Checked {
    /// The transcript's length.
    events: usize,
    /// Events read and compared this round.
    read: usize,
    acknowledged: usize,
    unanswered: usize,
}

impl std::ops::AddAssign for Checked {
    fn add_assign(&mut self, other: Checked) {
        self.events += other.events;
        self.read += other.read;
        self.acknowledged += other.acknowledged;
        self.unanswered += other.unanswered;
    }
}

/// A hash of one event as stored or streamed (raw payload included).
fn hash(event: &Value) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(event).unwrap().hash(&mut hasher);
    hasher.finish()
}

impl Session {
    fn new(id: String) -> Session {
        Session {
            id,
            readers: Vec::new(),
            writers: (0..WRITERS_PER_SESSION).map(|_| Sent::default()).collect(),
            verified: Vec::new(),
            accounted: vec![0; WRITERS_PER_SESSION],
            senders: HashMap::new(),
            indexed: vec![0; WRITERS_PER_SESSION],
        }
    }

    /// Starts this round's clients: the writers, a reader from the end of the
    /// stored transcript and one from a random earlier point.
    fn load(
        &mut self,
        daemon: &Daemon,
        round: usize,
        rng: &mut fastrand::Rng,
        stop: &Arc<AtomicBool>,
    ) -> Vec<thread::JoinHandle<()>> {
        let last = Api::new(daemon).session_info(&self.id)["eventCount"]
            .as_u64()
            .unwrap();
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

    /// The stored events after `offset` (at most `limit`), checked to be numbered
    /// from `offset + 1` without gaps, with evt ids.
    fn stored(&self, api: &Api, offset: u64, limit: Option<u64>) -> Vec<Value> {
        let limit = limit.map_or(String::new(), |limit| format!("&limit={limit}"));
        let page = api.events_page(
            &self.id,
            &format!("offset={offset}&include_raw=true{limit}"),
        );
        let events = page["events"].as_array().unwrap().clone();
        for (index, event) in events.iter().enumerate() {
            let sequence = offset + index as u64 + 1;
            assert_eq!(
                event["sequence"],
                json!(sequence),
                "{}: gap or duplicate",
                self.id
            );
            assert_eq!(event["event_id"], json!(format!("evt_{sequence}")));
        }
        events
    }

    /// Fails unless `events`, stored from sequence `first`, are the ones verified before.
    fn recheck(&self, first: u64, events: &[Value]) {
        for (index, event) in events.iter().enumerate() {
            let sequence = first + index as u64;
            assert_eq!(
                self.verified.get(sequence as usize - 1),
                Some(&hash(event)),
                "{}: event {sequence} changed or is lost",
                self.id
            );
        }
    }

    /// Checks what is new in the transcript against what every client was given,
    /// and reads again the last event verified before and a random window of them
    /// (all of them when `whole`).
    fn check(&mut self, api: &Api, rng: &mut fastrand::Rng, whole: bool) -> Checked {
        let before = self.verified.len() as u64;
        let from = if whole { 0 } else { before.saturating_sub(1) };
        let mut events = self.stored(api, from, None);
        let old = (before - from) as usize;
        assert!(
            events.len() >= old,
            "{}: events {} to {before} are lost",
            self.id,
            from + events.len() as u64 + 1
        );
        let new = events.split_off(old);
        self.recheck(from + 1, &events);
        let mut read = events.len() + new.len();
        if before > 0 && !whole {
            let start = rng.u64(0..before);
            let window = self.stored(api, start, Some(RECHECKED.min(before - start)));
            self.recheck(start + 1, &window);
            read += window.len();
        }
        self.verified.extend(new.iter().map(hash));
        for reader in self.readers.drain(..) {
            for (sequence, event) in std::mem::take(&mut *reader.lock().unwrap()) {
                assert_eq!(
                    self.verified.get(sequence as usize - 1),
                    Some(&hash(&event)),
                    "{}: event {sequence} a reader saw is lost or changed",
                    self.id
                );
            }
        }
        let (acknowledged, unanswered) = self.check_messages(&user_texts(&new));
        Checked {
            events: self.verified.len(),
            read,
            acknowledged,
            unanswered,
        }
    }

    /// The messages that ran since the last check (`ran`, in order) must be what
    /// their writers sent, in order, each once, leaving out only messages never
    /// acknowledged; every acknowledged message must have run. Returns how many
    /// messages were acknowledged and left unanswered so far.
    fn check_messages(&mut self, ran: &[String]) -> (usize, usize) {
        let id = &self.id;
        let logs: Vec<_> = self
            .writers
            .iter()
            .map(|sent| sent.lock().unwrap())
            .collect();
        for (writer, sent) in logs.iter().enumerate() {
            for (place, (text, _)) in sent.iter().enumerate().skip(self.indexed[writer]) {
                self.senders.insert(text.clone(), (writer, place));
            }
            self.indexed[writer] = sent.len();
        }
        for text in ran {
            let &(writer, place) = self
                .senders
                .get(text)
                .unwrap_or_else(|| panic!("{id}: ran {text:?}, which nobody sent"));
            let next = self.accounted[writer];
            assert!(place >= next, "{id}: {text:?} ran twice or out of order");
            if let Some((lost, _)) = logs[writer][next..place].iter().find(|(_, ok)| *ok) {
                panic!("{id}: the acknowledged message {lost:?} never ran");
            }
            self.accounted[writer] = place + 1;
        }
        let (mut acknowledged, mut unanswered) = (0, 0);
        for (writer, sent) in logs.iter().enumerate() {
            if let Some((lost, _)) = sent[self.accounted[writer]..].iter().find(|(_, ok)| *ok) {
                panic!("{id}: the acknowledged message {lost:?} never ran");
            }
            acknowledged += sent.iter().filter(|(_, ok)| *ok).count();
            unanswered += sent.iter().filter(|(_, ok)| !*ok).count();
        }
        (acknowledged, unanswered)
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
        .map(|i| Session::new(format!("crash-{i}")))
        .collect();
    for session in &sessions {
        Api::new(&daemon).create(&session.id, "mock");
    }
    let mut read = 0;
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
        let checking = Instant::now();
        let mut checked = Checked::default();
        for session in &mut sessions {
            checked += session.check(&api, &mut rng, round + 1 == rounds);
        }
        read += checked.read;
        let Checked {
            events,
            acknowledged,
            unanswered,
            ..
        } = checked;
        eprintln!(
            "crash loop: round {round}: killed after {kill_after} ms, healthy again in {} ms; \
             {events} events, {acknowledged} messages acknowledged, {unanswered} unanswered, all there \
             ({} events read in {} ms)",
            healthy.as_millis(),
            checked.read,
            checking.elapsed().as_millis()
        );
    }
    eprintln!(
        "crash loop: {rounds} rounds passed in {:.1} s, {read} events read and checked",
        started.elapsed().as_secs_f64()
    );
}
