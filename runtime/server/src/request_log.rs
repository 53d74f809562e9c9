//! Each request's log: an `x-request-id` (the client's, or a new UUID) answered
//! back in the response and carried by every log line written while serving
//! it, and one access line per request under the `agentplex::access`
//! target (`info` for an error answer, `debug` otherwise). The query string is
//! never logged: it may hold the token.

use std::time::Duration;

use axum::http::{HeaderName, Request, Response};
use tower::ServiceBuilder;
use tower_http::classify::{ServerErrorsAsFailures, SharedClassifier};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;
use tracing::Span;

/// The header a request's id travels in.
pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Gives every request an id and answers it back (outermost, so even requests
/// refused early carry one).
pub fn ids<S>(router: axum::Router<S>) -> axum::Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    router.layer(
        ServiceBuilder::new()
            .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
            .layer(PropagateRequestIdLayer::new(REQUEST_ID)),
    )
}

/// The tracing layer [`trace`] builds: a span per request, an access line per
/// response, nothing else.
pub type RequestTrace = TraceLayer<
    SharedClassifier<ServerErrorsAsFailures>,
    fn(&Request<axum::body::Body>) -> Span,
    (),
    fn(&Response<axum::body::Body>, Duration, &Span),
    (),
    (),
    (),
>;

/// The span and access line of each request (inside [`ids`]).
pub fn trace() -> RequestTrace {
    TraceLayer::new_for_http()
        .make_span_with(request_span as fn(&Request<axum::body::Body>) -> Span)
        .on_request(())
        .on_response(access_line as fn(&Response<axum::body::Body>, Duration, &Span))
        .on_body_chunk(())
        .on_eos(())
        // Server errors are logged with their cause where they are answered.
        .on_failure(())
}

fn request_span(request: &Request<axum::body::Body>) -> Span {
    let id = request
        .headers()
        .get(&REQUEST_ID)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    tracing::info_span!(
        "request",
        request_id = id,
        method = %request.method(),
        path = request.uri().path(),
    )
}

/// A request answered with an error is logged at `info`, every other one at
/// `debug`: a line per request at the default level cost a quarter of
/// `GET /v1/agents`'s throughput and wrote 90 MB in 16 s under load.
fn access_line(response: &Response<axum::body::Body>, latency: Duration, _span: &Span) {
    let status = response.status().as_u16();
    let latency_us = latency.as_micros() as u64;
    if status >= 400 {
        tracing::info!(target: "agentplex::access", status, latency_us, "answered");
    } else {
        tracing::debug!(target: "agentplex::access", status, latency_us, "answered");
    }
}
