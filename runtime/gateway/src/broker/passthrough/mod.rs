//! The broker's passthrough: its calls relayed as bytes, not as messages.
//!
//! The daemon's gateway has already metered a call, and holds its budgets; all
//! a broker adds is the provider's key. So, for a call it can, the broker reads
//! the request's head (`httparse`), writes it anew for the upstream (the path
//! and `Host` of the provider's base URL, the key where the sandbox's token
//! was, the connection's own headers out, as `forward.rs` does), and sends the
//! body as it came; then passes the answer's head and body on byte for byte as
//! they arrive, following only where the body ends (`framing.rs`) to keep both
//! connections for the next call, and reading a copy for its usage log with the
//! same taps as the gateway. Nothing is parsed into messages and written again,
//! so a call costs the broker little more than copying its bytes.
//!
//! Anything else goes to the general path (`hyper`, the gateway's listener),
//! with the rest of the connection: a head that is not a plain HTTP/1.1
//! request with a length (chunked, `Expect`, an upgrade to a WebSocket), a
//! body over 32 MiB, a call the keys file refuses (answered there, in the
//! format's shape), and an upstream behind a proxy (the broker's environment
//! names one for its scheme). An upstream over `https` is reached over TLS
//! with the general way's roots (`pool.rs`). An upstream that cannot be reached, does
//! not answer in time, or answers with something that is not HTTP/1.1 gets the
//! format's error, as on the general path.

mod framing;
mod handoff;
mod message;
mod pool;

use std::ffi::OsString;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes, BytesMut};
use hyper::header;
use hyper::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::format::{Format, Refusal};
use crate::forward::{self, millis, Call};
use crate::listener::read_target;
use crate::relay::{End, Lapse, Metering};
use crate::{taps, GatewayConfig, Shared};
use framing::Body;
use handoff::hand_off;
use message::{Parsed, RequestHead, ResponseHead};
pub(crate) use pool::Pool;
use pool::{Connection, Origin};

/// Longest head read; a longer one goes to the general path.
const MAX_HEAD: usize = 64 << 10;
/// Largest request body relayed here; a larger one goes to the general path.
const MAX_BODY: usize = 32 << 20;
/// How long a request's head may take to arrive once it began (as `hyper`'s
/// server allows).
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// The variables that put a proxy between the broker and a plain-HTTP upstream,
/// as `reqwest` reads them; with one set, those calls take the general path.
const PLAIN_PROXIES: [&str; 4] = ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"];
/// The same for an `https` upstream.
const TLS_PROXIES: [&str; 4] = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"];

/// What the passthrough keeps: its upstream connections and timeouts, and
/// which schemes it reaches itself.
pub(crate) struct Passthrough {
    pool: Pool,
    idle_timeout: Duration,
    /// Whether plain-HTTP upstreams, and `https` ones, are reached here (no
    /// proxy is configured for them).
    plain: bool,
    tls: bool,
}

impl Passthrough {
    /// The passthrough of a broker configured as `config`.
    pub(crate) fn new(config: &GatewayConfig) -> Self {
        let variable = |name: &str| std::env::var_os(name);
        Passthrough {
            pool: Pool::new(config.connect_timeout),
            idle_timeout: config.idle_timeout,
            plain: !proxied(PLAIN_PROXIES, variable),
            tls: !proxied(TLS_PROXIES, variable),
        }
    }

    /// Whether calls to `origin` are relayed here.
    fn reaches(&self, origin: Origin<'_>) -> bool {
        match origin.tls {
            true => self.tls,
            false => self.plain,
        }
    }
}

/// Whether one of the variables `names` is set (not empty) as `variable` reads them.
fn proxied(names: [&str; 4], variable: impl Fn(&str) -> Option<OsString>) -> bool {
    names
        .iter()
        .any(|name| variable(name).is_some_and(|value| !value.is_empty()))
}

/// Serves one connection of the broker's: its calls through the passthrough,
/// until one goes to the general path with the rest of it.
pub(crate) async fn serve(mut agent: TcpStream, shared: Arc<Shared>) {
    let Some(passthrough) = shared.passthrough.as_ref() else {
        return hand_off(agent, BytesMut::new(), shared).await;
    };
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
        let Some((call, body_length)) = way(&shared, passthrough, &head, Instant::now()) else {
            return hand_off(agent, read, shared).await;
        };
        while read.len() < head_length + body_length {
            let more = tokio::time::timeout(passthrough.idle_timeout, agent.read_buf(&mut read));
            if !matches!(more.await, Ok(Ok(1..))) {
                return;
            }
        }
        read.advance(head_length);
        let body = read.split_to(body_length).freeze();
        if !relay(passthrough, &mut agent, call, &head, body).await || head.closes() {
            return;
        }
    }
}

/// The call `head` asks for, which arrived at `started`, and its body's
/// length, if the passthrough can take it.
fn way(
    shared: &Arc<Shared>,
    passthrough: &Passthrough,
    head: &RequestHead,
    started: Instant,
) -> Option<(Call, usize)> {
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
    let body_length = match message::content_length(headers) {
        Ok(length) => usize::try_from(length.unwrap_or(0)).ok()?,
        Err(()) => return None,
    };
    let format = target.lane.format;
    let query = head.query.as_deref();
    let (registered, token) = keyring.route(target.name, format, headers, query).ok()?;
    let upstream = registered.route.upstreams.get(&target.lane)?.clone();
    if !passthrough.reaches(Origin::of(upstream.base_url())?) {
        return None;
    }
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
async fn relay(
    passthrough: &Passthrough,
    agent: &mut TcpStream,
    call: Call,
    head: &RequestHead,
    body: Bytes,
) -> bool {
    let body = match call.format {
        Format::OpenaiChatCompletions if call.metered => {
            taps::ask_for_usage(&body).map_or(body, Bytes::from)
        }
        _ => body,
    };
    let mut headers = forward::request_headers(&head.headers);
    let query = head.query.as_deref();
    let query = forward::swap_key(&mut headers, query, &call.token, &call.upstream);
    let Some(origin) = Origin::of(call.upstream.base_url()) else {
        return false;
    };
    let target = match query {
        Some(query) => format!("{}{}?{query}", origin.path, call.rest),
        None => format!("{}{}", origin.path, call.rest),
    };
    let mut request =
        message::upstream_request(&head.method, &target, origin.host, &headers, body.len());
    request.extend_from_slice(&body);
    let mut answer = BytesMut::with_capacity(16 << 10);
    let deadline = tokio::time::Instant::now() + call.shared.response_timeout;
    let exchanged = exchange(
        &passthrough.pool,
        origin,
        &request,
        &head.method,
        &mut answer,
    );
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
    let end = loop {
        let mut read = |content: &[u8]| {
            if let Some(metering) = &mut metering {
                metering.feed(Bytes::copy_from_slice(content));
            }
        };
        let Ok(used) = body.feed(&answer[offset..], &mut read) else {
            break End::Broke(Lapse::BrokeOff);
        };
        let end = offset + used;
        if end > 0 && agent.write_all(&answer[..end]).await.is_err() {
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
        match tokio::time::timeout(passthrough.idle_timeout, upstream.read_buf(&mut answer)).await {
            Ok(Ok(1..)) => {}
            Ok(Ok(0)) if matches!(body, Body::UntilClose) => break End::Ended,
            Ok(_) => break End::Broke(Lapse::BrokeOff),
            Err(_) => break End::Broke(Lapse::FellSilent),
        }
    };
    if let Some(metering) = metering {
        metering.finish(end);
    }
    let reusable =
        matches!(end, End::Ended) && !matches!(body, Body::UntilClose) && !response.closes;
    if reusable {
        passthrough.pool.put(origin, upstream);
    }
    reusable
}

/// Sends `request` to `origin` and reads the answer's head into `answer`,
/// once more on a new connection if a kept one turns out closed. Returns the
/// connection, the head, and where the body starts in `answer` (after any
/// interim `1xx` heads, which go to the agent with it).
async fn exchange(
    pool: &Pool,
    origin: Origin<'_>,
    request: &[u8],
    method: &str,
    answer: &mut BytesMut,
) -> Result<(Connection, ResponseHead, usize), (Refusal, String)> {
    let failed = |error: std::io::Error| {
        let refusal = match error.kind() {
            std::io::ErrorKind::TimedOut => Refusal::UpstreamTimedOut,
            _ => Refusal::UpstreamFailed,
        };
        (refusal, error.to_string())
    };
    loop {
        let (mut upstream, kept) = match pool.take(origin) {
            Some(kept) => (kept, true),
            None => (pool.connect(origin).await.map_err(failed)?, false),
        };
        let sent = match upstream.write_all(request).await {
            Ok(()) => upstream.flush().await,
            Err(error) => Err(error),
        };
        if let Err(error) = sent {
            match kept {
                true => continue,
                false => return Err(failed(error)),
            }
        }
        answer.clear();
        let mut start = 0;
        loop {
            match ResponseHead::parse(&answer[start..], method) {
                Parsed::Complete(head, _) if head.status == 101 => {
                    let reason = "the upstream switched protocols unasked";
                    return Err((Refusal::UpstreamFailed, reason.into()));
                }
                Parsed::Complete(head, length) if (100..200).contains(&head.status) => {
                    start += length
                }
                Parsed::Complete(head, length) => return Ok((upstream, head, start + length)),
                Parsed::Partial if answer.len() - start < MAX_HEAD => {}
                Parsed::Partial | Parsed::Refused => {
                    let reason = "the upstream's answer is not HTTP/1.1";
                    return Err((Refusal::UpstreamFailed, reason.into()));
                }
            }
            match upstream.read_buf(answer).await {
                Ok(1..) => {}
                // A kept connection the upstream had closed: once more, anew.
                Ok(0) | Err(_) if kept && answer.is_empty() => break,
                Ok(0) => {
                    let reason = "the upstream closed the connection before answering";
                    return Err((Refusal::UpstreamFailed, reason.into()));
                }
                Err(error) => return Err(failed(error)),
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxy_for_a_scheme_sends_its_calls_the_general_way() {
        let environment = |set: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                set.iter()
                    .find(|(variable, _)| *variable == name)
                    .map(|(_, value)| OsString::from(value))
            }
        };
        let https = environment(&[("HTTPS_PROXY", "http://proxy:3128"), ("http_proxy", "")]);
        assert!(proxied(TLS_PROXIES, https));
        assert!(!proxied(PLAIN_PROXIES, https), "an empty one is none");
        let all = environment(&[("all_proxy", "socks5://proxy")]);
        assert!(proxied(TLS_PROXIES, all) && proxied(PLAIN_PROXIES, all));
        assert!(!proxied(PLAIN_PROXIES, environment(&[])));
    }
}
