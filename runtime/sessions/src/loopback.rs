//! HTTP requests and SSE streams adapters send to agents that run as local servers.
//! The host has already checked that every URL is on the loopback interface; the
//! client keeps it there and bounds what it reads:
//! - a redirect is followed only to a loopback URL (checked again at each hop, at
//!   most [`MAX_REDIRECTS`]); one elsewhere fails the request;
//! - `localhost` resolves to the loopback addresses only, whatever the system's
//!   resolver says, and no proxy is used;
//! - a response body, and each SSE event, may hold `--max-line-bytes` at most; a
//!   larger one fails the request (or closes the stream) with an error the
//!   adapter receives, instead of growing the daemon's memory.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use agentplex_host::{HttpRequest, HttpResponse, Input, SseEvent, SseRequest};
use eventsource_stream::{EventStreamError, Eventsource};
use futures::StreamExt;

use super::incoming::Inbox;
use agentplex_session::Incoming;

/// Most redirects followed for one request.
pub const MAX_REDIRECTS: usize = 10;

/// Default time budget of one request when the adapter gives none.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a request or an SSE stream failed; the adapter gets its text.
#[derive(Debug, thiserror::Error)]
enum LoopbackError {
    /// The adapter's method is no HTTP method.
    #[error("{0}")]
    Method(#[from] axum::http::method::InvalidMethod),
    /// The request failed (a redirect off the loopback interface included), or
    /// its answer could not be read; with the causes.
    #[error("{}", with_causes(.0))]
    Request(#[from] reqwest::Error),
    /// The server refused the SSE stream.
    #[error("HTTP {0}")]
    Status(reqwest::StatusCode),
    /// The response body is larger than the limit.
    #[error("the response body passed {0} bytes, the limit (--max-line-bytes)")]
    BodyTooLarge(usize),
    /// An SSE event is larger than the limit.
    #[error("an SSE event passed {0} bytes, the limit (--max-line-bytes)")]
    EventTooLarge(usize),
    /// The SSE stream is not valid UTF-8 or not SSE.
    #[error("{0}")]
    Stream(String),
}

impl LoopbackError {
    /// Whether the daemon refused what the server sent (not a plain failure of
    /// the server): worth a warning in the daemon's log.
    fn refused(&self) -> bool {
        match self {
            Self::Request(error) => error.is_redirect(),
            Self::BodyTooLarge(_) | Self::EventTooLarge(_) => true,
            Self::Method(_) | Self::Status(_) | Self::Stream(_) => false,
        }
    }

    /// Logs a refusal; the error's text for the adapter.
    fn reported(self, url: &str) -> String {
        if self.refused() {
            tracing::warn!(url, error = %self, "loopback response refused");
        }
        self.to_string()
    }
}

/// The daemon's client for loopback requests, with the size limit of what it
/// hands to adapters. Clones share one connection pool.
#[derive(Clone)]
pub struct Loopback {
    client: reqwest::Client,
    limit: usize,
}

impl Loopback {
    /// A client whose response bodies and SSE events hold `limit` bytes at most.
    pub fn new(limit: usize) -> Self {
        static CLIENT: std::sync::LazyLock<reqwest::Client> = std::sync::LazyLock::new(|| {
            let localhost = [
                SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
                SocketAddr::from((Ipv6Addr::LOCALHOST, 0)),
            ];
            reqwest::Client::builder()
                .no_proxy()
                .resolve_to_addrs("localhost", &localhost)
                .redirect(reqwest::redirect::Policy::custom(|attempt| {
                    if attempt.previous().len() > MAX_REDIRECTS {
                        attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
                    } else if agentplex_host::is_loopback_url(attempt.url()) {
                        attempt.follow()
                    } else {
                        let refusal = format!(
                            "redirect to {} refused: not on the loopback interface",
                            attempt.url()
                        );
                        attempt.error(refusal)
                    }
                }))
                .build()
                .expect("building the loopback HTTP client")
        });
        Self {
            client: CLIENT.clone(),
            limit,
        }
    }

    /// Sends a request; the response or failure arrives on `incoming`.
    pub fn send(&self, request: HttpRequest, incoming: Inbox) {
        let loopback = self.clone();
        tokio::spawn(async move {
            let request_id = request.request_id.clone();
            let url = request.url.clone();
            let input = match loopback.perform(request).await {
                Ok(response) => Input::HttpResponse(response),
                Err(error) => Input::HttpError {
                    request_id,
                    message: error.reported(&url),
                },
            };
            let _ = incoming.send(Incoming::Adapter(input));
        });
    }

    async fn perform(&self, request: HttpRequest) -> Result<HttpResponse, LoopbackError> {
        let method = reqwest::Method::from_bytes(request.method.as_bytes())?;
        let timeout = request
            .timeout_ms
            .map_or(DEFAULT_TIMEOUT, |ms| Duration::from_millis(ms.into()));
        let mut builder = self.client.request(method, &request.url).timeout(timeout);
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        let response = builder.body(request.body).send().await?;
        let status = response.status().as_u16();
        let headers = header_pairs(response.headers());
        let body = read_body(response, self.limit).await?;
        Ok(HttpResponse {
            request_id: request.request_id,
            status,
            headers,
            body,
        })
    }

    /// Opens an SSE stream; its events and its end arrive on `incoming`. Abort
    /// the returned task to close it.
    pub fn open_sse(&self, request: SseRequest, incoming: Inbox) -> tokio::task::JoinHandle<()> {
        let loopback = self.clone();
        tokio::spawn(async move {
            let stream_id = request.stream_id.clone();
            let url = request.url.clone();
            let error = loopback
                .stream_events(request, &incoming)
                .await
                .err()
                .map(|error| error.reported(&url));
            let _ = incoming.send(Incoming::Adapter(Input::SseClosed { stream_id, error }));
        })
    }

    async fn stream_events(
        &self,
        request: SseRequest,
        incoming: &Inbox,
    ) -> Result<(), LoopbackError> {
        let mut builder = self
            .client
            .get(&request.url)
            .header(reqwest::header::ACCEPT, "text/event-stream");
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        let response = builder.send().await?;
        if !response.status().is_success() {
            return Err(LoopbackError::Status(response.status()));
        }
        // Bytes received since the last whole event: bounded by the limit.
        let pending = Arc::new(AtomicUsize::new(0));
        let counted = pending.clone();
        let limit = self.limit;
        let bytes = response.bytes_stream().map(move |chunk| {
            let chunk = chunk?;
            let held = counted.fetch_add(chunk.len(), Ordering::Relaxed) + chunk.len();
            if held > limit {
                return Err(LoopbackError::EventTooLarge(limit));
            }
            Ok(chunk)
        });
        let mut events = bytes.eventsource();
        while let Some(event) = events.next().await {
            let event = event.map_err(|error| match error {
                EventStreamError::Transport(error) => error,
                other => LoopbackError::Stream(other.to_string()),
            })?;
            pending.store(0, Ordering::Relaxed);
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
}

/// An error's text followed by its causes': `error sending request: connection refused`.
fn with_causes(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(error) = cause {
        text = format!("{text}: {error}");
        cause = error.source();
    }
    text
}

/// Reads a response body of at most `limit` bytes.
async fn read_body(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, LoopbackError> {
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(LoopbackError::BodyTooLarge(limit));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > limit {
            return Err(LoopbackError::BodyTooLarge(limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
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

#[cfg(test)]
mod tests;
