//! The OpenAI Responses API over WebSocket: `GET {base}/responses` upgraded,
//! as Codex's built-in OpenAI provider calls it.
//!
//! The agent's upgrade is checked as any call is (loopback host, live token,
//! an upstream for the format: `listener.rs`), then the gateway opens a socket
//! to the upstream's same path with the agent's headers, the real key swapped
//! in as for HTTP (`dial.rs`). Only once the upstream has upgraded does the
//! agent get its `101`, with the upstream's headers; an upstream that answers
//! otherwise has its answer passed on, and one down gets `502` in the format's
//! shape. Then frames are relayed both ways as they come (`session.rs`).
//!
//! Each response on the socket is one metered call (`meter.rs`): from the
//! agent's `response.create` frame to the upstream's terminal event, read by
//! the Responses tap. A `response.create` is admitted by the route's budgets as
//! an HTTP call is, its frame standing for the body; a refused one is answered
//! with an `error` frame and never sent upstream.

mod dial;
mod meter;
mod session;

use std::borrow::Cow;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::WebSocketStream;

use crate::format::{Format, Refusal};
use crate::forward::{lists, Call};
use crate::listener::{refuse, Body};
use crate::sse::Splitter;

/// The one format carried over WebSocket.
const FORMAT: Format = Format::OpenaiResponses;

/// The headers of one side's WebSocket handshake, which the gateway makes
/// itself on the other: not passed on. (Without `permessage-deflate`, which
/// the gateway does not speak, frames stay readable.)
const HANDSHAKE: [&str; 4] = [
    "sec-websocket-key",
    "sec-websocket-version",
    "sec-websocket-accept",
    "sec-websocket-extensions",
];

/// Whether `request` asks to upgrade to a WebSocket that the gateway carries:
/// a Responses call's.
pub(crate) fn wanted(format: Format, request: &Request<Incoming>) -> bool {
    format == FORMAT && lists(request.headers(), header::UPGRADE, "websocket")
}

/// Opens the upstream's socket for the agent's upgrade `request` and answers
/// `101`, then relays the two sockets in a task of their own; or answers why
/// not.
pub(crate) async fn open(call: Call, mut request: Request<Incoming>) -> Response<Body> {
    let headers = request.headers();
    let version_13 = headers
        .get(header::SEC_WEBSOCKET_VERSION)
        .is_some_and(|version| version == "13");
    let key = headers.get(header::SEC_WEBSOCKET_KEY);
    let (Some(key), true) = (key, version_13) else {
        let message = "a WebSocket upgrade needs Sec-WebSocket-Key and Sec-WebSocket-Version 13";
        return refuse(FORMAT, Refusal::UnreadableBody, message);
    };
    let accept = derive_accept_key(key.as_bytes());
    let dial = dial::Dial::new(&call, request.uri().query(), headers);
    let (upstream, head) = match dial.open().await {
        Ok(opened) => opened,
        Err(failure) => return failure.into_response(),
    };
    let agent = hyper::upgrade::on(&mut request);
    let session = session::Session::new(call, dial, upstream);
    tokio::spawn(async move {
        match agent.await {
            Ok(upgraded) => {
                let io = TokioIo::new(upgraded);
                let agent =
                    WebSocketStream::from_raw_socket(io, Role::Server, Some(config())).await;
                session.run(agent).await;
            }
            Err(error) => tracing::debug!(%error, "model gateway: the agent's upgrade failed"),
        }
    });
    switching(head, &accept)
}

/// The `101` that upgrades the agent's connection: the upstream's headers, and
/// the agent's handshake answered.
fn switching(mut headers: HeaderMap, accept: &str) -> Response<Body> {
    let mut put = |name, value: &str| {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    };
    put(header::CONNECTION, "upgrade");
    put(header::UPGRADE, "websocket");
    put(header::SEC_WEBSOCKET_ACCEPT, accept);
    let body = Empty::<Bytes>::new()
        .map_err(|never| match never {})
        .boxed_unsync();
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    *response.headers_mut() = headers;
    response
}

/// Both sockets' settings: no limit on a message's size, as the gateway has
/// none on a request's body (a `response.create` holds the conversation).
fn config() -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(None)
        .max_frame_size(None)
}

/// `headers` without the handshake's own ([`HANDSHAKE`]).
fn without_handshake(mut headers: HeaderMap) -> HeaderMap {
    for name in HANDSHAKE {
        headers.remove(name);
    }
    headers
}

/// A text frame's event type (`response.create`, `response.completed`...);
/// `None` when it is not a JSON object with one.
fn kind(text: &str) -> Option<Cow<'_, str>> {
    #[derive(serde::Deserialize)]
    struct Typed<'a> {
        #[serde(borrow, rename = "type")]
        kind: Cow<'a, str>,
    }
    serde_json::from_str::<Typed>(text)
        .ok()
        .map(|typed| typed.kind)
}

/// The `error` frame the gateway answers a `response.create` with when it
/// refuses it or cannot send it: the format's error, with the HTTP status the
/// call would have had, as OpenAI's socket reports a request's failure.
fn refusal_frame(refusal: Refusal, message: &str) -> String {
    let body = FORMAT.error_body(refusal, message);
    json!({"type": "error", "status": refusal.status(), "error": body["error"]}).to_string()
}

/// The frames that end a response cut for a budget: the events the format's
/// streams end with (`error`, then `response.failed`), a text frame each.
fn cut_frames(message: &str) -> Vec<String> {
    let mut frames = Vec::new();
    let events = FORMAT.stream_error(message);
    let mut splitter = Splitter::default();
    splitter.feed(events, &mut |_, data| frames.push(data.to_owned()));
    frames
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_known_by_their_type() {
        let create = r#"{"type":"response.create","model":"m","input":"hi"}"#;
        assert_eq!(kind(create).as_deref(), Some("response.create"));
        let escaped = r#"{"delta":"x","type":"response.output_text\u002edelta"}"#;
        assert_eq!(kind(escaped).as_deref(), Some("response.output_text.delta"));
        assert_eq!(kind("not json"), None);
        assert_eq!(kind(r#"{"model":"m"}"#), None);
    }

    #[test]
    fn a_refused_or_cut_response_ends_in_the_formats_error_frames() {
        let refused: serde_json::Value =
            serde_json::from_str(&refusal_frame(Refusal::Budget, "spent")).unwrap();
        assert_eq!(refused["type"], "error");
        assert_eq!(refused["status"], 403);
        assert_eq!(refused["error"]["code"], "budget_exceeded");
        assert_eq!(refused["error"]["message"], "spent");

        let kinds: Vec<String> = cut_frames("spent")
            .iter()
            .map(|frame| kind(frame).unwrap().into_owned())
            .collect();
        assert_eq!(kinds, ["error", "response.failed"]);
    }

    #[test]
    fn upgrade_and_connection_list_tokens() {
        let mut headers = HeaderMap::new();
        headers.insert(header::UPGRADE, HeaderValue::from_static("h2c, WebSocket"));
        assert!(lists(&headers, header::UPGRADE, "websocket"));
        assert!(!lists(&headers, header::CONNECTION, "upgrade"));
    }
}
