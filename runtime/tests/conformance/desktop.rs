//! The desktop's MCP tools on the real agents (`desktop: true`): the model asks for
//! a screenshot and receives it as an image, then asks for a click, which reaches a
//! test program's window on the daemon's desktop. Needs Debian's `xvfb` and
//! `openbox` (scripts/test.sh installs them) and `agentplex-test-window` (built
//! with the workspace's tests).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

use super::checks::items;
use super::harness::Harness;
use crate::common::api::{check_turns, ok_json, pretty};

/// The test program, beside the daemon's binary.
fn test_window() -> PathBuf {
    let program = PathBuf::from(crate::common::binary()).with_file_name("agentplex-test-window");
    assert!(
        program.exists(),
        "no {}: cargo build -p agentplex-test-window",
        program.display()
    );
    program
}

/// The parts of `items` of the type `part`.
fn parts<'e>(items: &[&'e Value], part: &str) -> Vec<&'e Value> {
    items
        .iter()
        .flat_map(|item| item["content"].as_array().into_iter().flatten())
        .filter(|p| p["type"] == part)
        .collect()
}

/// What the test program printed, one JSON value a line.
fn printed(h: &Harness, process: &str) -> Vec<Value> {
    let logs = ok_json(h.api().get(&format!("/v1/processes/{process}/logs")));
    let bytes: Vec<u8> = logs["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["stream"] == "stdout")
        .flat_map(|entry| {
            base64::engine::general_purpose::STANDARD
                .decode(entry["data"].as_str().unwrap())
                .unwrap()
        })
        .collect();
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The model sees the desktop and clicks on it through the session's tools; the
/// transcript shows the screenshot when `shown`: when the agent's output carries
/// the tool's image, not only a note of it (Gemini CLI and Qwen Code say
/// `[Image: image/png]` over ACP). `model`: the model the session asks for, when the
/// agent's default is not one it sends images to.
pub fn screenshot_and_click(h: &mut Harness, shown: bool, model: Option<&str>) {
    let api = h.api();
    ok_json(api.post_json("/v1/desktop/start", json!({ "width": 800, "height": 600 })));
    let launched = ok_json(api.post_json(
        "/v1/desktop/launch",
        json!({ "app": test_window(), "args": ["conformance", "240", "160", "22aa44"], "wait": true }),
    ));
    let process = launched["processId"].as_str().unwrap().to_owned();
    let window_id = launched["windowId"]
        .as_str()
        .unwrap_or_else(|| panic!("the test window is shown: {launched}"))
        .to_owned();
    let mut fields = json!({ "desktop": true });
    if let Some(model) = model {
        fields["model"] = json!(model);
    }
    let session = h.create_with("bypass", fields);
    assert_eq!(h.api().session_info(&session)["desktop"], true);

    // A screenshot: the tool is called, its answer reaches the model as an image,
    // and the transcript shows the call and the image.
    let events = h.turn(&session, "mcp: screenshot {}");
    check_turns(&events, true);
    // The call, and our answer in its result (Qwen Code names the tool in neither
    // its call nor its search, only in the result).
    assert!(
        !items(&events, "tool_call").is_empty(),
        "no call:\n{}",
        pretty(&events)
    );
    let results = items(&events, "tool_result");
    assert!(
        results.iter().any(|result| result
            .to_string()
            .contains("the whole screen, 800x600 pixels")),
        "no screenshot's result:\n{}",
        pretty(&events)
    );
    let images = parts(&results, "image");
    assert!(
        !shown
            || images.iter().any(|image| image["mime"] == "image/png"
                && image["path"]
                    .as_str()
                    .is_some_and(|path| path.starts_with("data:image/png;base64,"))),
        "the screenshot is an image of the tool's result:\n{}",
        pretty(&events)
    );
    let png_sent = h.model_requests().iter().any(|request| {
        let body = request["body"].to_string();
        // A PNG's signature, base64-encoded.
        body.contains("iVBORw0KGgo")
    });
    assert!(
        png_sent,
        "the screenshot never reached the model as an image"
    );

    // A click in the window's middle reaches the program.
    let windows = ok_json(h.api().get("/v1/desktop/windows"));
    let window = windows["windows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|window| window["id"] == window_id.as_str())
        .unwrap_or_else(|| panic!("the test window is listed: {windows}"))
        .clone();
    let (x, y) = (
        window["x"].as_i64().unwrap() + 120,
        window["y"].as_i64().unwrap() + 80,
    );
    let events = h.turn(&session, &format!(r#"mcp: click {{"x": {x}, "y": {y}}}"#));
    check_turns(&events, true);
    assert!(
        items(&events, "tool_result").iter().any(|result| result
            .to_string()
            .contains(&format!("clicked at ({x}, {y})"))),
        "no click's result:\n{}",
        pretty(&events)
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    let clicked = loop {
        let clicks: Vec<Value> = printed(h, &process)
            .into_iter()
            .filter_map(|line| line.get("click").cloned())
            .collect();
        if !clicks.is_empty() || Instant::now() > deadline {
            break clicks;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(
        clicked,
        vec![json!([1, 120, 80])],
        "the click reached the window"
    );
}
