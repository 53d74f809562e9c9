//! A provider behind a proxy: with `http_proxy` set, the gateway sends its
//! calls to plain-HTTP upstreams through the proxy (by `reqwest`, not its own
//! client), the key in the token's place, and relays and meters the answers
//! as it does without one; an upstream `no_proxy` names is reached directly. A test binary of its own: the variable is read at
//! the gateway's start, and a process's environment is shared by its tests.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentplex_gateway::{CallUsage, Format, Gateway, GatewayConfig, KeyPlacement, Route, Upstream};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The real key, which the proxy must see in the call.
const KEY: &str = "sk-behind-a-proxy";
/// The upstream's base URL: a name only the proxy resolves.
const BASE: &str = "http://provider.invalid/anthropic";
/// A streamed Messages answer with usage, chunked.
const STREAMED: &str = concat!(
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-sonnet-4-5\",",
    "\"usage\":{\"input_tokens\":11,\"output_tokens\":1}}}\n\n",
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":7}}\n\n",
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
);

/// A proxy (or a provider) that answers each call itself, as the provider
/// would, and keeps the requests it was sent (head and body).
async fn answering(seen: Arc<Mutex<Vec<String>>>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(answer(stream, seen.clone()));
        }
    });
    url
}

/// Reads one request (with a `content-length`) from `stream` and answers it.
async fn answer(mut stream: TcpStream, seen: Arc<Mutex<Vec<String>>>) {
    let mut read = Vec::new();
    let mut piece = [0u8; 8192];
    let whole = loop {
        let text = String::from_utf8_lossy(&read).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|line| {
                    line.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|n| n.trim().parse::<usize>().unwrap())
                })
                .unwrap_or(0);
            if read.len() >= end + 4 + length {
                break text;
            }
        }
        match stream.read(&mut piece).await {
            Ok(0) | Err(_) => return,
            Ok(count) => read.extend_from_slice(&piece[..count]),
        }
    };
    let streamed = whole.contains("\"stream\":true");
    seen.lock().unwrap().push(whole);
    let answer = match streamed {
        true => format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n\
             {:x}\r\n{STREAMED}\r\n0\r\n\r\n",
            STREAMED.len()
        ),
        false => {
            let body = "{\"type\":\"message\",\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":5,\"output_tokens\":3}}";
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
        }
    };
    let _ = stream.write_all(answer.as_bytes()).await;
}

#[tokio::test]
async fn calls_to_a_provider_behind_a_proxy_go_through_it_keyed_relayed_and_metered() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let proxy = answering(seen.clone()).await;
    let local = Arc::new(Mutex::new(Vec::new()));
    let local_base = answering(local.clone()).await;
    // Set before the gateway starts, the only thing this process runs (in both
    // cases, whichever one a machine running the tests has set).
    for name in ["http_proxy", "HTTP_PROXY"] {
        std::env::set_var(name, &proxy);
    }
    for name in ["no_proxy", "NO_PROXY"] {
        std::env::set_var(name, "localhost,127.0.0.1");
    }
    let gateway = Gateway::start(GatewayConfig::default()).await.unwrap();
    let (sender, mut usage) = tokio::sync::mpsc::unbounded_channel::<CallUsage>();
    let route = |base: &str| Route {
        session_id: "session-1".into(),
        agent: "mock".into(),
        upstreams: HashMap::from([(
            Format::AnthropicMessages.into(),
            Upstream::new(base)
                .unwrap()
                .with_key(KEY, KeyPlacement::AsSent)
                .unwrap(),
        )]),
        sink: Arc::new({
            let sender = sender.clone();
            move |call| {
                let _ = sender.send(call);
            }
        }),
    };
    let guard = gateway.register(route(BASE));
    let direct = gateway.register(route(&local_base));
    // The agent's own calls go straight to the gateway.
    let agent = reqwest::Client::builder().no_proxy().build().unwrap();
    let url = format!("{}/v1/messages", guard.endpoint(Format::AnthropicMessages));
    for (stream, expected, (input, output)) in [
        (true, STREAMED, (11, 7)),
        (false, "\"output_tokens\":3", (5, 3)),
    ] {
        let body =
            format!("{{\"model\":\"claude-sonnet-4-5\",\"stream\":{stream},\"max_tokens\":9}}");
        let response = agent
            .post(&url)
            .header("x-api-key", guard.token())
            .header("anthropic-version", "2023-06-01")
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let relayed = response.text().await.unwrap();
        assert!(relayed.contains(expected), "{relayed}");
        let call = tokio::time::timeout(Duration::from_secs(10), usage.recv())
            .await
            .expect("the call's usage in time")
            .unwrap();
        assert!(call.complete, "{call:?}");
        assert_eq!((call.input_tokens, call.output_tokens), (input, output));
    }
    // An upstream `no_proxy` names is reached directly.
    let url = format!("{}/v1/messages", direct.endpoint(Format::AnthropicMessages));
    let response = agent
        .post(&url)
        .header("x-api-key", direct.token())
        .header("content-type", "application/json")
        .body("{\"model\":\"claude-sonnet-4-5\",\"stream\":true}")
        .send()
        .await
        .unwrap();
    assert!(response.text().await.unwrap().contains(STREAMED));
    let line = local.lock().unwrap()[0].lines().next().unwrap().to_owned();
    assert_eq!(
        line, "POST /v1/messages HTTP/1.1",
        "straight to the provider"
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen.len(),
        2,
        "the first two calls went through the proxy, not the third"
    );
    for request in &seen {
        let line = request.lines().next().unwrap();
        assert_eq!(
            line,
            "POST http://provider.invalid/anthropic/v1/messages HTTP/1.1"
        );
        let lower = request.to_ascii_lowercase();
        assert!(
            lower.contains(&format!("x-api-key: {KEY}\r\n")),
            "{request}"
        );
        assert!(
            !request.contains(guard.token()),
            "the token stays in the sandbox"
        );
    }
}
