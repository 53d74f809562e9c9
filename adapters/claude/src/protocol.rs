//! The lines the adapter writes to the CLI's stdin (stream-json input and the control
//! protocol), one JSON object each.

use sandbox_agent_adapter_kit::prelude::*;
use serde_json::{json, Value};

/// The timer that gives up on an [`interrupt`] the CLI does not answer.
pub(crate) const INTERRUPT_TIMER: &str = "interrupt";

/// The handshake the CLI expects before anything else (no hooks, no SDK MCP servers).
pub(crate) fn initialize(request_id: &str) -> String {
    control_request(request_id, json!({ "subtype": "initialize" }))
}

/// Asks the CLI to interrupt the running turn; it answers with a `result`.
pub(crate) fn interrupt(request_id: &str) -> String {
    control_request(request_id, json!({ "subtype": "interrupt" }))
}

/// Replaces the CLI's permission rules (`None`: removes them) while it runs: its
/// inline flag settings, which this request merges key by key (a separate source
/// from a `--settings` file).
pub(crate) fn apply_permissions(request_id: &str, permissions: Option<Value>) -> String {
    let settings = json!({ "permissions": permissions });
    control_request(
        request_id,
        json!({ "subtype": "apply_flag_settings", "settings": settings }),
    )
}

/// A user message. Attachments are listed by path after the text: the CLI's
/// stream-json input only takes inline contents, which the adapter cannot read, and the
/// agent opens the files itself with its tools.
pub(crate) fn user_message(parts: &[MessagePart]) -> String {
    let attachments = text::attachment_paths(parts);
    let text = text::with_attached_files(text::message_text(parts), &attachments);
    json!({
        "type": "user",
        "message": { "role": "user", "content": [{ "type": "text", "text": text }] },
        "parent_tool_use_id": null,
    })
    .to_string()
}

/// Allows a `can_use_tool` request, with the tool input to run and any permission
/// updates (rules) to apply for the rest of the session.
pub(crate) fn allow(request_id: &str, input: &Value, updates: Option<Value>) -> String {
    let mut response = json!({ "behavior": "allow", "updatedInput": input });
    if let Some(updates) = updates {
        response["updatedPermissions"] = updates;
    }
    success(request_id, response)
}

/// Denies a `can_use_tool` request; `message` becomes the tool's (error) result.
pub(crate) fn deny(request_id: &str, message: &str) -> String {
    success(
        request_id,
        json!({ "behavior": "deny", "message": message }),
    )
}

/// Refuses a control request the adapter does not serve.
pub(crate) fn error(request_id: &str, message: &str) -> String {
    json!({
        "type": "control_response",
        "response": { "subtype": "error", "request_id": request_id, "error": message },
    })
    .to_string()
}

fn success(request_id: &str, response: Value) -> String {
    json!({
        "type": "control_response",
        "response": { "subtype": "success", "request_id": request_id, "response": response },
    })
    .to_string()
}

/// Asks the CLI to run with permission mode `mode` (its names: `default`,
/// `acceptEdits`, `plan`, `bypassPermissions`) from now on.
pub(crate) fn set_permission_mode(request_id: &str, mode: &str) -> String {
    control_request(
        request_id,
        json!({ "subtype": "set_permission_mode", "mode": mode }),
    )
}

/// Asks the CLI to run model `model` from its next message on.
pub(crate) fn set_model(request_id: &str, model: &str) -> String {
    control_request(
        request_id,
        json!({ "subtype": "set_model", "model": model }),
    )
}

/// Asks the CLI to run at effort level `effort` (`low`... `max`) from its
/// next message on: the flag settings it takes while it runs.
pub(crate) fn set_effort(request_id: &str, effort: &str) -> String {
    control_request(
        request_id,
        json!({ "subtype": "apply_flag_settings", "settings": { "effortLevel": effort } }),
    )
}

fn control_request(request_id: &str, request: Value) -> String {
    json!({ "type": "control_request", "request_id": request_id, "request": request }).to_string()
}
