//! Responses over WebSocket: a session's socket reaches the upstream's with
//! the real key, frames come back whole and in order, each response is one
//! call, and refusals (a bad token, an upstream down, a budget) come in the
//! format's shape: before the upgrade, or as `error` frames on the socket.

use std::time::Duration;

use agentplex_gateway::{BudgetAction, Format, GatewayConfig, KeyPlacement, Limits, RouteGuard};
use agentplex_model_server::ModelServer;
use futures::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::common::{body, next_usage, requests, route, setup, setup_budgeted, tokens, KEY};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

const FORMAT: Format = Format::OpenaiResponses;

/// The script's counts (150 in, 17 out, 20 cache reads, 30 writes, 7 reasoning).
const COUNTED: &str = "hello\nusage: cache_read=20 cache_write=30 reasoning=7";

/// The session's Responses socket URL, as Codex makes it from its base URL.
fn socket_url(guard: &RouteGuard) -> String {
    let base = guard.endpoint(FORMAT).replacen("http://", "ws://", 1);
    format!("{base}/responses")
}

/// Opens a socket at `url` as Codex does, with `key` as its bearer token.
async fn connect(url: &str, key: &str) -> Result<Socket, tungstenite::Error> {
    let mut request = url.into_client_request().unwrap();
    let headers = request.headers_mut();
    headers.insert("authorization", format!("Bearer {key}").parse().unwrap());
    headers.insert(
        "openai-beta",
        "responses_websockets=2026-02-06".parse().unwrap(),
    );
    tokio_tungstenite::connect_async(request)
        .await
        .map(|(socket, _)| socket)
}

/// A `response.create` frame saying `text`.
fn create(text: &str) -> String {
    let mut frame = body(FORMAT, text, true);
    let fields = frame.as_object_mut().unwrap();
    fields.remove("stream");
    fields.insert("type".into(), "response.create".into());
    frame.to_string()
}

/// Sends a `response.create` saying `text`; returns the text frames that
/// answer it, up to its terminal event or `error` frame.
async fn ask(socket: &mut Socket, text: &str) -> Vec<String> {
    socket.send(Message::text(create(text))).await.unwrap();
    let mut frames = Vec::new();
    let read = async {
        loop {
            let message = socket.next().await.expect("the socket goes on").unwrap();
            let Message::Text(text) = message else {
                continue;
            };
            let kind = kind(&text);
            frames.push(text.to_string());
            let ends = [
                "response.completed",
                "response.failed",
                "response.incomplete",
                "error",
            ];
            if ends.contains(&kind.as_str()) && !(kind == "error" && is_cut(&text)) {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .expect("the response ends in time");
    frames
}

/// A frame's `type`, reading it whole (it must be JSON).
fn kind(frame: &str) -> String {
    let value: Value = serde_json::from_str(frame).unwrap_or_else(|_| panic!("whole: {frame}"));
    value["type"].as_str().unwrap().to_owned()
}

/// Whether an `error` frame is the first of a cut's, `response.failed` after it.
fn is_cut(frame: &str) -> bool {
    let value: Value = serde_json::from_str(frame).unwrap();
    value["status"].is_null() && value["code"] == "budget_exceeded"
}

#[tokio::test]
async fn a_socket_reaches_the_upstream_with_the_real_key_and_its_frames_come_back_in_order() {
    let setup = setup().await;
    let mut socket = connect(&socket_url(&setup.guard), setup.guard.token())
        .await
        .unwrap();
    let through = ask(&mut socket, "hello").await;

    // The same question straight to a model server of its own, whose ids
    // count the same way, gets the same frames.
    let direct_server = ModelServer::start().unwrap();
    let direct_url = format!("{}/responses", direct_server.openai_url()).replacen("http", "ws", 1);
    let mut direct = connect(&direct_url, KEY).await.unwrap();
    assert_eq!(through, ask(&mut direct, "hello").await);
    let kinds: Vec<String> = through.iter().map(|frame| kind(frame)).collect();
    assert_eq!(kinds.first().map(String::as_str), Some("response.created"));
    assert_eq!(kinds.last().map(String::as_str), Some("response.completed"));

    let asked = requests(&setup.model).await;
    assert_eq!(asked.len(), 1, "{asked:?}");
    let asked = &asked[0];
    assert_eq!(asked["transport"], "websocket");
    assert_eq!(asked["path"], "/v1/responses");
    assert_eq!(asked["body"]["type"], "response.create");
    assert_eq!(asked["headers"]["authorization"], format!("Bearer {KEY}"));
    assert_eq!(
        asked["headers"]["openai-beta"],
        "responses_websockets=2026-02-06"
    );
    assert!(!asked.to_string().contains(setup.guard.token()), "{asked}");
}

#[tokio::test]
async fn each_response_on_a_socket_is_one_call_reported_once_with_the_servers_counts() {
    let mut setup = setup().await;
    let mut socket = connect(&socket_url(&setup.guard), setup.guard.token())
        .await
        .unwrap();
    let mut call_ids = Vec::new();
    for _ in 0..2 {
        ask(&mut socket, COUNTED).await;
        let usage = next_usage(&mut setup.usage).await;
        assert_eq!(usage.format, FORMAT);
        assert_eq!(usage.model, "gpt-6.2-sol");
        let counts = (
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
            usage.reasoning_tokens,
        );
        assert_eq!(counts, (150, 17, 20, 30, 7), "{usage:?}");
        assert!(usage.cost_usd.is_some() && usage.complete, "{usage:?}");
        assert_eq!(usage.status, 200);
        assert!(usage.first_byte_ms.unwrap() <= usage.duration_ms);
        call_ids.push(usage.call_id);
    }
    assert_ne!(call_ids[0], call_ids[1]);
    socket.close(None).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(setup.usage.try_recv().is_err(), "a response reported twice");
    assert_eq!(requests(&setup.model).await.len(), 2);
}

#[tokio::test]
async fn a_bad_token_is_refused_before_the_upgrade() {
    let setup = setup().await;
    let url = socket_url(&setup.guard).replace(setup.guard.token(), "apx_unknown");
    let Err(tungstenite::Error::Http(response)) = connect(&url, "apx_unknown").await else {
        panic!("upgraded with an unknown token");
    };
    assert_eq!(response.status(), 401);
    let error: Value = serde_json::from_slice(response.body().as_deref().unwrap()).unwrap();
    assert_eq!(error["error"]["code"], "invalid_api_key");
    assert!(requests(&setup.model).await.is_empty());
}

#[tokio::test]
async fn an_upstream_that_is_down_answers_the_upgrade_with_502() {
    // A port that was just free: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let setup = setup().await;
    let down = route(
        &format!("http://127.0.0.1:{port}"),
        KeyPlacement::AsSent,
        |_| {},
    );
    let guard = setup.gateway.register(down);
    let Err(tungstenite::Error::Http(response)) = connect(&socket_url(&guard), guard.token()).await
    else {
        panic!("upgraded with the upstream down");
    };
    assert_eq!(response.status(), 502);
    let error: Value = serde_json::from_slice(response.body().as_deref().unwrap()).unwrap();
    assert_eq!(error["error"]["type"], "server_error");
    assert!(!error.to_string().contains(KEY), "the key leaked: {error}");
}

#[tokio::test]
async fn a_response_a_budget_refuses_gets_an_error_frame_and_never_goes_upstream() {
    let (model, _gateway, mut route) = setup_budgeted(GatewayConfig::default(), tokens(10)).await;
    let mut socket = connect(&socket_url(&route.guard), route.guard.token())
        .await
        .unwrap();
    for _ in 0..2 {
        let frames = ask(&mut socket, "hello").await;
        assert_eq!(frames.len(), 1, "{frames:?}");
        let error: Value = serde_json::from_str(&frames[0]).unwrap();
        assert_eq!(error["type"], "error");
        assert_eq!(error["status"], 403);
        assert_eq!(error["error"]["code"], "budget_exceeded");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("the session's budget is reached"),
            "{message}"
        );
    }
    assert!(requests(&model).await.is_empty());
    assert!(
        route.usage.try_recv().is_err(),
        "a refused response is no call"
    );
    assert_eq!(route.sink.reached()[0].action, BudgetAction::Refused);
}

#[tokio::test]
async fn a_response_cut_mid_way_ends_with_error_frames_and_the_socket_goes_on() {
    let (model, _gateway, mut route) =
        setup_budgeted(GatewayConfig::default(), Limits::default()).await;
    let mut socket = connect(&socket_url(&route.guard), route.guard.token())
        .await
        .unwrap();
    // Twenty chunks 250 ms apart: 5 s unless cut.
    socket
        .send(Message::text(create("slow: 20")))
        .await
        .unwrap();
    let mut frames = Vec::new();
    while !frames
        .iter()
        .any(|frame: &String| frame.contains("tick 1 "))
    {
        let message = socket.next().await.unwrap().unwrap();
        frames.push(message.into_text().unwrap().to_string());
    }
    route.budget.set_limits(tokens(0));
    let read = async {
        loop {
            let frame = socket.next().await.unwrap().unwrap().into_text().unwrap();
            let done = kind(&frame) == "response.failed";
            frames.push(frame.to_string());
            if done {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(2), read)
        .await
        .expect("cut at once");
    let kinds: Vec<String> = frames.iter().map(|frame| kind(frame)).collect();
    assert_eq!(kinds[kinds.len() - 2..], ["error", "response.failed"]);
    assert!(!kinds.contains(&"response.completed".to_owned()));
    let failed: Value = serde_json::from_str(frames.last().unwrap()).unwrap();
    assert_eq!(failed["response"]["error"]["code"], "budget_exceeded");
    let usage = next_usage(&mut route.usage).await;
    assert_eq!((usage.status, usage.complete), (200, false));

    // The socket goes on: refused while the budget is spent, answered once
    // it is raised (through a new socket to the upstream).
    let refused = ask(&mut socket, "hello").await;
    assert_eq!(kind(&refused[0]), "error");
    route.budget.set_limits(Limits::default());
    let answered = ask(&mut socket, "hello").await;
    assert_eq!(kind(answered.last().unwrap()), "response.completed");
    assert!(next_usage(&mut route.usage).await.complete);
    assert_eq!(requests(&model).await.len(), 2);
}
