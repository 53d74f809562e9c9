//! `GET /metrics` (behind the token like every route with data) and the
//! middleware that counts and times each answered request by its route.

use std::time::Instant;

use agentplex_api::SessionStatus;
use axum::extract::{MatchedPath, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use agentplex_sessions::metrics::{
    metrics, observe, RequestLabels, RouteLabels, SessionLabels, CONTENT_TYPE,
};

/// The daemon's metrics (docs/operate.md lists them).
#[utoipa::path(get, path = "/metrics", tag = "meta",
    responses((status = 200, description = "OpenMetrics text (Prometheus)",
               content_type = "application/openmetrics-text", body = String)))]
pub async fn get_metrics(State(state): State<AppState>) -> impl IntoResponse {
    let sessions = state.sessions.list().into_iter().map(|session| {
        let info = session.info();
        SessionLabels {
            agent: info.agent,
            status: status_label(info.status).to_owned(),
        }
    });
    (
        [(header::CONTENT_TYPE, CONTENT_TYPE)],
        metrics().render(sessions),
    )
}

fn status_label(status: SessionStatus) -> &'static str {
    match status {
        SessionStatus::Idle => "idle",
        SessionStatus::Running => "running",
        SessionStatus::AwaitingInput => "awaiting_input",
        SessionStatus::Ended => "ended",
    }
}

/// Counts the request by its declared route and status, and times it to the
/// response's head.
pub async fn record(request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", MatchedPath::as_str)
        .to_owned();
    let method = request.method().as_str().to_owned();
    let started = Instant::now();
    let response = next.run(request).await;
    let labels = RouteLabels { method, route };
    observe(
        &metrics().request_seconds.get_or_create(&labels),
        started.elapsed(),
    );
    let RouteLabels { method, route } = labels;
    metrics()
        .requests
        .get_or_create(&RequestLabels {
            method,
            route,
            status: response.status().as_u16(),
        })
        .inc();
    response
}
