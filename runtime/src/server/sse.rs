//! Server-Sent-Events streams of a session's transcript: replay from an offset,
//! then live, one frame per event (`id: <sequence>`, `data: <event JSON>`).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;

use axum::response::sse::{Event, KeepAlive, Sse};
use futures::{Stream, StreamExt};
use sandbox_agent_universal::{UniversalEvent, UniversalEventType};
use tokio::sync::watch;

use crate::sessions::Session;

/// Events read from the log per wake-up.
const PAGE: usize = 256;

/// When a stream stops on its own.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// After `session.ended` (the session's whole life).
    SessionEnd,
    /// After the first event that needs the client (one turn of `messages/stream`).
    ClientNeeded,
}

struct Cursor {
    session: Arc<Session>,
    after: u64,
    include_raw: bool,
    until: Until,
    changes: watch::Receiver<u64>,
    buffer: VecDeque<UniversalEvent>,
    done: bool,
}

/// The session's events after sequence `after`, as they happen.
pub fn events_after(
    session: Arc<Session>,
    after: u64,
    include_raw: bool,
    until: Until,
) -> impl Stream<Item = UniversalEvent> + Send {
    let changes = session.shared.log.subscribe();
    let cursor = Cursor {
        session,
        after,
        include_raw,
        until,
        changes,
        buffer: VecDeque::new(),
        done: false,
    };
    futures::stream::unfold(cursor, |mut cursor| async move {
        loop {
            if cursor.done {
                return None;
            }
            if let Some(event) = cursor.buffer.pop_front() {
                cursor.after = event.sequence;
                let stop = match cursor.until {
                    Until::SessionEnd => event.event_type == UniversalEventType::SessionEnded,
                    Until::ClientNeeded => event.event_type.needs_client(),
                };
                cursor.done = stop;
                return Some((event, cursor));
            }
            let log = &cursor.session.shared.log;
            // Mark the current value seen before reading, so no append is missed.
            cursor.changes.borrow_and_update();
            let page = log.read(cursor.after, Some(PAGE), cursor.include_raw);
            if !page.events.is_empty() {
                cursor.buffer.extend(page.events);
                continue;
            }
            if cursor.session.shared.state.lock().unwrap().ended
                && cursor.after >= log.last_sequence()
            {
                return None;
            }
            if cursor.changes.changed().await.is_err() {
                return None;
            }
        }
    })
}

/// Wraps events as an SSE response with keep-alive comments while idle.
pub fn response(
    events: impl Stream<Item = UniversalEvent> + Send + 'static,
) -> Sse<impl Stream<Item = Result<Event, Infallible>> + Send + 'static> {
    let frames = events.map(|event| {
        let data = serde_json::to_string(&event).unwrap_or_default();
        Ok(Event::default().id(event.sequence.to_string()).data(data))
    });
    Sse::new(frames).keep_alive(KeepAlive::default())
}
