//! The commands the adapter writes to Pi's stdin, one JSON object per line (Pi's RPC
//! mode, `docs/rpc.md` of the npm package).

use serde_json::{json, Value};

use crate::state::Prompt;

/// The timer that gives up on an abort Pi does not finish.
pub(crate) const ABORT_TIMER: &str = "abort";

/// Asks for the session's state; the response carries `sessionId`.
pub(crate) fn get_state(request_id: &str) -> String {
    json!({ "id": request_id, "type": "get_state" }).to_string()
}

/// Runs model `model_id` of `provider` from the next prompt on (one Pi's
/// registry has: the answer is an error otherwise).
pub(crate) fn set_model(request_id: &str, provider: &str, model_id: &str) -> String {
    json!({ "id": request_id, "type": "set_model", "provider": provider, "modelId": model_id })
        .to_string()
}

/// Asks Pi to think at `level` (`off`, `minimal`... `xhigh`) from its next
/// prompt on.
pub(crate) fn set_thinking_level(request_id: &str, level: &str) -> String {
    json!({ "id": request_id, "type": "set_thinking_level", "level": level }).to_string()
}

/// A user prompt, with its images inline (base64).
pub(crate) fn prompt(prompt: &Prompt) -> String {
    let mut command = json!({ "id": prompt.request_id, "type": "prompt", "message": prompt.text });
    let images: Vec<Value> = prompt
        .images
        .iter()
        .map(|image| {
            json!({
                "type": "image",
                "data": image.data.as_deref().unwrap_or_default(),
                "mimeType": image.mime,
            })
        })
        .collect();
    if !images.is_empty() {
        command["images"] = Value::Array(images);
    }
    command.to_string()
}

/// Aborts the running agent operation; Pi ends it with `agent_end`.
pub(crate) fn abort(request_id: &str) -> String {
    json!({ "id": request_id, "type": "abort" }).to_string()
}

/// The answer to an extension dialog: `value` for `select`/`input`/`editor`,
/// `confirmed` for `confirm`, `cancelled` when declined (`answer` is `None`).
pub(crate) fn dialog_response(request_id: &str, method: &str, answer: Option<&str>) -> String {
    let mut response = json!({ "type": "extension_ui_response", "id": request_id });
    match (method, answer) {
        (_, None) => response["cancelled"] = json!(true),
        ("confirm", Some(answer)) => response["confirmed"] = json!(answer == "yes"),
        (_, Some(answer)) => response["value"] = json!(answer),
    }
    response.to_string()
}
