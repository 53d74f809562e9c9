//! `agentplex-test-window`: the test window as a program, for tests that drive the
//! desktop from outside (the inspector's browser suite launches it with
//! `POST /v1/desktop/launch`). It opens one window on `$DISPLAY` and prints one JSON
//! line per thing it received: `{"ready": ID}` first, then `{"click": [BUTTON, X, Y]}`
//! and `{"text": "..."}` (what was typed since the last line).
//!
//! `agentplex-test-window [TITLE [WIDTH HEIGHT [RRGGBB]]]`

use std::io::Write;
use std::thread;
use std::time::Duration;

use agentplex_test_window::{Received, TestWindow};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let title = args
        .first()
        .map(String::as_str)
        .unwrap_or("agentplex test window");
    let number = |index: usize, default: u16| {
        args.get(index)
            .and_then(|n| n.parse().ok())
            .unwrap_or(default)
    };
    let colour = args
        .get(3)
        .and_then(|hex| u32::from_str_radix(hex, 16).ok())
        .unwrap_or(0x3366cc);
    if std::env::var_os("DISPLAY").is_none() {
        eprintln!("agentplex-test-window: DISPLAY is not set");
        std::process::exit(2);
    }
    let env: Vec<(String, String)> = std::env::vars()
        .filter(|(name, _)| name == "DISPLAY" || name == "XAUTHORITY")
        .collect();
    let window = TestWindow::open(&env, title, number(1, 320), number(2, 240), colour);
    let mut out = std::io::stdout();
    let _ = writeln!(out, "{{\"ready\":{}}}", window.id);
    let _ = out.flush();
    let mut seen = Received::default();
    loop {
        thread::sleep(Duration::from_millis(20));
        let now = window.received();
        for (button, x, y) in &now.clicks[seen.clicks.len()..] {
            let _ = writeln!(out, "{{\"click\":[{button},{x},{y}]}}");
        }
        if now.text.len() > seen.text.len() {
            let typed = &now.text[seen.text.len()..];
            let _ = writeln!(out, "{{\"text\":{}}}", json_string(typed));
        }
        let _ = out.flush();
        seen = now;
    }
}

/// `text` as a JSON string.
fn json_string(text: &str) -> String {
    let mut json = String::from('"');
    for c in text.chars() {
        match c {
            '"' => json.push_str("\\\""),
            '\\' => json.push_str("\\\\"),
            '\n' => json.push_str("\\n"),
            c if (c as u32) < 0x20 => json.push_str(&format!("\\u{:04x}", c as u32)),
            c => json.push(c),
        }
    }
    json.push('"');
    json
}
