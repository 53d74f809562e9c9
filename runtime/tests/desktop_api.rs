//! `/v1/desktop/*` end to end against the real daemon binary, under a real Xvfb and
//! openbox: a real program launched and waited for (ffplay showing a colour), a test
//! window clicked and typed into over HTTP, the clipboard, a recording downloaded,
//! problems for bad input, and the desktop's programs gone after a stop and after the
//! daemon stops. Needs Debian's `xvfb`, `openbox` and `ffmpeg` (scripts/test.sh
//! installs them).

#[path = "common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use agentplex_test_window::TestWindow;
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
    let window = TestWindow::open(&display, "clicked", 200, 100, 0x00ff00);
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

    // Closing the launched window ends ffplay.
    ok_json(api.post_empty(&format!("/v1/desktop/windows/{window_id}/close")));
    eventually("ffplay exits once its window is closed", || {
        let process = api.get_ok(&format!(
            "/v1/processes/{}",
            launched["processId"].as_str().unwrap()
        ));
        (process["status"] == "exited").then_some(())
    });

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
