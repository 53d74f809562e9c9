//! The broker's passthrough: its calls relayed as bytes, not as messages.
//!
//! The daemon's gateway has already metered a call, and holds its budgets; all
//! a broker adds is the provider's key. So, for a call it can, the broker reads
//! the request's head (`httparse`), writes it anew for the upstream (the path
//! and `Host` of the provider's base URL, the key where the sandbox's token
//! was, the connection's own headers out, as `forward.rs` does), and sends it
//! with the body as it came through the gateway's own client (`upstream/`);
//! then passes the answer's head and body on byte for byte as they arrive,
//! following only where the body ends to keep both connections for the next
//! call, and reading a copy for its usage log with the same taps as the
//! gateway once the bytes are on their way. Nothing is parsed into messages
//! and written again, so a call costs the broker little more than copying its
//! bytes.
//!
//! Anything else goes to the general path (`hyper`, the gateway's listener),
//! with the rest of the connection: a head that is not a plain HTTP/1.1
//! request with a length (chunked, `Expect`, an upgrade to a WebSocket), a
//! body over 32 MiB, a call the keys file refuses (answered there, in the
//! format's shape), and one to an upstream the client does not reach (behind a
//! proxy). An upstream that cannot be reached, does not answer in time, or
//! answers with something that is not HTTP/1.1 gets the format's error, as on
//! the general path.

mod handoff;

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes, BytesMut};
use hyper::header;
use hyper::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::format::Refusal;
use crate::forward::{self, millis, Call};
use crate::listener::read_target;
use crate::relay::{End, Lapse, Metering};
use crate::upstream::{self, Body, Parsed, RequestHead, MAX_HEAD};
use crate::Shared;
use handoff::hand_off;

/// Largest request body relayed here; a larger one goes to the general path.
const MAX_BODY: usize = 32 << 20;
/// How long a request's head may take to arrive once it began (as `hyper`'s
/// server allows).
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves one connection of the broker's: its calls through the passthrough,
/// until one goes to the general path with the rest of it.
pub(crate) async fn serve(mut agent: TcpStream, shared: Arc<Shared>) {
    let mut read = BytesMut::with_capacity(16 << 10);
    loop {
        let (head, head_length) = loop {
            match RequestHead::parse(&read) {
                Parsed::Complete(head, length) => break (head, length),
                Parsed::Partial if read.len() < MAX_HEAD => {}
                Parsed::Partial | Parsed::Refused => return hand_off(agent, read, shared).await,
            }
            // Waiting for the next call has no limit; one begun has.
            let more = match read.is_empty() {
                true => agent.read_buf(&mut read).await,
                false => {
                    match tokio::time::timeout(HEAD_TIMEOUT, agent.read_buf(&mut read)).await {
                        Ok(more) => more,
                        Err(_) => return,
                    }
                }
            };
            if !matches!(more, Ok(1..)) {
                return;
            }
        };
        let Some((call, body_length)) = way(&shared, &head, Instant::now()) else {
            return hand_off(agent, read, shared).await;
        };
        while read.len() < head_length + body_length {
            let idle = shared.upstreams.idle_timeout();
            let more = tokio::time::timeout(idle, agent.read_buf(&mut read));
            if !matches!(more.await, Ok(Ok(1..))) {
                return;
            }
        }
        read.advance(head_length);
        let body = read.split_to(body_length).freeze();
        if !relay(&mut agent, call, &head, body).await || head.closes() {
            return;
        }
    }
}

/// The call `head` asks for, which arrived at `started`, and its body's
/// length, if the passthrough can take it.
fn way(shared: &Arc<Shared>, head: &RequestHead, started: Instant) -> Option<(Call, usize)> {
    let keyring = shared.keyring.as_ref()?;
    let target = read_target(&head.path, true)?;
    let headers = &head.headers;
    let framed_otherwise = [header::TRANSFER_ENCODING, header::EXPECT, header::UPGRADE]
        .iter()
        .any(|name| headers.contains_key(name));
    let connection_only = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .all(|token| {
            matches!(
                token.trim().to_ascii_lowercase().as_str(),
                "close" | "keep-alive"
            )
        });
    if framed_otherwise || !connection_only {
        return None;
    }
    let body_length = match upstream::content_length(headers) {
        Ok(length) => usize::try_from(length.unwrap_or(0)).ok()?,
        Err(()) => return None,
    };
    let format = target.lane.format;
    let query = head.query.as_deref();
    let (registered, token) = keyring.route(target.name, format, headers, query).ok()?;
    let upstream = registered.route.upstreams.get(&target.lane)?.clone();
    shared.upstreams.reaches(upstream.base_url())?;
    let call = Call {
        shared: shared.clone(),
        route: registered.route,
        budgets: None,
        upstream,
        format,
        metered: head.method == "POST" && format.is_model_call(target.rest),
        token,
        rest: target.rest.to_owned(),
        started,
    };
    (body_length <= MAX_BODY).then_some((call, body_length))
}

/// Relays one call and its answer; returns whether the agent's connection
/// can take the next call.
async fn relay(agent: &mut TcpStream, call: Call, head: &RequestHead, body: Bytes) -> bool {
    let client = &call.shared.upstreams;
    let Some(origin) = client.reaches(call.upstream.base_url()) else {
        return false;
    };
    let outgoing = forward::outgoing(&call, &head.headers, head.query.as_deref(), body);
    let mut answer = BytesMut::with_capacity(16 << 10);
    let deadline = tokio::time::Instant::now() + call.shared.response_timeout;
    let exchanged = client.exchange(origin, &head.method, &outgoing, &mut answer);
    let (mut upstream, response, mut offset) =
        match tokio::time::timeout_at(deadline, exchanged).await {
            Ok(Ok(exchanged)) => exchanged,
            Ok(Err((refusal, reason))) => return refuse(agent, &call, refusal, &reason).await,
            Err(_) => {
                return refuse(agent, &call, Refusal::UpstreamTimedOut, "no answer in time").await
            }
        };
    let mut metering = call.metered.then(|| {
        let (tap, report) = call.tap_and_report(response.status, millis(call.started), None);
        Metering::new(tap, response.streamed, report)
    });
    let mut body = response.body;
    // The answer's content in what was read, for the tap once it is on its way.
    let (mut content, tapped) = (Vec::new(), metering.is_some());
    let end = loop {
        let fed = body.feed(&answer[offset..], &mut |piece: &[u8]| {
            if tapped {
                content.push(Bytes::copy_from_slice(piece));
            }
        });
        // Where the answer's bytes read so far end, framing included.
        let end = fed.map(|used| offset + used);
        let sent = match end {
            Ok(end) if end > 0 => agent.write_all(&answer[..end]).await,
            Ok(_) | Err(_) => Ok(()),
        };
        if let Some(metering) = &mut metering {
            for piece in content.drain(..) {
                metering.feed(piece);
            }
        }
        let Ok(end) = end else {
            break End::Broke(Lapse::BrokeOff);
        };
        if sent.is_err() {
            break End::HungUp;
        }
        if body.done() {
            // Bytes after the answer's end: the upstream broke its framing.
            break match end == answer.len() {
                true => End::Ended,
                false => End::Broke(Lapse::BrokeOff),
            };
        }
        answer.clear();
        offset = 0;
        match client.read_more(&mut upstream, &mut answer, &body).await {
            Ok(true) => {}
            Ok(false) => break End::Ended,
            Err(broken) => break End::Broke(broken.lapse),
        }
    };
    if let Some(metering) = metering {
        metering.finish(end);
    }
    let reusable =
        matches!(end, End::Ended) && !matches!(body, Body::UntilClose) && !response.closes;
    if reusable {
        client.keep(origin, upstream);
    }
    reusable
}

/// Answers the call with the gateway's `refusal` in its format's shape;
/// returns whether the connection can take the next call.
async fn refuse(agent: &mut TcpStream, call: &Call, refusal: Refusal, reason: &str) -> bool {
    let message = forward::failed(call, refusal, reason);
    let body = call.format.error_body(refusal, &message).to_string();
    let status = StatusCode::from_u16(refusal.status()).unwrap_or(StatusCode::BAD_GATEWAY);
    let head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        body.len()
    );
    agent
        .write_all(&[head.as_bytes(), body.as_bytes()].concat())
        .await
        .is_ok()
}
