//! A strict Server-Sent-Events reader for the tests: a thread parses the response
//! body into frames (checking LF line ends), and the test takes them with deadlines.

use std::io::{BufRead, BufReader};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use reqwest::blocking::{Client, RequestBuilder};
use reqwest::header::CONTENT_TYPE;
use serde_json::Value;

use super::api::{pretty, sequence, DEADLINE};

/// One dispatched SSE message.
#[derive(Debug, Clone)]
pub struct Frame {
    pub id: Option<String>,
    pub event: Option<String>,
    pub data: String,
}

/// An open SSE response.
pub struct SseStream {
    frames: Receiver<Result<Frame, String>>,
    ended: bool,
}

/// A client without a total timeout, for streams that stay open.
pub fn streaming_client() -> Client {
    Client::builder()
        .timeout(None)
        .build()
        .expect("an HTTP client")
}

impl SseStream {
    /// Sends the request; it must answer 200 with `text/event-stream`.
    #[track_caller]
    pub fn open(request: RequestBuilder) -> SseStream {
        let response = request.send().expect("opening an SSE stream");
        let status = response.status();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .map(|v| v.to_str().unwrap_or_default().to_owned())
            .unwrap_or_default();
        if status != 200 {
            panic!(
                "SSE request answered {status}: {}",
                response.text().unwrap_or_default()
            );
        }
        assert!(
            content_type.starts_with("text/event-stream"),
            "SSE content type is {content_type:?}"
        );
        let (tx, frames) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(response);
            let mut frame = Frame {
                id: None,
                event: None,
                data: String::new(),
            };
            let mut has_data = false;
            loop {
                let mut line = String::new();
                match reader.read_line(&mut line) {
                    Ok(0) => return, // end of stream: the sender drops
                    Ok(_) => {}
                    Err(error) => {
                        let _ = tx.send(Err(format!("reading the SSE stream: {error}")));
                        return;
                    }
                }
                if line.contains('\r') {
                    let _ = tx.send(Err(format!("SSE lines must end with LF only: {line:?}")));
                    return;
                }
                let line = line.strip_suffix('\n').unwrap_or(&line);
                if line.is_empty() {
                    if has_data {
                        let done = std::mem::replace(
                            &mut frame,
                            Frame {
                                id: None,
                                event: None,
                                data: String::new(),
                            },
                        );
                        has_data = false;
                        if tx.send(Ok(done)).is_err() {
                            return;
                        }
                    } else {
                        frame = Frame {
                            id: None,
                            event: None,
                            data: String::new(),
                        };
                    }
                    continue;
                }
                if line.starts_with(':') {
                    continue; // a comment (keep-alive)
                }
                let (field, value) = match line.split_once(':') {
                    Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                    None => (line, ""),
                };
                match field {
                    "id" => frame.id = Some(value.to_owned()),
                    "event" => frame.event = Some(value.to_owned()),
                    "data" => {
                        if has_data {
                            frame.data.push('\n');
                        }
                        frame.data.push_str(value);
                        has_data = true;
                    }
                    _ => {}
                }
            }
        });
        SseStream {
            frames,
            ended: false,
        }
    }

    /// The next frame, or `None` when the server ended the stream. Panics after the
    /// deadline.
    #[track_caller]
    pub fn next_frame(&mut self, timeout: Duration) -> Option<Frame> {
        if self.ended {
            return None;
        }
        match self.frames.recv_timeout(timeout) {
            Ok(Ok(frame)) => Some(frame),
            Ok(Err(error)) => panic!("{error}"),
            Err(RecvTimeoutError::Disconnected) => {
                self.ended = true;
                None
            }
            Err(RecvTimeoutError::Timeout) => panic!("no SSE frame within {timeout:?}"),
        }
    }

    /// The next frame as an event, checking `id: <sequence>` and that the frame is
    /// a plain `message` carrying one JSON object.
    #[track_caller]
    pub fn next_event(&mut self) -> Option<Value> {
        let frame = self.next_frame(DEADLINE)?;
        assert_eq!(
            frame.event, None,
            "frames are default `message` events: {frame:?}"
        );
        let event: Value = serde_json::from_str(&frame.data)
            .unwrap_or_else(|e| panic!("frame data is not JSON ({e}): {frame:?}"));
        assert_eq!(
            frame.id,
            Some(sequence(&event).to_string()),
            "a frame's id is its event's sequence: {frame:?}"
        );
        Some(event)
    }

    /// The next `n` events; the stream must not end before.
    #[track_caller]
    pub fn take(&mut self, n: usize) -> Vec<Value> {
        let mut events = Vec::new();
        while events.len() < n {
            match self.next_event() {
                Some(event) => events.push(event),
                None => panic!(
                    "stream ended after {} of {n} events:\n{}",
                    events.len(),
                    pretty(&events)
                ),
            }
        }
        events
    }

    /// Events up to and including the first of type `event_type`.
    #[track_caller]
    pub fn until_type(&mut self, event_type: &str) -> Vec<Value> {
        let mut events = Vec::new();
        loop {
            match self.next_event() {
                Some(event) => {
                    let done = event["type"] == event_type;
                    events.push(event);
                    if done {
                        return events;
                    }
                }
                None => panic!("stream ended before {event_type}:\n{}", pretty(&events)),
            }
        }
    }

    /// Every event until the server ends the stream (within the deadline).
    #[track_caller]
    pub fn read_to_end(&mut self) -> Vec<Value> {
        let deadline = Instant::now() + DEADLINE;
        let mut events = Vec::new();
        while let Some(event) = self.next_event() {
            events.push(event);
            assert!(
                Instant::now() < deadline,
                "the stream did not end:\n{}",
                pretty(&events)
            );
        }
        events
    }

    /// Asserts that the server ended the stream (nothing more comes).
    #[track_caller]
    pub fn assert_ended(&mut self) {
        if let Some(event) = self.next_event() {
            panic!("the stream should have ended, but sent {event}");
        }
    }
}
