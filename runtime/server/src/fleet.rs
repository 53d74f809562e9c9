//! Requests for a session that another daemon sharing the database drives, or
//! drove until it died: the session is taken over before the route runs
//! ([`SessionManager::adopt`]), or the request is refused naming the daemon
//! that drives it (409 `session_elsewhere`).

use std::sync::Arc;

use agentplex_sessions::SessionManager;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// Takes over the session a `/v1/sessions/{id}/...` request names, when the
/// fleet has it and this daemon does not drive it.
pub async fn adopt_session(
    State(sessions): State<Arc<SessionManager>>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(id) = session_in_path(request.uri().path()) {
        if let Err(error) = sessions.adopt(id).await {
            return ApiError::from(error).into_response();
        }
    }
    next.run(request).await
}

/// The session id of a `/v1/sessions/{id}...` path.
fn session_in_path(path: &str) -> Option<&str> {
    let id = path.strip_prefix("/v1/sessions/")?.split('/').next()?;
    (!id.is_empty()).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::session_in_path;

    #[test]
    fn the_session_is_read_from_the_path() {
        assert_eq!(session_in_path("/v1/sessions/s1"), Some("s1"));
        assert_eq!(session_in_path("/v1/sessions/s1/events/sse"), Some("s1"));
        assert_eq!(session_in_path("/v1/sessions/"), None);
        assert_eq!(session_in_path("/v1/sessions"), None);
        assert_eq!(session_in_path("/v1/agents/claude"), None);
    }
}
