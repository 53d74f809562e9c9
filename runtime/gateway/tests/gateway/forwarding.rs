//! Forwarding: byte-equal answers, streaming as it comes, headers and keys.

use std::time::{Duration, Instant};

use agentplex_gateway::{Format, GatewayConfig, KeyPlacement, Lane, Upstream, FORMATS};
use agentplex_model_server::ModelServer;
use serde_json::{json, Value};

use crate::common::{
    body, call, client, direct, next_usage, requests, say_hi, setup, setup_with, through, KEY,
};

/// The status, content type and bytes of an answer.
async fn answer(request: reqwest::RequestBuilder) -> (u16, String, Vec<u8>) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let kind = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    (status, kind, response.bytes().await.unwrap().to_vec())
}

#[tokio::test]
async fn answers_arrive_byte_equal_to_a_direct_call() {
    // Two fresh servers number their answers alike: one is called directly,
    // the other through the gateway, with the same calls in the same order.
    let direct_server = ModelServer::start().unwrap();
    let mut setup = setup().await;
    let client = client();
    for format in FORMATS {
        for stream in [true, false] {
            let mut request = body(format, "hello there my friend", stream);
            if format == Format::OpenaiChatCompletions && stream {
                // Asked for usage already, the request goes through unchanged.
                request["stream_options"] = json!({"include_usage": true});
            }
            let url = direct(&direct_server, format, stream);
            let expected = answer(call(&client, &url, format, KEY, &request)).await;
            let url = through(&setup.guard, format, stream);
            let token = setup.guard.token().to_owned();
            let relayed = answer(call(&client, &url, format, &token, &request)).await;
            assert_eq!(expected.0, 200, "{format} stream={stream}");
            assert_eq!(
                relayed.1, expected.1,
                "{format} stream={stream}: content type"
            );
            assert!(
                relayed.2 == expected.2,
                "{format} stream={stream}: the bytes differ\ndirect:  {}\nthrough: {}",
                String::from_utf8_lossy(&expected.2),
                String::from_utf8_lossy(&relayed.2)
            );
            assert!(next_usage(&mut setup.usage).await.complete);
        }
    }
}

#[tokio::test]
async fn a_stream_is_relayed_as_it_comes() {
    // `slow: 4` streams four text chunks 250 ms apart.
    let setup = setup().await;
    let format = Format::AnthropicMessages;
    let url = through(&setup.guard, format, true);
    let request = body(format, "slow: 4", true);
    let started = Instant::now();
    let mut response = call(&client(), &url, format, setup.guard.token(), &request)
        .send()
        .await
        .unwrap();
    let mut seen = String::new();
    let mut first_tick = None;
    while let Some(chunk) = response.chunk().await.unwrap() {
        seen.push_str(&String::from_utf8_lossy(&chunk));
        if first_tick.is_none() && seen.contains("tick 1") {
            first_tick = Some(started.elapsed());
        }
    }
    let whole = started.elapsed();
    let first_tick = first_tick.expect("the first tick");
    assert!(seen.contains("tick 4"), "{seen}");
    assert!(
        whole - first_tick >= Duration::from_millis(500),
        "the first chunk came at {first_tick:?}, the end at {whole:?}: the answer was held back"
    );
}

#[tokio::test]
async fn headers_pass_through_and_the_real_key_replaces_the_token() {
    let setup = setup().await;
    let format = Format::AnthropicMessages;
    let url = through(&setup.guard, format, true);
    let token = setup.guard.token();
    call(&client(), &url, format, token, &body(format, "hi", true))
        .header(
            "anthropic-beta",
            "prompt-caching-2024-07-31,context-1m-2025-08-07",
        )
        .header("x-custom", "kept")
        .header("accept-encoding", "gzip, br")
        .header("connection", "keep-alive, x-hop")
        .header("x-hop", "dropped")
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let logged = requests(&setup.model).await.pop().unwrap();
    let headers = &logged["headers"];
    assert_eq!(
        headers["anthropic-beta"],
        "prompt-caching-2024-07-31,context-1m-2025-08-07"
    );
    assert_eq!(headers["anthropic-version"], "2023-06-01");
    assert_eq!(headers["x-custom"], "kept");
    assert_eq!(headers["x-api-key"], KEY);
    assert_eq!(headers["accept-encoding"], "identity");
    assert_eq!(headers["x-hop"], Value::Null);
    let upstream_host = setup.model.url().trim_start_matches("http://").to_owned();
    assert_eq!(headers["host"], json!(upstream_host));
    assert_eq!(logged["path"], "/v1/messages");
    assert!(
        !logged.to_string().contains(token),
        "the token reached the upstream: {logged:#}"
    );
}

#[tokio::test]
async fn each_way_of_sending_the_token_gets_the_key_in_its_place() {
    let setup = setup().await;
    let client = client();
    let token = setup.guard.token();
    for format in [Format::OpenaiResponses, Format::OpenaiChatCompletions] {
        let url = through(&setup.guard, format, false);
        call(&client, &url, format, token, &body(format, "hi", false))
            .send()
            .await
            .unwrap();
        let logged = requests(&setup.model).await.pop().unwrap();
        assert_eq!(logged["headers"]["authorization"], format!("Bearer {KEY}"));
    }

    let format = Format::Gemini;
    let url = through(&setup.guard, format, true);
    call(&client, &url, format, token, &body(format, "hi", true))
        .send()
        .await
        .unwrap();
    let logged = requests(&setup.model).await.pop().unwrap();
    assert_eq!(logged["headers"]["x-goog-api-key"], KEY);
    assert_eq!(logged["query"], "alt=sse");

    let url = format!("{url}&key={token}");
    client
        .post(&url)
        .json(&body(format, "hi", true))
        .send()
        .await
        .unwrap();
    let logged = requests(&setup.model).await.pop().unwrap();
    assert_eq!(logged["query"], format!("alt=sse&key={KEY}"));
    assert_eq!(logged["headers"]["x-goog-api-key"], Value::Null);
    assert!(!logged.to_string().contains(token));
}

#[tokio::test]
async fn a_fixed_placement_moves_the_key_and_other_credentials_pass() {
    let setup = setup_with(GatewayConfig::default(), KeyPlacement::XApiKey).await;
    let client = client();
    let format = Format::AnthropicMessages;
    let url = through(&setup.guard, format, false);
    let request = body(format, "hi", false);
    // Claude Code sends ANTHROPIC_AUTH_TOKEN as a bearer token.
    client
        .post(&url)
        .bearer_auth(setup.guard.token())
        .json(&request)
        .send()
        .await
        .unwrap();
    let logged = requests(&setup.model).await.pop().unwrap();
    assert_eq!(logged["headers"]["x-api-key"], KEY);
    assert_eq!(logged["headers"]["authorization"], Value::Null);

    // An agent's own login is not the gateway's to change.
    client
        .post(&url)
        .bearer_auth("own-oauth-token")
        .json(&request)
        .send()
        .await
        .unwrap();
    let logged = requests(&setup.model).await.pop().unwrap();
    assert_eq!(logged["headers"]["authorization"], "Bearer own-oauth-token");
    assert_eq!(logged["headers"]["x-api-key"], Value::Null);
}

#[tokio::test]
async fn unknown_and_dropped_tokens_get_401_in_the_formats_shape() {
    let setup = setup().await;
    let client = client();
    let logged_before = requests(&setup.model).await.len();
    for format in FORMATS {
        let url = through(&setup.guard, format, false).replace(setup.guard.token(), "apx_nope");
        let response = call(
            &client,
            &url,
            format,
            "apx_nope",
            &body(format, "hi", false),
        )
        .send()
        .await
        .unwrap();
        assert_eq!(response.status(), 401, "{format}");
        let error: Value = response.json().await.unwrap();
        match format {
            Format::AnthropicMessages => {
                assert_eq!(error["type"], "error");
                assert_eq!(error["error"]["type"], "authentication_error");
            }
            Format::OpenaiResponses | Format::OpenaiChatCompletions => {
                assert_eq!(error["error"]["code"], "invalid_api_key");
            }
            Format::Gemini => assert_eq!(error["error"]["status"], "UNAUTHENTICATED"),
        }
    }

    let format = Format::OpenaiChatCompletions;
    let url = through(&setup.guard, format, false);
    let token = setup.guard.token().to_owned();
    let works = call(&client, &url, format, &token, &body(format, "hi", false));
    assert_eq!(works.send().await.unwrap().status(), 200);
    drop(setup.guard);
    let dropped = call(&client, &url, format, &token, &body(format, "hi", false));
    assert_eq!(dropped.send().await.unwrap().status(), 401);
    assert_eq!(requests(&setup.model).await.len(), logged_before + 1);
}

#[tokio::test]
async fn foreign_hosts_and_formats_without_an_upstream_are_refused() {
    let mut setup = setup().await;
    let client = client();
    let format = Format::Gemini;
    let url = through(&setup.guard, format, false);
    let token = setup.guard.token().to_owned();
    let rebound = call(&client, &url, format, &token, &body(format, "hi", false))
        .header("host", "attacker.example");
    let response = rebound.send().await.unwrap();
    assert_eq!(response.status(), 403);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["status"], "PERMISSION_DENIED");

    let (sink, _usage) = crate::common::channel();
    let mut route = crate::common::route(&setup.model.url(), KeyPlacement::AsSent, sink);
    route.upstreams.remove(&Format::OpenaiResponses.into());
    let guard = setup.gateway.register(route);
    let format = Format::OpenaiResponses;
    let response = say_hi(&guard, format, false).await;
    assert_eq!(response.status(), 404);
    assert!(
        setup.usage.try_recv().is_err(),
        "refusals are not model calls"
    );
}

#[tokio::test]
async fn calls_that_ask_for_no_answer_are_forwarded_unmetered() {
    let mut setup = setup().await;
    let client = client();
    let token = setup.guard.token().to_owned();
    let base = setup.guard.endpoint(Format::AnthropicMessages);
    let counted = client
        .post(format!("{base}/v1/messages/count_tokens"))
        .header("x-api-key", &token)
        .json(&json!({"model": "m", "messages": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(counted.status(), 200);
    assert_eq!(counted.json::<Value>().await.unwrap()["input_tokens"], 100);
    let base = setup.guard.endpoint(Format::OpenaiChatCompletions);
    let models = client
        .get(format!("{base}/models"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        models.json::<Value>().await.unwrap()["data"][0]["id"],
        "scripted"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(setup.usage.try_recv().is_err(), "no model call was made");
}

#[tokio::test]
async fn a_second_provider_of_a_format_goes_to_its_own_upstream() {
    let mut setup = setup().await;
    let (sink, mut usage) = crate::common::channel();
    let mut route = crate::common::route(&setup.model.url(), KeyPlacement::AsSent, sink);
    let second = Upstream::new(&setup.model.url())
        .unwrap()
        .with_key("sk-second-provider", KeyPlacement::AsSent)
        .unwrap();
    let lane = Lane::of(Format::AnthropicMessages, "custom").unwrap();
    route.upstreams.insert(lane.clone(), second);
    let guard = setup.gateway.register(route);
    let format = Format::AnthropicMessages;
    let client = client();
    for (base, key) in [
        (guard.endpoint(format), KEY),
        (guard.endpoint(lane), "sk-second-provider"),
    ] {
        let url = format!("{base}{}", crate::common::path(format, false));
        let (status, _, _) = answer(call(
            &client,
            &url,
            format,
            guard.token(),
            &body(format, "hi", false),
        ))
        .await;
        assert_eq!(status, 200);
        let logged = requests(&setup.model).await.pop().unwrap();
        assert_eq!(logged["headers"]["x-api-key"], key, "{base}");
        assert_eq!(next_usage(&mut usage).await.format, format);
    }
    let none = guard.endpoint(Lane::of(Format::Gemini, "custom").unwrap());
    let url = format!("{none}{}", crate::common::path(Format::Gemini, false));
    let (status, _, _) = answer(call(
        &client,
        &url,
        Format::Gemini,
        guard.token(),
        &body(Format::Gemini, "hi", false),
    ))
    .await;
    assert_eq!(status, 404, "no such lane");
    assert!(setup.usage.try_recv().is_err());
}
