//! The approval policy's scenario on a real agent CLI (docs/policies.md): what the
//! policy allows runs without the client, what it denies does not run, what it
//! leaves to the client is asked as before, and every decision is recorded with
//! the command the agent asked to run.

use serde_json::{json, Value};

use super::harness::Harness;
use crate::common::api::{decisions, pretty};

/// A decision of `decision` by `by`, about a `shell` request whose command line
/// holds `command`.
#[track_caller]
fn assert_decided(decided: &Value, decision: &str, by: &str, command: &str) {
    assert_eq!(
        (&decided["decision"], &decided["by"]),
        (&json!(decision), &json!(by)),
        "{decided:#}"
    );
    assert_eq!(decided["tool"], "shell", "{decided:#}");
    let line = decided["input"]["command"].as_str().unwrap_or_default();
    assert!(line.contains(command), "{decided:#}");
}

/// A policy allowing `touch allowed*`, denying `touch denied*` and asking the rest
/// decides the agent's three requests; an agent that never asks runs all three
/// unasked, and nothing is decided (the documented limit of a policy).
pub fn policy_decides(h: &Harness) {
    let policy = json!({
        "rules": [
            {"tool": "shell", "command": "touch allowed*", "decision": "allow"},
            {"tool": "shell", "command": "touch denied*", "decision": "deny"}
        ],
        "default": "ask"
    });
    let session = h.create_with("default", json!({ "policy": policy }));
    if !h.asks_permission() {
        let events = h.turn(&session, "run: touch denied.txt");
        assert!(decisions(&events).is_empty(), "{}", pretty(&events));
        assert!(h.path("denied.txt").exists(), "{}", pretty(&events));
        return;
    }

    // Allowed by rules[0]: runs, and the client is never asked.
    let events = h.turn(&session, "run: touch allowed.txt");
    let decided = decisions(&events);
    assert_eq!(decided.len(), 1, "{}", pretty(&events));
    assert_decided(decided[0], "allow", "rule", "touch allowed.txt");
    assert_eq!(decided[0]["rule"], 0);
    assert!(h.path("allowed.txt").exists(), "{}", pretty(&events));

    // Denied by rules[1]: the agent hears no, the file is not made.
    let events = h.turn(&session, "run: touch denied.txt");
    let decided = decisions(&events);
    assert_decided(decided[0], "deny", "rule", "touch denied.txt");
    assert_eq!(decided[0]["rule"], 1);
    assert!(!h.path("denied.txt").exists(), "{}", pretty(&events));
    let resolved = events.iter().find(|e| e["type"] == "permission.resolved");
    assert_eq!(
        resolved.expect("permission.resolved")["data"]["status"],
        "reject"
    );

    // Left to the client by the default: asked, answered, recorded.
    let offset = h.last_sequence(&session);
    h.send(&session, "run: touch asked.txt");
    let events = h.wait_for(&session, offset, "an ask", |e| {
        e["type"] == "permission.decided" && e["data"]["decision"] == "ask"
    });
    let asked = decisions(&events)[0];
    assert_decided(asked, "ask", "default", "touch asked.txt");
    let id = asked["permission_id"].as_str().unwrap().to_owned();
    h.reply_permission(&session, &id, "once");
    let events = h.wait_for_type(&session, offset, "turn.ended");
    let decided = decisions(&events);
    assert_decided(decided[1], "allow", "client", "touch asked.txt");
    assert!(h.path("asked.txt").exists(), "{}", pretty(&events));
}
