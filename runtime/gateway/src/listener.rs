//! The gateway's listener: HTTP/1.1 on 127.0.0.1, one task per connection.
//!
//! A request's path is `/s/<token>/<format>/<rest>`; at a broker,
//! `/<provider>/<format>/<rest>` with the sandbox's token where keys go. Before
//! anything is forwarded, the request must name a loopback host (a web page
//! that got the port cannot reach it through DNS rebinding; a broker answers
//! any, see `broker/`), the token must belong to a live route (at a broker, a
//! sandbox of its keys file), and the route must have an upstream for the
//! format; each refusal is in the format's error shape, so the agent shows it as
//! it would its vendor's.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HOST};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{HeaderMap, Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;

use crate::broker::passthrough;
use crate::format::{Format, Refusal};
use crate::forward;
use crate::route::Lane;
use crate::ws;
use crate::Shared;

/// A response body: the upstream's stream, or the gateway's own JSON.
pub(crate) type Body = http_body_util::combinators::UnsyncBoxBody<Bytes, BoxError>;

/// The error a response body may end with.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// How long the loop pauses after a failed accept (out of file descriptors,
/// most often), so it does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Accepts connections until the gateway is dropped.
pub(crate) async fn accept(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(error) => {
                tracing::warn!(%error, "model gateway: accept failed");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let shared = shared.clone();
        tokio::spawn(async move {
            match shared.keyring.is_some() {
                true => passthrough::serve(stream, shared).await,
                false => serve_http(stream, shared).await,
            }
        });
    }
}

/// Serves a connection's calls with `hyper`.
pub(crate) async fn serve_http<I>(io: I, shared: Arc<Shared>)
where
    I: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let service = service_fn(move |request| {
        let shared = shared.clone();
        async move { Ok::<_, Infallible>(handle(shared, request).await) }
    });
    let served = http1::Builder::new()
        .timer(TokioTimer::new())
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades()
        .await;
    if let Err(error) = served {
        tracing::debug!(%error, "model gateway: connection ended");
    }
}

/// Where a request goes: `/s/<token>/<lane><rest>` (a lane is a format, or
/// `<format>@<provider>`), at a broker `/<provider>/<format><rest>`.
#[derive(Debug, PartialEq)]
pub(crate) struct Target<'a> {
    /// The session's token; at a broker, the provider.
    pub name: &'a str,
    pub lane: Lane,
    /// The path after the format's base URL (`/v1/messages`, `/responses`).
    pub rest: &'a str,
}

/// Reads a gateway path (a broker's when `broker`); `None` for anything else.
pub(crate) fn read_target(path: &str, broker: bool) -> Option<Target<'_>> {
    let rest = match broker {
        true => path.strip_prefix('/')?,
        false => path.strip_prefix("/s/")?,
    };
    let (name, rest) = rest.split_once('/')?;
    let end = rest.find('/').unwrap_or(rest.len());
    let lane = Lane::parse(&rest[..end]).filter(|lane| !broker || lane.provider.is_none())?;
    let format = lane.format;
    let rest = &rest[end..];
    // The agent's base URL ends in the format's suffix (`/v1`), as the
    // upstream's base URL does: the part after it is what both have in common.
    let suffix = format.base_suffix();
    let rest = match rest.strip_prefix(suffix) {
        Some(after) if !suffix.is_empty() && (after.is_empty() || after.starts_with('/')) => after,
        _ => rest,
    };
    (!name.is_empty()).then_some(Target { name, lane, rest })
}

async fn handle(shared: Arc<Shared>, request: Request<Incoming>) -> Response<Body> {
    let started = Instant::now();
    let path = request.uri().path().to_owned();
    let Some(target) = read_target(&path, shared.keyring.is_some()) else {
        let form = match shared.keyring {
            Some(_) => "/<provider>/<format>/...",
            None => "/s/<token>/<format>/...",
        };
        let message = format!("not a model gateway path: {form}");
        return json(
            StatusCode::NOT_FOUND,
            &serde_json::json!({"error": {"message": message}}),
        );
    };
    let format = target.lane.format;
    if shared.keyring.is_none() && !names_loopback(request.headers()) {
        return refuse(
            format,
            Refusal::ForeignHost,
            "the model gateway answers loopback hosts only",
        );
    }
    let found = match &shared.keyring {
        Some(keyring) => {
            let query = request.uri().query();
            keyring.route(target.name, format, request.headers(), query)
        }
        None => shared
            .route(target.name)
            .map(|registered| (registered, target.name.to_owned()))
            .ok_or_else(|| {
                (
                    Refusal::UnknownToken,
                    "unknown or expired session token".into(),
                )
            }),
    };
    let (registered, token) = match found {
        Ok(found) => found,
        Err((refusal, message)) => return refuse(format, refusal, &message),
    };
    let route = registered.route;
    let Some(upstream) = route.upstreams.get(&target.lane).cloned() else {
        let message = format!("this session has no upstream for {}", target.lane);
        return refuse(format, Refusal::NoUpstream, &message);
    };
    let call = forward::Call {
        shared,
        route,
        budgets: registered.budgets,
        upstream,
        format,
        metered: request.method() == Method::POST && format.is_model_call(target.rest),
        token,
        rest: target.rest.to_owned(),
        started,
    };
    if ws::wanted(format, &request) {
        return ws::open(call, request).await;
    }
    forward::forward(call, request).await
}

/// Whether the request's `Host` is `127.0.0.1`, `localhost` or `[::1]` (with
/// any port), or absent.
fn names_loopback(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(HOST) else {
        return true;
    };
    let Ok(host) = host.to_str() else {
        return false;
    };
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().map(|ip| format!("[{ip}]")),
        None => host.split(':').next().map(str::to_ascii_lowercase),
    };
    matches!(name.as_deref(), Some("127.0.0.1" | "localhost" | "[::1]"))
}

/// The gateway's own answer in `format`'s error shape.
pub(crate) fn refuse(format: Format, refusal: Refusal, message: &str) -> Response<Body> {
    let status = StatusCode::from_u16(refusal.status()).unwrap_or(StatusCode::BAD_GATEWAY);
    json(status, &format.error_body(refusal, message))
}

fn json(status: StatusCode, body: &serde_json::Value) -> Response<Body> {
    let body = Full::new(Bytes::from(body.to_string()))
        .map_err(|never| match never {})
        .boxed_unsync();
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    #[test]
    fn paths_name_the_token_the_format_and_the_rest() {
        let at = |path| read_target(path, false).map(|t| (t.name, t.lane.format, t.rest));
        assert_eq!(
            at("/s/apx_a/anthropic-messages/v1/messages"),
            Some(("apx_a", Format::AnthropicMessages, "/v1/messages"))
        );
        assert_eq!(
            at("/s/apx_a/openai-responses/v1/responses"),
            Some(("apx_a", Format::OpenaiResponses, "/responses"))
        );
        assert_eq!(
            at("/s/apx_a/openai-chat-completions/v1"),
            Some(("apx_a", Format::OpenaiChatCompletions, ""))
        );
        // `/v1x` is not the `/v1` suffix.
        assert_eq!(
            at("/s/apx_a/openai-chat-completions/v1x"),
            Some(("apx_a", Format::OpenaiChatCompletions, "/v1x"))
        );
        assert_eq!(
            at("/s/apx_a/gemini/v1beta/models/gemini-2.5-pro:generateContent"),
            Some((
                "apx_a",
                Format::Gemini,
                "/v1beta/models/gemini-2.5-pro:generateContent"
            ))
        );
        assert_eq!(at("/s/apx_a/openai/v1"), None);
        assert_eq!(at("/s//gemini/v1beta"), None);
        assert_eq!(at("/v1/messages"), None);

        let broker = |path| read_target(path, true).map(|t| (t.name, t.lane.format, t.rest));
        assert_eq!(
            broker("/openai/openai-responses/v1/responses"),
            Some(("openai", Format::OpenaiResponses, "/responses"))
        );
        assert_eq!(broker("/s/apx_a/gemini/v1beta"), None);
        assert_eq!(broker("//gemini/v1beta"), None);
        assert_eq!(broker("/openai/openai-responses@custom/v1"), None);
    }

    #[test]
    fn a_lane_after_the_format_names_another_provider_of_it() {
        let target = read_target("/s/apx_a/anthropic-messages@custom/v1/messages", false).unwrap();
        assert_eq!(
            target.lane,
            Lane::of(Format::AnthropicMessages, "custom").unwrap()
        );
        assert_eq!(target.rest, "/v1/messages");
        let target = read_target(
            "/s/apx_a/openai-chat-completions@custom/v1/chat/completions",
            false,
        )
        .unwrap();
        assert_eq!(target.rest, "/chat/completions");
        assert!(read_target("/s/apx_a/gemini@/v1beta", false).is_none());
    }

    #[test]
    fn only_loopback_hosts_are_answered() {
        let with = |host: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(HOST, HeaderValue::from_str(host).unwrap());
            names_loopback(&headers)
        };
        for host in [
            "127.0.0.1:4000",
            "localhost:4000",
            "LOCALHOST",
            "[::1]:4000",
        ] {
            assert!(with(host), "{host}");
        }
        for host in ["evil.example:4000", "127.0.0.1.evil.example", "[::2]:4000"] {
            assert!(!with(host), "{host}");
        }
        assert!(names_loopback(&HeaderMap::new()));
    }
}
