//! The body of `GET /v1/sessions/{id}/events`: the events' stored JSON joined
//! into `{"events":[...],"hasMore":...}` without decoding them. A long range is
//! streamed a page at a time from the store, so a transcript of any length is
//! answered in bounded memory.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use futures::stream;

use crate::error::ApiError;
use agentplex_sessions::Session;
use agentplex_store::EncodedEvent;

/// Events read per page.
const PAGE: usize = 256;

/// Where a streamed answer is.
struct Cursor {
    session: Arc<Session>,
    after: u64,
    /// Events still wanted.
    left: usize,
    include_raw: bool,
    /// A page read ahead (the first one, read before answering).
    pending: Option<(Vec<Arc<EncodedEvent>>, bool)>,
    /// Whether the opening of the object was written.
    opened: bool,
    /// Whether an event was written (a comma goes before the next).
    wrote: bool,
    finished: bool,
}

/// The answer to a page request: up to `limit` events after `after`.
pub async fn body(
    session: Arc<Session>,
    after: u64,
    limit: usize,
    include_raw: bool,
) -> Result<Body, ApiError> {
    let first = session.events_after(after, limit.min(PAGE)).await?;
    let complete = !first.has_more || first.events.len() >= limit;
    if complete {
        let mut json = String::from("{\"events\":[");
        join(&mut json, &first.events, false, include_raw);
        json.push_str(if first.has_more {
            "],\"hasMore\":true}"
        } else {
            "],\"hasMore\":false}"
        });
        return Ok(Body::from(json));
    }
    let cursor = Cursor {
        session,
        after,
        left: limit,
        include_raw,
        pending: Some((first.events, first.has_more)),
        opened: false,
        wrote: false,
        finished: false,
    };
    let chunks = stream::unfold(cursor, |mut cursor| async move {
        if cursor.finished {
            return None;
        }
        let (events, has_more) = match cursor.pending.take() {
            Some(page) => page,
            None => match cursor
                .session
                .events_after(cursor.after, cursor.left.min(PAGE))
                .await
            {
                Ok(page) => (page.events, page.has_more),
                Err(error) => {
                    tracing::error!(session = %cursor.session.record().id, %error, "reading events for a page");
                    return Some((Err(std::io::Error::other(error.to_string())), cursor));
                }
            },
        };
        let mut json = String::new();
        if !cursor.opened {
            json.push_str("{\"events\":[");
            cursor.opened = true;
        }
        join(&mut json, &events, cursor.wrote, cursor.include_raw);
        cursor.wrote |= !events.is_empty();
        cursor.left -= events.len();
        if let Some(last) = events.last() {
            cursor.after = last.sequence;
        }
        if !has_more || cursor.left == 0 || events.is_empty() {
            json.push_str(if has_more {
                "],\"hasMore\":true}"
            } else {
                "],\"hasMore\":false}"
            });
            cursor.finished = true;
        }
        Some((Ok::<_, std::io::Error>(Bytes::from(json)), cursor))
    });
    Ok(Body::from_stream(chunks))
}

/// Appends events to a JSON array being written (`more`: one is already in it).
fn join(json: &mut String, events: &[Arc<EncodedEvent>], mut more: bool, include_raw: bool) {
    for event in events {
        if more {
            json.push(',');
        }
        json.push_str(&event.json(include_raw));
        more = true;
    }
}
