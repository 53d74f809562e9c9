//! The user's message as Codex `UserInput` items.

use sandbox_agent_adapter_kit::types::MessagePart;
use serde_json::{json, Value};

/// The `input` array of `turn/start` for a message: text parts as `text`, images as
/// `localImage` (Codex reads the file and sends it to the model), attached files as a
/// text line naming the path (Codex has no file input; its `mention` input is not shown
/// to the model), so the model can read the file with its tools.
pub(crate) fn user_input(parts: &[MessagePart]) -> Value {
    let items: Vec<Value> = parts
        .iter()
        .map(|part| match part {
            MessagePart::Text(text) => text_input(text),
            MessagePart::Image(image) => json!({ "type": "localImage", "path": image.path }),
            MessagePart::File(file) => text_input(&format!("Attached file: {}", file.path)),
        })
        .collect();
    Value::Array(items)
}

/// One `text` input item.
fn text_input(text: &str) -> Value {
    json!({ "type": "text", "text": text, "text_elements": [] })
}
