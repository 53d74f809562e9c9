//! Opening the upstream's socket: the agent's handshake request, with the
//! real key, through the gateway's HTTP client (its proxies, TLS roots and
//! connect timeout), upgraded once the upstream answers `101`.
//!
//! The URL is the upstream's base URL (`http` or `https`, for `ws` and `wss`)
//! and the rest of the agent's path and query, as for HTTP. The headers are the
//! agent's but for the connection's own and the handshake's, which the gateway
//! makes afresh; the session token is swapped for the key wherever the agent
//! sent it ([`forward::swap_key`]).

use std::sync::Arc;

use http_body_util::{BodyExt, StreamBody};
use hyper::header::{self, HeaderMap};
use hyper::{Response, StatusCode};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::handshake::client::generate_key;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::WebSocketStream;

use super::{config, refusal_frame, without_handshake, FORMAT};
use crate::format::Refusal;
use crate::forward::{self, reqwest_body, Call};
use crate::listener::{refuse, Body};
use crate::relay::Relay;
use crate::route::Route;
use crate::Shared;

/// The upstream's end of a carried socket.
pub(super) type UpstreamSocket = WebSocketStream<reqwest::Upgraded>;

/// How to open the upstream's socket, again if need be.
pub(super) struct Dial {
    shared: Arc<Shared>,
    route: Arc<Route>,
    /// The upstream's base URL, for logs and messages.
    base: String,
    url: String,
    headers: HeaderMap,
}

/// Why the upstream's socket could not be opened.
pub(super) enum Failure {
    /// The upstream answered without upgrading (`401`, `404`...): its answer.
    Answered(reqwest::Response),
    /// It could not be reached, or broke the handshake: the gateway's refusal.
    Refused(Refusal, String),
}

impl Dial {
    /// The upstream handshake of `call`, whose upgrade request had `query` and
    /// `headers`.
    pub(super) fn new(call: &Call, query: Option<&str>, headers: &HeaderMap) -> Self {
        let mut headers = without_handshake(forward::forwarded(headers));
        let query = forward::swap_key(&mut headers, query, &call.token, &call.upstream);
        let base = call.upstream.base_url().to_owned();
        let url = match query {
            Some(query) => format!("{base}{}?{query}", call.rest),
            None => format!("{base}{}", call.rest),
        };
        Self {
            shared: call.shared.clone(),
            route: call.route.clone(),
            base,
            url,
            headers,
        }
    }

    /// Opens the upstream's socket; returns it with the headers of its `101`
    /// to pass on.
    pub(super) async fn open(&self) -> Result<(UpstreamSocket, HeaderMap), Failure> {
        let key = generate_key();
        let sent = self
            .shared
            .client
            .get(&self.url)
            .headers(self.headers.clone())
            .header(header::CONNECTION, "upgrade")
            .header(header::UPGRADE, "websocket")
            .header(header::SEC_WEBSOCKET_VERSION, "13")
            .header(header::SEC_WEBSOCKET_KEY, &key)
            .send();
        let response = match tokio::time::timeout(self.shared.response_timeout, sent).await {
            Ok(Ok(response)) => response,
            Ok(Err(error)) => {
                let refusal = match error.is_timeout() {
                    true => Refusal::UpstreamTimedOut,
                    false => Refusal::UpstreamFailed,
                };
                // Without its URL: a key may be in the query.
                return Err(self.fail(refusal, &error.without_url().to_string()));
            }
            Err(_) => return Err(self.fail(Refusal::UpstreamTimedOut, "no answer in time")),
        };
        if response.status() != StatusCode::SWITCHING_PROTOCOLS {
            return Err(Failure::Answered(response));
        }
        let accept = response.headers().get(header::SEC_WEBSOCKET_ACCEPT);
        if accept
            .is_none_or(|accept| accept.as_bytes() != derive_accept_key(key.as_bytes()).as_bytes())
        {
            return Err(self.fail(
                Refusal::UpstreamFailed,
                "the WebSocket handshake was not answered",
            ));
        }
        let head = without_handshake(forward::forwarded(response.headers()));
        let upgraded = response.upgrade().await.map_err(|error| {
            self.fail(Refusal::UpstreamFailed, &error.without_url().to_string())
        })?;
        let socket = WebSocketStream::from_raw_socket(upgraded, Role::Client, Some(config())).await;
        Ok((socket, head))
    }

    /// Logs why the upstream could not be opened; the refusal for the agent.
    fn fail(&self, refusal: Refusal, reason: &str) -> Failure {
        tracing::warn!(
            session = %self.route.session_id,
            agent = %self.route.agent,
            format = %FORMAT,
            upstream = self.base,
            reason,
            "model gateway: the upstream's WebSocket could not be opened"
        );
        Failure::Refused(refusal, format!("model gateway: {} {reason}", self.base))
    }
}

impl Failure {
    /// The HTTP status the agent is told.
    pub(super) fn status(&self) -> u16 {
        match self {
            Failure::Answered(response) => response.status().as_u16(),
            Failure::Refused(refusal, _) => refusal.status(),
        }
    }

    /// The answer to the agent's upgrade: the upstream's, or the gateway's in
    /// the format's shape.
    pub(super) fn into_response(self) -> Response<Body> {
        let response = match self {
            Failure::Refused(refusal, message) => return refuse(FORMAT, refusal, &message),
            Failure::Answered(response) => response,
        };
        let mut answer = Response::builder().status(response.status());
        if let Some(headers) = answer.headers_mut() {
            *headers = forward::forwarded(response.headers());
        }
        let body = StreamBody::new(Relay::plain(reqwest_body(response))).boxed_unsync();
        answer
            .body(body)
            .unwrap_or_else(|error| refuse(FORMAT, Refusal::UpstreamFailed, &error.to_string()))
    }

    /// The `error` frame that answers a `response.create` on a socket whose
    /// upstream could not be opened again: the upstream's error, or the
    /// gateway's.
    pub(super) async fn into_frame(self) -> String {
        match self {
            Failure::Refused(refusal, message) => refusal_frame(refusal, &message),
            Failure::Answered(response) => {
                let status = response.status().as_u16();
                let body: Value = response.json().await.unwrap_or_default();
                json!({"type": "error", "status": status, "error": body["error"]}).to_string()
            }
        }
    }
}
