//! Token authentication: `Authorization: Bearer <token>` or `x-sandbox-token`,
//! compared in constant time. `GET /v1/health` stays open for liveness probes, and
//! `GET /v1/openapi.json` for tools that read the API's description (it holds no data).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::error::ApiError;

/// Routes that answer without a token.
const OPEN_PATHS: &[&str] = &["/v1/health", "/v1/openapi.json"];

/// Rejects requests without the daemon's token.
pub async fn require_token(
    State(token): State<Arc<String>>,
    request: Request,
    next: Next,
) -> Response {
    if OPEN_PATHS.contains(&request.uri().path()) || request.method() == axum::http::Method::OPTIONS
    {
        return next.run(request).await;
    }
    let headers = request.headers();
    let presented = headers
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| {
            value
                .strip_prefix("Bearer ")
                .or_else(|| value.strip_prefix("bearer "))
        })
        .or_else(|| {
            headers
                .get("x-sandbox-token")
                .and_then(|value| value.to_str().ok())
        });
    match presented {
        Some(presented) if bool::from(presented.trim().as_bytes().ct_eq(token.as_bytes())) => {
            next.run(request).await
        }
        _ => ApiError::TokenInvalid.into_response(),
    }
}
