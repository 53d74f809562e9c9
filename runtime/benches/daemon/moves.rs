//! How long a session of [`MOVED_EVENTS`] events takes to leave one daemon as an
//! archive (`GET /v1/sessions/{id}/export`) and to come back in another
//! (`POST /v1/sessions/{id}/import`), both daemons on the same kind of store.

use std::path::Path;
use std::time::{Duration, Instant};

use agentplex_client::{CreateSessionRequest, ImportSessionQuery, MessageRequest};
use futures::StreamExt;

use super::{ms, Daemon, Table};

/// Events in the moved session.
pub const MOVED_EVENTS: u64 = 10_000;
/// Exports and imports timed (the median is reported).
const ROUNDS: usize = 5;

/// Where the two daemons of a move run.
pub struct Ends<'a> {
    pub scratch: &'a Path,
    pub cache_dir: &'a Path,
    /// The store flags of both.
    pub flags: &'a [&'a str],
}

/// Times exports and imports of one mock session of [`MOVED_EVENTS`] events
/// between two daemons on the store `label` names.
pub async fn moves(table: &mut Table, label: &str, at: &Ends<'_>) {
    let from = Daemon::start_with(at.scratch, at.cache_dir, at.flags);
    let to = Daemon::start_with(at.scratch, at.cache_dir, at.flags);
    let (source, target) = (from.client(), to.client());
    let request = CreateSessionRequest {
        agent: "mock".into(),
        ..Default::default()
    };
    source.create_session("moved", &request).await.unwrap();
    let message = MessageRequest {
        message: Some(format!("echo {}", "words to stream one by one ".repeat(20))),
        ..Default::default()
    };
    loop {
        let info = source.get_session("moved").await.unwrap();
        if info.event_count >= MOVED_EVENTS && info.queued_messages == 0 {
            break;
        }
        if info.queued_messages < 4 {
            source.send_message("moved", &message).await.unwrap();
        } else {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    // The turns still running end before the session is measured.
    while source.get_session("moved").await.unwrap().status != agentplex_client::SessionStatus::Idle
    {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let events = source.get_session("moved").await.unwrap().event_count;
    let (mut exports, mut imports) = (Vec::new(), Vec::new());
    let mut archive = Vec::new();
    for round in 0..ROUNDS {
        let begin = Instant::now();
        let mut stream = source.export_session("moved").await.unwrap();
        archive.clear();
        while let Some(chunk) = stream.next().await {
            archive.extend_from_slice(&chunk.unwrap());
        }
        exports.push(begin.elapsed());
        let begin = Instant::now();
        let id = format!("arrived-{round}");
        let answer = target
            .import_session(&id, &ImportSessionQuery::default(), &[], archive.clone())
            .await
            .unwrap();
        imports.push(begin.elapsed());
        assert_eq!(answer.session.event_count, events);
    }
    table.section(&format!(
        "Moving a session of {events} mock events ({label} at both ends)"
    ));
    let kib = archive.len() / 1024;
    table.row(
        "export (GET /v1/sessions/{id}/export)",
        ms(super::median(&mut exports)),
        format!("median of {ROUNDS}; archive {kib} KiB gzip"),
    );
    table.row(
        "import (POST /v1/sessions/{id}/import)",
        ms(super::median(&mut imports)),
        format!("median of {ROUNDS}; checked whole, stored, carried on"),
    );
}
