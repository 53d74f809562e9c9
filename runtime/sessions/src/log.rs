//! A session's transcript: envelope assignment and ordered, gap-free storage that
//! readers can poll or wait on.
//!
//! Appending is two steps so that nothing is seen before it is stored: `stage`
//! numbers and encodes an event, the session task commits the staged batch to the
//! store, and `publish` makes it readable.
//!
//! Memory is bounded per session: the log keeps only the newest events (at most
//! [`TAIL_EVENTS`] and [`TAIL_BYTES`]); older ones are read from the store, a page
//! at a time, when a reader asks for them.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use agentplex_universal::UniversalEvent;
use tokio::sync::watch;

use agentplex_store::{EncodedEvent, Store, StoreError};

/// Most events a session keeps in memory: enough for live readers, who read at
/// the head, and for a client that reconnects a moment later.
pub const TAIL_EVENTS: usize = 128;
/// Most bytes of encoded events a session keeps in memory (the newest event is
/// always kept, whatever its size): 10,000 sessions hold at most 320 MiB of
/// events in the worst case, and typically far less.
pub const TAIL_BYTES: usize = 32 * 1024;
/// Events read from the store per query when a reader is behind the tail.
const STORE_PAGE: usize = 256;

/// The events of one session, numbered from 1 without gaps.
pub struct EventLog {
    session_id: String,
    store: Arc<dyn Store>,
    inner: Mutex<Inner>,
    latest: watch::Sender<u64>,
}

/// What the log holds, behind one lock.
#[derive(Default)]
struct Inner {
    /// The newest readable events, in order.
    tail: VecDeque<Arc<EncodedEvent>>,
    /// Bytes held by `tail`.
    tail_bytes: usize,
    /// Sequence of the newest readable event.
    published: u64,
    /// Numbered but not yet stored, so not yet readable.
    staged: Vec<Arc<EncodedEvent>>,
}

impl Inner {
    /// Drops the oldest events past the memory bound.
    fn trim(&mut self) {
        while self.tail.len() > TAIL_EVENTS || (self.tail_bytes > TAIL_BYTES && self.tail.len() > 1)
        {
            if let Some(old) = self.tail.pop_front() {
                self.tail_bytes -= old.size();
            }
        }
    }

    /// The first sequence the tail holds (`published + 1` when empty).
    fn first_in_tail(&self) -> u64 {
        self.tail
            .front()
            .map_or(self.published + 1, |event| event.sequence)
    }
}

/// What a read returned.
pub struct Page {
    pub events: Vec<Arc<EncodedEvent>>,
    pub has_more: bool,
}

impl EventLog {
    /// An empty transcript for a session kept in `store`.
    pub fn new(session_id: &str, store: Arc<dyn Store>) -> Self {
        Self::restore(session_id, store, Vec::new())
    }

    /// A transcript whose newest events (`tail`, in order) were loaded from the
    /// store; the older ones stay there.
    pub fn restore(session_id: &str, store: Arc<dyn Store>, tail: Vec<Arc<EncodedEvent>>) -> Self {
        let published = tail.last().map_or(0, |event| event.sequence);
        let mut inner = Inner {
            tail_bytes: tail.iter().map(|event| event.size()).sum(),
            tail: tail.into(),
            published,
            staged: Vec::new(),
        };
        inner.trim();
        Self {
            session_id: session_id.to_owned(),
            store,
            inner: Mutex::new(inner),
            latest: watch::channel(published).0,
        }
    }

    /// Holds an event the session core numbered and encoded until
    /// [`publish`](Self::publish); it must be the next one of the transcript.
    pub fn stage(&self, event: Arc<EncodedEvent>) {
        let mut inner = self.inner.lock().unwrap();
        let next = inner.published + inner.staged.len() as u64 + 1;
        debug_assert_eq!(event.sequence, next, "the core numbers on from the log");
        inner.staged.push(event);
    }

    /// The staged events, for the store (they stay staged).
    pub fn staged(&self) -> Vec<Arc<EncodedEvent>> {
        self.inner.lock().unwrap().staged.clone()
    }

    /// Makes every staged event readable; returns the new last sequence for
    /// [`notify`](Self::notify), which wakes the readers waiting for it.
    pub fn publish(&self) -> Option<u64> {
        let mut inner = self.inner.lock().unwrap();
        let staged = std::mem::take(&mut inner.staged);
        let last = staged.last().map(|event| event.sequence)?;
        inner.tail_bytes += staged.iter().map(|event| event.size()).sum::<usize>();
        inner.tail.extend(staged);
        inner.published = last;
        inner.trim();
        Some(last)
    }

    /// Wakes the readers waiting for events up to `last` (the session task calls
    /// it once the session's state matches the events, so a woken reader that
    /// finds `ended` also finds `session.ended`).
    pub fn notify(&self, last: u64) {
        self.latest.send_replace(last);
    }

    /// Readable events with a sequence above `after`, at most `limit` of them:
    /// from memory when the tail has them, else a page from the store.
    pub async fn read(&self, after: u64, limit: usize) -> Result<Page, StoreError> {
        let published = match self.read_tail(after, limit) {
            Ok(page) => return Ok(page),
            Err(published) => published,
        };
        let store = self.store.clone();
        let session_id = self.session_id.clone();
        let wanted = limit.min(STORE_PAGE);
        let mut events =
            tokio::task::spawn_blocking(move || store.read_events(&session_id, after, wanted))
                .await
                .map_err(|error| {
                    StoreError::Io(agentplex_store::cause_while("reading events", error))
                })??;
        // Committed a moment before being published: not readable yet.
        events.retain(|event| event.sequence <= published);
        let last = events.last().map_or(after, |event| event.sequence);
        Ok(Page {
            events,
            has_more: last < published,
        })
    }

    /// The page from memory, or (when the tail starts after `after`) the newest
    /// readable sequence, to read the page from the store.
    fn read_tail(&self, after: u64, limit: usize) -> Result<Page, u64> {
        let inner = self.inner.lock().unwrap();
        let first = inner.first_in_tail();
        // `after` may be any number a client sends (u64::MAX included).
        let next = after.saturating_add(1);
        if next < first {
            return Err(inner.published);
        }
        let skip = usize::try_from(next - first).unwrap_or(usize::MAX);
        let events: Vec<_> = inner.tail.iter().skip(skip).take(limit).cloned().collect();
        let last = events.last().map_or(after, |event| event.sequence);
        Ok(Page {
            events,
            has_more: last < inner.published,
        })
    }

    /// The newest readable event that matches, looking through the store past
    /// the tail (a blocking read: for the session task's rare lookups), without
    /// its `raw` payload.
    pub fn find_last(&self, matches: impl Fn(&UniversalEvent) -> bool) -> Option<UniversalEvent> {
        let (tail, mut before) = {
            let inner = self.inner.lock().unwrap();
            (inner.tail.clone(), inner.first_in_tail())
        };
        let decoded =
            |event: &Arc<EncodedEvent>| (event.decode_envelope().ok()).filter(|e| matches(e));
        if let Some(found) = tail.iter().rev().find_map(decoded) {
            return Some(found);
        }
        while before > 1 {
            let page = self
                .store
                .read_events_before(&self.session_id, before, STORE_PAGE)
                .inspect_err(|error| tracing::warn!(session_id = %self.session_id, %error, "reading older events"))
                .ok()?;
            if let Some(found) = page.iter().find_map(decoded) {
                return Some(found);
            }
            before = page.last()?.sequence;
        }
        None
    }

    /// Sequence of the newest event, staged or readable (0 when empty).
    pub fn last_assigned(&self) -> u64 {
        let inner = self.inner.lock().unwrap();
        inner.published + inner.staged.len() as u64
    }

    /// Sequence of the newest readable event (0 when empty).
    pub fn last_sequence(&self) -> u64 {
        *self.latest.borrow()
    }

    /// A receiver that changes whenever an event is appended.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.latest.subscribe()
    }

    /// Lets go of the events held in memory (a session at rest): readers get
    /// them from the store, and the tail fills again with the next events.
    pub fn release_tail(&self) {
        let mut inner = self.inner.lock().unwrap();
        inner.tail = VecDeque::new();
        inner.tail_bytes = 0;
    }

    /// How many events and bytes the log holds in memory.
    #[cfg(test)]
    pub fn held(&self) -> (usize, usize) {
        let inner = self.inner.lock().unwrap();
        (inner.tail.len() + inner.staged.len(), inner.tail_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentplex_store::{Checkpoint, Commit, EphemeralStore, SessionRecord};
    use agentplex_universal::{ErrorData, EventSource, UniversalEventData, UniversalEventType};

    /// Stages an `error` event with `message` as the next one of the log (the
    /// session core numbers them so).
    fn stage_error(log: &EventLog, message: &str) {
        let sequence = log.last_assigned() + 1;
        let event = UniversalEvent {
            event_id: format!("evt_{sequence}"),
            sequence,
            time: "2026-12-02T00:00:00Z".into(),
            session_id: "s1".into(),
            native_session_id: None,
            source: EventSource::Agent,
            synthetic: false,
            event_type: UniversalEventType::Error,
            data: UniversalEventData::Error(ErrorData {
                message: message.into(),
                code: None,
                details: None,
            }),
            raw: Some(serde_json::json!({"native": message})),
        };
        log.stage(Arc::new(EncodedEvent::encode(&event)));
    }

    /// A log on a memory store that has a session `s1`.
    fn log() -> EventLog {
        let store = Arc::new(EphemeralStore::default());
        let record: SessionRecord =
            serde_json::from_value(serde_json::json!({"id": "s1", "agent": "mock",
                "agentMode": "build", "permissionMode": "default", "model": null,
                "variant": null, "title": null, "directory": "/", "createdAt": 0, "env": []}))
            .unwrap();
        store.insert_session(&record).unwrap();
        EventLog::new("s1", store)
    }

    /// Stages `count` events, stores them and makes them readable.
    fn append(log: &EventLog, count: usize, size: usize) {
        for i in 0..count {
            stage_error(log, &"x".repeat(size.max(i % 7)));
        }
        log.store
            .commit(Commit {
                session_id: "s1".into(),
                events: log.staged(),
                checkpoint: Checkpoint::default(),
                snapshot: None,
            })
            .unwrap();
        let last = log.publish().unwrap();
        log.notify(last);
    }

    fn sequences(page: &Page) -> Vec<u64> {
        page.events.iter().map(|e| e.sequence).collect()
    }

    #[tokio::test]
    async fn sequences_start_at_one_and_reads_are_exclusive_of_offset() {
        let log = log();
        for i in 0..5 {
            stage_error(&log, &i.to_string());
        }
        assert!(
            log.read(0, 10).await.unwrap().events.is_empty(),
            "staged is not readable"
        );
        assert_eq!(log.staged().len(), 5);
        assert_eq!(log.publish(), Some(5));
        assert_eq!(log.last_sequence(), 0, "readers are woken by notify");
        log.notify(5);
        assert_eq!(log.last_sequence(), 5);
        assert!(log.staged().is_empty());
        let page = log.read(2, 2).await.unwrap();
        assert_eq!(sequences(&page), vec![3, 4]);
        assert!(page.has_more);
        let rest = log.read(4, 10).await.unwrap();
        assert_eq!(sequences(&rest), vec![5]);
        assert!(!rest.has_more);
        assert_eq!(rest.events[0].decode().unwrap().event_id, "evt_5");
        assert!(rest.events[0].json(false).find("\"raw\"").is_none());
        assert!(log.read(99, 10).await.unwrap().events.is_empty());
        let beyond = log.read(u64::MAX, 10).await.unwrap();
        assert!(beyond.events.is_empty() && !beyond.has_more);
    }

    #[tokio::test]
    async fn memory_holds_a_bounded_tail_and_older_pages_come_from_the_store() {
        let log = log();
        append(&log, 3 * TAIL_EVENTS + 10, 10);
        let (held, _) = log.held();
        assert_eq!(held, TAIL_EVENTS);
        let mut after = 0;
        let mut seen = Vec::new();
        loop {
            let page = log.read(after, 100).await.unwrap();
            seen.extend(sequences(&page));
            after = *seen.last().unwrap();
            if !page.has_more {
                break;
            }
        }
        assert_eq!(
            seen,
            (1..=(3 * TAIL_EVENTS as u64 + 10)).collect::<Vec<_>>()
        );
        // Big events: the byte bound holds, the newest event always stays.
        append(&log, 8, TAIL_BYTES / 8);
        let (held, bytes) = log.held();
        assert!(bytes <= TAIL_BYTES, "{bytes}");
        assert!(held >= 1);
        append(&log, 1, 2 * TAIL_BYTES);
        assert_eq!(log.held().0, 1);
    }

    #[tokio::test]
    async fn a_released_tail_is_read_from_the_store_then_fills_again() {
        let log = log();
        append(&log, 5, 10);
        log.release_tail();
        assert_eq!(log.held(), (0, 0));
        assert_eq!(sequences(&log.read(0, 10).await.unwrap()), [1, 2, 3, 4, 5]);
        assert_eq!(sequences(&log.read(3, 10).await.unwrap()), [4, 5]);
        assert!(log.read(5, 10).await.unwrap().events.is_empty());
        append(&log, 2, 10);
        assert_eq!(log.held().0, 2);
        assert_eq!(sequences(&log.read(3, 10).await.unwrap()), [4, 5, 6, 7]);
        assert_eq!(sequences(&log.read(5, 10).await.unwrap()), [6, 7]);
    }

    #[test]
    fn the_last_match_is_found_past_the_tail() {
        let log = log();
        stage_error(&log, "needle");
        append(&log, 2 * TAIL_EVENTS, 1);
        let found = log
            .find_last(|e| matches!(&e.data, UniversalEventData::Error(d) if d.message == "needle"))
            .expect("found in the store");
        assert_eq!(found.sequence, 1);
        assert!(log.find_last(|_| false).is_none());
    }
}
