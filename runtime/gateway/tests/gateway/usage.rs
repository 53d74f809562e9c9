//! Usage: every format's counts, read from streamed and whole answers, priced.

use agentplex_gateway::{CallUsage, Format, FORMATS};
use serde_json::Value;

use crate::common::{body, call, client, direct, model_of, next_usage, requests, setup, through};

/// The script's counts: 100 uncached input, 10 output, and these.
const ASKED: &str = "hello\nusage: cache_read=20 cache_write=30 reasoning=7";

/// `(input, output, cache read, cache write, reasoning)` as each vendor's API
/// reports the script's counts, in the gateway's meaning.
fn expected_tokens(format: Format) -> (u64, u64, u64, u64, u64) {
    match format {
        // Anthropic counts thinking in the output and does not report it apart.
        Format::AnthropicMessages => (150, 17, 20, 30, 0),
        Format::OpenaiResponses | Format::OpenaiChatCompletions => (150, 17, 20, 30, 7),
        // Gemini has no cache writes in a call's usage.
        Format::Gemini => (120, 17, 20, 0, 7),
    }
}

fn tokens(usage: &CallUsage) -> (u64, u64, u64, u64, u64) {
    (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
        usage.reasoning_tokens,
    )
}

/// The list price the built-in table gives the script's counts.
fn expected_cost(format: Format) -> Option<f64> {
    let per_million = match format {
        // Sonnet 4.5: 100 × 3 + 20 × 0.30 + 30 × 3.75 + 17 × 15.
        Format::AnthropicMessages => 300.0 + 6.0 + 112.5 + 255.0,
        // GPT-6.x Sol: 100 × 2 + 20 × 0.10 + 30 × 2.50 + 17 × 10.
        Format::OpenaiResponses | Format::OpenaiChatCompletions => 200.0 + 2.0 + 75.0 + 170.0,
        // The table has no verified Gemini cache rate: cached calls are unpriced.
        Format::Gemini => return None,
    };
    Some(per_million / 1_000_000.0)
}

#[tokio::test]
async fn usage_is_read_for_every_format_streamed_and_whole() {
    let mut setup = setup().await;
    let client = client();
    for format in FORMATS {
        for stream in [true, false] {
            let url = through(&setup.guard, format, stream);
            let request = body(format, ASKED, stream);
            let response = call(&client, &url, format, setup.guard.token(), &request)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            response.bytes().await.unwrap();
            let usage = next_usage(&mut setup.usage).await;
            let case = format!("{format} stream={stream}: {usage:?}");
            assert_eq!(usage.format, format, "{case}");
            assert_eq!(usage.model, model_of(format), "{case}");
            assert_eq!(tokens(&usage), expected_tokens(format), "{case}");
            match (usage.cost_usd, expected_cost(format)) {
                (Some(cost), Some(expected)) => {
                    assert!((cost - expected).abs() < 1e-12, "{case}")
                }
                (cost, expected) => assert_eq!(cost, expected, "{case}"),
            }
            assert_eq!(usage.status, 200, "{case}");
            assert!(usage.complete, "{case}");
            assert!(usage.first_byte_ms.unwrap() <= usage.duration_ms, "{case}");
        }
    }
}

#[tokio::test]
async fn calls_are_numbered_and_a_plain_gemini_call_is_priced() {
    let mut setup = setup().await;
    let client = client();
    let format = Format::Gemini;
    let url = through(&setup.guard, format, true);
    let mut ids = Vec::new();
    for _ in 0..2 {
        call(
            &client,
            &url,
            format,
            setup.guard.token(),
            &body(format, "hi", true),
        )
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
        let usage = next_usage(&mut setup.usage).await;
        // Gemini 2.5 Flash: 100 × 0.30 + 10 × 2.50 per million.
        assert_eq!((usage.input_tokens, usage.output_tokens), (100, 10));
        assert!((usage.cost_usd.unwrap() - 55.0 / 1e6).abs() < 1e-12);
        ids.push(usage.call_id);
    }
    assert!(ids[1] > ids[0], "{ids:?}");
}

#[tokio::test]
async fn a_chat_stream_that_does_not_ask_for_usage_is_asked_for_it() {
    let mut setup = setup().await;
    let client = client();
    let format = Format::OpenaiChatCompletions;
    let request = body(format, "hello", true);
    assert_eq!(request.get("stream_options"), None);

    // Straight to the model server, as to OpenAI, the stream has no usage.
    let url = direct(&setup.model, format, true);
    let plain = call(&client, &url, format, "sk", &request)
        .send()
        .await
        .unwrap();
    let plain = plain.text().await.unwrap();
    assert!(
        plain.contains("[DONE]") && !plain.contains("\"usage\""),
        "{plain}"
    );

    // Through the gateway, the request asks and the stream reports.
    let url = through(&setup.guard, format, true);
    let relayed = call(&client, &url, format, setup.guard.token(), &request)
        .send()
        .await
        .unwrap();
    let relayed = relayed.text().await.unwrap();
    assert!(relayed.contains("\"usage\""), "{relayed}");
    let logged = requests(&setup.model).await.pop().unwrap();
    assert_eq!(
        logged["body"]["stream_options"]["include_usage"],
        Value::Bool(true)
    );
    let usage = next_usage(&mut setup.usage).await;
    assert_eq!((usage.input_tokens, usage.output_tokens), (100, 10));
    assert!(usage.complete);
}
