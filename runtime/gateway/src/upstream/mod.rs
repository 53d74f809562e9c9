//! The gateway's own HTTP/1.1 client to upstreams, beside `reqwest`.
//!
//! A call's request head is written from its parts and sent with its body on a
//! kept connection (`pool.rs`, over TLS for `https`); the answer's head is read
//! (`message.rs`) and its body followed to its end (`framing.rs`), and the
//! connection kept for the next call. It does what the gateway's calls need
//! and nothing else (no redirects, no decompression, no HTTP/2), so a call
//! costs little more than its bytes: the daemon's gateway sends its calls
//! with it (`forward.rs`), and so does a broker (`broker/passthrough/`).
//! `reqwest` takes the calls to an upstream behind a proxy: one the
//! environment's proxy variables send through a proxy, `no_proxy` heeded, as
//! `reqwest` reads them (`hyper-util`'s matcher, the one it uses).

mod framing;
mod message;
mod pool;
mod send;

use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use futures::stream::{BoxStream, StreamExt};
use hyper::Uri;
use hyper_util::client::proxy::matcher::Matcher;
use tokio::io::AsyncReadExt;

use crate::format::Refusal;
use crate::forward::Outgoing;
use crate::relay::{Broken, Lapse};
use crate::{GatewayConfig, Shared};
pub(crate) use framing::Body;
pub(crate) use message::{content_length, upstream_request, Parsed, RequestHead, ResponseHead};
use pool::Pool;
pub(crate) use pool::{Connection, Origin};
use send::{send, Sent};

/// Longest head read.
pub(crate) const MAX_HEAD: usize = 64 << 10;

/// The client: its kept connections and timeouts, and which upstreams are
/// behind a proxy.
pub(crate) struct Client {
    pool: Pool,
    idle_timeout: Duration,
    /// The environment's proxies, read at the gateway's start.
    proxies: Matcher,
}

impl Client {
    /// The client of a gateway configured as `config`.
    pub(crate) fn new(config: &GatewayConfig) -> Self {
        Client {
            pool: Pool::new(config.connect_timeout),
            idle_timeout: config.idle_timeout,
            proxies: Matcher::from_env(),
        }
    }

    /// The origin of `base_url`, if this client reaches it (else `reqwest`).
    pub(crate) fn reaches<'a>(&self, base_url: &'a str) -> Option<Origin<'a>> {
        reached(&self.proxies, base_url)
    }

    /// How long an answer may fall silent.
    pub(crate) fn idle_timeout(&self) -> Duration {
        self.idle_timeout
    }

    /// Reads more of an answer whose `body` is not over from `connection`
    /// into `read`: whether bytes came (`false`: the connection closed where
    /// that ends the body), or how the answer stopped short.
    pub(crate) async fn read_more(
        &self,
        connection: &mut Connection,
        read: &mut BytesMut,
        body: &Body,
    ) -> Result<bool, Broken> {
        match tokio::time::timeout(self.idle_timeout, connection.read_buf(read)).await {
            Ok(Ok(1..)) => Ok(true),
            Ok(Ok(0)) if matches!(body, Body::UntilClose) => Ok(false),
            Ok(Ok(_)) => Err(Broken::off("the upstream closed the connection mid-answer")),
            Ok(Err(error)) => Err(Broken::off(&error.to_string())),
            Err(_) => Err(Broken {
                lapse: Lapse::FellSilent,
                reason: "the provider's answer fell silent for longer than the idle timeout".into(),
            }),
        }
    }

    /// Keeps `connection` to `origin`, whose answer was read to its end, for
    /// a later call.
    pub(crate) fn keep(&self, origin: Origin<'_>, connection: Connection) {
        self.pool.put(origin, connection);
    }

    /// Sends the `outgoing` request with `method` to `origin` (the base URL's
    /// path then the call's, the upstream's `Host`) and reads the answer's head
    /// into `answer`, once more on a new connection if a kept one turns out
    /// closed. An upstream that answers before taking the whole request (and
    /// closes, or reads no more) has that answer returned, its connection not
    /// to be kept.
    /// Returns the connection, the head, and where the body starts in `answer`
    /// (after any interim `1xx` heads).
    pub(crate) async fn exchange(
        &self,
        origin: Origin<'_>,
        method: &str,
        outgoing: &Outgoing,
        answer: &mut BytesMut,
    ) -> Result<(Connection, ResponseHead, usize), (Refusal, String)> {
        let target = format!("{}{}", origin.path, outgoing.target);
        let body = &outgoing.body;
        let head = upstream_request(method, &target, origin.host, &outgoing.headers, body.len());
        let failed = |error: std::io::Error| {
            let refusal = match error.kind() {
                std::io::ErrorKind::TimedOut => Refusal::UpstreamTimedOut,
                _ => Refusal::UpstreamFailed,
            };
            (refusal, error.to_string())
        };
        loop {
            let (mut upstream, kept) = match self.pool.take(origin) {
                Some(kept) => (kept, true),
                None => (self.pool.connect(origin).await.map_err(failed)?, false),
            };
            // The body as it is, after the head (no copy of it).
            let mut request = Buf::chain(&head[..], &body[..]);
            answer.clear();
            // An upstream may answer before it has read the whole body (a 413,
            // say), then close or read no more: its answer is read before the
            // write's error counts, and ends the write (`send.rs`).
            let mut unsent = match send(&mut upstream, &mut request, method, answer).await {
                Sent::Whole => None,
                Sent::Failed(_) if kept && answer.is_empty() => continue,
                Sent::Failed(error) => Some(error),
                Sent::AnsweredEarly => Some(std::io::Error::other("answered before it was sent")),
            };
            loop {
                match ResponseHead::parse_final(answer, method) {
                    Parsed::Complete(head, _) if head.status == 101 => {
                        let reason = "the upstream switched protocols unasked";
                        return Err((Refusal::UpstreamFailed, reason.into()));
                    }
                    Parsed::Complete(mut head, start) => {
                        // The rest of a request cut short would be read as the next one.
                        head.closes |= unsent.is_some();
                        return Ok((upstream, head, start));
                    }
                    // Interim heads count too: an upstream sending them
                    // without end is not read without end.
                    Parsed::Partial if answer.len() < MAX_HEAD => {}
                    Parsed::Partial | Parsed::Refused => {
                        let reason = "the upstream's answer is not HTTP/1.1";
                        return Err((Refusal::UpstreamFailed, reason.into()));
                    }
                }
                let read = upstream.read_buf(answer).await;
                // Closed with no answer to a request it did not take whole.
                if let Some(error) = unsent.take_if(|_| !matches!(read, Ok(1..))) {
                    return Err(failed(error));
                }
                match read {
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
}

/// The origin of `base_url`, unless `proxies` put a proxy before it.
fn reached<'a>(proxies: &Matcher, base_url: &'a str) -> Option<Origin<'a>> {
    let origin = Origin::of(base_url)?;
    let uri: Uri = base_url.parse().ok()?;
    proxies.intercept(&uri).is_none().then_some(origin)
}

/// An answer's body as it comes, its content piece by piece: read from
/// `connection` to `origin` (which `shared`'s client reached) after its
/// `head`, `read` its first bytes; the connection is kept once the body
/// ended where its framing says.
pub(crate) fn content(
    shared: Arc<Shared>,
    origin: Origin<'_>,
    connection: Connection,
    head: &ResponseHead,
    read: BytesMut,
) -> BoxStream<'static, Result<Bytes, Broken>> {
    let reading = Reading {
        shared,
        tls: origin.tls,
        host: origin.host.to_owned(),
        connection: Some(connection),
        body: head.body.clone(),
        read,
        closes: head.closes,
    };
    futures::stream::unfold(Some(reading), |reading| async move {
        let mut reading = reading?;
        match reading.next().await {
            Ok(Some(piece)) => Some((Ok(piece), Some(reading))),
            Ok(None) => None,
            Err(broken) => Some((Err(broken), None)),
        }
    })
    .boxed()
}

/// An answer's body being read.
struct Reading {
    shared: Arc<Shared>,
    tls: bool,
    host: String,
    /// Until the body ends and it is kept.
    connection: Option<Connection>,
    body: Body,
    /// Bytes read and not yet handed on.
    read: BytesMut,
    /// Whether the upstream closes the connection after this answer.
    closes: bool,
}

impl Reading {
    /// The next piece of content; `None` at the body's end.
    async fn next(&mut self) -> Result<Option<Bytes>, Broken> {
        loop {
            let mut copied = BytesMut::new();
            let used = match &self.body {
                // Chunks: their content copied out of the framing.
                Body::Chunked(_) => self
                    .body
                    .feed(&self.read, &mut |piece| copied.extend_from_slice(piece)),
                _ => self.body.feed(&self.read, &mut |_| {}),
            }
            .map_err(|_| Broken::off("the upstream's answer broke its framing"))?;
            let extra = used < self.read.len();
            let piece = match &self.body {
                Body::Chunked(_) => copied.freeze(),
                _ => self.read.split_to(used).freeze(),
            };
            self.read.clear();
            if self.body.done() {
                let connection = self.connection.take();
                if let Some(connection) = connection.filter(|_| !extra && !self.closes) {
                    let origin = Origin {
                        tls: self.tls,
                        host: &self.host,
                        path: "",
                    };
                    self.shared.upstreams.keep(origin, connection);
                }
                return Ok((!piece.is_empty()).then_some(piece));
            }
            if !piece.is_empty() {
                return Ok(Some(piece));
            }
            let Some(connection) = self.connection.as_mut() else {
                return Ok(None);
            };
            let client = &self.shared.upstreams;
            if !client
                .read_more(connection, &mut self.read, &self.body)
                .await?
            {
                return Ok(None);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upstream_behind_a_proxy_is_left_to_reqwest_unless_no_proxy_names_it() {
        let reaches = |proxies: &Matcher, base: &str| reached(proxies, base).is_some();
        let https = Matcher::builder()
            .https("http://proxy:3128")
            .no("localhost,127.0.0.1,.internal")
            .build();
        assert!(!reaches(&https, "https://api.anthropic.com"));
        assert!(
            reaches(&https, "http://api.anthropic.com"),
            "no proxy for plain HTTP"
        );
        assert!(
            reaches(&https, "https://models.internal/v1"),
            "a domain in no_proxy"
        );
        assert!(
            reaches(&https, "https://127.0.0.1:8443"),
            "an address in no_proxy"
        );
        let everything = Matcher::builder().all("socks5://proxy").build();
        assert!(!reaches(&everything, "http://127.0.0.1:8080"));
        let none = Matcher::builder().build();
        assert!(reaches(&none, "https://api.openai.com/v1"));
    }
}
