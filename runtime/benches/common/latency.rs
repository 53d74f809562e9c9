//! The time from `POST /v1/sessions/{id}/messages` to the turn's events on an
//! already open `GET /v1/sessions/{id}/events/sse` stream.

use std::time::{Duration, Instant};

use agentplex_client::{Client, EventStream, MessageRequest, UniversalEvent};
use futures::StreamExt;

/// What each timed message took, from just before its `POST` was sent.
#[derive(Default)]
pub struct TurnLatency {
    /// Until the turn's first event (`turn.started`) arrived on the SSE stream.
    pub first_event: Vec<Duration>,
    /// Until its `turn.ended` arrived.
    pub turn_ended: Vec<Duration>,
    /// Until the `POST` itself was answered.
    pub post_answered: Vec<Duration>,
}

/// Opens the SSE stream of session `id` after its newest event, then sends
/// `warmup + messages` messages one at a time, each after the previous turn ended,
/// and keeps the times of the last `messages`. A turn whose first event is not
/// `turn.started`, or that does not end within 30 s, is an error.
pub async fn turn_latency(
    client: &Client,
    id: &str,
    warmup: usize,
    messages: usize,
) -> Result<TurnLatency, String> {
    let after = client
        .events(id, &Default::default())
        .await
        .map_err(|err| format!("GET events: {err}"))?
        .events
        .last()
        .map_or(0, |e| e.sequence);
    let mut stream = client
        .events_sse(id, Some(after), false, None)
        .await
        .map_err(|err| format!("opening the SSE stream: {err}"))?;
    let mut latency = TurnLatency::default();
    for i in 0..warmup + messages {
        let message = MessageRequest {
            message: Some(format!("ping number {i}")),
            ..Default::default()
        };
        let begin = Instant::now();
        let send = async {
            client
                .send_message(id, &message)
                .await
                .map_err(|err| format!("POST message: {err}"))?;
            Ok::<_, String>(begin.elapsed())
        };
        let first = async {
            next_event(&mut stream)
                .await
                .map(|event| (event, begin.elapsed()))
        };
        let (posted, first) = tokio::join!(send, first);
        let (posted, (event, first_at)) = (posted?, first?);
        if event.event_type.as_str() != "turn.started" {
            return Err(format!(
                "the first event of a turn is {}, not turn.started",
                event.event_type.as_str()
            ));
        }
        // The rest of the turn.
        let ended_at = loop {
            if next_event(&mut stream).await?.event_type.as_str() == "turn.ended" {
                break begin.elapsed();
            }
        };
        if i >= warmup {
            latency.first_event.push(first_at);
            latency.turn_ended.push(ended_at);
            latency.post_answered.push(posted);
        }
    }
    Ok(latency)
}

const TURN_TIMEOUT: Duration = Duration::from_secs(30);

async fn next_event(stream: &mut EventStream) -> Result<UniversalEvent, String> {
    match tokio::time::timeout(TURN_TIMEOUT, stream.next()).await {
        Err(_) => Err(format!("no event within {TURN_TIMEOUT:?}")),
        Ok(None) => Err("the SSE stream ended".to_owned()),
        Ok(Some(Err(err))) => Err(format!("SSE event: {err}")),
        Ok(Some(Ok(event))) => Ok(event),
    }
}
