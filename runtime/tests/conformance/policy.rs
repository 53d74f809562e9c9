//! The approval policy's scenario on a real agent CLI (docs/policies.md): what the
//! policy allows runs without the client, what it denies does not run, what it
//! leaves to the client is asked as before, and every decision is recorded with
//! the command the agent asked to run.

use serde_json::{json, Value};

use super::checks::items;
use super::harness::Harness;
use super::policy_cases::withholds_denied_tools;
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
/// decides the agent's three requests, then policies deciding every command alike
/// replace it ([`native_rules`]); an agent that never asks runs all three unasked,
/// and nothing is decided (the documented limit of a policy).
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

    native_rules(h, &session);
}

/// A policy that decides every command and write alike, replaced on the running
/// session: an agent that takes native rules (Claude Code, OpenCode; Codex the
/// one that allows both) is handed the new rules and decides by itself, unasked,
/// each decision recorded as `native`
/// (OpenCode does not even offer its model a tool every call of which is
/// denied); the others ask, and the daemon decides the same way.
fn native_rules(h: &Harness, session: &str) {
    for (decision, file) in [("deny", "kind-denied.txt"), ("allow", "kind-allowed.txt")] {
        let policy = json!({
            "rules": [
                {"tool": "shell", "decision": decision},
                {"tool": "write", "decision": decision}
            ],
            "default": "ask"
        });
        // Codex takes only a policy allowing every command and patch.
        let native = match h.agent.id {
            "claude" | "opencode" => true,
            "codex" => decision == "allow",
            _ => false,
        };
        h.set_policy(session, policy);
        let events = h.turn(session, &format!("run: touch {file}"));
        assert_eq!(
            h.path(file).exists(),
            decision == "allow",
            "{}",
            pretty(&events)
        );
        let decided = decisions(&events);
        if decision == "deny" && withholds_denied_tools(h.agent.id) {
            // Its model is not offered the shell at all: no call, nothing decided.
            assert!(decided.is_empty(), "{}", pretty(&events));
            assert!(
                items(&events, "tool_call").is_empty(),
                "{}",
                pretty(&events)
            );
            continue;
        }
        assert_eq!(decided.len(), 1, "{}", pretty(&events));
        assert_decided(decided[0], decision, "rule", &format!("touch {file}"));
        assert_eq!(decided[0]["rule"], 0, "{:#}", decided[0]);
        assert_eq!(decided[0]["native"] == true, native, "{:#}", decided[0]);
        let asked = events.iter().any(|e| e["type"] == "permission.requested");
        assert_eq!(asked, !native, "{}", pretty(&events));
    }
}
