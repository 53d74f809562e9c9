//! `POST /v1/agents/{agent}/install` with `Accept: text/event-stream`: the install's
//! progress as `progress` events, then one `result` (the outcome) or `error` (a
//! problem document) event.

use std::convert::Infallible;

use axum::http::{header, HeaderMap};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::Stream;
use tokio::sync::broadcast::error::RecvError;

use crate::error::ApiError;
use agentplex_install::{Follow, InstallResult};
use agentplex_sessions::agents::install_failed;

/// Whether the client asked for an event stream.
pub fn wants_events(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|accept| accept.to_str().ok())
        .is_some_and(|accept| accept.contains("text/event-stream"))
}

/// The answer of a route that installs: the install's event stream when the
/// client asked for one, else `None` once the install succeeded (its failure is
/// the route's `install_failed` problem).
pub async fn answer(
    agent: &str,
    follow: Follow,
    headers: &HeaderMap,
) -> Result<Option<axum::response::Response>, ApiError> {
    use axum::response::IntoResponse;
    if wants_events(headers) {
        return Ok(Some(stream(agent.to_owned(), follow).into_response()));
    }
    follow
        .result
        .await
        .map_err(|error| install_failed(agent, &error))?;
    Ok(None)
}

/// The install's events, ending with its result.
pub fn stream(agent: String, follow: Follow) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let events = futures::stream::unfold(Some(follow), move |state| {
        let agent = agent.clone();
        async move {
            let mut follow = state?;
            loop {
                tokio::select! {
                    biased;
                    report = follow.progress.recv() => match report {
                        Ok(report) => {
                            let event = Event::default().event("progress").json_data(report).ok()?;
                            return Some((Ok(event), Some(follow)));
                        }
                        Err(RecvError::Lagged(_)) => continue,
                        Err(RecvError::Closed) => {
                            let result = follow.result.clone().await;
                            return Some((Ok(last_event(&agent, result)), None));
                        }
                    },
                    result = follow.result.clone() => {
                        return Some((Ok(last_event(&agent, result)), None));
                    }
                }
            }
        }
    });
    Sse::new(events).keep_alive(KeepAlive::default())
}

fn last_event(agent: &str, result: InstallResult) -> Event {
    let event = match result {
        Ok(outcome) => Event::default().event("result").json_data(outcome),
        Err(error) => Event::default()
            .event("error")
            .json_data(ApiError::from(install_failed(agent, &error)).problem()),
    };
    event.unwrap_or_else(|_| Event::default().event("error"))
}
