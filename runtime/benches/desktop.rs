//! The desktop side by side with reference binaries: `cargo bench -p agentplex --bench
//! desktop` (references: `AGENTPLEX_REFERENCES=0.4.2=/path/to/sandbox-agent`, whose desktop
//! needs xdotool, imagemagick, xclip and x11-xserver-utils besides Xvfb and openbox).
//!
//! Not a timed test: it measures and prints. For each daemon, in one run on this machine:
//! the start of a 1920x1080 desktop (`POST /v1/desktop/start` until it answers), a full
//! 1920x1080 PNG screenshot (`GET /v1/desktop/screenshot`, the body read whole), a click
//! round trip (`POST /v1/desktop/mouse/click` until the test window has the button press), and
//! the idle memory of a started desktop (the daemon's RSS and its desktop programs', summed
//! over its process tree, two seconds after the start, before anything else is asked).

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use agentplex_test_window::{desktop_env, TestWindow};
use common::daemons::{Binary, Daemon};
use common::{percentile, rss_kib};
use serde_json::{json, Value};

const STARTS: usize = 3;
const SCREENSHOTS: usize = 10;
const CLICKS: usize = 20;

fn main() {
    let scratch = tempfile::tempdir().expect("scratch folder");
    let mut rows = Vec::new();
    for binary in Binary::all() {
        eprintln!("desktop bench: {}", binary.name);
        rows.push((binary.name.clone(), measure(&binary, scratch.path())));
    }
    println!("\n| daemon | desktop start (median of {STARTS}) | 1920x1080 PNG screenshot (median of {SCREENSHOTS}) | click round trip (median / p90 of {CLICKS}) | idle: daemon RSS | idle: desktop programs RSS |");
    println!("|---|---|---|---|---|---|");
    for (name, row) in &rows {
        println!(
            "| {name} | {:.1} ms | {:.1} ms ({} KiB) | {:.2} / {:.2} ms | {} MiB | {} MiB |",
            ms(row.start),
            ms(row.screenshot),
            row.screenshot_bytes / 1024,
            ms(row.click),
            ms(row.click_p90),
            row.daemon_kib / 1024,
            row.programs_kib / 1024,
        );
    }
}

struct Row {
    start: Duration,
    screenshot: Duration,
    screenshot_bytes: usize,
    click: Duration,
    click_p90: Duration,
    daemon_kib: u64,
    programs_kib: u64,
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// A blocking HTTP client of one daemon.
struct Api {
    http: reqwest::blocking::Client,
    base: String,
    token: Option<String>,
}

impl Api {
    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::blocking::RequestBuilder {
        let request = self.http.request(method, format!("{}{path}", self.base));
        match &self.token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    fn post(&self, path: &str, body: Value) -> Value {
        let response = self
            .request(reqwest::Method::POST, path)
            .json(&body)
            .send()
            .expect("POST");
        assert!(
            response.status().is_success(),
            "POST {path}: {}",
            response.status()
        );
        response.json().expect("a JSON answer")
    }

    fn get(&self, path: &str) -> reqwest::blocking::Response {
        let response = self
            .request(reqwest::Method::GET, path)
            .send()
            .expect("GET");
        assert!(
            response.status().is_success(),
            "GET {path}: {}",
            response.status()
        );
        response
    }
}

fn measure(binary: &Binary, scratch: &std::path::Path) -> Row {
    let (mut daemon, _) = Daemon::start(binary, scratch);
    let api = Api {
        http: reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap(),
        base: format!("http://127.0.0.1:{}", daemon.port),
        token: daemon.token.clone(),
    };
    let size = json!({ "width": 1920, "height": 1080 });
    let mut starts = Vec::new();
    for round in 0..STARTS {
        let begin = Instant::now();
        let status = api.post("/v1/desktop/start", size.clone());
        starts.push(begin.elapsed());
        assert_eq!(status["state"], "active", "{status}");
        if round + 1 < STARTS {
            api.post("/v1/desktop/stop", json!({}));
        }
    }
    let status: Value = api.get("/v1/desktop/status").json().unwrap();
    let display = status["display"].as_str().expect("a display").to_owned();
    // Idle: started, nothing asked of it yet.
    std::thread::sleep(Duration::from_secs(2));
    let pid = daemon.child.id();
    let daemon_kib = rss_kib(pid);
    let programs_kib: u64 = descendants(pid).into_iter().map(rss_kib).sum();

    // A window with something to show and to click.
    let env = desktop_env(&display, status["runtimeLogPath"].as_str());
    let window = TestWindow::open(&env, "bench", 600, 400, 0x3366cc);
    let id = window.id.to_string();
    let listed = wait_for(|| {
        let windows: Value = api.get("/v1/desktop/windows").json().ok()?;
        windows["windows"]
            .as_array()?
            .iter()
            .find(|listed| listed["id"] == id.as_str())
            .cloned()
    });
    let (x, y) = (
        listed["x"].as_i64().unwrap() + 300,
        listed["y"].as_i64().unwrap() + 200,
    );

    let mut shots = Vec::new();
    let mut bytes = 0;
    for _ in 0..SCREENSHOTS {
        let begin = Instant::now();
        let body = api.get("/v1/desktop/screenshot").bytes().unwrap();
        shots.push(begin.elapsed());
        bytes = body.len();
    }

    let mut clicks = Vec::new();
    for _ in 0..CLICKS {
        let before = window.received().clicks.len();
        let begin = Instant::now();
        api.post("/v1/desktop/mouse/click", json!({ "x": x, "y": y }));
        wait_for(|| (window.received().clicks.len() > before).then_some(()));
        clicks.push(begin.elapsed());
    }

    api.post("/v1/desktop/stop", json!({}));
    common::stop(&mut daemon.child);
    Row {
        start: percentile(&mut starts, 50.0),
        screenshot: percentile(&mut shots, 50.0),
        screenshot_bytes: bytes,
        click: percentile(&mut clicks, 50.0),
        click_p90: percentile(&mut clicks, 90.0),
        daemon_kib,
        programs_kib,
    }
}

/// Polls `check` until it answers (within ten seconds).
fn wait_for<T>(mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out");
        std::thread::sleep(Duration::from_micros(100));
    }
}

/// Every process under `pid`, from `/proc`.
fn descendants(pid: u32) -> Vec<u32> {
    let mut children: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The fields after the command's closing parenthesis: state, then the parent.
        let parent = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse().ok());
        if let Some(parent) = parent {
            children.entry(parent).or_default().push(child);
        }
    }
    let mut found = Vec::new();
    let mut queue = vec![pid];
    while let Some(next) = queue.pop() {
        for &child in children.get(&next).into_iter().flatten() {
            found.push(child);
            queue.push(child);
        }
    }
    found
}
