//! `agentplex acp`: the daemon as an ACP agent on stdio, for editors that start
//! their agents as commands. Each line on stdin (one JSON-RPC message) is POSTed
//! to a daemon's `/v1/acp/{server_id}`; the connection's stream (every
//! notification, request and answer, in order) is written to stdout, one
//! message per line. Without `--endpoint` the command runs a daemon of its own
//! for as long as it runs.

use std::io::Read as _;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::Failure;

/// `agentplex acp` flags.
#[derive(Debug, Args)]
pub struct AcpArgs {
    /// The agent its sessions run (`agentplex agents list` names them).
    #[arg(long)]
    agent: String,
    /// Its new sessions' modes, model and variant.
    #[command(flatten)]
    modes: crate::remote::ModeArgs,
    /// A running daemon to use (its sessions are then in its `/v1/sessions`);
    /// without it, the command starts a daemon of its own on the data dir.
    #[arg(long, env = "AGENTPLEX_ENDPOINT")]
    endpoint: Option<String>,
    /// The token of the daemon at `--endpoint`.
    #[arg(long, env = "AGENTPLEX_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// The data dir of the daemon it starts [default: the daemon's].
    #[arg(long)]
    data_dir: Option<std::path::PathBuf>,
}

/// Runs the stdio bridge until stdin closes.
pub async fn acp(args: AcpArgs) -> Result<(), Failure> {
    let (endpoint, token, daemon) = match &args.endpoint {
        Some(endpoint) => (
            endpoint.trim_end_matches('/').to_owned(),
            args.token.clone(),
            None,
        ),
        None => {
            let (endpoint, token, daemon) = start_daemon(&args).await?;
            (endpoint, Some(token), Some(daemon))
        }
    };
    let server_id = format!("stdio-{}-{}", std::process::id(), random_hex(6));
    let url = format!("{endpoint}/v1/acp/{server_id}");
    let mut query = vec![("agent", args.agent.clone())];
    for (name, value) in [
        ("model", &args.modes.model),
        ("agentMode", &args.modes.agent_mode),
        ("permissionMode", &args.modes.permission_mode),
        ("variant", &args.modes.variant),
    ] {
        if let Some(value) = value {
            query.push((name, value.clone()));
        }
    }
    let client = reqwest::Client::new();
    let bridge = Arc::new(Bridge {
        client,
        url,
        query,
        token,
        stdout: Mutex::new(tokio::io::stdout()),
    });
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut stream = None;
    let mut posts = tokio::task::JoinSet::new();
    while let Some(line) = lines.next_line().await.map_err(io_failure)? {
        if line.trim().is_empty() {
            continue;
        }
        if stream.is_none() {
            // The connection exists once its first message is taken: the
            // stream starts after it.
            bridge.post(line).await;
            stream = Some(tokio::spawn(bridge.clone().follow()));
            continue;
        }
        let bridge = bridge.clone();
        posts.spawn(async move { bridge.post(line).await });
    }
    // The editor closed stdin: the connection closes (its sessions stay).
    posts.abort_all();
    if let Some(stream) = stream {
        stream.abort();
    }
    bridge.close().await;
    if let Some(daemon) = daemon {
        stop(daemon).await;
    }
    Ok(())
}

/// Stops the daemon the command started as `agentplex server` stops on SIGTERM
/// (its sessions saved), killing it if it takes more than a few seconds.
async fn stop(mut daemon: tokio::process::Child) {
    if let Some(pid) = daemon.id() {
        // SAFETY: a plain signal to the child this process started and still holds.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) };
    }
    if tokio::time::timeout(Duration::from_secs(10), daemon.wait())
        .await
        .is_err()
    {
        let _ = daemon.kill().await;
    }
}

/// The HTTP side of the bridge.
struct Bridge {
    client: reqwest::Client,
    url: String,
    query: Vec<(&'static str, String)>,
    token: Option<String>,
    stdout: Mutex<tokio::io::Stdout>,
}

impl Bridge {
    fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    /// POSTs one message. Its answer comes through the stream; a refusal of
    /// the POST itself is answered here as the JSON-RPC error of its request,
    /// and a line that is not a JSON object gets JSON-RPC's parse error.
    async fn post(&self, line: String) {
        if !matches!(serde_json::from_str::<Value>(&line), Ok(Value::Object(_))) {
            let answer = json!({"jsonrpc": "2.0", "id": null,
                "error": {"code": -32700, "message": "not a JSON-RPC message: one JSON object per line"}});
            self.write(&answer.to_string()).await;
            return;
        }
        let request = self
            .client
            .post(&self.url)
            .query(&self.query)
            .header("content-type", "application/json")
            .body(line.clone());
        let refusal = match self.authorized(request).send().await {
            Ok(response) if response.status().is_success() => return,
            Ok(response) => {
                let status = response.status();
                let body = response.text().await.unwrap_or_default();
                let detail = serde_json::from_str::<Value>(&body)
                    .ok()
                    .and_then(|problem| problem["detail"].as_str().map(str::to_owned))
                    .unwrap_or(body);
                format!("the daemon refused the message ({status}): {detail}")
            }
            Err(error) => format!("the daemon cannot be reached: {error}"),
        };
        let id = serde_json::from_str::<Value>(&line)
            .ok()
            .and_then(|message| message.get("id").cloned())
            .filter(|id| !id.is_null());
        match id {
            Some(id) => {
                let answer = json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32603, "message": refusal}});
                self.write(&answer.to_string()).await;
            }
            None => eprintln!("agentplex acp: {refusal}"),
        }
    }

    /// Writes the connection's stream to stdout, reconnecting where it broke.
    async fn follow(self: Arc<Self>) {
        let mut last: Option<String> = None;
        loop {
            let mut request = self
                .client
                .get(&self.url)
                .header("accept", "text/event-stream");
            if let Some(last) = &last {
                request = request.header("last-event-id", last);
            }
            match self.authorized(request).send().await {
                Ok(response) if response.status().is_success() => {
                    let mut events = response.bytes_stream().eventsource();
                    while let Some(Ok(event)) = events.next().await {
                        if !event.id.is_empty() {
                            last = Some(event.id.clone());
                        }
                        self.write(&event.data).await;
                    }
                }
                Ok(response) if response.status() == reqwest::StatusCode::NOT_FOUND => return,
                _ => {}
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    async fn write(&self, line: &str) {
        let mut stdout = self.stdout.lock().await;
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        // An editor gone is the end anyway: stdin closes next.
        let _ = stdout.write_all(&bytes).await;
        let _ = stdout.flush().await;
    }

    async fn close(&self) {
        let request = self
            .client
            .delete(&self.url)
            .timeout(Duration::from_secs(2));
        let _ = self.authorized(request).send().await;
    }
}

/// Starts a daemon of the command's own on a free loopback port with a fresh
/// token: its address, the token, and the process (killed if dropped).
async fn start_daemon(args: &AcpArgs) -> Result<(String, String, tokio::process::Child), Failure> {
    let token = random_hex(16);
    let exe = std::env::current_exe().map_err(io_failure)?;
    let mut command = tokio::process::Command::new(exe);
    command
        .args([
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--log-level",
            "warn",
        ])
        .env("AGENTPLEX_TOKEN", &token)
        .env_remove("AGENTPLEX_PORT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    if let Some(data_dir) = &args.data_dir {
        command.arg("--data-dir").arg(data_dir);
    }
    let mut child = command.spawn().map_err(io_failure)?;
    let stdout = child.stdout.take().expect("piped");
    let mut lines = BufReader::new(stdout).lines();
    let address = tokio::time::timeout(Duration::from_secs(60), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(at) = line.find("listening on http://") {
                let address = &line[at + "listening on ".len()..];
                let end = address.find(['"', ' ']).unwrap_or(address.len());
                return Some(address[..end].to_owned());
            }
        }
        None
    })
    .await
    .ok()
    .flatten()
    .ok_or_else(|| Failure {
        message: "the daemon `agentplex acp` started did not come up (its errors are above)".into(),
        code: 1,
    })?;
    // Its stdout is the daemon's, not the editor's: read and dropped.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok((address, token, child))
}

/// `bytes` random bytes as hex.
fn random_hex(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    if let Ok(mut random) = std::fs::File::open("/dev/urandom") {
        let _ = random.read_exact(&mut buffer);
    }
    buffer.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn io_failure(error: std::io::Error) -> Failure {
    Failure {
        message: format!("agentplex acp: {error}"),
        code: 1,
    }
}
