//! The daemon's log as an operator gets it (docs/cli.md, "Logs"): JSON lines by
//! default when stderr is a pipe, text on request, never terminal colour codes
//! in a pipe; every request's lines and its response carry one `x-request-id`;
//! a session's lines name the session and its agent; only error answers have
//! an access line at the default level; the token never shows,
//! even at `trace` with the token in the query; a bad filter is refused.

mod common;

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{binary, listening_port};
use serde_json::Value;

const TOKEN: &str = "log-test-secret-token-5f1c";

/// A daemon whose stderr the test reads once it is stopped.
struct Logged {
    child: Child,
    endpoint: String,
    _data: tempfile::TempDir,
}

impl Logged {
    fn start(args: &[&str], env: &[(&str, &str)]) -> Logged {
        let data = tempfile::tempdir().unwrap();
        let mut child = Command::new(binary())
            .args(["server", "--port", "0", "--token", TOKEN])
            .arg("--data-dir")
            .arg(data.path())
            .args(args)
            .env_remove("AGENTPLEX_LOG")
            .env_remove("RUST_LOG")
            .env_remove("AGENTPLEX_LOG_FORMAT")
            .env_remove("AGENTPLEX_LOG_LEVEL")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let port = listening_port(&mut child, None, Duration::from_secs(60));
        let endpoint = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(60);
        while reqwest::blocking::get(format!("{endpoint}/v1/health")).is_err() {
            assert!(Instant::now() < deadline, "the daemon did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Logged {
            child,
            endpoint,
            _data: data,
        }
    }

    fn request(&self, method: &str, path: &str, body: Option<&str>) -> reqwest::blocking::Response {
        let client = reqwest::blocking::Client::new();
        let mut request = client
            .request(method.parse().unwrap(), format!("{}{path}", self.endpoint))
            .bearer_auth(TOKEN);
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body.to_owned());
        }
        request.send().unwrap()
    }

    /// Stops the daemon (SIGTERM) and returns everything it logged.
    fn stop(mut self) -> String {
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let mut log = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut log)
            .unwrap();
        self.child.wait().unwrap();
        log
    }
}

fn json_lines(log: &str) -> Vec<Value> {
    log.lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|_| panic!("not a JSON line: {line:?}"))
        })
        .collect()
}

#[test]
fn a_piped_log_is_json_lines_with_request_and_session_context() {
    let daemon = Logged::start(
        &["--adapter-park-after-ms", "50", "--log-level", "debug"],
        &[],
    );
    let created = daemon.request("POST", "/v1/sessions/logged", Some(r#"{"agent":"mock"}"#));
    assert!(created.status().is_success());
    let answered = created.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(!answered.is_empty());
    let chosen = reqwest::blocking::Client::new()
        .get(format!("{}/v1/sessions", daemon.endpoint))
        .bearer_auth(TOKEN)
        .header("x-request-id", "client-chosen-42")
        .send()
        .unwrap();
    assert_eq!(chosen.headers()["x-request-id"], "client-chosen-42");
    daemon.request(
        "POST",
        "/v1/sessions/logged/messages",
        Some(r#"{"message":"echo hi"}"#),
    );
    std::thread::sleep(Duration::from_millis(600)); // long enough to park
    let log = daemon.stop();

    assert!(!log.contains('\u{1b}'), "colour codes in a piped log");
    let lines = json_lines(&log);
    let access = |id: &str| {
        lines
            .iter()
            .find(|line| line["target"] == "agentplex::access" && line["span"]["request_id"] == id)
    };
    let created = access(&answered).expect("the access line of the create");
    assert_eq!(created["span"]["path"], "/v1/sessions/logged");
    assert_eq!(created["fields"]["status"], 200);
    assert!(access("client-chosen-42").is_some(), "{log}");
    let parked = lines
        .iter()
        .find(|line| line["fields"]["message"] == "parked the adapter instance")
        .expect("a session's log line");
    assert_eq!(parked["span"]["session_id"], "logged");
    assert_eq!(parked["span"]["agent"], "mock");
}

#[test]
fn at_the_default_level_only_error_answers_have_an_access_line() {
    let daemon = Logged::start(&[], &[]);
    let listed = daemon.request("GET", "/v1/sessions", None);
    assert_eq!(listed.status(), 200);
    let missing = daemon.request("GET", "/v1/sessions/none-here", None);
    assert_eq!(missing.status(), 404);
    let refused = reqwest::blocking::get(format!("{}/v1/sessions", daemon.endpoint)).unwrap();
    assert_eq!(refused.status(), 401);
    let log = daemon.stop();
    let statuses: Vec<Value> = json_lines(&log)
        .into_iter()
        .filter(|line| line["target"] == "agentplex::access")
        .map(|line| line["fields"]["status"].clone())
        .collect();
    assert_eq!(statuses, [404, 401], "{log}");
}

#[test]
fn the_token_is_never_logged_even_at_trace() {
    let daemon = Logged::start(&["--log-format", "pretty"], &[("RUST_LOG", "trace")]);
    daemon.request("GET", &format!("/v1/sessions?access_token={TOKEN}"), None);
    let wrong = reqwest::blocking::Client::new()
        .get(format!(
            "{}/v1/sessions?access_token={TOKEN}x",
            daemon.endpoint
        ))
        .send()
        .unwrap();
    assert_eq!(wrong.status(), 401);
    let log = daemon.stop();
    assert!(log.contains("answered"), "no access line at trace: {log}");
    assert!(!log.contains('\u{1b}'), "colour codes in a piped log");
    assert!(!log.contains(TOKEN), "the token is in the log");
    assert!(
        serde_json::from_str::<Value>(log.lines().next().unwrap()).is_err(),
        "--log-format pretty writes text"
    );
}

#[test]
fn a_bad_log_filter_is_refused_in_one_line() {
    let output = Command::new(binary())
        .args(["server", "--no-token", "--port", "0", "--ephemeral"])
        .env("AGENTPLEX_LOG", "info,[[[")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("error: AGENTPLEX_LOG=") && stderr.trim_end().lines().count() == 1,
        "{stderr}"
    );
}
