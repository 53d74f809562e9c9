//! The time from `POST /v1/sessions/{id}/messages` to the turn's events on an
//! already open `GET /v1/sessions/{id}/events/sse` stream, with the `POST` sent
//! over a kept-alive connection or over a new one, as a client without a
//! connection pool sends it.

use std::time::{Duration, Instant};

use agentplex_client::{Client, EventStream, MessageRequest, UniversalEvent};
use futures::StreamExt;

/// How each message's `POST` reaches the daemon.
#[derive(Clone, Debug)]
pub enum Posting {
    /// Through the client's pool: one kept-alive connection.
    KeptAlive,
    /// On a new connection, closed after its answer, as a client without a
    /// connection pool (a script, `curl`) sends it: to `address` (`host:port`).
    NewConnection {
        address: String,
        token: Option<String>,
    },
}

impl Posting {
    /// A new connection per `POST` to the daemon at `endpoint` (`http://host:port`)
    /// when `new_connection`, else the client's kept-alive one.
    pub fn to(new_connection: bool, endpoint: &str, token: Option<&str>) -> Self {
        if !new_connection {
            return Posting::KeptAlive;
        }
        Posting::NewConnection {
            address: endpoint.trim_start_matches("http://").to_owned(),
            token: token.map(str::to_owned),
        }
    }

    /// How the rows name it.
    pub fn label(&self) -> &'static str {
        match self {
            Posting::KeptAlive => "kept-alive connection",
            Posting::NewConnection { .. } => "new connection per POST",
        }
    }

    async fn post(
        &self,
        client: &Client,
        id: &str,
        message: &MessageRequest,
    ) -> Result<(), String> {
        match self {
            Posting::KeptAlive => client
                .send_message(id, message)
                .await
                .map(drop)
                .map_err(|err| format!("POST message: {err}")),
            Posting::NewConnection { address, token } => {
                let (address, token) = (address.clone(), token.clone());
                let path = format!("/v1/sessions/{id}/messages");
                let body = serde_json::to_string(message).map_err(|err| err.to_string())?;
                let status = tokio::task::spawn_blocking(move || {
                    super::http_post_new_connection(&address, &path, token.as_deref(), &body)
                })
                .await
                .map_err(|err| err.to_string())?
                .map_err(|err| format!("POST message: {err}"))?;
                match status {
                    200..=299 => Ok(()),
                    _ => Err(format!("POST message: status {status}")),
                }
            }
        }
    }
}

/// What each timed message took, from just before its `POST` was sent.
#[derive(Default)]
pub struct TurnLatency {
    /// The session's first message, until its first event arrived on SSE
    /// (timed even when it is a warm-up).
    pub first_turn: Option<Duration>,
    /// Until the turn's first event (`turn.started`) arrived on the SSE stream.
    pub first_event: Vec<Duration>,
    /// Until its `turn.ended` arrived.
    pub turn_ended: Vec<Duration>,
    /// Until the `POST` itself was answered.
    pub post_answered: Vec<Duration>,
}

/// Opens the SSE stream of session `id` after its newest event, then sends
/// `warmup + messages` messages one at a time, each after the previous turn ended,
/// and keeps the times of the last `messages` (and the first message's first
/// event). A turn whose first event is not `turn.started`, or that does not end
/// within 30 s, is an error.
pub async fn turn_latency(
    client: &Client,
    posting: &Posting,
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
            posting.post(client, id, &message).await?;
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
        if i == 0 {
            latency.first_turn = Some(first_at);
        }
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
