//! The desktop's MCP tools over HTTP, as an agent calls them, on a real Xvfb and
//! openbox: only a live grant's token opens the server, the desktop starts at the
//! first call, a screenshot is a PNG of the screen's size showing a test window in
//! its colour, a click reaches the window, and a refused request is a tool error
//! that says why. Needs Debian's `xvfb` and `openbox` (scripts/test.sh installs them).

use std::sync::Arc;
use std::time::{Duration, Instant};

use agentplex_desktop::Desktop;
use agentplex_desktop_mcp::{DesktopTools, Grantee, TOOLS};
use agentplex_processes::{ProcessManager, ProcessSettings};
use agentplex_test_window::TestWindow;
use base64::Engine as _;
use serde_json::{json, Value};

const GREEN: u32 = 0x22aa44;

/// One JSON-RPC request to the server with `authorization`; the HTTP status and body.
async fn call(url: &str, authorization: Option<&str>, method: &str, params: Value) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }));
    if let Some(authorization) = authorization {
        request = request.header("authorization", authorization);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// The result of calling `tool` with `arguments`.
async fn tool(url: &str, authorization: &str, tool: &str, arguments: Value) -> Value {
    let (status, body) = call(
        url,
        Some(authorization),
        "tools/call",
        json!({ "name": tool, "arguments": arguments }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body["result"].clone()
}

fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|part| part["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_sees_and_clicks_a_window_through_the_tools() {
    for program in ["Xvfb", "openbox"] {
        assert!(
            agentplex_desktop::deps::find(program).is_some(),
            "{program} is not installed: apt-get install -y xvfb openbox (scripts/test.sh does)"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let desktop = Arc::new(Desktop::new(dir.path().join("desktop")));
    let processes = Arc::new(ProcessManager::new(ProcessSettings::default()));
    let tools = DesktopTools::start(desktop.clone(), processes)
        .await
        .unwrap();
    let grant = tools.grant(Grantee {
        session_id: "s1".into(),
        directory: dir.path().to_owned(),
    });
    let (url, authorization) = (grant.url().to_owned(), grant.authorization());

    // Only the grant's token opens the server.
    for wrong in [None, Some("Bearer apd_wrong"), Some("Basic x")] {
        let (status, _) = call(&url, wrong, "tools/list", json!({})).await;
        assert_eq!(status, 401, "{wrong:?}");
    }
    let (status, body) = call(
        &url,
        Some(&authorization),
        "initialize",
        json!({ "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": { "name": "test", "version": "1" } }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["result"]["capabilities"]["tools"].is_object(),
        "{body}"
    );
    let (_, listed) = call(&url, Some(&authorization), "tools/list", json!({})).await;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), TOOLS.len(), "{listed}");
    for name in TOOLS {
        assert!(names.contains(name), "{name} not in {names:?}");
    }

    // The first call starts the desktop.
    let windows = tool(&url, &authorization, "windows", json!({})).await;
    assert_eq!(windows["isError"], false, "{windows}");
    let env = desktop.program_env().await.expect("the desktop runs");
    let window = TestWindow::open(&env, "tools test window", 300, 200, GREEN);
    let id = window.id.to_string();
    let deadline = Instant::now() + Duration::from_secs(5);
    let placed = loop {
        let windows = tool(&url, &authorization, "windows", json!({})).await;
        let listed: Vec<Value> = serde_json::from_str(&text_of(&windows)).unwrap();
        if let Some(found) = listed.into_iter().find(|listed| listed["id"] == id) {
            break found;
        }
        assert!(Instant::now() < deadline, "the test window is never listed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let (x, y) = (
        placed["x"].as_i64().unwrap() + 150,
        placed["y"].as_i64().unwrap() + 100,
    );

    // A screenshot: a PNG of the whole screen, the window's centre in its colour.
    let shot = tool(&url, &authorization, "screenshot", json!({})).await;
    let image = shot["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|part| part["type"] == "image")
        .unwrap_or_else(|| panic!("no image in {shot:#}"));
    assert_eq!(image["mimeType"], "image/png");
    let png = base64::engine::general_purpose::STANDARD
        .decode(image["data"].as_str().unwrap())
        .unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    let info = desktop.display_info().await.unwrap().resolution;
    assert_eq!((frame.width, frame.height), (info.width, info.height));
    let channels = frame.line_size / frame.width as usize;
    let at = y as usize * frame.line_size + x as usize * channels;
    assert_eq!(
        &pixels[at..at + 3],
        &[0x22, 0xaa, 0x44],
        "the window's centre in its colour"
    );
    assert!(text_of(&shot).contains("whole screen"), "{shot}");

    // A click reaches the window.
    let clicked = tool(&url, &authorization, "click", json!({ "x": x, "y": y })).await;
    assert_eq!(clicked["isError"], false, "{clicked}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while window.received().clicks.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(window.received().clicks, vec![(1, 150, 100)]);

    // Refused requests are tool errors that say why.
    for (name, arguments, says) in [
        ("key", json!({ "key": "ctrl+nosuchkey" }), "key"),
        ("click", json!({ "x": 100000, "y": 1 }), "x"),
        ("screenshot", json!({ "x": 1 }), "width"),
        ("open", json!({ "target": " " }), "target"),
    ] {
        let refused = tool(&url, &authorization, name, arguments).await;
        assert_eq!(refused["isError"], true, "{name}: {refused}");
        assert!(text_of(&refused).contains(says), "{name}: {refused}");
    }
    // Arguments of the wrong type too: the model reads what was expected.
    let refused = tool(
        &url,
        &authorization,
        "click",
        json!({ "x": "left", "y": 1 }),
    )
    .await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(text_of(&refused).contains("expected i32"), "{refused}");

    // The token dies with its grant.
    drop(grant);
    let (status, _) = call(&url, Some(&authorization), "tools/list", json!({})).await;
    assert_eq!(status, 401);
    desktop.shutdown().await;
}
