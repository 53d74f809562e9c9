//! What the gateway's tests share: a scripted model server as the upstream, a
//! gateway with one route to it, and calls in each wire format; and for
//! budgets, routes under them with a sink that keeps what it is told.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentplex_gateway::{
    Budget, BudgetReached, BudgetScope, CallUsage, Format, Gateway, GatewayConfig, KeyPlacement,
    Limits, Route, RouteGuard, Spend, Upstream, UsageSink,
};
use agentplex_model_server::ModelServer;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// The real upstream key the route holds.
pub const KEY: &str = "sk-real-upstream-key";

/// A gateway in front of a model server, with one session's route.
pub struct Setup {
    pub model: ModelServer,
    pub gateway: Arc<Gateway>,
    pub guard: RouteGuard,
    pub usage: mpsc::UnboundedReceiver<CallUsage>,
}

/// A gateway with default settings and a route to a new model server, with
/// [`KEY`] sent where the agent sends the token.
pub async fn setup() -> Setup {
    setup_with(GatewayConfig::default(), KeyPlacement::AsSent).await
}

/// As [`setup`], with `config` and the key sent as `placement` says.
pub async fn setup_with(config: GatewayConfig, placement: KeyPlacement) -> Setup {
    let model = ModelServer::start().expect("a model server");
    let gateway = Gateway::start(config).await.expect("a gateway");
    let (sink, usage) = channel();
    let guard = gateway.register(route(&model.url(), placement, sink));
    Setup {
        model,
        gateway,
        guard,
        usage,
    }
}

/// A usage sink that sends to a channel.
pub fn channel() -> (
    impl Fn(CallUsage) + Send + Sync + 'static,
    mpsc::UnboundedReceiver<CallUsage>,
) {
    let (sender, receiver) = mpsc::unbounded_channel();
    let sink = move |usage| {
        // A test that stopped listening does not care.
        let _ = sender.send(usage);
    };
    (sink, receiver)
}

/// A route whose every format goes to `base` (a model server's or another
/// upstream's URL, without `/v1`), with [`KEY`].
pub fn route(base: &str, placement: KeyPlacement, sink: impl UsageSink) -> Route {
    let upstream = |base: String| {
        Upstream::new(&base)
            .unwrap()
            .with_key(KEY, placement)
            .unwrap()
    };
    let upstreams = HashMap::from([
        (Format::AnthropicMessages.into(), upstream(base.to_owned())),
        (
            Format::OpenaiResponses.into(),
            upstream(format!("{base}/v1")),
        ),
        (
            Format::OpenaiChatCompletions.into(),
            upstream(format!("{base}/v1")),
        ),
        (Format::Gemini.into(), upstream(base.to_owned())),
    ]);
    Route {
        session_id: "session-1".into(),
        agent: "mock".into(),
        upstreams,
        sink: Arc::new(sink),
    }
}

/// An HTTP client that goes straight to loopback addresses.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// The model each format's calls name in the tests.
pub fn model_of(format: Format) -> &'static str {
    match format {
        Format::AnthropicMessages => "claude-sonnet-4-5-20250929",
        Format::OpenaiResponses => "gpt-6.2-sol",
        Format::OpenaiChatCompletions => "gpt-6.1-sol",
        Format::Gemini => "gemini-2.5-flash",
    }
}

/// The path a format's call takes after its base URL.
pub fn path(format: Format, stream: bool) -> String {
    match format {
        Format::AnthropicMessages => "/v1/messages".into(),
        Format::OpenaiResponses => "/responses".into(),
        Format::OpenaiChatCompletions => "/chat/completions".into(),
        Format::Gemini if stream => format!(
            "/v1beta/models/{}:streamGenerateContent?alt=sse",
            model_of(format)
        ),
        Format::Gemini => format!("/v1beta/models/{}:generateContent", model_of(format)),
    }
}

/// A call's URL through the gateway.
pub fn through(guard: &RouteGuard, format: Format, stream: bool) -> String {
    format!("{}{}", guard.endpoint(format), path(format, stream))
}

/// The same call's URL straight to the model server.
pub fn direct(model: &ModelServer, format: Format, stream: bool) -> String {
    let base = match format {
        Format::OpenaiResponses | Format::OpenaiChatCompletions => model.openai_url(),
        _ => model.url(),
    };
    format!("{base}{}", path(format, stream))
}

/// A request body saying `text` in `format`. Chat bodies do not ask for usage.
pub fn body(format: Format, text: &str, stream: bool) -> Value {
    let model = model_of(format);
    match format {
        Format::AnthropicMessages => json!({
            "model": model, "max_tokens": 1024, "stream": stream,
            "messages": [{"role": "user", "content": text}],
        }),
        Format::OpenaiResponses => json!({
            "model": model, "stream": stream,
            "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}],
        }),
        Format::OpenaiChatCompletions => json!({
            "model": model, "stream": stream,
            "messages": [{"role": "user", "content": text}],
        }),
        Format::Gemini => json!({"contents": [{"role": "user", "parts": [{"text": text}]}]}),
    }
}

/// A call in `format` with `key` where that format's agents send it.
pub fn call(
    client: &reqwest::Client,
    url: &str,
    format: Format,
    key: &str,
    body: &Value,
) -> reqwest::RequestBuilder {
    let request = client.post(url).json(body);
    match format {
        Format::AnthropicMessages => request
            .header("x-api-key", key)
            .header("anthropic-version", "2023-06-01"),
        Format::OpenaiResponses | Format::OpenaiChatCompletions => {
            request.header("authorization", format!("Bearer {key}"))
        }
        Format::Gemini => request.header("x-goog-api-key", key),
    }
}

/// Says `hi` in `format` through the session endpoint `guard` holds, with its
/// token, streamed or not; the answer.
pub async fn say_hi(guard: &RouteGuard, format: Format, stream: bool) -> reqwest::Response {
    let url = through(guard, format, stream);
    let hi = body(format, "hi", stream);
    let request = call(&client(), &url, format, guard.token(), &hi);
    request.send().await.expect("a call through the gateway")
}

/// What the model server was asked, oldest first.
pub async fn requests(model: &ModelServer) -> Vec<Value> {
    let log: Value = client()
        .get(format!("{}/requests", model.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    log.as_array().unwrap().clone()
}

/// The next call's usage, waiting a few seconds at most.
pub async fn next_usage(usage: &mut mpsc::UnboundedReceiver<CallUsage>) -> CallUsage {
    tokio::time::timeout(Duration::from_secs(10), usage.recv())
        .await
        .expect("a call's usage in time")
        .expect("the sink is alive")
}

/// A sink that keeps what the gateway tells it: each call's usage, sent to a
/// channel, and each budget reached.
pub struct Recorder {
    usage: mpsc::UnboundedSender<CallUsage>,
    reached: Mutex<Vec<BudgetReached>>,
}

impl UsageSink for Recorder {
    fn record(&self, usage: CallUsage) {
        let _ = self.usage.send(usage);
    }

    fn budget_reached(&self, reached: BudgetReached) {
        self.reached.lock().unwrap().push(reached);
    }
}

impl Recorder {
    /// What the sink was told of budgets reached, oldest first.
    pub fn reached(&self) -> Vec<BudgetReached> {
        self.reached.lock().unwrap().clone()
    }
}

/// A route on a gateway under a session budget.
pub struct Budgeted {
    pub guard: RouteGuard,
    pub budget: Arc<Budget>,
    pub sink: Arc<Recorder>,
    pub usage: mpsc::UnboundedReceiver<CallUsage>,
}

/// Registers a route to `base` (a model server's URL) on `gateway` under a
/// new session budget with `limits`.
pub fn budgeted(gateway: &Gateway, base: &str, limits: Limits) -> Budgeted {
    let (sender, usage) = mpsc::unbounded_channel();
    let sink = Arc::new(Recorder {
        usage: sender,
        reached: Mutex::default(),
    });
    let mut route = route(base, KeyPlacement::AsSent, |_: CallUsage| {});
    route.sink = sink.clone();
    let budget = Arc::new(Budget::new(BudgetScope::Session, limits, Spend::default()));
    let guard = gateway.register_with_budget(route, budget.clone());
    Budgeted {
        guard,
        budget,
        sink,
        usage,
    }
}

/// A new model server and a gateway with `config` in front of it, with one
/// route under a session budget with `limits`.
pub async fn setup_budgeted(
    config: GatewayConfig,
    limits: Limits,
) -> (ModelServer, Arc<Gateway>, Budgeted) {
    let model = ModelServer::start().expect("a model server");
    let gateway = Gateway::start(config).await.expect("a gateway");
    let route = budgeted(&gateway, &model.url(), limits);
    (model, gateway, route)
}

/// Limits of `tokens` tokens.
pub fn tokens(tokens: u64) -> Limits {
    Limits {
        max_tokens: Some(tokens),
        max_cost_usd: None,
    }
}

/// Limits of `usd` dollars.
pub fn dollars(usd: f64) -> Limits {
    Limits {
        max_cost_usd: Some(usd),
        max_tokens: None,
    }
}

/// The input and output tokens the gateway reserves for a call with `body`
/// that lets the model write `max_output` tokens: its documented estimate, a
/// token per 4 bytes of body and the output asked for (at most 4096).
pub fn estimated(body: &Value, max_output: u64) -> (u64, u64) {
    let length = serde_json::to_vec(body).unwrap().len() as u64;
    (length.div_ceil(4), max_output.min(4096))
}

/// The list price of a Claude Sonnet 4.5 call: $3 in and $15 out per million.
pub fn sonnet_cost((input, output): (u64, u64)) -> f64 {
    (input as f64 * 3.0 + output as f64 * 15.0) / 1e6
}

/// The events of an event stream, as `(name, data)`.
pub fn sse_events(text: &str) -> Vec<(String, String)> {
    text.split("\n\n")
        .filter(|event| !event.trim().is_empty())
        .map(|event| {
            let field = |name: &str| {
                event
                    .lines()
                    .filter_map(|line| line.strip_prefix(name))
                    .map(|value| value.strip_prefix(' ').unwrap_or(value))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            (field("event:"), field("data:"))
        })
        .collect()
}

/// An upstream that answers every request once with `answer` (a whole HTTP
/// response) after its first read, then closes.
pub async fn answering(answer: &'static str) -> String {
    answering_then(answer, true).await
}

/// As [`answering`], then closing the connection when `closes`, else holding
/// it open and reading no more (the rest of a large request never taken).
pub async fn answering_then(answer: &'static str, closes: bool) -> String {
    let upstream = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", upstream.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((mut socket, _)) = upstream.accept().await {
            let mut buffer = [0u8; 8192];
            let _ = socket.read(&mut buffer).await;
            socket.write_all(answer.as_bytes()).await.unwrap();
            match closes {
                true => drop(socket.shutdown().await),
                false => held.push(socket),
            }
        }
    });
    base
}
