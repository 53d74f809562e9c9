//! Failures: an upstream that is down, silent or breaks off, and an agent that
//! hangs up, each answered or reported without hanging.

use std::time::{Duration, Instant};

use agentplex_gateway::{Format, Gateway, GatewayConfig, KeyPlacement};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::common::{
    answering, answering_then, body, call, channel, client, next_usage, route, say_hi, setup,
    through, KEY,
};

/// A gateway with short timeouts and a route to `base`.
async fn gateway_to(
    base: &str,
) -> (
    std::sync::Arc<Gateway>,
    agentplex_gateway::RouteGuard,
    tokio::sync::mpsc::UnboundedReceiver<agentplex_gateway::CallUsage>,
) {
    let config = GatewayConfig {
        connect_timeout: Duration::from_millis(500),
        response_timeout: Duration::from_millis(500),
        idle_timeout: Duration::from_millis(500),
        ..GatewayConfig::default()
    };
    let gateway = Gateway::start(config).await.unwrap();
    let (sink, usage) = channel();
    let guard = gateway.register(route(base, KeyPlacement::AsSent, sink));
    (gateway, guard, usage)
}

#[tokio::test]
async fn an_upstream_that_is_down_gives_502_in_the_formats_shape() {
    // A port that was just free: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (_gateway, guard, mut usage) = gateway_to(&format!("http://127.0.0.1:{port}")).await;
    let client = client();
    for format in [Format::AnthropicMessages, Format::Gemini] {
        let started = Instant::now();
        // Gemini's token goes in the query, where the key then goes too.
        let url = match format {
            Format::Gemini => format!("{}&key={}", through(&guard, format, true), guard.token()),
            _ => through(&guard, format, true),
        };
        let response = call(
            &client,
            &url,
            format,
            guard.token(),
            &body(format, "hi", true),
        )
        .send()
        .await
        .unwrap();
        assert_eq!(response.status(), 502, "{format}");
        let error: Value = response.json().await.unwrap();
        match format {
            Format::AnthropicMessages => assert_eq!(error["error"]["type"], "api_error"),
            _ => assert_eq!(error["error"]["status"], "UNAVAILABLE"),
        }
        assert!(!error.to_string().contains(KEY), "the key leaked: {error}");
        assert!(started.elapsed() < Duration::from_secs(5));
        let reported = next_usage(&mut usage).await;
        assert_eq!((reported.status, reported.complete), (502, false));
        assert_eq!(reported.format, format);
    }
}

#[tokio::test]
async fn an_upstream_that_never_answers_gives_504_in_time() {
    // It accepts connections and reads requests, and says nothing.
    let silent = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", silent.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((mut socket, _)) = silent.accept().await {
            let mut buffer = [0u8; 4096];
            let _ = socket.read(&mut buffer).await;
            held.push(socket);
        }
    });
    let (_gateway, guard, mut usage) = gateway_to(&base).await;
    let format = Format::OpenaiResponses;
    let started = Instant::now();
    let response = say_hi(&guard, format, true).await;
    assert_eq!(response.status(), 504);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["type"], "server_error");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let reported = next_usage(&mut usage).await;
    assert_eq!((reported.status, reported.complete), (504, false));
}

#[tokio::test]
async fn a_stream_cut_short_is_reported_incomplete_with_what_was_read() {
    // An upstream that starts a Messages stream and closes mid-way.
    let event = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-haiku-4-5\",\"usage\":{\"input_tokens\":40,\"output_tokens\":1}}}\n\n";
    let base = stopping_after(event, Duration::from_millis(100)).await;
    let (_gateway, guard, mut usage) = gateway_to(&base).await;
    let format = Format::AnthropicMessages;
    let response = say_hi(&guard, format, true).await;
    assert_eq!(response.status(), 200);
    assert!(response.bytes().await.is_err(), "the agent sees the break");
    let reported = next_usage(&mut usage).await;
    assert!(!reported.complete);
    assert_eq!(reported.model, "claude-haiku-4-5");
    assert_eq!(reported.input_tokens, 40);
    assert_eq!(
        reported.failure.as_deref(),
        Some("the provider's answer broke off")
    );
}

#[tokio::test]
async fn a_stream_that_falls_silent_is_cut_after_the_idle_timeout() {
    // An upstream that starts a stream and then says nothing, holding it open.
    let event = "data: {\"model\":\"m\",\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n";
    let base = stopping_after(event, Duration::from_secs(30)).await;
    let (_gateway, guard, mut usage) = gateway_to(&base).await;
    let format = Format::OpenaiChatCompletions;
    let started = Instant::now();
    let response = say_hi(&guard, format, true).await;
    assert_eq!(response.status(), 200);
    assert!(response.bytes().await.is_err(), "the agent sees the cut");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let reported = next_usage(&mut usage).await;
    assert!(!reported.complete);
    assert_eq!(reported.model, "m");
    let failure = reported.failure.unwrap();
    assert!(failure.contains("fell silent"), "{failure}");
}

#[tokio::test]
async fn an_agent_that_hangs_up_leaves_its_call_incomplete() {
    let mut setup = setup().await;
    let format = Format::OpenaiChatCompletions;
    let url = through(&setup.guard, format, true);
    let mut response = call(
        &client(),
        &url,
        format,
        setup.guard.token(),
        &body(format, "slow: 20", true),
    )
    .send()
    .await
    .unwrap();
    assert!(response.chunk().await.unwrap().is_some());
    drop(response);
    let reported = next_usage(&mut setup.usage).await;
    assert!(!reported.complete);
    assert_eq!(reported.status, 200);
    assert_eq!(reported.model, "gpt-6.1-sol");
    assert_eq!(reported.failure, None, "hanging up is the agent's choice");
}

/// An upstream that answers its first request with a stream of one `event`,
/// holds the connection for `hold`, then drops it without the stream's end.
async fn stopping_after(event: &'static str, hold: Duration) -> String {
    let upstream = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", upstream.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut socket, _) = upstream.accept().await.unwrap();
        let mut buffer = [0u8; 8192];
        let _ = socket.read(&mut buffer).await;
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
        let chunk = format!("{head}{:x}\r\n{event}\r\n", event.len());
        socket.write_all(chunk.as_bytes()).await.unwrap();
        tokio::time::sleep(hold).await;
    });
    base
}

#[tokio::test]
async fn an_answer_that_cannot_be_read_is_relayed_as_it_came_and_reported_failed() {
    let whole =
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 9\r\n\r\nnot json!";
    let streamed = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 17\r\n\r\ndata: <garbage>\n\n";
    for (answer, streams) in [(whole, false), (streamed, true)] {
        let (_gateway, guard, mut usage) = gateway_to(&answering(answer).await).await;
        for format in [
            Format::AnthropicMessages,
            Format::OpenaiResponses,
            Format::OpenaiChatCompletions,
            Format::Gemini,
        ] {
            let mut url = through(&guard, format, streams);
            if format == Format::Gemini {
                let joint = if url.contains('?') { '&' } else { '?' };
                url = format!("{url}{joint}key={}", guard.token());
            }
            let response = call(
                &client(),
                &url,
                format,
                guard.token(),
                &body(format, "hi", streams),
            )
            .send()
            .await
            .unwrap();
            assert_eq!(response.status(), 200, "{format}");
            // The agent reads what the provider said, and fails on it as without the gateway.
            let relayed = response.bytes().await.unwrap();
            assert_eq!(
                relayed,
                answer.split("\r\n\r\n").nth(1).unwrap(),
                "{format}"
            );
            let reported = next_usage(&mut usage).await;
            assert!(!reported.complete, "{format}");
            let failure = reported.failure.unwrap_or_default();
            assert!(failure.contains("could not be read"), "{format}: {failure}");
            assert!(failure.contains(format.as_str()), "{format}: {failure}");
        }
    }
}

#[tokio::test]
async fn an_upstream_that_sends_interim_heads_without_end_gives_502() {
    // 128 KiB of `100 Continue`, then nothing: not read without end, nor
    // waited on until the response timeout (0.5 s here, then a 504).
    let interim: &'static str = "HTTP/1.1 100 Continue\r\n\r\n".repeat(5_000).leak();
    let (_gateway, guard, _usage) = gateway_to(&answering_then(interim, false).await).await;
    let format = Format::AnthropicMessages;
    let response = say_hi(&guard, format, false).await;
    assert_eq!(response.status(), 502);
    let answer: Value = response.json().await.unwrap();
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("not HTTP/1.1"), "{message}");
}

#[tokio::test]
async fn an_upstream_that_answers_before_taking_a_large_body_has_its_answer_relayed() {
    // A provider refusing a context too large: it answers at the head, most
    // of the body unread, and closes (so the gateway's write of it fails) or
    // reads no more (so the write would wait: for the response timeout here,
    // 0.5 s, then a 504).
    let refused = "HTTP/1.1 413 Payload Too Large\r\ncontent-type: application/json\r\n\
         content-length: 38\r\n\r\n{\"error\":{\"type\":\"request_too_large\"}}";
    for closes in [true, false] {
        let upstream = answering_then(refused, closes).await;
        let (_gateway, guard, mut usage) = gateway_to(&upstream).await;
        let format = Format::AnthropicMessages;
        let mut large = body(format, "hi", false);
        large["system"] = Value::from("a context ".repeat(1_600_000));
        let response = call(
            &client(),
            &through(&guard, format, false),
            format,
            guard.token(),
            &large,
        )
        .send()
        .await
        .unwrap();
        assert_eq!(
            response.status(),
            413,
            "the provider's answer, not the gateway's 502 or 504 (closes: {closes})"
        );
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["error"]["type"], "request_too_large");
        let reported = next_usage(&mut usage).await;
        assert_eq!(reported.status, 413);
    }
}
