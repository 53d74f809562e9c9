//! The daemon's ACP endpoint over HTTP (`/v1/acp/{server_id}`), spoken by hand:
//! a POST per message, the connection's answers and notifications read from its
//! SSE stream.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::api::Api;

/// POSTs `body` to `/v1/acp/{server}{query}`.
pub fn acp_post(api: &Api, server: &str, query: &str, body: &str) -> reqwest::blocking::Response {
    api.client()
        .post(api.daemon.url(&format!("/v1/acp/{server}{query}")))
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .expect("POST")
}

/// The messages of connection `server`'s SSE stream, as they come.
pub fn stream_answers(api: &Api, server: &str) -> std::sync::mpsc::Receiver<Value> {
    use std::io::BufRead;
    let response = api
        .client()
        .get(api.daemon.url(&format!("/v1/acp/{server}")))
        .header("accept", "text/event-stream")
        .send()
        .unwrap();
    let (send, messages) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(response).lines() {
            let Ok(line) = line else { return };
            if let Some(data) = line.strip_prefix("data:") {
                if let Ok(message) = serde_json::from_str(data.trim()) {
                    if send.send(message).is_err() {
                        return;
                    }
                }
            }
        }
    });
    messages
}

/// The answer to request `id` among `messages`, within 30 s.
pub fn answer_to(messages: &std::sync::mpsc::Receiver<Value>, id: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let message = messages.recv_timeout(left).expect("the answer in time");
        if message["id"] == id && message.get("method").is_none() {
            return message;
        }
    }
}
