//! The broker's passthrough, against an upstream scripted byte by byte: an
//! answer reaches the caller exactly as the upstream framed it, connections on
//! both sides carry one call after another (a kept upstream connection that
//! was closed meanwhile is replaced), interim and close-delimited answers pass,
//! an upstream that fails gets the format's error, a large body arrives whole
//! (and one refused before it was read gets its refusal),
//! and what the passthrough does not take (a chunked request) is served on the
//! general path, on the same connection.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentplex_gateway::{Broker, BrokerConfig, Prices, SandboxToken};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The real key the broker holds.
const KEY: &str = "sk-passthrough-real";
/// A streamed call's body.
const STREAMED: &str = "{\"model\":\"claude-sonnet-4-5\",\"stream\":true}";

/// What the scripted upstream answers a request with: the pieces it writes
/// (a moment apart), and whether it closes the connection after them.
type Script = Arc<dyn Fn(usize) -> (Vec<Vec<u8>>, bool) + Send + Sync>;

/// An upstream that answers each request it reads by its `Script`, in order
/// across connections.
struct Upstream {
    addr: SocketAddr,
    /// Connections accepted so far.
    accepted: Arc<AtomicUsize>,
    /// The requests read, head and body, as text.
    requests: Arc<Mutex<Vec<String>>>,
    /// Closes every connection kept open between requests.
    idle: Arc<tokio::sync::Notify>,
}

impl Upstream {
    async fn start(script: Script) -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let idle = Arc::new(tokio::sync::Notify::new());
        let (count, seen, closer) = (accepted.clone(), requests.clone(), idle.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                let (script, seen, closer) = (script.clone(), seen.clone(), closer.clone());
                tokio::spawn(answer(stream, script, seen, closer));
            }
        });
        Upstream {
            addr,
            accepted,
            requests,
            idle,
        }
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

/// Answers one connection's requests until it or the script closes it.
async fn answer(
    mut stream: TcpStream,
    script: Script,
    seen: Arc<Mutex<Vec<String>>>,
    idle: Arc<tokio::sync::Notify>,
) {
    loop {
        let request = tokio::select! {
            request = read_message(&mut stream) => request,
            () = idle.notified() => return,
        };
        let Some(request) = request else { return };
        let index = {
            let mut seen = seen.lock().unwrap();
            seen.push(request);
            seen.len() - 1
        };
        let (pieces, close) = script(index);
        for (at, piece) in pieces.iter().enumerate() {
            if at > 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            if stream.write_all(piece).await.is_err() {
                return;
            }
        }
        if close {
            return;
        }
    }
}

/// Reads a request with a `Content-Length` (or none) as text.
async fn read_message(stream: &mut TcpStream) -> Option<String> {
    let mut bytes = Vec::new();
    let mut piece = [0u8; 4096];
    loop {
        if let Some(end) = find(&bytes, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&bytes[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .map_or(0, |value| value.trim().parse().unwrap());
            if bytes.len() >= end + 4 + length {
                return Some(String::from_utf8_lossy(&bytes[..end + 4 + length]).into_owned());
            }
        }
        match stream.read(&mut piece).await {
            Ok(0) | Err(_) => return None,
            Ok(read) => bytes.extend_from_slice(&piece[..read]),
        }
    }
}

fn find(bytes: &[u8], needle: &[u8]) -> Option<usize> {
    bytes
        .windows(needle.len())
        .position(|window| window == needle)
}

/// A daemon's side of a broker in front of the upstream at `base` (provider
/// `anthropic`): its connection to the broker, and the sandbox's token.
struct Caller {
    stream: TcpStream,
    sandbox: SandboxToken,
    _broker: Broker,
    _keys: tempfile::TempDir,
}

impl Caller {
    async fn of(base: &str) -> Caller {
        let dir = tempfile::tempdir().unwrap();
        let keys = dir.path().join("keys.json");
        let sandbox = SandboxToken::new();
        let file = json!({
            "providers": {"anthropic": {"baseUrl": base, "key": KEY}},
            "sandboxes": {"sandbox-1": {"tokenSha256": sandbox.sha256()}},
        });
        std::fs::write(&keys, file.to_string()).unwrap();
        let broker = Broker::start(BrokerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            keys,
            prices: Prices::built_in(),
            plain_http_on_network: false,
        })
        .await
        .unwrap();
        Caller {
            stream: TcpStream::connect(broker.addr()).await.unwrap(),
            sandbox,
            _broker: broker,
            _keys: dir,
        }
    }

    /// Sends a Messages call with `body`.
    async fn call(&mut self, body: &str) {
        let request = messages_call(self.sandbox.token(), body);
        self.stream.write_all(&request).await.unwrap();
    }
}

/// A Messages call's request as the daemon sends it to the broker.
fn messages_call(token: &str, body: &str) -> Vec<u8> {
    format!(
        "POST /anthropic/anthropic-messages/v1/messages?beta=true HTTP/1.1\r\nhost: broker\r\n\
         x-api-key: {token}\r\nanthropic-version: 2023-06-01\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Reads from `stream` until `done` says the bytes are a whole answer, or the
/// connection closes; the bytes, and whether it closed.
async fn read_until(stream: &mut TcpStream, done: impl Fn(&[u8]) -> bool) -> (Vec<u8>, bool) {
    let mut bytes = Vec::new();
    let mut piece = [0u8; 4096];
    loop {
        if done(&bytes) {
            return (bytes, false);
        }
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut piece))
            .await
            .expect("the answer came in time");
        match read {
            Ok(0) | Err(_) => return (bytes, true),
            Ok(read) => bytes.extend_from_slice(&piece[..read]),
        }
    }
}

/// A streamed Messages answer with usage, in chunks that split its events
/// and lines anywhere, one with an extension.
fn streamed_answer() -> Vec<Vec<u8>> {
    let events = concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-sonnet-4-5\",",
        "\"usage\":{\"input_tokens\":11,\"output_tokens\":1}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"hi\"}}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":7}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    let head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nx-upstream: as-sent\r\n\r\n".to_vec();
    let mut pieces = vec![head];
    for (index, part) in events.as_bytes().chunks(37).enumerate() {
        let extension = if index == 1 { ";note=x" } else { "" };
        let mut chunk = format!("{:X}{extension}\r\n", part.len()).into_bytes();
        chunk.extend_from_slice(part);
        chunk.extend_from_slice(b"\r\n");
        // Split a chunk's framing across two writes too.
        let middle = chunk.len() / 2;
        pieces.push(chunk[..middle].to_vec());
        pieces.push(chunk[middle..].to_vec());
    }
    pieces.push(b"0\r\n\r\n".to_vec());
    pieces
}

fn ends_chunked(bytes: &[u8]) -> bool {
    bytes.ends_with(b"0\r\n\r\n")
}

#[tokio::test]
async fn an_answer_reaches_the_caller_as_the_upstream_framed_it_and_connections_carry_on() {
    let script: Script = Arc::new(|_| (streamed_answer(), false));
    let upstream = Upstream::start(script).await;
    let mut agent = Caller::of(&format!("http://{}/prefix", upstream.addr)).await;
    let sent: Vec<u8> = streamed_answer().concat();
    for call in 0..3 {
        if call == 2 {
            // The upstream closes the connection the broker keeps: the next
            // call goes through on a new one.
            tokio::time::sleep(Duration::from_millis(50)).await;
            upstream.idle.notify_waiters();
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        agent.call(STREAMED).await;
        let (received, closed) = read_until(&mut agent.stream, ends_chunked).await;
        assert!(!closed, "call {call}");
        assert_eq!(
            String::from_utf8_lossy(&received),
            String::from_utf8_lossy(&sent),
            "call {call}: byte for byte"
        );
    }
    assert_eq!(
        upstream.accepted.load(Ordering::SeqCst),
        2,
        "one connection, then a new one"
    );
    let requests = upstream.requests();
    assert_eq!(requests.len(), 3);
    let request = &requests[0];
    assert!(
        request.starts_with("POST /prefix/v1/messages?beta=true HTTP/1.1\r\n"),
        "{request}"
    );
    let head = request.to_ascii_lowercase();
    assert!(
        head.contains(&format!("host: {}\r\n", upstream.addr)),
        "{request}"
    );
    assert!(head.contains(&format!("x-api-key: {KEY}\r\n")), "{request}");
    assert!(head.contains("accept-encoding: identity\r\n"), "{request}");
    assert!(!request.contains(agent.sandbox.token()), "{request}");
    assert!(request.ends_with(STREAMED), "{request}");
}

#[tokio::test]
async fn interim_and_close_delimited_answers_pass_and_the_connection_closes_after() {
    let script: Script = Arc::new(|_| {
        let pieces = vec![
            b"HTTP/1.1 100 Continue\r\n\r\n".to_vec(),
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n"
                .to_vec(),
            b"{\"type\":\"message\",\"model\":\"m\",".to_vec(),
            b"\"usage\":{\"input_tokens\":1,\"output_tokens\":2}}".to_vec(),
        ];
        (pieces, true)
    });
    let upstream = Upstream::start(script).await;
    let mut agent = Caller::of(&format!("http://{}", upstream.addr)).await;
    agent.call("{}").await;
    let (received, closed) = read_until(&mut agent.stream, |_| false).await;
    assert!(closed);
    let received = String::from_utf8(received).unwrap();
    assert!(
        received.starts_with("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"),
        "{received}"
    );
    assert!(received.ends_with("\"output_tokens\":2}}"), "{received}");
}

/// The error body of a refused Messages call, and its status line.
async fn refusal(agent: &mut TcpStream) -> (String, Value) {
    let (received, _) = read_until(agent, |bytes| {
        let Some(end) = find(bytes, b"\r\n\r\n") else {
            return false;
        };
        serde_json::from_slice::<Value>(&bytes[end + 4..]).is_ok()
    })
    .await;
    let received = String::from_utf8(received).unwrap();
    let (head, body) = received.split_once("\r\n\r\n").unwrap();
    let status = head.lines().next().unwrap().to_owned();
    (status, serde_json::from_str(body).unwrap())
}

#[tokio::test]
async fn an_upstream_that_fails_gets_the_format_s_error_and_the_connection_goes_on() {
    // Nothing listens there.
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let nowhere = closed.local_addr().unwrap();
    drop(closed);
    let mut agent = Caller::of(&format!("http://{nowhere}")).await;
    for _ in 0..2 {
        agent.call("{}").await;
        let (status, error) = refusal(&mut agent.stream).await;
        assert_eq!(status, "HTTP/1.1 502 Bad Gateway");
        assert_eq!(error["type"], "error", "{error}");
        assert_eq!(error["error"]["type"], "api_error", "{error}");
        assert!(error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("model gateway"));
    }

    // Something that is not HTTP.
    let script: Script = Arc::new(|_| (vec![b"NOT HTTP AT ALL\r\n\r\n".to_vec()], true));
    let garbage = Upstream::start(script).await;
    let mut agent = Caller::of(&format!("http://{}", garbage.addr)).await;
    agent.call("{}").await;
    let (status, error) = refusal(&mut agent.stream).await;
    assert_eq!(status, "HTTP/1.1 502 Bad Gateway");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not HTTP/1.1"),
        "{error}"
    );

    // An answer that breaks off inside its body: the caller's connection ends
    // there, never as a whole answer.
    let script: Script = Arc::new(|_| {
        let head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
        (
            vec![head.to_vec(), b"20\r\nevent: message_start\ndata:".to_vec()],
            true,
        )
    });
    let broken = Upstream::start(script).await;
    let mut agent = Caller::of(&format!("http://{}", broken.addr)).await;
    agent.call("{}").await;
    let (received, closed) = read_until(&mut agent.stream, ends_chunked).await;
    assert!(closed && !ends_chunked(&received));
}

#[tokio::test]
async fn a_call_the_passthrough_does_not_take_goes_the_general_way_on_the_same_connection() {
    let script: Script = Arc::new(|_| {
        let body = "{\"type\":\"message\",\"model\":\"m\",\"usage\":{\"input_tokens\":1,\"output_tokens\":2}}";
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        (vec![answer.into_bytes()], false)
    });
    let upstream = Upstream::start(script).await;
    let mut agent = Caller::of(&format!("http://{}", upstream.addr)).await;
    let whole = |bytes: &[u8]| bytes.ends_with(b"\"output_tokens\":2}}");
    // Through the passthrough first, then a chunked request (the general path
    // takes the connection from there), then one more on it.
    agent.call("{}").await;
    let (first, _) = read_until(&mut agent.stream, whole).await;
    let chunked = format!(
        "POST /anthropic/anthropic-messages/v1/messages HTTP/1.1\r\nhost: broker\r\n\
         x-api-key: {}\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{{}}\r\n0\r\n\r\n",
        agent.sandbox.token()
    );
    agent.stream.write_all(chunked.as_bytes()).await.unwrap();
    let (second, _) = read_until(&mut agent.stream, whole).await;
    agent.call("{}").await;
    let (third, closed) = read_until(&mut agent.stream, whole).await;
    assert!(!closed);
    for answer in [&first, &second, &third] {
        let answer = String::from_utf8_lossy(answer);
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    }
    let requests = upstream.requests();
    assert_eq!(requests.len(), 3);
    for request in &requests {
        let head = request.to_ascii_lowercase();
        assert!(head.contains(&format!("x-api-key: {KEY}\r\n")), "{request}");
        assert!(request.ends_with("{}"), "{request}");
    }
}

#[tokio::test]
async fn a_large_body_reaches_the_upstream_whole() {
    let script: Script = Arc::new(|_| {
        let answer = "HTTP/1.1 204 No Content\r\n\r\n";
        (vec![answer.as_bytes().to_vec()], false)
    });
    let upstream = Upstream::start(script).await;
    let mut agent = Caller::of(&format!("http://{}", upstream.addr)).await;
    let large = format!("{{\"text\":\"{}\"}}", "a context ".repeat(200_000));
    agent.call(&large).await;
    let (answer, _) = read_until(&mut agent.stream, |bytes| bytes.ends_with(b"\r\n\r\n")).await;
    assert!(answer.starts_with(b"HTTP/1.1 204"), "{answer:?}");
    let requests = upstream.requests();
    assert!(requests[0].ends_with(&large), "the body arrived whole");
}

#[tokio::test]
async fn an_upstream_that_answers_before_taking_a_large_body_has_its_answer_passed_on() {
    let refused = "HTTP/1.1 413 Payload Too Large\r\ncontent-length: 7\r\n\r\ntoo big";
    // It closes, or holds the connection and reads no more.
    for closes in [true, false] {
        let upstream = crate::common::answering_then(refused, closes).await;
        let mut agent = Caller::of(&upstream).await;
        let large = format!("{{\"text\":\"{}\"}}", "a context ".repeat(1_600_000));
        agent.call(&large).await;
        let (answer, _) = read_until(&mut agent.stream, |bytes| bytes.ends_with(b"too big")).await;
        assert_eq!(
            String::from_utf8(answer).unwrap(),
            refused,
            "closes: {closes}"
        );
    }
}
