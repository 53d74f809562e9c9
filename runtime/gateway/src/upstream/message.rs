//! The heads of the messages the gateway's own client sends and reads: a
//! request's head for an upstream, written from its parts, and an answer's,
//! read for how its body is framed; and, for the broker's passthrough, a
//! request head as the daemon sent it.

use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};

use super::framing::Body;
use crate::forward::lists;

/// Most header lines a head may have here; one with more takes the general
/// path (which refuses it).
const MAX_HEADERS: usize = 64;

/// How far a head in a buffer could be read.
pub(crate) enum Parsed<T> {
    /// All of it: the head, and how many bytes it took.
    Complete(T, usize),
    /// Its end has not come yet.
    Partial,
    /// Not a head this path takes.
    Refused,
}

/// A request head from the daemon.
#[derive(Debug)]
pub(crate) struct RequestHead {
    pub method: String,
    /// The path, without the query.
    pub path: String,
    pub query: Option<String>,
    pub headers: HeaderMap,
}

impl RequestHead {
    /// Reads the request head at the start of `bytes`: HTTP/1.1 only, with
    /// headers `hyper` would take.
    pub(crate) fn parse(bytes: &[u8]) -> Parsed<RequestHead> {
        let mut lines = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut request = httparse::Request::new(&mut lines);
        let length = match request.parse(bytes) {
            Ok(httparse::Status::Complete(length)) => length,
            Ok(httparse::Status::Partial) => return Parsed::Partial,
            Err(_) => return Parsed::Refused,
        };
        let (Some(method), Some(target), Some(1)) = (request.method, request.path, request.version)
        else {
            return Parsed::Refused;
        };
        let Some(headers) = header_map(request.headers) else {
            return Parsed::Refused;
        };
        let (path, query) = match target.split_once('?') {
            Some((path, query)) => (path, Some(query.to_owned())),
            None => (target, None),
        };
        let head = RequestHead {
            method: method.to_owned(),
            path: path.to_owned(),
            query,
            headers,
        };
        Parsed::Complete(head, length)
    }

    /// Whether the connection closes after this call's answer.
    pub(crate) fn closes(&self) -> bool {
        lists(&self.headers, header::CONNECTION, "close")
    }
}

/// An answer's head from the upstream: what its relaying needs to know.
#[derive(Debug)]
pub(crate) struct ResponseHead {
    pub status: u16,
    /// How its body is framed.
    pub body: Body,
    /// Whether the upstream closes the connection after it.
    pub closes: bool,
    /// Whether its body is a stream of events.
    pub streamed: bool,
    pub headers: HeaderMap,
}

impl ResponseHead {
    /// Reads the answer's head at the start of `bytes`, the answer to a
    /// request with `method`.
    pub(crate) fn parse(bytes: &[u8], method: &str) -> Parsed<ResponseHead> {
        let mut lines = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut response = httparse::Response::new(&mut lines);
        let length = match response.parse(bytes) {
            Ok(httparse::Status::Complete(length)) => length,
            Ok(httparse::Status::Partial) => return Parsed::Partial,
            Err(_) => return Parsed::Refused,
        };
        let (Some(status), Some(version)) = (response.code, response.version) else {
            return Parsed::Refused;
        };
        let Some(headers) = header_map(response.headers) else {
            return Parsed::Refused;
        };
        let content_length = match content_length(&headers) {
            Ok(length) => length,
            Err(()) => return Parsed::Refused,
        };
        let chunked = headers.get(header::TRANSFER_ENCODING).map(|codings| {
            let last = codings
                .to_str()
                .unwrap_or("")
                .rsplit(',')
                .next()
                .unwrap_or("");
            last.trim().eq_ignore_ascii_case("chunked")
        });
        let bodiless = (100..200).contains(&status) || status == 204 || status == 304;
        let body = match chunked {
            _ if bodiless || method == "HEAD" => Body::Length(0),
            Some(true) => Body::chunked(),
            Some(false) => Body::UntilClose,
            None => content_length.map_or(Body::UntilClose, Body::Length),
        };
        let closes = version == 0 || lists(&headers, header::CONNECTION, "close");
        let streamed = headers
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("text/event-stream"));
        let head = ResponseHead {
            status,
            body,
            closes,
            streamed,
            headers,
        };
        Parsed::Complete(head, length)
    }

    /// Reads the final answer's head in `bytes`, after any interim `1xx` heads
    /// (but `101`, which is final), the answer to a request with `method`;
    /// complete, with where its body starts in `bytes`.
    pub(crate) fn parse_final(bytes: &[u8], method: &str) -> Parsed<ResponseHead> {
        let mut start = 0;
        loop {
            match ResponseHead::parse(&bytes[start..], method) {
                Parsed::Complete(head, length) if is_interim(head.status) => start += length,
                Parsed::Complete(head, length) => return Parsed::Complete(head, start + length),
                other => return other,
            }
        }
    }
}

/// Whether an answer with `status` is an interim one, another to follow.
fn is_interim(status: u16) -> bool {
    (100..200).contains(&status) && status != 101
}

/// The head of a request to the upstream: `method target`, its `Host`, the
/// `headers` (already rewritten for it), and the body's length.
pub(crate) fn upstream_request(
    method: &str,
    target: &str,
    host: &str,
    headers: &HeaderMap,
    body_length: usize,
) -> Vec<u8> {
    let mut head = Vec::with_capacity(256 + 64 * headers.len());
    for part in [method, " ", target, " HTTP/1.1\r\nhost: ", host, "\r\n"] {
        head.extend_from_slice(part.as_bytes());
    }
    for (name, value) in headers {
        head.extend_from_slice(name.as_str().as_bytes());
        head.extend_from_slice(b": ");
        head.extend_from_slice(value.as_bytes());
        head.extend_from_slice(b"\r\n");
    }
    if body_length > 0 || matches!(method, "POST" | "PUT" | "PATCH") {
        head.extend_from_slice(format!("content-length: {body_length}\r\n").as_bytes());
    }
    head.extend_from_slice(b"\r\n");
    head
}

/// The head lines as a header map; `None` if one is not a valid header.
fn header_map(lines: &[httparse::Header<'_>]) -> Option<HeaderMap> {
    let mut headers = HeaderMap::with_capacity(lines.len());
    for line in lines {
        let name = HeaderName::from_bytes(line.name.as_bytes()).ok()?;
        headers.append(name, HeaderValue::from_bytes(line.value).ok()?);
    }
    Some(headers)
}

/// The `Content-Length`, if there is one: several that differ, or one that is
/// not a number, is an error.
pub(crate) fn content_length(headers: &HeaderMap) -> Result<Option<u64>, ()> {
    let mut found = None;
    for value in headers.get_all(header::CONTENT_LENGTH) {
        for length in value.to_str().map_err(|_| ())?.split(',') {
            let length = length.trim();
            if length.is_empty() || !length.bytes().all(|byte| byte.is_ascii_digit()) {
                return Err(());
            }
            let length: u64 = length.parse().map_err(|_| ())?;
            if found.is_some_and(|found| found != length) {
                return Err(());
            }
            found = Some(length);
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_final_head_comes_after_interim_ones() {
        let bytes = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n\
            HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi";
        let Parsed::Complete(head, start) = ResponseHead::parse_final(bytes, "POST") else {
            panic!("a final head");
        };
        assert_eq!((head.status, &bytes[start..]), (200, &b"hi"[..]));
        let switched = b"HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n";
        let Parsed::Complete(head, _) = ResponseHead::parse_final(switched, "GET") else {
            panic!("101 is final");
        };
        assert_eq!(head.status, 101);
        let interim_only = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 2";
        assert!(matches!(
            ResponseHead::parse_final(interim_only, "POST"),
            Parsed::Partial
        ));
    }

    #[test]
    fn a_request_head_is_read_whole_or_not_at_all() {
        let wire = b"POST /anthropic/anthropic-messages/v1/messages?beta=true HTTP/1.1\r\nHost: b\r\nx-api-key: t\r\nConnection: keep-alive, Close\r\ncontent-length: 2\r\n\r\n{}";
        let Parsed::Complete(head, length) = RequestHead::parse(wire) else {
            panic!("not read");
        };
        assert_eq!(length, wire.len() - 2);
        assert_eq!(head.method, "POST");
        assert_eq!(head.path, "/anthropic/anthropic-messages/v1/messages");
        assert_eq!(head.query.as_deref(), Some("beta=true"));
        assert_eq!(head.headers["x-api-key"], "t");
        assert!(head.closes());
        assert!(matches!(RequestHead::parse(&wire[..40]), Parsed::Partial));
        let old = b"GET / HTTP/1.0\r\n\r\n";
        assert!(matches!(RequestHead::parse(old), Parsed::Refused));
        assert!(matches!(
            RequestHead::parse(b"GET /\x01 HTTP/1.1\r\n\r\n"),
            Parsed::Refused
        ));
    }

    fn response(wire: &str, method: &str) -> ResponseHead {
        match ResponseHead::parse(wire.as_bytes(), method) {
            Parsed::Complete(head, length) => {
                assert_eq!(length, wire.len());
                head
            }
            _ => panic!("not read: {wire}"),
        }
    }

    #[test]
    fn an_answer_s_head_says_how_its_body_ends() {
        let head = response(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
            "POST",
        );
        assert!(matches!(head.body, Body::Chunked(_)));
        assert!(head.streamed && !head.closes);
        let head = response("HTTP/1.1 200 OK\r\ncontent-length: 12\r\n\r\n", "POST");
        assert!(matches!(head.body, Body::Length(12)));
        let head = response("HTTP/1.1 200 OK\r\ncontent-length: 12\r\n\r\n", "HEAD");
        assert!(head.body.done());
        let head = response("HTTP/1.1 204 No Content\r\n\r\n", "POST");
        assert!(head.body.done());
        let head = response("HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n", "POST");
        assert!(matches!(head.body, Body::UntilClose) && head.closes);
        let head = response("HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n", "POST");
        assert!(matches!(head.body, Body::UntilClose));
        let head = response("HTTP/1.0 200 OK\r\ncontent-length: 1\r\n\r\n", "POST");
        assert!(head.closes);
        let mixed = "HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n";
        assert!(matches!(
            ResponseHead::parse(mixed.as_bytes(), "POST"),
            Parsed::Refused
        ));
    }

    #[test]
    fn the_upstream_s_head_has_its_host_and_the_body_s_length() {
        let mut headers = HeaderMap::new();
        headers.insert("x-api-key", HeaderValue::from_static("sk-real"));
        let head = upstream_request("POST", "/v1/messages", "api.example.com", &headers, 2);
        assert_eq!(
            String::from_utf8(head).unwrap(),
            "POST /v1/messages HTTP/1.1\r\nhost: api.example.com\r\nx-api-key: sk-real\r\ncontent-length: 2\r\n\r\n"
        );
        let head = upstream_request("GET", "/v1/models", "h:8080", &HeaderMap::new(), 0);
        assert_eq!(
            String::from_utf8(head).unwrap(),
            "GET /v1/models HTTP/1.1\r\nhost: h:8080\r\n\r\n"
        );
    }
}
