//! Cuts: a call in flight when a budget is exhausted stops there. A stream ends
//! after its last whole event with its format's error events; a call still
//! waiting for its answer gets the format's refusal.

use std::time::{Duration, Instant};

use agentplex_gateway::{BudgetAction, Format, Gateway, GatewayConfig, Limit, Limits, FORMATS};
use serde_json::{json, Value};
use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;

use crate::common::{
    body, budgeted, call, client, estimated, next_usage, say_hi, setup_budgeted, sse_events,
    through, tokens,
};

/// Reads `response` to its end, which must come cleanly and in time.
async fn rest(response: &mut reqwest::Response, text: &mut String) {
    let read = async {
        while let Some(chunk) = response.chunk().await.expect("an answer that ends cleanly") {
            text.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    };
    tokio::time::timeout(Duration::from_secs(5), read)
        .await
        .expect("the answer ends in time");
}

/// Checks that each event of `text` is whole JSON, and that the last ones are
/// the format's error events for a reached budget; returns the error message.
fn check_cut(format: Format, text: &str) -> String {
    let events = sse_events(text);
    let data: Vec<Value> = events
        .iter()
        .map(|(_, data)| {
            serde_json::from_str(data).unwrap_or_else(|_| panic!("{format}: not whole: {text}"))
        })
        .collect();
    let (name, last) = (&events.last().unwrap().0, data.last().unwrap());
    let message = match format {
        Format::AnthropicMessages => {
            assert_eq!(name, "error", "{text}");
            assert_eq!(last["error"]["type"], "permission_error", "{text}");
            assert!(!text.contains("message_stop"), "{text}");
            &last["error"]["message"]
        }
        Format::OpenaiResponses => {
            assert_eq!(events[events.len() - 2].0, "error", "{text}");
            assert_eq!(name, "response.failed", "{text}");
            assert_eq!(last["response"]["status"], "failed", "{text}");
            assert_eq!(
                last["response"]["error"]["code"], "budget_exceeded",
                "{text}"
            );
            assert!(!text.contains("response.completed"), "{text}");
            &last["response"]["error"]["message"]
        }
        Format::OpenaiChatCompletions => {
            // Every event parsed as JSON: no `[DONE]` says the answer finished.
            assert_eq!(last["error"]["code"], "budget_exceeded", "{text}");
            &last["error"]["message"]
        }
        Format::Gemini => {
            assert_eq!(last["error"]["code"], 403, "{text}");
            assert_eq!(last["error"]["status"], "PERMISSION_DENIED", "{text}");
            &last["error"]["message"]
        }
    };
    message.as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_stream_cut_mid_way_ends_well_formed_in_every_format() {
    for format in FORMATS {
        let (_model, _gateway, mut route) =
            setup_budgeted(GatewayConfig::default(), Limits::default()).await;
        // Twenty chunks 250 ms apart: 5 s unless cut.
        let request = body(format, "slow: 20", true);
        let url = through(&route.guard, format, true);
        let mut response = call(&client(), &url, format, route.guard.token(), &request)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let mut text = String::new();
        while !text.contains("tick 1 ") {
            let chunk = response.chunk().await.unwrap().expect("the stream goes on");
            text.push_str(std::str::from_utf8(&chunk).unwrap());
        }
        let lowered = Instant::now();
        route.budget.set_limits(tokens(0));
        rest(&mut response, &mut text).await;
        assert!(
            lowered.elapsed() < Duration::from_secs(2),
            "{format}: not cut"
        );
        assert!(!text.contains("tick 20"), "{format}: {text}");
        let message = check_cut(format, &text);
        assert!(
            message.contains("the session's budget was reached while this call was in flight"),
            "{message}"
        );
        let usage = next_usage(&mut route.usage).await;
        assert_eq!((usage.status, usage.complete), (200, false), "{format}");
        let reached = route.sink.reached();
        assert_eq!(reached.len(), 1, "{format}: {reached:?}");
        assert_eq!(
            (reached[0].limit, reached[0].action),
            (Limit::Tokens, BudgetAction::Cut)
        );
    }
}

#[tokio::test]
async fn running_counts_that_reach_the_limit_cut_the_stream() {
    // The request asks for one token, so it fits; its `message_start` then
    // says it read 100.
    let format = Format::AnthropicMessages;
    let mut request = body(format, "slow: 20", true);
    request["max_tokens"] = json!(1);
    let (input, output) = estimated(&request, 1);
    let limit = input + output + 20;
    assert!(limit < 100);
    let (_model, _gateway, mut route) =
        setup_budgeted(GatewayConfig::default(), tokens(limit)).await;
    let url = through(&route.guard, format, true);
    let mut response = call(&client(), &url, format, route.guard.token(), &request)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut text = String::new();
    rest(&mut response, &mut text).await;
    check_cut(format, &text);
    assert_eq!(sse_events(&text)[0].0, "message_start", "{text}");
    assert!(!text.contains("tick"), "{text}");
    let usage = next_usage(&mut route.usage).await;
    assert!(!usage.complete);
    assert_eq!((usage.input_tokens, usage.output_tokens), (100, 1));
    assert_eq!(route.budget.spent().tokens, 101);
    assert!(route.budget.is_exhausted());
    let reached = route.sink.reached();
    assert_eq!(reached.len(), 1, "{reached:?}");
    assert_eq!(reached[0].action, BudgetAction::Cut);
    assert_eq!(reached[0].spent.tokens, 101);
}

#[tokio::test]
async fn an_answer_whose_final_counts_reach_the_limit_is_let_through() {
    // Each request asks for one token, so it fits; its answer then counts 110
    // (100 in, 10 out) at its end, past the limit.
    for format in FORMATS {
        let mut request = body(format, "hello", true);
        match format {
            Format::AnthropicMessages => request["max_tokens"] = json!(1),
            Format::OpenaiResponses => request["max_output_tokens"] = json!(1),
            Format::OpenaiChatCompletions => request["max_completion_tokens"] = json!(1),
            Format::Gemini => request["generationConfig"] = json!({"maxOutputTokens": 1}),
        }
        let (input, output) = estimated(&request, 1);
        assert!(input + output <= 105, "{format}: the request fits");
        let (_model, _gateway, mut route) =
            setup_budgeted(GatewayConfig::default(), tokens(105)).await;
        let url = through(&route.guard, format, true);
        let response = call(&client(), &url, format, route.guard.token(), &request)
            .send()
            .await
            .unwrap();
        let text = response.text().await.unwrap();
        let end = match format {
            Format::AnthropicMessages => "message_stop",
            Format::OpenaiResponses => "response.completed",
            Format::OpenaiChatCompletions => "[DONE]",
            Format::Gemini => "finishReason",
        };
        assert!(
            text.contains(end) && !text.contains("budget"),
            "{format}: {text}"
        );
        let usage = next_usage(&mut route.usage).await;
        assert!(usage.complete, "{format}");
        assert_eq!(route.budget.spent().tokens, 110, "{format}");
        let reached = route.sink.reached();
        assert_eq!(reached.len(), 1, "{format}: {reached:?}");
        assert_eq!(reached[0].action, BudgetAction::Spent);
    }
}

#[tokio::test]
async fn a_budget_exhausted_before_the_answer_comes_refuses_the_call() {
    // An upstream that reads requests and never answers.
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
    let gateway = Gateway::start(GatewayConfig::default()).await.unwrap();
    let mut route = budgeted(&gateway, &base, Limits::default());
    let budget = route.budget.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        budget.set_limits(tokens(0));
    });
    let format = Format::OpenaiChatCompletions;
    let started = Instant::now();
    let response = say_hi(&route.guard, format, true).await;
    assert_eq!(response.status(), 403);
    assert!(started.elapsed() < Duration::from_secs(3));
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["code"], "budget_exceeded");
    let usage = next_usage(&mut route.usage).await;
    assert_eq!((usage.status, usage.complete), (403, false));
    let reached = route.sink.reached();
    assert_eq!(reached.len(), 1, "{reached:?}");
    assert_eq!(reached[0].action, BudgetAction::Cut);
}
