//! HTTP requests and SSE streams adapters send to agents that run as local servers.
//! The host has already checked that every URL is on the loopback interface.

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use sandbox_agent_host::{HttpRequest, HttpResponse, Input, SseEvent, SseRequest};

use super::incoming::{Inbox, Incoming};

/// Why a request or an SSE stream failed; the adapter gets its text.
#[derive(Debug, thiserror::Error)]
enum LoopbackError {
    /// The adapter's method is no HTTP method.
    #[error("{0}")]
    Method(#[from] axum::http::method::InvalidMethod),
    /// The request failed, or its answer could not be read.
    #[error("{0}")]
    Request(#[from] reqwest::Error),
    /// The server refused the SSE stream.
    #[error("HTTP {0}")]
    Status(reqwest::StatusCode),
    /// The SSE stream broke.
    #[error("{0}")]
    Stream(#[from] eventsource_stream::EventStreamError<reqwest::Error>),
}

/// Default time budget of one request when the adapter gives none.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The daemon's HTTP client for loopback requests, shared by every session (a
/// clone shares its connection pool): it never goes through a proxy.
pub fn client() -> reqwest::Client {
    static CLIENT: std::sync::LazyLock<reqwest::Client> = std::sync::LazyLock::new(|| {
        reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("building the loopback HTTP client")
    });
    CLIENT.clone()
}

/// Sends a request; the response or failure arrives on `incoming`.
pub fn send(client: &reqwest::Client, request: HttpRequest, incoming: Inbox) {
    let client = client.clone();
    tokio::spawn(async move {
        let request_id = request.request_id.clone();
        let input = match perform(&client, request).await {
            Ok(response) => Input::HttpResponse(response),
            Err(error) => Input::HttpError {
                request_id,
                message: error.to_string(),
            },
        };
        let _ = incoming.send(Incoming::Adapter(input));
    });
}

async fn perform(
    client: &reqwest::Client,
    request: HttpRequest,
) -> Result<HttpResponse, LoopbackError> {
    let method = reqwest::Method::from_bytes(request.method.as_bytes())?;
    let timeout = request
        .timeout_ms
        .map_or(DEFAULT_TIMEOUT, |ms| Duration::from_millis(ms.into()));
    let mut builder = client.request(method, &request.url).timeout(timeout);
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    let response = builder.body(request.body).send().await?;
    let status = response.status().as_u16();
    let headers = header_pairs(response.headers());
    let body = response.bytes().await?.to_vec();
    Ok(HttpResponse {
        request_id: request.request_id,
        status,
        headers,
        body,
    })
}

fn header_pairs(headers: &reqwest::header::HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect()
}

/// Opens an SSE stream; its events and its end arrive on `incoming`. Abort the
/// returned task to close it.
pub fn open_sse(
    client: &reqwest::Client,
    request: SseRequest,
    incoming: Inbox,
) -> tokio::task::JoinHandle<()> {
    let client = client.clone();
    tokio::spawn(async move {
        let stream_id = request.stream_id.clone();
        let error = stream_events(&client, request, &incoming)
            .await
            .err()
            .map(|error| error.to_string());
        let _ = incoming.send(Incoming::Adapter(Input::SseClosed { stream_id, error }));
    })
}

async fn stream_events(
    client: &reqwest::Client,
    request: SseRequest,
    incoming: &Inbox,
) -> Result<(), LoopbackError> {
    let mut builder = client
        .get(&request.url)
        .header(reqwest::header::ACCEPT, "text/event-stream");
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    let response = builder.send().await?;
    if !response.status().is_success() {
        return Err(LoopbackError::Status(response.status()));
    }
    let mut events = response.bytes_stream().eventsource();
    while let Some(event) = events.next().await {
        let event = event?;
        let input = Input::SseEvent(SseEvent {
            stream_id: request.stream_id.clone(),
            event: if event.event.is_empty() {
                "message".into()
            } else {
                event.event
            },
            data: event.data,
            id: (!event.id.is_empty()).then_some(event.id),
        });
        // Paced: a server streaming faster than the session converts waits.
        if incoming.send_paced(Incoming::Adapter(input)).await.is_err() {
            break;
        }
    }
    Ok(())
}
