//! The OpenAI Responses API over WebSocket (`GET /v1/responses` upgraded), as
//! Codex's built-in OpenAI provider calls it.
//!
//! The client sends `response.create` text frames, each the body of a
//! `POST /v1/responses` with a `type`; each is answered with the events of the
//! streamed answer (`response.created` to `response.completed`), a JSON text
//! frame each, in the script's time, before the next frame is read: one
//! response at a time, as OpenAI's socket does. An error reply is one `error`
//! frame with the HTTP status it would have had. Other frames are ignored.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use serde_json::{json, Value};

use crate::{openai_error, responses, Answer, Api, Asked, Shared};

/// `GET /v1/responses` upgraded: serves `response.create` frames until the
/// client closes.
pub async fn upgrade(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    socket: WebSocketUpgrade,
) -> Response {
    let asked = Asked {
        transport: "websocket",
        ..Asked::new(&uri, &headers)
    };
    socket.on_upgrade(move |socket| serve(socket, shared, asked))
}

async fn serve(mut socket: WebSocket, shared: Arc<Shared>, asked: Asked) {
    while let Some(Ok(message)) = socket.recv().await {
        let Message::Text(text) = message else {
            continue;
        };
        let Ok(body) = serde_json::from_str::<Value>(text.as_str()) else {
            continue;
        };
        if body["type"] != "response.create" {
            continue;
        }
        let Answer {
            reply,
            model,
            id,
            usage,
        } = shared.ask(Api::Responses, &body, &asked);
        let frames = match responses::events(&reply, &model, id, &usage) {
            Ok(events) => events
                .into_iter()
                .map(|event| (event.delay_ms, event.data))
                .collect(),
            Err(message) => {
                let mut error = json!({"type": "error", "status": 400});
                error["error"] = openai_error(&message)["error"].clone();
                vec![(0, error.to_string())]
            }
        };
        for (delay_ms, data) in frames {
            if delay_ms > 0 {
                tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            }
            if socket.send(Message::Text(data.into())).await.is_err() {
                return;
            }
        }
    }
}
