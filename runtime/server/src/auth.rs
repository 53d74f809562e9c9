//! Token authentication: `Authorization: Bearer <token>` or `x-sandbox-token`,
//! compared in constant time; the terminal, desktop and ACP WebSockets also take
//! `?access_token=` (a browser cannot set headers on a WebSocket), and no other
//! route does. `GET /v1/health` stays open for liveness probes, and
//! `GET /v1/openapi.json` for tools that read the API's description (it holds no data).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, UPGRADE};
use axum::http::{HeaderMap, Uri};
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
    if presents_token(request.headers(), request.uri(), &token) {
        next.run(request).await
    } else {
        ApiError::TokenInvalid.into_response()
    }
}

/// Whether a request carries the daemon's token: in `Authorization: Bearer`, in
/// `x-sandbox-token`, or (the terminal, desktop and ACP WebSockets only) in
/// `?access_token=`.
pub fn presents_token(headers: &HeaderMap, uri: &Uri, token: &str) -> bool {
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
    let query_token = query_token(headers, uri);
    presented
        .or(query_token.as_deref())
        .is_some_and(|presented| token_matches(presented, token))
}

/// The `access_token` query parameter of a terminal or desktop WebSocket request,
/// or of a WebSocket upgrade of ACP's remote transport (`/acp/{agent}`).
fn query_token(headers: &HeaderMap, uri: &Uri) -> Option<String> {
    let path = uri.path();
    let terminal = path.starts_with("/v1/processes/") && path.ends_with("/terminal/ws");
    let acp = path.starts_with("/acp/") && is_websocket_upgrade(headers);
    if !terminal && !acp && path != "/v1/desktop/stream/ws" {
        return None;
    }
    axum::extract::Query::<agentplex_api::ProcessWsQuery>::try_from_uri(uri)
        .ok()
        .and_then(|query| query.0.access_token)
}

/// Whether a request asks to become a WebSocket.
fn is_websocket_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get(UPGRADE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.eq_ignore_ascii_case("websocket"))
}

/// Whether a presented token (surrounding whitespace ignored) is the daemon's: the
/// time taken does not depend on where the bytes differ, only on the lengths.
fn token_matches(presented: &str, token: &str) -> bool {
    bool::from(presented.trim().as_bytes().ct_eq(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::token_matches;

    #[test]
    fn only_the_exact_token_matches() {
        let token = "0123456789abcdef";
        assert!(token_matches(token, token));
        assert!(token_matches(" 0123456789abcdef\t", token));
        for wrong in [
            "",
            "0123456789abcdeX",
            "X123456789abcdef",
            "0123456789abcde",
            "0123456789abcdef0",
            "0123456789ABCDEF",
        ] {
            assert!(!token_matches(wrong, token), "{wrong:?}");
        }
    }
}
