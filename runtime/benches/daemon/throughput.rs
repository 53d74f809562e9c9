//! The sustained event rate: several mock sessions streaming at once, on one
//! of the daemon's stores, under two loads: clients sending turns back to back,
//! and agents streaming their output.

use std::time::{Duration, Instant};

use agentplex_client::{Client, CreateSessionRequest, MessageRequest, SessionListResponse};

use super::{Daemon, Table};

/// Mock sessions writing at once, and how long their clients send turns.
const STORE_SESSIONS: usize = 8;
const STORE_DURATION: Duration = Duration::from_secs(4);
/// Lines each session's process prints in the agent-output load: each becomes one
/// event (an `item.delta` of the tool result).
const OUTPUT_LINES: usize = 40_000;

/// What makes the sessions' events.
#[derive(Clone, Copy)]
pub enum Load {
    /// One client per session sends `echo` turns back to back, each answered once
    /// its message is stored: the rate follows each session's request round trip.
    Turns,
    /// One turn per session whose agent streams [`OUTPUT_LINES`] lines as fast as
    /// it prints them (the mock's `shell`, a real process): the rate the daemon
    /// stores and publishes agent output at.
    AgentOutput,
}

impl Load {
    /// The first part of its sessions' ids.
    fn tag(self) -> &'static str {
        match self {
            Load::Turns => "turns",
            Load::AgentOutput => "output",
        }
    }

    /// How the load is named in the table.
    pub fn name(self) -> &'static str {
        match self {
            Load::Turns => "turns back to back",
            Load::AgentOutput => "agent output",
        }
    }
}

/// Events the daemon's sessions hold, messages still queued, and whether any
/// session is busy.
fn totals(list: SessionListResponse) -> (u64, u64, bool) {
    let events = list.sessions.iter().map(|s| s.event_count).sum();
    let queued = list.sessions.iter().map(|s| s.queued_messages).sum();
    let running = list
        .sessions
        .iter()
        .any(|s| s.status != agentplex_client::SessionStatus::Idle);
    (events, queued, running)
}

/// Sends `text` to the session `id` (answered once it is stored).
async fn send(client: &Client, id: &str, text: &str) {
    let message = MessageRequest {
        message: Some(text.to_owned()),
        ..Default::default()
    };
    client.send_message(id, &message).await.unwrap();
}

/// Events per second the daemon commits and publishes while [`STORE_SESSIONS`]
/// mock sessions make events under `load`; the clock stops when every queued turn
/// has run.
pub async fn event_throughput(table: &mut Table, daemon: &Daemon, label: &str, load: Load) {
    let client = daemon.client();
    let request = CreateSessionRequest {
        agent: "mock".into(),
        ..Default::default()
    };
    let ids: Vec<String> = (0..STORE_SESSIONS)
        .map(|s| format!("{}-{s}", load.tag()))
        .collect();
    for id in &ids {
        client.create_session(id, &request).await.unwrap();
    }
    let (before, _, _) = totals(client.list_sessions().await.unwrap());
    let begin = Instant::now();
    let senders = ids.iter().map(|id| {
        let client = daemon.client();
        async move {
            match load {
                Load::Turns => {
                    let text = format!("echo {}", "stream these words one by one ".repeat(8));
                    let mut sent = 0u64;
                    while begin.elapsed() < STORE_DURATION {
                        send(&client, id, &text).await;
                        sent += 1;
                    }
                    sent
                }
                Load::AgentOutput => {
                    send(&client, id, &format!("shell seq 1 {OUTPUT_LINES}")).await;
                    1
                }
            }
        }
    });
    let sent: u64 = futures::future::join_all(senders).await.into_iter().sum();
    loop {
        let (_, queued, running) = totals(client.list_sessions().await.unwrap());
        if queued == 0 && !running {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let elapsed = begin.elapsed().as_secs_f64();
    let (after, _, _) = totals(client.list_sessions().await.unwrap());
    let events = after - before;
    table.row(
        &format!("{label}, {}", load.name()),
        format!("{:.0} events/s", events as f64 / elapsed),
        format!("{events} events of {sent} turns in {elapsed:.1} s"),
    );
}
