//! Server-Sent-Events streams of a session's transcript (read with
//! [`agentplex_sessions::Session::follow`]): one frame per event
//! (`id: <sequence>`, `data: <event JSON>`).

use std::convert::Infallible;
use std::sync::Arc;

use axum::response::sse::{Event, KeepAlive, Sse};
use futures::{Stream, StreamExt};

use agentplex_store::EncodedEvent;

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
