//! The sustained event rate: several mock sessions streaming at once, on one
//! of the daemon's stores.

use std::time::{Duration, Instant};

use agentplex_client::{CreateSessionRequest, MessageRequest};

use super::{Daemon, Table};

/// Mock sessions writing at once, and how long their events are counted.
const STORE_SESSIONS: usize = 8;
const STORE_DURATION: Duration = Duration::from_secs(4);

/// Events per second the daemon commits and publishes while several mock
/// sessions stream at once: one client per session sends `echo` turns back to back
/// (each queued while the previous runs) for a while; the clock stops when every
/// queued turn has run.
pub async fn event_throughput(table: &mut Table, daemon: &Daemon, label: &str) {
    let client = daemon.client();
    let text = format!("echo {}", "stream these words one by one ".repeat(8));
    let request = CreateSessionRequest {
        agent: "mock".into(),
        ..Default::default()
    };
    let ids: Vec<String> = (0..STORE_SESSIONS).map(|s| format!("load-{s}")).collect();
    for id in &ids {
        client.create_session(id, &request).await.unwrap();
    }
    let totals = |list: agentplex_client::SessionListResponse| {
        let events: u64 = list.sessions.iter().map(|s| s.event_count).sum();
        let queued: u64 = list.sessions.iter().map(|s| s.queued_messages).sum();
        let running = list
            .sessions
            .iter()
            .any(|s| s.status != agentplex_client::SessionStatus::Idle);
        (events, queued, running)
    };
    let (before, _, _) = totals(client.list_sessions().await.unwrap());
    let begin = Instant::now();
    let senders = ids.iter().map(|id| {
        let client = daemon.client();
        let text = text.clone();
        async move {
            let mut sent = 0u64;
            while begin.elapsed() < STORE_DURATION {
                let message = MessageRequest {
                    message: Some(text.clone()),
                    ..Default::default()
                };
                client.send_message(id, &message).await.unwrap();
                sent += 1;
            }
            sent
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
        label,
        format!("{:.0} events/s", events as f64 / elapsed),
        format!("{events} events of {sent} turns in {elapsed:.1} s"),
    );
}
