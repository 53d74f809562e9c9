//! A session's transcript: envelope assignment and ordered, gap-free storage that
//! readers can poll or wait on.
//!
//! Appending is two steps so that nothing is seen before it is stored: `stage`
//! numbers an event, the session task commits the staged batch to the store, and
//! `publish` makes it readable.

use std::sync::Mutex;

use sandbox_agent_host::EmittedEvent;
use sandbox_agent_universal::{EventSource, UniversalEvent};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;
use tokio::sync::watch;

/// The events of one session, numbered from 1 without gaps.
pub struct EventLog {
    session_id: String,
    events: Mutex<Vec<UniversalEvent>>,
    /// Numbered but not yet stored, so not yet readable.
    staged: Mutex<Vec<UniversalEvent>>,
    latest: watch::Sender<u64>,
}

/// What a read returned.
pub struct Page {
    pub events: Vec<UniversalEvent>,
    pub has_more: bool,
}

impl EventLog {
    /// An empty transcript for a session.
    pub fn new(session_id: &str) -> Self {
        Self::restore(session_id, Vec::new())
    }

    /// A transcript loaded from the store (sequences 1..=n, in order).
    pub fn restore(session_id: &str, events: Vec<UniversalEvent>) -> Self {
        let last = events.last().map_or(0, |event| event.sequence);
        Self {
            session_id: session_id.to_owned(),
            events: Mutex::new(events),
            staged: Mutex::new(Vec::new()),
            latest: watch::channel(last).0,
        }
    }

    /// Wraps an emitted event in its envelope with the next sequence and holds it
    /// until [`publish`](Self::publish).
    pub fn stage(&self, emitted: EmittedEvent, native_session_id: Option<String>) {
        let mut staged = self.staged.lock().unwrap();
        let sequence = self.events.lock().unwrap().len() as u64 + staged.len() as u64 + 1;
        let event = UniversalEvent {
            event_id: format!("evt_{sequence}"),
            sequence,
            time: now_rfc3339(),
            session_id: self.session_id.clone(),
            native_session_id,
            source: if emitted.synthetic {
                EventSource::Daemon
            } else {
                EventSource::Agent
            },
            synthetic: emitted.synthetic,
            event_type: emitted.event_type,
            data: emitted.data,
            raw: emitted.raw,
        };
        staged.push(event);
    }

    /// The staged events, for the store (they stay staged).
    pub fn staged(&self) -> Vec<UniversalEvent> {
        self.staged.lock().unwrap().clone()
    }

    /// Makes every staged event readable; returns the new last sequence for
    /// [`notify`](Self::notify), which wakes the readers waiting for it.
    pub fn publish(&self) -> Option<u64> {
        let staged = std::mem::take(&mut *self.staged.lock().unwrap());
        let last = staged.last().map(|event| event.sequence)?;
        self.events.lock().unwrap().extend(staged);
        Some(last)
    }

    /// Wakes the readers waiting for events up to `last` (the session task calls
    /// it once the session's state matches the events, so a woken reader that
    /// finds `ended` also finds `session.ended`).
    pub fn notify(&self, last: u64) {
        self.latest.send_replace(last);
    }

    /// Events with a sequence above `after`, at most `limit` of them.
    pub fn read(&self, after: u64, limit: Option<usize>, include_raw: bool) -> Page {
        let events = self.events.lock().unwrap();
        let start = (after as usize).min(events.len());
        let end = limit.map_or(events.len(), |limit| {
            start.saturating_add(limit).min(events.len())
        });
        let page = events[start..end]
            .iter()
            .map(|event| {
                let mut event = event.clone();
                if !include_raw {
                    event.raw = None;
                }
                event
            })
            .collect();
        Page {
            events: page,
            has_more: end < events.len(),
        }
    }

    /// The newest readable event that matches.
    pub fn find_last(&self, matches: impl Fn(&UniversalEvent) -> bool) -> Option<UniversalEvent> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .rev()
            .find(|e| matches(e))
            .cloned()
    }

    /// Sequence of the newest event, staged or readable (0 when empty).
    pub fn last_assigned(&self) -> u64 {
        let staged = self.staged.lock().unwrap().len() as u64;
        self.events.lock().unwrap().len() as u64 + staged
    }

    /// Sequence of the newest readable event (0 when empty).
    pub fn last_sequence(&self) -> u64 {
        *self.latest.borrow()
    }

    /// A receiver that changes whenever an event is appended.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.latest.subscribe()
    }
}

/// The current time as RFC 3339 with milliseconds.
pub fn now_rfc3339() -> String {
    let now = OffsetDateTime::now_utc();
    let now = now
        .replace_nanosecond(now.millisecond() as u32 * 1_000_000)
        .unwrap_or(now);
    now.format(&Rfc3339).unwrap_or_default()
}

/// Unix time in milliseconds.
pub fn now_millis() -> i64 {
    (OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandbox_agent_universal::{ErrorData, UniversalEventData, UniversalEventType};

    fn error_event(message: &str, synthetic: bool) -> EmittedEvent {
        EmittedEvent {
            event_type: UniversalEventType::Error,
            data: UniversalEventData::Error(ErrorData {
                message: message.into(),
                code: None,
                details: None,
            }),
            synthetic,
            raw: Some(serde_json::json!({"native": message})),
        }
    }

    #[test]
    fn sequences_start_at_one_and_reads_are_exclusive_of_offset() {
        let log = EventLog::new("s1");
        for i in 0..5 {
            log.stage(error_event(&i.to_string(), i % 2 == 0), None);
        }
        assert!(
            log.read(0, None, false).events.is_empty(),
            "staged is not readable"
        );
        assert_eq!(log.staged().len(), 5);
        assert_eq!(log.publish(), Some(5));
        assert_eq!(log.last_sequence(), 0, "readers are woken by notify");
        log.notify(5);
        assert_eq!(log.last_sequence(), 5);
        assert!(log.staged().is_empty());
        let page = log.read(2, Some(2), false);
        let sequences: Vec<u64> = page.events.iter().map(|e| e.sequence).collect();
        assert_eq!(sequences, vec![3, 4]);
        assert!(page.has_more);
        assert!(page.events.iter().all(|e| e.raw.is_none()));
        let rest = log.read(4, None, true);
        assert_eq!(rest.events.len(), 1);
        assert!(!rest.has_more);
        assert!(rest.events[0].raw.is_some());
        assert_eq!(rest.events[0].event_id, "evt_5");
        assert_eq!(rest.events[0].source, EventSource::Daemon);
        assert!(log.read(99, None, false).events.is_empty());
    }
}
