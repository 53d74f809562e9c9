//! Server-Sent-Events streams of a session's transcript: replay from an offset,
//! then live, one frame per event (`id: <sequence>`, `data: <event JSON>`).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;

use axum::response::sse::{Event, KeepAlive, Sse};
use futures::{Stream, StreamExt};
use sandbox_agent_universal::UniversalEventType;
use tokio::sync::watch;

use agentplex_sessions::Session;
use agentplex_store::EncodedEvent;

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
    until: Until,
    changes: watch::Receiver<u64>,
    buffer: VecDeque<Arc<EncodedEvent>>,
    done: bool,
}

/// The session's events after sequence `after`, as they happen. A reader holds
/// one page at most: one that falls behind reads older pages from the store
/// when it asks for them, so a slow reader never grows the daemon's memory.
pub fn events_after(
    session: Arc<Session>,
    after: u64,
    until: Until,
) -> impl Stream<Item = Arc<EncodedEvent>> + Send {
    let changes = session.shared.log.subscribe();
    let cursor = Cursor {
        session,
        after,
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
            let page = match log.read(cursor.after, PAGE).await {
                Ok(page) => page,
                Err(error) => {
                    tracing::error!(session = %cursor.session.shared.record.id, %error, "reading events for a stream");
                    return None;
                }
            };
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

/// Wraps events as an SSE response with keep-alive comments while idle; each
/// frame carries the event's stored JSON (with `raw` when asked for).
pub fn response(
    events: impl Stream<Item = Arc<EncodedEvent>> + Send + 'static,
    include_raw: bool,
) -> Sse<impl Stream<Item = Result<Event, Infallible>> + Send + 'static> {
    let frames = events.map(move |event| {
        Ok(Event::default()
            .id(event.sequence.to_string())
            .data(event.json(include_raw)))
    });
    Sse::new(frames).keep_alive(KeepAlive::default())
}
