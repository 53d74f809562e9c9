//! Budgets: a call that does not fit is refused in its format's shape without
//! going upstream, concurrent calls cannot take the same room, limits replaced
//! take effect at once, the daemon's budget counts every route's calls, and
//! the sink is told once per reaching.

use std::sync::Arc;

use agentplex_gateway::{
    Budget, BudgetAction, BudgetScope, Format, GatewayConfig, Limit, Limits, RouteGuard, Spend,
    FORMATS,
};
use serde_json::Value;

use crate::common::{
    body, budgeted, call, client, dollars, estimated, next_usage, requests, setup_budgeted,
    sonnet_cost, through, tokens,
};

/// Sends `request` in `format` through `guard`; returns the status and the
/// answer's text.
async fn send(guard: &RouteGuard, format: Format, stream: bool, request: &Value) -> (u16, String) {
    let url = through(guard, format, stream);
    let response = call(&client(), &url, format, guard.token(), request)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// The message of a refusal in `format`'s error shape, checking the shape.
fn refusal_message(format: Format, text: &str) -> String {
    let error: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("{format}: {text}"));
    let error = match format {
        Format::AnthropicMessages => {
            assert_eq!(error["type"], "error", "{text}");
            assert_eq!(error["error"]["type"], "permission_error", "{text}");
            &error["error"]
        }
        Format::OpenaiResponses | Format::OpenaiChatCompletions => {
            assert_eq!(error["error"]["code"], "budget_exceeded", "{text}");
            &error["error"]
        }
        Format::Gemini => {
            assert_eq!(error["error"]["code"], 403, "{text}");
            assert_eq!(error["error"]["status"], "PERMISSION_DENIED", "{text}");
            &error["error"]
        }
    };
    error["message"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_call_that_does_not_fit_is_refused_in_its_formats_shape_without_going_upstream() {
    let (model, _gateway, mut route) = setup_budgeted(GatewayConfig::default(), tokens(10)).await;
    for format in FORMATS {
        for stream in [true, false] {
            let request = body(format, "hello", stream);
            let (status, text) = send(&route.guard, format, stream, &request).await;
            assert_eq!(status, 403, "{format} stream={stream}: {text}");
            let message = refusal_message(format, &text);
            assert!(
                message.contains("the session's budget is reached (0 of 10 tokens used"),
                "{message}"
            );
        }
    }
    assert!(
        requests(&model).await.is_empty(),
        "a refused call went upstream"
    );
    assert!(
        route.usage.try_recv().is_err(),
        "a refused call is not a model call"
    );
    let reached = route.sink.reached();
    assert_eq!(reached.len(), 1, "told once: {reached:?}");
    assert_eq!(
        (reached[0].scope, reached[0].limit, reached[0].action),
        (BudgetScope::Session, Limit::Tokens, BudgetAction::Refused)
    );
}

#[tokio::test]
async fn concurrent_calls_cannot_take_the_same_room() {
    // Sixteen streams of about 3 s at once, under a cap that fits three
    // estimates and a half.
    let format = Format::AnthropicMessages;
    let request = body(format, "slow: 12", true);
    let estimate = estimated(&request, 1024);
    let cap = sonnet_cost(estimate) * 3.5;
    let (model, _gateway, mut route) = setup_budgeted(GatewayConfig::default(), dollars(cap)).await;
    let client = client();
    let url = through(&route.guard, format, true);
    let calls = (0..16).map(|_| call(&client, &url, format, route.guard.token(), &request).send());
    let answers = futures::future::join_all(calls).await;
    let (admitted, refused): (Vec<_>, Vec<_>) = answers
        .into_iter()
        .map(Result::unwrap)
        .partition(|answer| answer.status() == 200);
    assert_eq!(admitted.len(), 3, "three fit");
    // While the three stream, each holds its estimate, and nothing else went upstream.
    let held = route.budget.reserved();
    assert_eq!(held.tokens, 3 * (estimate.0 + estimate.1));
    assert!(held.cost_usd <= cap, "{held:?}");
    assert_eq!(
        requests(&model).await.len(),
        3,
        "a refused call went upstream"
    );
    for answer in refused {
        assert_eq!(answer.status(), 403);
        let message = refusal_message(format, &answer.text().await.unwrap());
        assert!(
            message.contains("the session's budget is reached"),
            "{message}"
        );
    }
    let mut spent = 0.0;
    for answer in admitted {
        let text = answer.text().await.unwrap();
        assert!(text.contains("message_stop"), "{text}");
        let usage = next_usage(&mut route.usage).await;
        assert!(usage.complete);
        spent += usage.cost_usd.unwrap();
    }
    let budget = route.budget.spent();
    assert!(
        (budget.cost_usd - spent).abs() < 1e-9,
        "{budget:?} != {spent}"
    );
    assert!(budget.cost_usd <= cap, "overshot: {budget:?} > {cap}");
    assert_eq!(route.budget.reserved(), Spend::default());
    assert_eq!(route.sink.reached().len(), 1);
}

#[tokio::test]
async fn raising_the_limit_lets_the_next_call_through() {
    let (model, _gateway, mut route) = setup_budgeted(GatewayConfig::default(), tokens(10)).await;
    let format = Format::OpenaiResponses;
    let request = body(format, "hello", true);
    assert_eq!(send(&route.guard, format, true, &request).await.0, 403);
    route.budget.set_limits(tokens(100_000));
    let (status, text) = send(&route.guard, format, true, &request).await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("response.completed"), "{text}");
    let usage = next_usage(&mut route.usage).await;
    assert!(usage.complete);
    assert_eq!(
        route.budget.spent().tokens,
        usage.input_tokens + usage.output_tokens
    );
    assert_eq!(requests(&model).await.len(), 1);
}

#[tokio::test]
async fn a_token_limit_counts_input_and_output() {
    // Room for one estimate: the first call fits, and its 110 tokens leave no
    // room for a second.
    let format = Format::AnthropicMessages;
    let request = body(format, "hello", false);
    let (input, output) = estimated(&request, 1024);
    let limit = input + output + 50;
    let (model, _gateway, mut route) =
        setup_budgeted(GatewayConfig::default(), tokens(limit)).await;
    assert_eq!(send(&route.guard, format, false, &request).await.0, 200);
    let usage = next_usage(&mut route.usage).await;
    assert_eq!((usage.input_tokens, usage.output_tokens), (100, 10));
    assert_eq!(route.budget.spent().tokens, 110);
    let (status, text) = send(&route.guard, format, false, &request).await;
    assert_eq!(status, 403);
    let message = refusal_message(format, &text);
    assert!(
        message.contains(&format!("110 of {limit} tokens used")),
        "{message}"
    );
    assert_eq!(requests(&model).await.len(), 1);
}

#[tokio::test]
async fn the_daemons_budget_counts_every_routes_calls() {
    // Room for one estimate and half a call: the first route's call fits, and
    // what it spent leaves no room for the second route's.
    let format = Format::AnthropicMessages;
    let request = body(format, "hello", true);
    let real = sonnet_cost((100, 10));
    let cap = sonnet_cost(estimated(&request, 1024)) + real / 2.0;
    let daemon = Arc::new(Budget::new(
        BudgetScope::Daemon,
        dollars(cap),
        Spend::default(),
    ));
    let config = GatewayConfig {
        budget: Some(daemon.clone()),
        ..GatewayConfig::default()
    };
    let (model, gateway, mut first) = setup_budgeted(config, Limits::default()).await;
    assert!(Arc::ptr_eq(gateway.budget().unwrap(), &daemon));
    let second = budgeted(&gateway, &model.url(), Limits::default());

    assert_eq!(send(&first.guard, format, true, &request).await.0, 200);
    let usage = next_usage(&mut first.usage).await;
    assert!((usage.cost_usd.unwrap() - real).abs() < 1e-12);
    assert!((daemon.spent().cost_usd - real).abs() < 1e-9);
    assert!((first.budget.spent().cost_usd - real).abs() < 1e-9);

    let (status, text) = send(&second.guard, format, true, &request).await;
    assert_eq!(status, 403);
    let message = refusal_message(format, &text);
    assert!(
        message.contains("the daemon's budget is reached"),
        "{message}"
    );
    assert_eq!(second.budget.spent(), Spend::default());
    let reached = second.sink.reached();
    assert_eq!(reached.len(), 1);
    assert_eq!(
        (reached[0].scope, reached[0].limit, reached[0].action),
        (BudgetScope::Daemon, Limit::CostUsd, BudgetAction::Refused)
    );
    assert!(first.sink.reached().is_empty());
    assert_eq!(requests(&model).await.len(), 1);
}

#[tokio::test]
async fn the_sink_is_told_once_per_reaching() {
    let (_model, _gateway, mut route) = setup_budgeted(GatewayConfig::default(), tokens(10)).await;
    let format = Format::Gemini;
    let request = body(format, "hello", true);
    for _ in 0..3 {
        assert_eq!(send(&route.guard, format, true, &request).await.0, 403);
    }
    assert_eq!(route.sink.reached().len(), 1);

    // Open again, a call through, then reached again: told again, once.
    route.budget.set_limits(Limits::default());
    assert_eq!(send(&route.guard, format, true, &request).await.0, 200);
    next_usage(&mut route.usage).await;
    let spent = route.budget.spent().tokens;
    route.budget.set_limits(tokens(spent));
    assert!(route.budget.is_exhausted());
    for _ in 0..2 {
        assert_eq!(send(&route.guard, format, true, &request).await.0, 403);
    }
    let reached = route.sink.reached();
    assert_eq!(reached.len(), 2, "{reached:?}");
    assert_eq!(reached[1].action, BudgetAction::Refused);
    assert_eq!(reached[1].spent.tokens, spent);
    assert_eq!(reached[1].limits, tokens(spent));
}
