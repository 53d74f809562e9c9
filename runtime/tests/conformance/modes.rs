//! A running session's modes changed (`PUT /v1/sessions/{id}/modes`) on the real
//! CLIs whose adapters declare `mode-change`: the agent, already running, takes
//! the new permission mode with the next message, both ways.

use serde_json::json;

use super::common::api::{ok_json, pretty};
use super::harness::Harness;

/// Runs `command` through the agent; whether it asked permission (rejected) and
/// whether the file it touches exists after the turn.
fn touch(h: &Harness, session: &str, file: &str) -> (bool, bool) {
    let offset = h.last_sequence(session);
    h.send(session, &format!("run: touch {file}"));
    let events = h.wait_for(
        session,
        offset,
        "a permission request or the turn's end",
        |e| e["type"] == "turn.ended" || e["type"] == "permission.requested",
    );
    let asked = events.last().unwrap();
    if asked["type"] == "permission.requested" {
        let id = asked["data"]["permission_id"].as_str().unwrap();
        h.reply_permission(session, id, "reject");
        h.wait_for_type(session, offset, "turn.ended");
        return (true, h.path(file).exists());
    }
    assert!(
        h.path(file).exists(),
        "{file} not made unasked:\n{}",
        pretty(&events)
    );
    (false, true)
}

/// The same running agent asks, then runs without asking once the session's
/// permission mode is `bypass`, then asks again once it is `default`.
pub fn modes_change(h: &Harness) {
    let session = h.create("default");
    assert_eq!(touch(h, &session, "modes-1.txt"), (true, false));
    let put = |modes| {
        ok_json(
            h.api()
                .put_json(&format!("/v1/sessions/{session}/modes"), modes),
        )
    };
    assert_eq!(
        put(json!({"permissionMode": "bypass"})),
        json!({"agentMode": "build", "permissionMode": "bypass"})
    );
    assert_eq!(touch(h, &session, "modes-2.txt"), (false, true));
    put(json!({"permissionMode": "default"}));
    assert_eq!(touch(h, &session, "modes-3.txt"), (true, false));
}
