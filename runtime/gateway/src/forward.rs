//! Forwarding one call upstream.
//!
//! A metered call under budgets is first admitted by them (`budget`), or
//! refused in its format's shape without going upstream; until its answer's
//! head arrives, a budget exhausted meanwhile drops the request and answers
//! with that refusal.
//!
//! The upstream URL is the upstream's base URL, then the rest of the path after
//! the agent's base URL, then the query. Headers pass through but for the
//! hop-by-hop ones and `Host`; `accept-encoding` becomes `identity`, so the
//! answer's bytes can be read by the tap as they are relayed. Wherever the
//! agent sent the session token (`x-api-key`, `Authorization: Bearer`,
//! `x-goog-api-key`, `?key=`) it is taken out and the real key put in (see
//! [`KeyPlacement`]); any other credential, an agent's own OAuth login say,
//! passes unchanged. The request body is read whole (requests are small, and a
//! Chat request may need `include_usage`, `taps/chat.rs`); the answer is
//! streamed (`relay.rs`).

use std::sync::Arc;
use std::time::Instant;

use bytes::{Buf, Bytes, BytesMut};
use futures::{StreamExt, TryStreamExt};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};

use crate::budget::{Estimate, Lease, RouteBudgets};
use crate::format::{Format, KeyPlacement, Refusal};
use crate::listener::{refuse, Body};
use crate::relay::{AnswerBody, Broken, Lapse, Relay, Report};
use crate::route::{Route, Upstream};
use crate::taps::{self, Tap};
use crate::upstream;
use crate::usage::{CallUsage, Tokens};
use crate::Shared;

/// Headers that describe one connection, not the message (RFC 9110 §7.6.1),
/// and the ones the gateway sets itself.
const NOT_FORWARDED: [&str; 10] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
];

/// A call on its way upstream.
pub(crate) struct Call {
    pub shared: Arc<Shared>,
    pub route: Arc<Route>,
    /// The budgets the route's calls fall under, if any.
    pub budgets: Option<Arc<RouteBudgets>>,
    pub upstream: Upstream,
    pub format: Format,
    /// Whether the call asks for an answer, and so is metered.
    pub metered: bool,
    /// The token the call carries: the session's, as the path has it; at a
    /// broker, the sandbox's.
    pub token: String,
    /// The path after the agent's base URL.
    pub rest: String,
    /// When the request arrived.
    pub started: Instant,
}

impl Call {
    /// The tap of a metered call's answer and what its usage report needs:
    /// the answer's `status`, when its head came, and the call's `lease`.
    pub(crate) fn tap_and_report(
        &self,
        status: u16,
        first_byte_ms: u64,
        lease: Option<Lease>,
    ) -> (Box<dyn Tap>, Report) {
        let path_model = match self.format {
            Format::Gemini => taps::model_in_path(&self.rest),
            _ => None,
        };
        let report = Report {
            shared: self.shared.clone(),
            route: self.route.clone(),
            format: self.format,
            call_id: self.shared.next_call(),
            status,
            started: self.started,
            first_byte_ms,
            lease,
        };
        (taps::tap(self.format, path_model), report)
    }
}

/// Forwards `request` and relays the answer.
pub(crate) async fn forward(call: Call, request: Request<Incoming>) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let body = match body.collect().await {
        Ok(body) => body.to_bytes(),
        Err(error) => {
            let message = format!("cannot read the request body: {error}");
            return refuse(call.format, Refusal::UnreadableBody, &message);
        }
    };
    let outgoing = outgoing(&call, &parts.headers, parts.uri.query(), body);
    let lease = match (&call.budgets, call.metered) {
        (Some(budgets), true) => {
            let estimate = Estimate::of(call.format, &call.rest, &outgoing.body);
            match budgets.admit(estimate, &call.shared.prices, &*call.route.sink) {
                Ok(lease) => Some(lease),
                Err(message) => {
                    let route = &call.route;
                    let (session, agent) = (&route.session_id, &route.agent);
                    tracing::info!(%session, %agent, format = %call.format, "{message}");
                    return refuse(call.format, Refusal::Budget, &message);
                }
            }
        }
        _ => None,
    };
    let mut cut = lease.as_ref().map(Lease::cut);
    let sent = send(&call, parts.method, outgoing);
    let sent = async {
        match cut.as_mut() {
            Some(cut) => tokio::select! {
                biased;
                index = cut => Err(index),
                answered = sent => Ok(answered),
            },
            None => Ok(sent.await),
        }
    };
    let answered = tokio::time::timeout(call.shared.response_timeout, sent).await;
    let answer = match answered {
        Ok(Ok(Ok(answer))) => answer,
        Ok(Err(index)) => {
            // Admitted, but a budget was exhausted before the answer came.
            record_unanswered(&call, Refusal::Budget);
            let lease = lease.expect("only a lease's budgets cut a call");
            let sink = &*call.route.sink;
            let message =
                lease.settle_cut(index, &call.shared.prices, None, Tokens::default(), sink);
            return refuse(call.format, Refusal::Budget, &message);
        }
        Ok(Ok(Err((refusal, reason)))) => return fail(&call, refusal, &reason),
        Err(_) => return fail(&call, Refusal::UpstreamTimedOut, "no answer in time"),
    };
    let first_byte_ms = millis(call.started);
    let status = answer.status;
    let streamed = answer
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    let mut response = Response::builder().status(status);
    if let Some(headers) = response.headers_mut() {
        *headers = forwarded(&answer.headers);
    }
    let relay = if call.metered {
        let (tap, report) = call.tap_and_report(status.as_u16(), first_byte_ms, lease);
        let relay = Relay::metered(answer.body, answer.length, tap, streamed, report);
        match cut {
            Some(cut) => relay.cut_on(cut),
            None => relay,
        }
    } else {
        Relay::plain(answer.body)
    };
    let body = http_body_util::StreamBody::new(relay).boxed_unsync();
    response.body(body).unwrap_or_else(|error| {
        // Headers that came from an HTTP response are valid in one: unreachable.
        fail(&call, Refusal::UpstreamFailed, &error.to_string())
    })
}

/// A call's request as its upstream gets it.
pub(crate) struct Outgoing {
    /// The body, a Chat Completions call's asking for its usage.
    pub body: Bytes,
    /// The headers: the connection's own out, the real key in the token's place.
    pub headers: HeaderMap,
    /// The path after the upstream's base URL, with the query.
    pub target: String,
}

/// The request `call` sends upstream, of one that came with `headers`, `query`
/// and `body`.
pub(crate) fn outgoing(
    call: &Call,
    headers: &HeaderMap,
    query: Option<&str>,
    body: Bytes,
) -> Outgoing {
    let body = match call.format {
        Format::OpenaiChatCompletions if call.metered => {
            taps::ask_for_usage(&body).map_or(body, Bytes::from)
        }
        _ => body,
    };
    let mut headers = request_headers(headers);
    let query = swap_key(&mut headers, query, &call.token, &call.upstream);
    let target = match query {
        Some(query) => format!("{}?{query}", call.rest),
        None => call.rest.clone(),
    };
    Outgoing {
        body,
        headers,
        target,
    }
}

/// An upstream's answer: its head, and its body as it comes.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    /// Its length, when its head says it.
    length: Option<u64>,
    body: AnswerBody,
}

/// Sends `call`'s request upstream, with the gateway's own client where it
/// reaches the upstream, else with `reqwest`; the answer once its head came,
/// or why there is none.
async fn send(
    call: &Call,
    method: Method,
    outgoing: Outgoing,
) -> Result<Answer, (Refusal, String)> {
    let client = &call.shared.upstreams;
    if let Some(origin) = client.reaches(call.upstream.base_url()) {
        let mut read = BytesMut::with_capacity(16 << 10);
        let (connection, head, start) = client
            .exchange(origin, method.as_str(), &outgoing, &mut read)
            .await?;
        read.advance(start);
        let length = match head.body {
            upstream::Body::Length(length) => Some(length),
            _ => None,
        };
        let status = StatusCode::from_u16(head.status).unwrap_or(StatusCode::BAD_GATEWAY);
        let body = upstream::content(call.shared.clone(), origin, connection, &head, read);
        return Ok(Answer {
            status,
            headers: head.headers,
            length,
            body,
        });
    }
    let url = format!("{}{}", call.upstream.base_url(), outgoing.target);
    let request = call.shared.client.request(method, url);
    let sent = request.headers(outgoing.headers).body(outgoing.body).send();
    let mut response = sent.await.map_err(|error| {
        let refusal = match error.is_timeout() {
            true => Refusal::UpstreamTimedOut,
            false => Refusal::UpstreamFailed,
        };
        // Without its URL: a key may be in the query.
        (refusal, error.without_url().to_string())
    })?;
    Ok(Answer {
        status: response.status(),
        length: response.content_length(),
        headers: std::mem::take(response.headers_mut()),
        body: reqwest_body(response),
    })
}

/// The body of an answer `reqwest` read the head of.
pub(crate) fn reqwest_body(response: reqwest::Response) -> AnswerBody {
    let broken = |error: reqwest::Error| Broken {
        lapse: match error.is_timeout() {
            true => Lapse::FellSilent,
            false => Lapse::BrokeOff,
        },
        // Without its URL: a key may be in the query.
        reason: error.without_url().to_string(),
    };
    response.bytes_stream().map_err(broken).boxed()
}

/// Answers a call the upstream could not take, and reports it incomplete if it
/// is metered.
fn fail(call: &Call, refusal: Refusal, reason: &str) -> Response<Body> {
    refuse(call.format, refusal, &failed(call, refusal, reason))
}

/// Logs a call the upstream could not take and reports it incomplete if it is
/// metered; returns the message for the agent.
pub(crate) fn failed(call: &Call, refusal: Refusal, reason: &str) -> String {
    tracing::warn!(
        session = %call.route.session_id,
        agent = %call.route.agent,
        format = %call.format,
        upstream = call.upstream.base_url(),
        reason,
        "model gateway: upstream call failed"
    );
    record_unanswered(call, refusal);
    format!("model gateway: {} {reason}", call.upstream.base_url())
}

/// Reports a metered call that got no answer, the gateway's `refusal` instead.
fn record_unanswered(call: &Call, refusal: Refusal) {
    if call.metered {
        let mut usage = CallUsage::counted(
            call.shared.next_call(),
            call.format,
            "unknown".into(),
            Tokens::default(),
        );
        usage.status = refusal.status();
        usage.duration_ms = millis(call.started);
        call.route.sink.record(usage);
    }
}

/// Milliseconds since `started`.
pub(crate) fn millis(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// The headers of a message with the connection's own taken out.
pub(crate) fn forwarded(headers: &HeaderMap) -> HeaderMap {
    let listed: Vec<String> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|name| name.trim().to_ascii_lowercase())
        .collect();
    let mut kept = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        let name_str = name.as_str();
        let dropped = NOT_FORWARDED.contains(&name_str)
            || listed.iter().any(|listed| listed == name_str)
            || (*name == header::CONTENT_LENGTH && headers.contains_key(header::TRANSFER_ENCODING));
        if !dropped {
            kept.append(name.clone(), value.clone());
        }
    }
    kept
}

/// A request's headers for the upstream: the connection's own taken out, the
/// length left to the client (the body may have been rewritten), and
/// `accept-encoding: identity`.
pub(crate) fn request_headers(headers: &HeaderMap) -> HeaderMap {
    let mut kept = forwarded(headers);
    kept.remove(header::CONTENT_LENGTH);
    kept.insert(
        header::ACCEPT_ENCODING,
        HeaderValue::from_static("identity"),
    );
    kept
}

/// Whether a `name` header lists `token` (case-insensitive), as `Upgrade` and
/// `Connection` do.
pub(crate) fn lists(headers: &HeaderMap, name: HeaderName, token: &str) -> bool {
    headers
        .get_all(name)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|listed| listed.trim().eq_ignore_ascii_case(token))
}

/// The credentials a request carries where agents send keys, and where each
/// is: `x-api-key`, `x-goog-api-key`, `Authorization: Bearer`, `?key=`.
pub(crate) fn credentials<'a>(
    headers: &'a HeaderMap,
    query: Option<&'a str>,
) -> Vec<(KeyPlacement, &'a str)> {
    let value_of = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    let bearer = value_of(header::AUTHORIZATION.as_str())
        .and_then(|value| value.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, credential)| credential.trim());
    let in_query = query
        .into_iter()
        .flat_map(|query| query.split('&'))
        .filter_map(|pair| pair.strip_prefix("key="))
        .map(|key| (KeyPlacement::QueryKey, key));
    [
        (KeyPlacement::XApiKey, value_of("x-api-key")),
        (KeyPlacement::XGoogApiKey, value_of("x-goog-api-key")),
        (KeyPlacement::Bearer, bearer),
    ]
    .into_iter()
    .filter_map(|(place, credential)| Some((place, credential?)))
    .chain(in_query)
    .collect()
}

/// Takes the session token out of the headers and the query and puts the real
/// key in; returns the query to send.
pub(crate) fn swap_key(
    headers: &mut HeaderMap,
    query: Option<&str>,
    token: &str,
    upstream: &Upstream,
) -> Option<String> {
    let goog = HeaderName::from_static("x-goog-api-key");
    let x_api_key = HeaderName::from_static("x-api-key");
    let mut sent_at: Vec<KeyPlacement> = credentials(headers, query)
        .into_iter()
        .filter(|(_, credential)| *credential == token)
        .map(|(place, _)| place)
        .collect();
    sent_at.dedup();
    for place in &sent_at {
        match place {
            KeyPlacement::XApiKey => headers.remove(&x_api_key),
            KeyPlacement::XGoogApiKey => headers.remove(&goog),
            KeyPlacement::Bearer => headers.remove(header::AUTHORIZATION),
            KeyPlacement::QueryKey | KeyPlacement::AsSent => None,
        };
    }
    let mut pairs: Vec<String> = query
        .into_iter()
        .flat_map(|query| query.split('&'))
        .filter(|pair| !pair.is_empty() && *pair != format!("key={token}"))
        .map(str::to_owned)
        .collect();
    if let Some(key) = upstream.key().filter(|_| !sent_at.is_empty()) {
        let places = match upstream.placement() {
            KeyPlacement::AsSent => sent_at,
            fixed => vec![fixed],
        };
        for place in places {
            match place {
                KeyPlacement::XApiKey => put(headers, x_api_key.clone(), key),
                KeyPlacement::XGoogApiKey => put(headers, goog.clone(), key),
                KeyPlacement::Bearer => {
                    put(headers, header::AUTHORIZATION, &format!("Bearer {key}"))
                }
                KeyPlacement::QueryKey => pairs.push(format!("key={}", query_encoded(key))),
                KeyPlacement::AsSent => {}
            }
        }
    }
    (!pairs.is_empty()).then(|| pairs.join("&"))
}

fn put(headers: &mut HeaderMap, name: HeaderName, value: &str) {
    // Keys are checked to be header-safe when the upstream is made.
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(name, value);
    }
}

/// `text` percent-encoded for a query value (RFC 3986 unreserved kept).
fn query_encoded(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
    }

    #[test]
    fn connection_headers_are_dropped_and_the_rest_pass() {
        let kept = forwarded(&headers(&[
            ("host", "127.0.0.1:4000"),
            ("connection", "keep-alive, x-hop"),
            ("x-hop", "1"),
            ("te", "trailers"),
            ("anthropic-beta", "a, b"),
            ("anthropic-version", "2023-06-01"),
            ("accept-encoding", "gzip, br"),
            ("content-length", "10"),
        ]));
        let names: Vec<&str> = kept.keys().map(HeaderName::as_str).collect();
        assert_eq!(
            names,
            [
                "anthropic-beta",
                "anthropic-version",
                "accept-encoding",
                "content-length"
            ]
        );
        assert_eq!(kept["accept-encoding"], "gzip, br");

        let request = request_headers(&headers(&[
            ("accept-encoding", "gzip, br"),
            ("content-length", "10"),
            ("x-api-key", "k"),
        ]));
        assert_eq!(request["accept-encoding"], "identity");
        assert_eq!(request.get("content-length"), None);
        assert_eq!(request["x-api-key"], "k");
    }

    fn upstream(placement: KeyPlacement) -> Upstream {
        Upstream::new("https://api.example.com")
            .unwrap()
            .with_key("sk-real", placement)
            .unwrap()
    }

    #[test]
    fn the_token_is_swapped_where_it_was_sent() {
        let token = "apx_tok";
        let mut map = headers(&[("x-api-key", token), ("anthropic-beta", "x")]);
        assert_eq!(
            swap_key(&mut map, None, token, &upstream(KeyPlacement::AsSent)),
            None
        );
        assert_eq!(map["x-api-key"], "sk-real");

        let mut map = headers(&[("authorization", "Bearer apx_tok")]);
        swap_key(&mut map, None, token, &upstream(KeyPlacement::AsSent));
        assert_eq!(map["authorization"], "Bearer sk-real");

        let mut map = HeaderMap::new();
        let query = swap_key(
            &mut map,
            Some("alt=sse&key=apx_tok"),
            token,
            &upstream(KeyPlacement::AsSent),
        );
        assert_eq!(query.as_deref(), Some("alt=sse&key=sk-real"));
        assert!(map.is_empty());
    }

    #[test]
    fn a_fixed_placement_moves_the_key() {
        let mut map = headers(&[("authorization", "Bearer apx_tok")]);
        swap_key(&mut map, None, "apx_tok", &upstream(KeyPlacement::XApiKey));
        assert_eq!(map.get("authorization"), None);
        assert_eq!(map["x-api-key"], "sk-real");
    }

    #[test]
    fn other_credentials_pass_and_a_keyless_upstream_drops_the_token() {
        let mut map = headers(&[("authorization", "Bearer own-oauth-token")]);
        swap_key(
            &mut map,
            Some("key=someone-else"),
            "apx_tok",
            &upstream(KeyPlacement::AsSent),
        );
        assert_eq!(map["authorization"], "Bearer own-oauth-token");

        let keyless = Upstream::new("https://api.example.com").unwrap();
        let mut map = headers(&[("x-goog-api-key", "apx_tok")]);
        let query = swap_key(&mut map, Some("key=apx_tok"), "apx_tok", &keyless);
        assert!(map.is_empty());
        assert_eq!(query, None);
    }

    #[test]
    fn query_keys_are_percent_encoded() {
        assert_eq!(query_encoded("a+b/c=d_e-f.g~h"), "a%2Bb%2Fc%3Dd_e-f.g~h");
    }
}
