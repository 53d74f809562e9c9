//! Streaming answers as Server-Sent Events, with the script's pauses.

use std::convert::Infallible;
use std::time::Duration;

use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use futures::stream::{self, StreamExt};
use serde_json::Value;

/// One SSE event of an answer, sent after `delay_ms`.
#[derive(Debug, Clone)]
pub struct Frame {
    /// Pause before this event.
    pub delay_ms: u64,
    /// The `event:` field, when the protocol names its events.
    pub event: Option<String>,
    /// The `data:` field.
    pub data: String,
}

impl Frame {
    /// A JSON event named `event`.
    pub fn named(event: &str, data: Value) -> Self {
        Self {
            delay_ms: 0,
            event: Some(event.to_owned()),
            data: data.to_string(),
        }
    }

    /// A JSON event without a name.
    pub fn data(data: impl ToString) -> Self {
        Self {
            delay_ms: 0,
            event: None,
            data: data.to_string(),
        }
    }

    /// The same event after a pause.
    pub fn after(mut self, delay_ms: u64) -> Self {
        self.delay_ms = delay_ms;
        self
    }
}

/// The frames as a `text/event-stream` response that waits before delayed frames.
/// A client that disconnects simply stops the stream.
pub fn respond(frames: Vec<Frame>) -> Response {
    let events = stream::iter(frames).then(|frame| async move {
        if frame.delay_ms > 0 {
            tokio::time::sleep(Duration::from_millis(frame.delay_ms)).await;
        }
        let mut event = Event::default().data(frame.data);
        if let Some(name) = frame.event {
            event = event.event(name);
        }
        Ok::<_, Infallible>(event)
    });
    Sse::new(events).into_response()
}
