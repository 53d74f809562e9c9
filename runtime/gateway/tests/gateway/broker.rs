//! A daemon's gateway in front of a broker in front of the model server: each
//! format's call reaches the server with the broker's real key where that
//! format's API keys go, and with no token; the broker refuses an unknown token,
//! a provider its keys file does not name, and a sandbox taken out of the file,
//! at its next call.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use agentplex_gateway::{
    Broker, BrokerConfig, BrokerLink, Format, Gateway, GatewayConfig, Prices, Route, SandboxToken,
    FORMATS,
};
use agentplex_model_server::ModelServer;
use serde_json::{json, Value};

use crate::common::{body, call, channel, client, next_usage, requests, through};

/// The real key the broker holds.
const BROKER_KEY: &str = "sk-held-by-the-broker";

/// The provider each format's calls go to, as adapters name them.
fn provider(format: Format) -> &'static str {
    match format {
        Format::AnthropicMessages => "anthropic",
        Format::OpenaiResponses | Format::OpenaiChatCompletions => "openai",
        Format::Gemini => "google",
    }
}

/// A keys file with the model server as every provider, and `sandboxes`.
fn keys_file(model: &ModelServer, sandboxes: Value) -> String {
    let at = |url: String| json!({"baseUrl": url, "key": BROKER_KEY});
    json!({
        "providers": {
            "anthropic": at(model.url()),
            "openai": at(model.openai_url()),
            "google": at(model.url()),
        },
        "sandboxes": sandboxes,
    })
    .to_string()
}

#[tokio::test]
async fn calls_through_a_broker_carry_its_key_and_stop_once_revoked() {
    let model = ModelServer::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("keys.json");
    let sandbox = SandboxToken::new();
    let listed = json!({"sandbox-1": {"tokenSha256": sandbox.sha256()}});
    std::fs::write(&keys, keys_file(&model, listed)).unwrap();
    let broker = Broker::start(BrokerConfig {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        keys: keys.clone(),
        prices: Prices::built_in(),
        plain_http_on_network: false,
    })
    .await
    .unwrap();
    let broker_url = format!("http://{}", broker.addr());
    let link = BrokerLink::new(&broker_url, sandbox.token()).unwrap();
    let gateway = Gateway::start(GatewayConfig::default()).await.unwrap();
    let upstreams = FORMATS
        .into_iter()
        .map(|format| {
            (
                format.into(),
                link.upstream(provider(format), format).unwrap(),
            )
        })
        .collect::<HashMap<_, _>>();
    let (sink, mut usage) = channel();
    let guard = gateway.register(Route {
        session_id: "session-1".into(),
        agent: "mock".into(),
        upstreams,
        sink: Arc::new(sink),
    });
    let client = client();

    for format in FORMATS {
        let url = through(&guard, format, false);
        let request = call(
            &client,
            &url,
            format,
            guard.token(),
            &body(format, "hi", false),
        );
        let response = request.send().await.unwrap();
        assert_eq!(
            response.status(),
            200,
            "{format}: {}",
            response.text().await.unwrap()
        );
        assert!(next_usage(&mut usage).await.complete, "{format}");
    }
    let seen = requests(&model).await;
    assert_eq!(seen.len(), FORMATS.len(), "{seen:?}");
    let bearer = format!("Bearer {BROKER_KEY}");
    for (request, format) in seen.iter().zip(FORMATS) {
        let headers = &request["headers"];
        let key = match format {
            Format::AnthropicMessages => &headers["x-api-key"],
            Format::OpenaiResponses | Format::OpenaiChatCompletions => &headers["authorization"],
            Format::Gemini => &headers["x-goog-api-key"],
        };
        let expected = match format {
            Format::OpenaiResponses | Format::OpenaiChatCompletions => bearer.as_str(),
            _ => BROKER_KEY,
        };
        assert_eq!(key, expected, "{format}: {request}");
        let text = request.to_string();
        let tokens = [guard.token(), sandbox.token()];
        assert!(
            !tokens.iter().any(|t| text.contains(t)),
            "{format}: {request}"
        );
    }

    // Straight at the broker: an unknown token, and a provider it has no key for.
    let at_broker = |path: &str| format!("{broker_url}{path}");
    let messages = body(Format::AnthropicMessages, "hi", false);
    let anthropic = at_broker("/anthropic/anthropic-messages/v1/messages");
    let unknown = call(
        &client,
        &anthropic,
        Format::AnthropicMessages,
        "apxb_nobody",
        &messages,
    );
    let unknown = unknown.send().await.unwrap();
    assert_eq!(unknown.status(), 401);
    let elsewhere = at_broker("/elsewhere/anthropic-messages/v1/messages");
    let token = sandbox.token();
    let elsewhere = call(
        &client,
        &elsewhere,
        Format::AnthropicMessages,
        token,
        &messages,
    );
    let elsewhere = elsewhere.send().await.unwrap();
    assert_eq!(elsewhere.status(), 404);
    let error: Value = elsewhere.json().await.unwrap();
    assert_eq!(error["error"]["type"], "not_found_error", "{error}");

    // Revoked: the daemon's next call gets the broker's 401, and goes no further.
    std::fs::write(&keys, keys_file(&model, json!({}))).unwrap();
    let format = Format::OpenaiChatCompletions;
    let url = through(&guard, format, false);
    let request = call(
        &client,
        &url,
        format,
        guard.token(),
        &body(format, "hi", false),
    );
    let refused = request.send().await.unwrap();
    assert_eq!(refused.status(), 401);
    let error: Value = refused.json().await.unwrap();
    assert_eq!(error["error"]["code"], "invalid_api_key", "{error}");
    assert_eq!(requests(&model).await.len(), FORMATS.len());
}
