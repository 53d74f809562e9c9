//! The daemon bench's event latency part: each daemon measured in rounds of
//! fresh processes, their messages pooled, ours compared with the others.

use std::time::Duration;

use agentplex_client::{Client, CreateSessionRequest};

use super::common::latency::{Posting, TurnLatency};
use super::common::{percentile, us};
use super::{median, Table};

/// Messages timed for the event latency (after a few warm-up ones).
const LATENCY_MESSAGES: usize = 50;
/// Messages sent first, untimed, on each new session.
const LATENCY_WARMUP: usize = 5;
/// Times each daemon of the latency part is started and measured, by default.
const LATENCY_ROUNDS: usize = 3;

/// Rounds of the latency part: `AGENTPLEX_LATENCY_ROUNDS`, else 3.
pub fn latency_rounds() -> usize {
    std::env::var("AGENTPLEX_LATENCY_ROUNDS")
        .ok()
        .map(|value| {
            value
                .parse()
                .ok()
                .filter(|rounds| *rounds > 0)
                .expect("AGENTPLEX_LATENCY_ROUNDS is a whole number above 0")
        })
        .unwrap_or(LATENCY_ROUNDS)
}

/// Times `LATENCY_MESSAGES` mock turns on a new session of the daemon behind
/// `client`, each `POST` sent as `posting` says.
pub async fn event_latency(client: Client, posting: Posting) -> TurnLatency {
    // A new id each time: daemons on one PostgreSQL database see each other's.
    static SESSIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let id = &format!(
        "latency-{}",
        SESSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let request = CreateSessionRequest {
        agent: "mock".into(),
        ..Default::default()
    };
    client.create_session(id, &request).await.unwrap();
    super::common::latency::turn_latency(&client, &posting, id, LATENCY_WARMUP, LATENCY_MESSAGES)
        .await
        .expect("timing mock turns over SSE")
}

/// Which daemon and which way of posting a set of rounds measured.
#[derive(Clone, PartialEq, Eq)]
pub struct Measured {
    /// The daemon: ours with a store, or a reference.
    pub daemon: String,
    /// [`Posting::label`].
    pub posting: &'static str,
}

/// The runs of one daemon, one per round.
type Rounds = [TurnLatency];
/// One figure of a run: its first events, its turn ends or its `POST` answers.
type Part = fn(&TurnLatency) -> &Vec<Duration>;

/// The samples of `part` from every round.
fn pooled(rounds: &Rounds, part: Part) -> Vec<Duration> {
    rounds
        .iter()
        .flat_map(|run| part(run).iter().copied())
        .collect()
}

/// The first event's median in each round.
fn first_event_by_round(rounds: &Rounds) -> Vec<Duration> {
    rounds
        .iter()
        .map(|run| median(&mut run.first_event.clone()))
        .collect()
}

/// The first turn of each round's fresh daemon.
fn first_turns(rounds: &Rounds) -> Vec<Duration> {
    rounds.iter().filter_map(|run| run.first_turn).collect()
}

const FIRST_EVENT: Part = |l| &l.first_event;

/// One section per daemon and way of posting with the messages of all its
/// rounds, then, for each way of posting, the first event of ours (the first
/// daemon measured: SQLite store) against each other daemon's, pooled, by round
/// and on the first turn of a fresh daemon.
pub fn latency_rows(table: &mut Table, measured: &[(Measured, Vec<TurnLatency>)]) {
    let parts: [(&str, Part); 3] = [
        (
            "POST /messages → first event (turn.started) on SSE",
            FIRST_EVENT,
        ),
        (
            "POST /messages → turn.ended on SSE (echo turn, 9 events)",
            |l| &l.turn_ended,
        ),
        ("POST /messages → its 204 answer", |l| &l.post_answered),
    ];
    for (what, rounds) in measured {
        table.section(&format!(
            "Mock event latency, {}, {} ({} rounds of {LATENCY_MESSAGES} messages, SSE stream already open, one at a time)",
            what.daemon,
            what.posting,
            rounds.len()
        ));
        for (name, part) in parts {
            let mut samples = pooled(rounds, part);
            table.row(
                name,
                format!("{} median", us(median(&mut samples))),
                format!(
                    "p95 {}, max {}; {} of {} over 10 ms",
                    us(percentile(&mut samples, 95.0)),
                    us(percentile(&mut samples, 100.0)),
                    samples
                        .iter()
                        .filter(|d| **d > Duration::from_millis(10))
                        .count(),
                    samples.len()
                ),
            );
        }
        let by_round: Vec<_> = first_event_by_round(rounds).into_iter().map(us).collect();
        table.row(
            "  first event, median of each round",
            String::new(),
            by_round.join(", "),
        );
        let firsts: Vec<_> = first_turns(rounds).into_iter().map(us).collect();
        table.row(
            "  first event of a fresh daemon's first turn",
            String::new(),
            firsts.join(", "),
        );
    }
    let Some((first, _)) = measured.first() else {
        return;
    };
    let ours_daemon = first.daemon.clone();
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    let postings: Vec<&str> = measured.iter().fold(Vec::new(), |mut all, (what, _)| {
        if !all.contains(&what.posting) {
            all.push(what.posting);
        }
        all
    });
    for posting in postings {
        let Some((_, ours)) = measured
            .iter()
            .find(|(what, _)| what.daemon == ours_daemon && what.posting == posting)
        else {
            continue;
        };
        table.section(&format!(
            "First event, ours ({ours_daemon}) / each other daemon, {posting}, in this run"
        ));
        let ours_median = median(&mut pooled(ours, FIRST_EVENT));
        let ours_rounds = first_event_by_round(ours);
        let ours_first = median(&mut first_turns(ours));
        for (what, rounds) in measured
            .iter()
            .filter(|(what, _)| what.daemon != ours_daemon && what.posting == posting)
        {
            let by_round: Vec<_> = ours_rounds
                .iter()
                .zip(first_event_by_round(rounds))
                .map(|(a, b)| format!("{:.2}×", ratio(*a, b)))
                .collect();
            table.row(
                &format!("vs {}", what.daemon),
                format!(
                    "{:.2}×",
                    ratio(ours_median, median(&mut pooled(rounds, FIRST_EVENT)))
                ),
                format!(
                    "pooled medians; by round {}; first turn of a fresh daemon {:.2}× (medians)",
                    by_round.join(", "),
                    ratio(ours_first, median(&mut first_turns(rounds)))
                ),
            );
        }
    }
}
