//! Keys outside the sandbox (docs/gateway.md): a broker (`agentplex gateway
//! --keys FILE`) holds the provider's real key, and the daemon inside
//! (`--gateway --broker URL --broker-token-file FILE`) holds none; it forwards
//! its sessions' calls to the broker with the sandbox's token.
//!
//! The attack: an agent's user looks for the real key everywhere it can read
//! inside the sandbox, while the agent runs and after: the environments and
//! command lines of the daemon and its agent's processes, the daemon's data dir
//! (the session's scratch dir in it), the agent's home and the transcript, for
//! the key raw or encoded (base64, base64url, hex, percent-encoded). None holds
//! it, nor the sandbox's token. And a sandbox taken out of the broker's keys file
//! is refused at its next call, which never reaches the provider.

use std::io::BufRead as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use agentplex_model_server::ModelServer;
use base64::Engine as _;
use serde_json::{json, Value};
use tempfile::TempDir;

use super::common::api::*;
use super::common::procfs::state_and_parent;
use super::common::{binary, describe, text, wait_until, Daemon, Options};

/// The provider's real key: only the broker's keys file holds it.
const REAL_KEY: &str = "sk-ant-brokered-REALKEY-1234567890";

/// The agent stand-in: one streamed call from the variables the daemon gave it,
/// a report of its environment and the answer, then it waits for the test to
/// release it, so its process can be looked at while it runs.
const AGENT: &str = r#"
import json, os, sys, time, urllib.request, urllib.error
report, release = sys.argv[1], sys.argv[2]
body = {"model": "scripted-model", "max_tokens": 64, "stream": True,
        "messages": [{"role": "user", "content": "hello"}]}
request = urllib.request.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages",
    data=json.dumps(body).encode(),
    headers={"x-api-key": os.environ.get("ANTHROPIC_API_KEY", ""),
             "anthropic-version": "2023-06-01", "content-type": "application/json"})
try:
    with urllib.request.urlopen(request) as answer:
        status, text = answer.status, answer.read().decode()
except urllib.error.HTTPError as error:
    status, text = error.code, error.read().decode()
with open(report + ".tmp", "w") as out:
    json.dump({"env": dict(os.environ), "status": status, "body": text}, out)
os.rename(report + ".tmp", report)
deadline = time.time() + 30
while not os.path.exists(release) and time.time() < deadline:
    time.sleep(0.05)
"#;

/// A broker process, killed on drop.
struct Broker {
    child: Child,
    url: String,
}

impl Broker {
    /// Starts `agentplex gateway --keys keys --port 0`, its log in `log`, and
    /// reads its URL from its listening line.
    fn start(keys: &Path, log: &Path) -> Broker {
        let mut child = Command::new(binary())
            .args(["gateway", "--port", "0", "--log-level", "info", "--keys"])
            .arg(keys)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(log).expect("the broker's log"))
            .spawn()
            .expect("starting the broker");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("the broker's stdout");
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the broker's listening line");
        let url = line
            .trim()
            .strip_prefix("agentplex gateway listening on ")
            .unwrap_or_else(|| panic!("not a listening line: {line:?}"))
            .to_owned();
        Broker { child, url }
    }
}

/// The calls a broker's log at `log` records (the fields of its `broker: model
/// call` lines).
fn logged_calls(log: &Path) -> Vec<Value> {
    let log = std::fs::read_to_string(log).unwrap_or_default();
    log.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .map(|line| line["fields"].clone())
        .filter(|fields| fields["message"] == "broker: model call")
        .collect()
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A new sandbox token in `path` (`gateway --new-token --out`); returns its SHA-256.
fn new_token(path: &Path) -> String {
    let output = Command::new(binary())
        .args(["gateway", "--new-token", "--out"])
        .arg(path)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", describe(&output));
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(printed.get("token"), None, "{printed}");
    printed["tokenSha256"].as_str().unwrap().to_owned()
}

/// A keys file: the model server as the `anthropic` provider, with the real
/// key, and the sandboxes given.
fn keys_file(model: &ModelServer, sandboxes: Value) -> String {
    json!({
        "providers": {"anthropic": {"baseUrl": model.url(), "key": REAL_KEY}},
        "sandboxes": sandboxes,
    })
    .to_string()
}

/// `secret` as it could be written down: raw, base64 and base64url (at each of
/// the three alignments it may have inside a longer encoded text), hex and
/// percent-encoded.
fn forms(secret: &str) -> Vec<String> {
    let bytes = secret.as_bytes();
    let mut forms = vec![secret.to_owned()];
    for engine in [
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ] {
        for shift in 0..3 {
            let mut shifted = vec![0u8; shift];
            shifted.extend_from_slice(bytes);
            let encoded = engine.encode(&shifted);
            // The characters that only the secret's bits make up.
            let (first, end) = ((shift * 8).div_ceil(6), (shifted.len() * 8) / 6);
            forms.push(encoded[first..end].to_owned());
        }
    }
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    forms.push(hex.to_uppercase());
    forms.push(hex);
    let percent: String = bytes.iter().map(|byte| format!("%{byte:02X}")).collect();
    forms.push(percent.to_lowercase());
    forms.push(percent);
    forms
}

/// The first of `forms` that `bytes` holds.
fn leaked<'f>(bytes: &[u8], forms: &'f [String]) -> Option<&'f String> {
    forms.iter().find(|form| {
        let form = form.as_bytes();
        bytes.windows(form.len()).any(|window| window == form)
    })
}

/// Every regular file under `dir`, with its bytes (links not followed).
fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                folders.push(entry.path());
            } else if kind.is_file() {
                let bytes = std::fs::read(entry.path()).unwrap();
                files.push((entry.path(), bytes));
            }
        }
    }
    files
}

/// The daemon and every process under it.
fn sandbox_processes(daemon: u32) -> Vec<u32> {
    let all: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, state_and_parent(pid)?.1)))
        .collect();
    let mut found = vec![daemon];
    loop {
        let more: Vec<u32> = all
            .iter()
            .filter(|(pid, parent)| found.contains(parent) && !found.contains(pid))
            .map(|(pid, _)| *pid)
            .collect();
        if more.is_empty() {
            return found;
        }
        found.extend(more);
    }
}

/// Scans what the processes of the sandbox show of themselves: their command
/// lines, and their environments where readable (the daemon's is not: it
/// refuses inspection). Returns the environments read.
fn scan_processes(daemon: u32, forms: &[String]) -> Vec<Vec<u8>> {
    let mut environments = Vec::new();
    for pid in sandbox_processes(daemon) {
        for part in ["cmdline", "environ"] {
            let Ok(bytes) = std::fs::read(format!("/proc/{pid}/{part}")) else {
                continue;
            };
            if let Some(form) = leaked(&bytes, forms) {
                panic!("/proc/{pid}/{part} holds {form}: {}", text(&bytes));
            }
            if part == "environ" {
                environments.push(bytes);
            }
        }
    }
    environments
}

#[test]
fn with_a_broker_no_real_key_is_anywhere_in_the_sandbox_and_revoking_stops_its_calls() {
    let model = ModelServer::start().unwrap();
    // The operator's side: the keys file and the token, outside the sandbox.
    let operator = TempDir::new().unwrap();
    let token_file = operator.path().join("sandbox.token");
    let sha256 = new_token(&token_file);
    let sandbox_token = std::fs::read_to_string(&token_file)
        .unwrap()
        .trim()
        .to_owned();
    assert!(sandbox_token.starts_with("apxb_"), "{sandbox_token}");
    let keys = operator.path().join("keys.json");
    let sandboxes = json!({"sandbox-1": {"tokenSha256": sha256}});
    std::fs::write(&keys, keys_file(&model, sandboxes)).unwrap();
    let broker_log = operator.path().join("broker.log");
    let broker = Broker::start(&keys, &broker_log);

    // The sandbox: a daemon with no key, its agents' home of their own.
    let home = TempDir::new().unwrap();
    let work = TempDir::new().unwrap();
    // The broker's URL and token file in the variables, which agents must not inherit.
    let daemon = Daemon::start_with(Options {
        args: vec!["--gateway".into()],
        env: vec![
            ("HOME".into(), home.path().display().to_string()),
            ("AGENTPLEX_BROKER".into(), broker.url.clone()),
            (
                "AGENTPLEX_BROKER_TOKEN_FILE".into(),
                token_file.display().to_string(),
            ),
        ],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    api.create("brokered", "mock");
    let script = work.path().join("agent.py");
    std::fs::write(&script, AGENT).unwrap();
    let (report, release) = (work.path().join("report.json"), work.path().join("release"));
    let command = format!(
        "shell python3 {} {} {}",
        script.display(),
        report.display(),
        release.display()
    );
    let mut secrets = forms(REAL_KEY);
    secrets.extend(forms(&sandbox_token));

    let events = std::thread::scope(|scope| {
        let turn = scope.spawn(|| api.turn("brokered", &command));
        wait_until(DEADLINE, "the agent called", || report.exists());
        // While the agent runs: what its processes and the daemon show.
        let environments = scan_processes(daemon.pid(), &secrets);
        let agent = b"ANTHROPIC_BASE_URL=";
        assert!(
            environments
                .iter()
                .any(|env| env.windows(agent.len()).any(|window| window == agent)),
            "no agent process's environment was read"
        );
        std::fs::write(&release, "").unwrap();
        turn.join().unwrap()
    });

    // The agent saw its session's endpoint and token, and got its answer.
    let seen: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(seen["status"], 200, "{seen}");
    assert!(seen["body"].as_str().unwrap().contains("message_stop"));
    let env = &seen["env"];
    let session_token = env["ANTHROPIC_API_KEY"].as_str().unwrap();
    assert!(session_token.starts_with("apx_"), "{session_token}");
    let base = env["ANTHROPIC_BASE_URL"].as_str().unwrap();
    assert!(
        base.starts_with("http://127.0.0.1:") && base.contains(session_token),
        "{base}"
    );
    assert!(!base.contains(&broker.url), "{base}");
    assert_eq!(env.get("AGENTPLEX_BROKER_TOKEN_FILE"), None, "{env}");

    // The provider got the real key, and neither token.
    let requests = ok_json(reqwest::blocking::get(format!("{}/requests", model.url())).unwrap());
    let requests = requests.as_array().unwrap();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0]["headers"]["x-api-key"], REAL_KEY);
    let request = requests[0].to_string();
    assert!(!request.contains(&sandbox_token) && !request.contains(session_token));

    // The daemon metered the call, and the broker's log agrees.
    let usage = find(&events, "model.usage");
    assert_eq!(usage["data"]["status"], 200, "{usage}");
    assert_eq!(usage["data"]["model"], "scripted-model", "{usage}");
    wait_until(DEADLINE, "the broker logged the call", || {
        !logged_calls(&broker_log).is_empty()
    });
    let logged = logged_calls(&broker_log);
    assert_eq!(logged.len(), 1, "{logged:?}");
    let call = &logged[0];
    assert_eq!(call["sandbox"], "sandbox-1", "{call}");
    assert_eq!(call["model"], "scripted-model", "{call}");
    assert_eq!(call["complete"], true, "{call}");
    for tokens in ["input_tokens", "output_tokens"] {
        assert!(call[tokens].as_u64().is_some_and(|n| n > 0), "{call}");
        assert_eq!(call[tokens], usage["data"][tokens], "{tokens}: {call}");
    }

    // Nothing the agent's user can read holds the key or the sandbox's token.
    let scratch = daemon.data_dir.path().join("scratch/brokered");
    assert!(scratch.is_dir(), "no scratch dir at {}", scratch.display());
    let mut files = files_under(daemon.data_dir.path());
    files.extend(files_under(home.path()));
    files.push((report.clone(), std::fs::read(&report).unwrap()));
    assert!(files.len() > 1, "{files:?}");
    for (path, bytes) in &files {
        if let Some(form) = leaked(bytes, &secrets) {
            panic!("{} holds {form}", path.display());
        }
    }
    let transcript = serde_json::to_vec(&api.events("brokered")).unwrap();
    assert_eq!(leaked(&transcript, &secrets), None, "the transcript");
    let info = serde_json::to_vec(&api.get_ok("/v1/sessions/brokered")).unwrap();
    assert_eq!(leaked(&info, &secrets), None, "the session");

    // Revoked: the sandbox's next call is refused by the broker, unforwarded.
    std::fs::write(&keys, keys_file(&model, json!({}))).unwrap();
    std::fs::remove_file(&report).unwrap();
    api.turn("brokered", &command);
    let seen: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(seen["status"], 401, "{seen}");
    let body: Value = serde_json::from_str(seen["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["error"]["type"], "authentication_error", "{body}");
    let requests = ok_json(reqwest::blocking::get(format!("{}/requests", model.url())).unwrap());
    assert_eq!(
        requests.as_array().unwrap().len(),
        1,
        "a revoked call went upstream"
    );
}

/// Runs `agentplex` with `args`; its output.
fn run(args: &[&str]) -> std::process::Output {
    Command::new(binary())
        .args(args)
        .env_remove("AGENTPLEX_BROKER")
        .env_remove("AGENTPLEX_BROKER_KEYS")
        .output()
        .unwrap()
}

/// Asserts that `output` is a failure with `code` and one `error:` line that
/// holds `says`.
#[track_caller]
fn fails_with(output: &std::process::Output, code: i32, says: &str) {
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "{}", describe(output));
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: ") && stderr.contains(says),
        "{stderr}"
    );
}

#[test]
fn a_broker_or_daemon_set_up_wrong_stops_with_one_line() {
    let model = ModelServer::start().unwrap();
    let dir = TempDir::new().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    std::fs::write(path("keys.json"), keys_file(&model, json!({}))).unwrap();
    std::fs::write(
        path("bad.json"),
        "{\"providers\": {\n  \"anthropic\": {\"baseUrl\": \"http://x\",\n    \"key\": 3}}}",
    )
    .unwrap();
    std::fs::write(path("token"), "apxb_token\n").unwrap();
    std::fs::set_permissions(path("token"), std::fs::Permissions::from_mode(0o600)).unwrap();

    let bad = run(&["gateway", "--port", "0", "--keys", &path("bad.json")]);
    fails_with(&bad, 1, "line 3");
    let open = run(&[
        "gateway",
        "--host",
        "0.0.0.0",
        "--port",
        "0",
        "--keys",
        &path("keys.json"),
    ]);
    fails_with(&open, 1, "plain HTTP");
    let missing = run(&["gateway", "--port", "0", "--keys", &path("none.json")]);
    fails_with(&missing, 1, "none.json");
    let no_keys = run(&["gateway"]);
    assert_eq!(no_keys.status.code(), Some(2), "{}", describe(&no_keys));

    let server = |broker: &str, token: &str| {
        let args = [
            "server",
            "--no-token",
            "--port",
            "0",
            "--gateway",
            "--broker",
        ];
        run(&[&args[..], &[broker, "--broker-token-file", token]].concat())
    };
    fails_with(&server("ftp://broker", &path("token")), 1, "--broker");
    fails_with(
        &server("http://broker", &path("none")),
        1,
        "--broker-token-file",
    );
    let ungated = run(&[
        "server",
        "--no-token",
        "--broker",
        "http://broker",
        "--broker-token-file",
        &path("token"),
    ]);
    assert_eq!(ungated.status.code(), Some(2), "{}", describe(&ungated));
}
