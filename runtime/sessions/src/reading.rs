//! How anyone outside a session's task reads its transcript: a page of events
//! after an offset ([`Session::events_after`]), or every event from an offset
//! on, as it happens ([`Session::follow`]). Both hand out the events as the
//! session core encoded them, never decoded again.

use std::collections::VecDeque;
use std::sync::Arc;

use agentplex_universal::UniversalEventType;
use futures::Stream;
use tokio::sync::watch;

use crate::log::Page;
use crate::{Session, SessionError};
use agentplex_store::EncodedEvent;

/// Events read from the log per wake-up of a stream.
const STREAM_PAGE: usize = 256;

/// When a stream from [`Session::follow`] stops on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// After `session.ended` (the session's whole life).
    SessionEnd,
    /// After the first event that needs the client (one turn of `messages/stream`).
    ClientNeeded,
}

impl Session {
    /// Up to `limit` readable events with a sequence above `after`, in order:
    /// from memory when the session holds them, else a page from the store.
    pub async fn events_after(&self, after: u64, limit: usize) -> Result<Page, SessionError> {
        Ok(self.shared.log.read(after, limit).await?)
    }

    /// The session's events after sequence `after`, as they happen, until
    /// `until` says to stop or the session ends. A reader holds one page at
    /// most: one that falls behind reads older pages from the store when it
    /// asks for them, so a slow reader never grows the daemon's memory.
    pub fn follow(
        self: Arc<Self>,
        after: u64,
        until: Until,
    ) -> impl Stream<Item = Arc<EncodedEvent>> + Send {
        let changes = self.shared.log.subscribe();
        let cursor = Cursor {
            session: self,
            after,
            until,
            changes,
            buffer: VecDeque::new(),
            done: false,
        };
        futures::stream::unfold(cursor, |mut cursor| async move {
            let event = cursor.next().await?;
            Some((event, cursor))
        })
    }
}

/// Where a stream from [`Session::follow`] is.
struct Cursor {
    session: Arc<Session>,
    after: u64,
    until: Until,
    changes: watch::Receiver<u64>,
    buffer: VecDeque<Arc<EncodedEvent>>,
    done: bool,
}

impl Cursor {
    /// The next event, waiting for it if needed; `None` once the stream stops.
    async fn next(&mut self) -> Option<Arc<EncodedEvent>> {
        loop {
            if self.done {
                return None;
            }
            if let Some(event) = self.buffer.pop_front() {
                self.after = event.sequence;
                self.done = match self.until {
                    Until::SessionEnd => event.event_type == UniversalEventType::SessionEnded,
                    Until::ClientNeeded => event.event_type.needs_client(),
                };
                return Some(event);
            }
            let shared = &self.session.shared;
            // Mark the current value seen before reading, so no append is missed.
            self.changes.borrow_and_update();
            let page = match shared.log.read(self.after, STREAM_PAGE).await {
                Ok(page) => page,
                Err(error) => {
                    tracing::error!(session = %shared.record.id, %error, "reading events for a stream");
                    return None;
                }
            };
            if !page.events.is_empty() {
                self.buffer.extend(page.events);
                continue;
            }
            let over = {
                let state = shared.state.lock().unwrap();
                state.ended || state.elsewhere
            };
            if over && self.after >= shared.log.last_sequence() {
                return None;
            }
            if self.changes.changed().await.is_err() {
                return None;
            }
        }
    }
}
