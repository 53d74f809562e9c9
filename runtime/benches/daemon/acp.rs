//! The daemon bench's ACP part: a prompt's time to its first `session/update`
//! (the agent's first message chunk) with the mock agent, three ways on one
//! daemon in alternating rounds: the REST path (`messages/stream` to its first
//! `item.delta`), ACP over HTTP (`/v1/acp/{server_id}`: the prompt POSTed, the
//! update read from the connection's SSE stream) and ACP over stdio
//! (`agentplex acp --endpoint`, the line written, the update read); then ACP
//! over HTTP on each reference daemon (`AGENTPLEX_REFERENCES`, e.g. 0.4.2, which
//! speaks only ACP) for its own mock agent, an ACP process that echoes each call
//! as a notification: there the time to that notification.

use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::common::daemons::{self, Binary};
use super::common::{percentile, rounds, stop, us};
use super::Table;

/// Timed prompts per way (after two warm-ups each), unless `AGENTPLEX_ACP_ROUNDS`
/// says.
const ROUNDS: usize = 40;

/// A JSON-RPC message stream of one ACP connection, with a way to send.
struct AcpLink {
    client: reqwest::Client,
    url: String,
    token: Option<String>,
    incoming: mpsc::UnboundedReceiver<Value>,
    next_id: i64,
}

impl AcpLink {
    /// Opens connection `server` of the daemon at `base` for the mock agent:
    /// `initialize`, the SSE stream, `session/new`; the session's id.
    async fn open(base: &str, token: Option<String>, cwd: &str) -> (Self, String) {
        let client = reqwest::Client::new();
        let url = format!("{base}/v1/acp/bench-{}", std::process::id());
        let (send, incoming) = mpsc::unbounded_channel();
        let mut link = AcpLink {
            client,
            url,
            token,
            incoming,
            next_id: 0,
        };
        let init = link
            .call(
                "initialize",
                json!({"protocolVersion": 1, "clientCapabilities": {}}),
            )
            .await;
        assert!(init.get("result").is_some(), "initialize: {init}");
        let mut stream = link.authorized(link.client.get(&link.url));
        stream = stream.header("accept", "text/event-stream");
        let response = stream.send().await.expect("the ACP stream");
        tokio::spawn(async move {
            let mut body = response.bytes_stream();
            let mut buffer = String::new();
            while let Some(Ok(chunk)) = body.next().await {
                buffer.push_str(&String::from_utf8_lossy(&chunk));
                while let Some(end) = buffer.find("\n\n") {
                    let event: String = buffer.drain(..end + 2).collect();
                    for line in event.lines() {
                        if let Some(data) = line.strip_prefix("data:") {
                            if let Ok(message) = serde_json::from_str(data.trim()) {
                                let _ = send.send(message);
                            }
                        }
                    }
                }
            }
        });
        let created = link
            .call("session/new", json!({"cwd": cwd, "mcpServers": []}))
            .await;
        assert!(created.get("result").is_some(), "session/new: {created}");
        // The reference's mock agent echoes every call and names no session.
        let session = created["result"]["sessionId"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        (link, session)
    }

    fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    /// POSTs a request; its answer from the body, or else from the stream.
    async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.post(method, params);
        let response = id.1.await.expect("POST");
        let text = response.text().await.unwrap_or_default();
        if let Ok(answer) = serde_json::from_str::<Value>(&text) {
            if answer["id"] == json!(id.0) {
                return answer;
            }
        }
        self.answer(id.0).await
    }

    /// Starts POSTing a request: its id and the POST under way.
    fn post(
        &mut self,
        method: &str,
        params: Value,
    ) -> (
        i64,
        impl std::future::Future<Output = reqwest::Result<reqwest::Response>>,
    ) {
        self.next_id += 1;
        let body =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        let request = self
            .authorized(self.client.post(format!("{}?agent=mock", self.url)))
            .json(&body);
        (self.next_id, request.send())
    }

    /// Waits in the stream for the answer to request `id`.
    async fn answer(&mut self, id: i64) -> Value {
        loop {
            let message = self.incoming.recv().await.expect("the ACP stream ended");
            if message["id"] == json!(id) && message.get("method").is_none() {
                return message;
            }
        }
    }

    /// One prompt: the time to the agent's first notification after it (ours:
    /// its first message chunk; the reference's echoing mock: its `mock/echo`),
    /// then its end.
    async fn prompt(&mut self, session: &str) -> Duration {
        while self.incoming.try_recv().is_ok() {}
        let begin = Instant::now();
        let params = json!({"sessionId": session, "prompt": [{"type": "text", "text": "hello"}]});
        let (id, posting) = self.post("session/prompt", params);
        let posted = tokio::spawn(async move { posting.await.map(|r| r.status()) });
        let first = loop {
            let message = self.incoming.recv().await.expect("the ACP stream ended");
            if message.get("method").is_some() && message.get("id").is_none() {
                break begin.elapsed();
            }
        };
        let _ = posted.await;
        // The answer (in the stream, or only in the POST's body for daemons that
        // answer there) is not waited for past a second.
        let _ = tokio::time::timeout(Duration::from_secs(1), self.answer(id)).await;
        first
    }
}

/// `agentplex acp --endpoint` over its stdin and stdout.
struct Stdio {
    child: tokio::process::Child,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    next_id: i64,
}

impl Stdio {
    async fn open(base: &str, cwd: &str) -> (Self, String) {
        let mut child = tokio::process::Command::new(Binary::ours().path)
            .args([
                "acp",
                "--agent",
                "mock",
                "--endpoint",
                base,
                "--token",
                daemons::TOKEN,
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("agentplex acp");
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut stdio = Stdio {
            child,
            lines,
            next_id: 0,
        };
        stdio
            .call("initialize", json!({"protocolVersion": 1}))
            .await;
        let created = stdio
            .call("session/new", json!({"cwd": cwd, "mcpServers": []}))
            .await;
        (
            stdio,
            created["result"]["sessionId"].as_str().unwrap().to_owned(),
        )
    }

    async fn write(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let line =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        self.next_id
    }

    async fn read(&mut self) -> Value {
        let line = self.lines.next_line().await.unwrap().expect("a line");
        serde_json::from_str(&line).unwrap()
    }

    async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.write(method, params).await;
        loop {
            let message = self.read().await;
            if message["id"] == json!(id) && message.get("method").is_none() {
                return message;
            }
        }
    }

    async fn prompt(&mut self, session: &str) -> Duration {
        let begin = Instant::now();
        let params = json!({"sessionId": session, "prompt": [{"type": "text", "text": "hello"}]});
        let id = self.write("session/prompt", params).await;
        let mut first = None;
        loop {
            let message = self.read().await;
            if first.is_none()
                && message["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
            {
                first = Some(begin.elapsed());
            }
            if message["id"] == json!(id) && message.get("method").is_none() {
                return first.expect("a message chunk before the answer");
            }
        }
    }
}

/// The REST path: `messages/stream` to its first `item.delta`.
async fn rest_prompt(client: &reqwest::Client, base: &str, session: &str) -> Duration {
    let begin = Instant::now();
    let response = client
        .post(format!("{base}/v1/sessions/{session}/messages/stream"))
        .bearer_auth(daemons::TOKEN)
        .json(&json!({"message": "hello"}))
        .send()
        .await
        .expect("messages/stream");
    let mut body = response.bytes_stream();
    let mut buffer = String::new();
    let mut first = None;
    while let Some(Ok(chunk)) = body.next().await {
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        if first.is_none() && buffer.contains("\"item.delta\"") {
            first = Some(begin.elapsed());
        }
    }
    first.expect("an item.delta")
}

/// Median and 90th percentile of `samples`.
fn summary(samples: &mut [Duration]) -> (Duration, Duration) {
    (percentile(samples, 50.0), percentile(samples, 90.0))
}

/// Signed difference of two durations, as text.
fn delta(a: Duration, b: Duration) -> String {
    if a >= b {
        format!("+{}", us(a - b))
    } else {
        format!("-{}", us(b - a))
    }
}

/// Measures and adds the ACP rows to `table`.
pub async fn acp(table: &mut Table, scratch: &std::path::Path) {
    let work = tempfile::tempdir_in(scratch).unwrap();
    let cwd = work.path().display().to_string();
    let ours = Binary::ours();
    let (mut daemon, _) = daemons::Daemon::start(&ours, scratch);
    let base = format!("http://127.0.0.1:{}", daemon.port);
    let client = reqwest::Client::new();
    let rest_session = "bench-acp-rest";
    let created = client
        .post(format!("{base}/v1/sessions/{rest_session}"))
        .bearer_auth(daemons::TOKEN)
        .json(&json!({"agent": "mock"}))
        .send()
        .await
        .unwrap();
    assert!(created.status().is_success());
    let (mut http, http_session) = AcpLink::open(&base, Some(daemons::TOKEN.into()), &cwd).await;
    let (mut stdio, stdio_session) = Stdio::open(&base, &cwd).await;
    let rounds = rounds("AGENTPLEX_ACP_ROUNDS", ROUNDS);
    let (mut rest, mut over_http, mut over_stdio) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds + 2 {
        let r = rest_prompt(&client, &base, rest_session).await;
        let h = http.prompt(&http_session).await;
        let s = stdio.prompt(&stdio_session).await;
        if round >= 2 {
            rest.push(r);
            over_http.push(h);
            over_stdio.push(s);
        }
    }
    drop(stdio);
    stop(&mut daemon.child);
    let (rest_p50, rest_p90) = summary(&mut rest);
    let (http_p50, http_p90) = summary(&mut over_http);
    let (stdio_p50, stdio_p90) = summary(&mut over_stdio);
    table.section(&format!(
        "ACP: a prompt to its first session/update, mock agent, {rounds} alternating rounds (p50 / p90)"
    ));
    table.row(
        "REST messages/stream, first item.delta",
        format!("{} / {}", us(rest_p50), us(rest_p90)),
        String::new(),
    );
    table.row(
        "ACP over HTTP (/v1/acp/{id})",
        format!("{} / {}", us(http_p50), us(http_p90)),
        format!(
            "{} p50 vs REST (goal: within 0.2 ms)",
            delta(http_p50, rest_p50)
        ),
    );
    table.row(
        "ACP over stdio (agentplex acp --endpoint)",
        format!("{} / {}", us(stdio_p50), us(stdio_p90)),
        format!(
            "{} p50 vs REST (goal: within 0.2 ms)",
            delta(stdio_p50, rest_p50)
        ),
    );
    for reference in Binary::references().iter().filter(|b| !b.ours) {
        let (mut daemon, _) = daemons::Daemon::start(reference, scratch);
        let base = format!("http://127.0.0.1:{}", daemon.port);
        // Its mock agent is a process it installs first.
        let installed = client
            .post(format!("{base}/v1/agents/mock/install"))
            .json(&json!({}))
            .send()
            .await
            .expect("installing the reference's mock");
        assert!(installed.status().is_success(), "{}", installed.status());
        let (mut link, session) = AcpLink::open(&base, None, &cwd).await;
        let mut samples = Vec::new();
        for round in 0..rounds + 2 {
            let t = link.prompt(&session).await;
            if round >= 2 {
                samples.push(t);
            }
        }
        stop(&mut daemon.child);
        let (p50, p90) = summary(&mut samples);
        table.row(
            &format!(
                "{} ACP over HTTP (its mock agent's first notification)",
                reference.name
            ),
            format!("{} / {}", us(p50), us(p90)),
            format!(
                "ours over HTTP is {:.2}x its p50 (goal: at most 0.5x)",
                http_p50.as_secs_f64() / p50.as_secs_f64()
            ),
        );
    }
}
