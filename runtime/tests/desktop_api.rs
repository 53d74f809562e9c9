//! `/v1/desktop/*` end to end against the real daemon binary, under a real Xvfb and
//! openbox: a real program launched and waited for (ffplay showing a colour), a test
//! window clicked and typed into over HTTP, the clipboard, a recording downloaded,
//! problems for bad input, and the desktop's programs gone after a stop and after the
//! daemon stops. Needs Debian's `xvfb`, `openbox` and `ffmpeg` (scripts/test.sh
//! installs them).

#[path = "common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use agentplex_test_window::{desktop_env, TestWindow};
use common::api::*;
use common::Daemon;
use serde_json::{json, Value};

/// Waits until `done` holds, or panics with `what`.
fn eventually<T>(what: &str, mut done: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(value) = done() {
            return value;
        }
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A region screenshot over HTTP, decoded.
fn region(api: &Api, window: &Value) -> image::RgbImage {
    let path = format!(
        "/v1/desktop/screenshot/region?x={}&y={}&width={}&height={}",
        window["x"], window["y"], window["width"], window["height"]
    );
    let response = api.get(&path);
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "image/png");
    let bytes = response.bytes().unwrap();
    image::load_from_memory(&bytes).unwrap().to_rgb8()
}

fn pids_alive(pids: &[u64]) -> Vec<u64> {
    pids.iter()
        .copied()
        .filter(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists())
        .collect()
}

#[test]
fn the_desktop_over_http() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    let status = api.get_ok("/v1/desktop/status");
    assert_eq!(status["state"], "inactive", "{status}");
    expect_problem(
        api.get("/v1/desktop/screenshot"),
        409,
        "desktop_not_running",
    );
    expect_problem(
        api.post_json("/v1/desktop/start", json!({ "width": 5 })),
        400,
        "invalid_request",
    );

    let status =
        ok_json(api.post_json("/v1/desktop/start", json!({ "width": 800, "height": 600 })));
    assert_eq!(status["state"], "active", "{status}");
    assert_eq!(status["resolution"]["width"], 800);
    let display = status["display"].as_str().unwrap().to_string();
    let info = api.get_ok("/v1/desktop/display/info");
    assert_eq!(
        (info["display"].as_str(), &info["resolution"]["height"]),
        (Some(display.as_str()), &json!(600))
    );
    let full = api.get("/v1/desktop/screenshot?format=jpeg&quality=50");
    assert_eq!(full.headers()["content-type"], "image/jpeg");
    let full = image::load_from_memory(&full.bytes().unwrap()).unwrap();
    assert_eq!((full.width(), full.height()), (800, 600));

    // A real program, launched and waited for: its window shows its colour.
    let launched = ok_json(api.post_json(
        "/v1/desktop/launch",
        json!({
            "app": "ffplay",
            "args": ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=red:s=160x120", "-window_title", "launched"],
            "wait": true,
        }),
    ));
    let window_id = launched["windowId"]
        .as_str()
        .expect("a window id")
        .to_string();
    let process = api.get_ok(&format!(
        "/v1/processes/{}",
        launched["processId"].as_str().unwrap()
    ));
    assert_eq!(process["status"], "running", "{process}");
    let windows = api.get_ok("/v1/desktop/windows")["windows"].clone();
    let launched_window = windows
        .as_array()
        .unwrap()
        .iter()
        .find(|window| window["id"] == window_id.as_str())
        .expect("the launched window is listed")
        .clone();
    assert_eq!(launched_window["title"], "launched");
    let red = eventually("ffplay draws its first frame", || {
        let image = region(&api, &launched_window);
        image
            .pixels()
            .all(|pixel| pixel.0[0] > 200 && pixel.0[1] < 60 && pixel.0[2] < 60)
            .then_some(image)
    });
    assert_eq!(red.dimensions(), (160, 120));

    // A test window clicked and typed into over HTTP.
    let env = desktop_env(&display, status["runtimeLogPath"].as_str());
    let window = TestWindow::open(&env, "clicked", 200, 100, 0x00ff00);
    let id = window.id.to_string();
    let listed = eventually("the test window is listed", || {
        let windows = api.get_ok("/v1/desktop/windows")["windows"].clone();
        windows
            .as_array()
            .unwrap()
            .iter()
            .find(|window| window["id"] == id.as_str())
            .cloned()
    });
    let (x, y) = (
        listed["x"].as_i64().unwrap() + 20,
        listed["y"].as_i64().unwrap() + 30,
    );
    let position = ok_json(api.post_json(
        "/v1/desktop/mouse/click",
        json!({ "x": x, "y": y, "button": "right" }),
    ));
    assert_eq!(
        (position["x"].as_i64(), position["window"].as_str()),
        (Some(x), Some(id.as_str()))
    );
    eventually("the click reaches the window", || {
        (window.received().clicks == vec![(3, 20, 30)]).then_some(())
    });
    let focused = ok_json(api.post_empty(&format!("/v1/desktop/windows/{id}/focus")));
    assert_eq!(focused["isActive"], true);
    ok_json(api.post_json("/v1/desktop/keyboard/type", json!({ "text": "typed ✓" })));
    ok_json(api.post_json(
        "/v1/desktop/keyboard/press",
        json!({ "key": "a", "modifiers": { "ctrl": true } }),
    ));
    eventually("the keys reach the window", || {
        let received = window.received();
        (received.text == "typed ✓" && received.with_control == vec!['a']).then_some(())
    });

    // The clipboard, both ways through the API.
    ok_json(api.post_json(
        "/v1/desktop/clipboard",
        json!({ "text": "on the clipboard" }),
    ));
    let clipboard = api.get_ok("/v1/desktop/clipboard");
    assert_eq!(
        (clipboard["selection"].as_str(), clipboard["text"].as_str()),
        (Some("clipboard"), Some("on the clipboard"))
    );

    // A short recording, downloaded as MP4.
    let recording = ok_json(api.post_json("/v1/desktop/recording/start", json!({ "fps": 5 })));
    expect_problem(
        api.post_empty("/v1/desktop/recording/start"),
        409,
        "desktop_conflict",
    );
    std::thread::sleep(Duration::from_millis(800));
    let stopped = ok_json(api.post_empty("/v1/desktop/recording/stop"));
    assert_eq!(
        (stopped["id"].clone(), stopped["status"].as_str()),
        (recording["id"].clone(), Some("completed"))
    );
    let rec = recording["id"].as_str().unwrap();
    let mp4 = api.get(&format!("/v1/desktop/recordings/{rec}/download"));
    assert_eq!(mp4.headers()["content-type"], "video/mp4");
    let mp4 = mp4.bytes().unwrap();
    assert_eq!(&mp4[4..8], b"ftyp", "an MP4 file starts with its ftyp box");
    assert_eq!(mp4.len() as u64, stopped["bytes"].as_u64().unwrap());
    assert_eq!(
        api.get_ok("/v1/desktop/recordings")["recordings"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    expect_no_content(
        api.delete(&format!("/v1/desktop/recordings/{rec}")),
        "deleting a recording",
    );
    expect_problem(
        api.get(&format!("/v1/desktop/recordings/{rec}")),
        404,
        "recording_not_found",
    );

    // Bad input: each problem names what is wrong.
    let problem = expect_problem(
        api.post_json("/v1/desktop/mouse/click", json!({ "x": 800, "y": 0 })),
        400,
        "invalid_request",
    );
    assert!(
        problem["detail"].as_str().unwrap().contains("`x`"),
        "{problem}"
    );
    let problem = expect_problem(
        api.post_json("/v1/desktop/keyboard/press", json!({ "key": "Hyperdrive" })),
        400,
        "invalid_request",
    );
    assert!(
        problem["detail"].as_str().unwrap().contains("`key`"),
        "{problem}"
    );
    let problem = expect_problem(
        api.get("/v1/desktop/screenshot/region?x=0&y=0&width=801&height=1"),
        400,
        "invalid_request",
    );
    assert!(
        problem["detail"].as_str().unwrap().contains("`width`"),
        "{problem}"
    );
    expect_problem(
        api.post_json("/v1/desktop/windows/4242/move", json!({ "x": 1, "y": 1 })),
        404,
        "window_not_found",
    );
    expect_problem(
        api.get("/v1/desktop/clipboard?selection=nope"),
        400,
        "invalid_request",
    );

    // The command line: a screenshot saved, a bad click refused with the problem.
    let shot = daemon.data_dir.path().join("cli.png");
    let cli = |args: &[&str]| {
        std::process::Command::new(common::binary())
            .args(["desktop"])
            .args(args)
            .args(["--endpoint", &daemon.endpoint, "--json"])
            .output()
            .expect("the CLI runs")
    };
    let saved = cli(&[
        "screenshot",
        "--region",
        "0,0,64,32",
        "--out",
        shot.to_str().unwrap(),
    ]);
    assert!(saved.status.success(), "{}", common::describe(&saved));
    let image = image::open(&shot).unwrap();
    assert_eq!((image.width(), image.height()), (64, 32));
    let refused = cli(&["click", "9999", "1"]);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("error: 400 Bad Request (invalid_request): `x`"),
        "{stderr}"
    );

    // Closing the launched window ends ffplay.
    ok_json(api.post_empty(&format!("/v1/desktop/windows/{window_id}/close")));
    eventually("ffplay exits once its window is closed", || {
        let process = api.get_ok(&format!(
            "/v1/processes/{}",
            launched["processId"].as_str().unwrap()
        ));
        (process["status"] == "exited").then_some(())
    });
    // Whatever the window manager focused next (or nothing), never a failure.
    let focused = api.get("/v1/desktop/windows/focused");
    assert!(
        matches!(focused.status().as_u16(), 200 | 404),
        "{}",
        focused.text().unwrap()
    );

    let status = api.get_ok("/v1/desktop/status");
    let pids: Vec<u64> = status["processes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["pid"].as_u64())
        .collect();
    assert!(pids.len() >= 2, "{status}");
    let stopped = ok_json(api.post_empty("/v1/desktop/stop"));
    assert_eq!(stopped["state"], "inactive");
    assert_eq!(pids_alive(&pids), Vec::<u64>::new());
    expect_problem(
        api.post_json("/v1/desktop/mouse/move", json!({ "x": 1, "y": 1 })),
        409,
        "desktop_not_running",
    );

    // Started again, it ends with the daemon.
    let status = ok_json(api.post_empty("/v1/desktop/start"));
    let pids: Vec<u64> = status["processes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["pid"].as_u64())
        .collect();
    drop(api);
    assert!(daemon.stop().success());
    eventually("the desktop stops with the daemon", || {
        pids_alive(&pids).is_empty().then_some(())
    });
}

#[test]
fn the_live_view_streams_frames_and_takes_input() {
    use futures::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use tokio_tungstenite::tungstenite::Message;

    let token = "desktop-token";
    let daemon = Daemon::start_with(common::Options {
        token: Some(token.into()),
        ..common::Options::default()
    });
    let api = Api::new(&daemon);
    let url = |query: &str| format!("ws://127.0.0.1:{}/v1/desktop/stream/ws{query}", daemon.port);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    // Not running: the handshake is refused with the problem's status.
    let refused = runtime
        .block_on(tokio_tungstenite::connect_async(url(&format!(
            "?access_token={token}"
        ))))
        .unwrap_err();
    assert!(refused.to_string().contains("409"), "{refused}");
    let status =
        ok_json(api.post_json("/v1/desktop/start", json!({ "width": 320, "height": 200 })));
    assert_eq!(status["state"], "active");

    runtime.block_on(async {
        for query in ["", "?access_token=wrong"] {
            let refused = tokio_tungstenite::connect_async(url(query))
                .await
                .unwrap_err();
            assert!(refused.to_string().contains("401"), "{query}: {refused}");
        }
        // Only the WebSockets take the token in the query.
        let other = reqwest::get(daemon.url(&format!("/v1/desktop/status?access_token={token}")))
            .await
            .unwrap();
        assert_eq!(other.status(), 401);
        let mut from_page = url(&format!("?access_token={token}"))
            .into_client_request()
            .unwrap();
        from_page
            .headers_mut()
            .insert("origin", "http://evil.example".parse().unwrap());
        let refused = tokio_tungstenite::connect_async(from_page)
            .await
            .unwrap_err();
        assert!(refused.to_string().contains("403"), "{refused}");

        let (mut socket, _) = tokio_tungstenite::connect_async(url(&format!(
            "?access_token={token}&fps=20&scale=0.5"
        )))
        .await
        .unwrap();
        let ready = socket.next().await.unwrap().unwrap();
        let ready: Value = serde_json::from_str(ready.to_text().unwrap()).unwrap();
        assert_eq!(
            ready,
            json!({ "type": "ready", "width": 320, "height": 200 })
        );
        let Message::Binary(frame) = socket.next().await.unwrap().unwrap() else {
            panic!("a binary frame after ready");
        };
        let frame = image::load_from_memory(&frame).unwrap();
        assert_eq!(
            (frame.width(), frame.height()),
            (160, 100),
            "frames at half size"
        );

        // Input in the screen's coordinates; the pointer goes where it was sent.
        let input = |frame: Value| Message::Text(frame.to_string().into());
        socket
            .send(input(json!({ "type": "mouseMove", "x": 300, "y": 190 })))
            .await
            .unwrap();
        let moved = eventually_async(|| async {
            let position: Value = reqwest::Client::new()
                .get(daemon.url("/v1/desktop/mouse/position"))
                .bearer_auth(token)
                .send()
                .await
                .ok()?
                .json()
                .await
                .ok()?;
            (position["x"] == 300 && position["y"] == 190).then_some(position)
        })
        .await;
        assert_eq!(moved["x"], 300);
        // Input the desktop refuses is answered with an error frame; the view goes on.
        socket
            .send(input(json!({ "type": "keyDown", "key": "NoSuchKey" })))
            .await
            .unwrap();
        let error = loop {
            match socket.next().await.unwrap().unwrap() {
                Message::Text(text) => break serde_json::from_str::<Value>(&text).unwrap(),
                _ => continue,
            }
        };
        assert_eq!(error["type"], "error");
        assert!(
            error["message"].as_str().unwrap().contains("`key`"),
            "{error}"
        );
        // A frame that is not an input frame closes it with the reason.
        socket
            .send(Message::Text("{\"type\":\"jump\"}".into()))
            .await
            .unwrap();
        let close = loop {
            match socket.next().await {
                Some(Ok(Message::Close(Some(close)))) => break close,
                Some(Ok(_)) => continue,
                other => panic!("expected a close frame, got {other:?}"),
            }
        };
        assert_eq!(u16::from(close.code), 1007);
        assert!(
            close.reason.contains("invalid input frame"),
            "{}",
            close.reason
        );
    });
    ok_json(api.post_empty("/v1/desktop/stop"));
}

/// Waits until `done` answers something, or panics.
async fn eventually_async<T, F: std::future::Future<Output = Option<T>>>(
    mut done: impl FnMut() -> F,
) -> T {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(value) = done().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A JSON-RPC request to an MCP server at `url` with `authorization`: the status.
fn mcp_status(api: &Api, url: &str, authorization: &str) -> u16 {
    api.client()
        .post(url)
        .header("authorization", authorization)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" }))
        .send()
        .unwrap()
        .status()
        .as_u16()
}

/// `desktop: true` hands the agent the desktop's MCP server with a token of the
/// session's own, which opens that server only (the daemon's token does not) and dies
/// with the session; it is refused where it cannot work.
#[test]
fn a_session_gets_the_desktop_tools_with_a_token_of_its_own() {
    let install_dir = tempfile::tempdir().unwrap();
    let config = install_dir.path().join("mcp-config.json");
    // A stand-in claude that keeps the MCP config it was given.
    common::fake_claude(
        install_dir.path(),
        &format!(
            "while [ $# -gt 0 ]; do [ \"$1\" = --mcp-config ] && cp \"$2\" '{0}.tmp' && mv '{0}.tmp' '{0}'; shift; done",
            config.display()
        ),
    );
    let daemon = Daemon::start_with(common::Options {
        token: Some("the-daemon-token".into()),
        args: vec![
            "--install-dir".into(),
            install_dir.path().display().to_string(),
        ],
        ..common::Options::default()
    });
    let api = Api::new(&daemon);

    // Refused where it cannot work: an agent without MCP servers, a server of the
    // client's with the tools' name.
    let problem = expect_problem(
        api.post_json(
            "/v1/sessions/m1",
            json!({ "agent": "mock", "desktop": true }),
        ),
        400,
        "invalid_request",
    );
    assert!(
        problem["detail"].as_str().unwrap().contains("mcp-servers"),
        "{problem}"
    );
    let taken = json!({ "desktop": { "type": "remote", "url": "http://127.0.0.1:9/" } });
    let problem = expect_problem(
        api.post_json(
            "/v1/sessions/c0",
            json!({ "agent": "claude", "desktop": true, "mcp": taken }),
        ),
        400,
        "invalid_request",
    );
    assert!(
        problem["detail"].as_str().unwrap().contains("mcp.desktop"),
        "{problem}"
    );

    ok_json(api.post_json(
        "/v1/sessions/c1",
        json!({ "agent": "claude", "desktop": true }),
    ));
    let info = api.session_info("c1");
    assert_eq!(info["desktop"], true, "{info}");
    assert!(info["mcp"].is_null(), "the grant is not listed: {info}");
    let given: Value = eventually("the agent gets its MCP config", || {
        std::fs::read(&config)
            .ok()
            .map(|bytes| serde_json::from_slice(&bytes).unwrap())
    });
    let server = &given["mcpServers"]["desktop"];
    assert_eq!(server["type"], "http", "{given}");
    let url = server["url"].as_str().unwrap();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let authorization = server["headers"]["Authorization"].as_str().unwrap();
    assert!(authorization.starts_with("Bearer apd_"), "{given}");
    assert!(!authorization.contains("the-daemon-token"));

    // The session's token opens the tools and nothing else; the daemon's token does
    // not open the tools.
    assert_eq!(mcp_status(&api, url, authorization), 200);
    assert_eq!(mcp_status(&api, url, "Bearer the-daemon-token"), 401);
    let status = api
        .client()
        .get(daemon.url("/v1/sessions"))
        .header("authorization", authorization)
        .send()
        .unwrap()
        .status();
    assert_eq!(status, 401);

    // It dies with the session.
    expect_no_content(api.delete("/v1/sessions/c1"), "deleting the session");
    eventually("the token dies with its session", || {
        (mcp_status(&api, url, authorization) == 401).then_some(())
    });
    drop(api);
    daemon.stop();

    // Where the desktop cannot run (no Xvfb on the PATH), a 501 that says what is
    // missing.
    let daemon = Daemon::start_with(common::Options {
        args: vec![
            "--install-dir".into(),
            install_dir.path().display().to_string(),
        ],
        env: vec![("PATH".into(), install_dir.path().display().to_string())],
        ..common::Options::default()
    });
    let api = Api::new(&daemon);
    let problem = expect_problem(
        api.post_json(
            "/v1/sessions/c2",
            json!({ "agent": "claude", "desktop": true }),
        ),
        501,
        "desktop_unavailable",
    );
    assert!(
        problem["detail"].as_str().unwrap().contains("xvfb"),
        "{problem}"
    );
}
