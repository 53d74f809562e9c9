//! Amp's file tools, as `file_ref` parts on their results.
//!
//! `Read` reads `path`, `create_file` writes `path`, `edit_file` and `undo_edit` patch
//! it. Amp's results carry no diff the adapter can rely on, so the parts have none.

use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

/// The `file_ref` part for a call of `name` with `input` (JSON text), when it is a
/// file tool with a `path`.
pub(crate) fn file_ref(name: &str, input: &str) -> Option<ContentPart> {
    let action = match name {
        "Read" => FileAction::Read,
        "create_file" => FileAction::Write,
        "edit_file" | "undo_edit" => FileAction::Patch,
        _ => return None,
    };
    let input: Value = serde_json::from_str(input).ok()?;
    let path = input.get("path")?.as_str()?;
    Some(item::file_ref(path, action, None))
}

/// A `tool_result` block's `content` as text: a string as it is, text blocks joined,
/// anything else as JSON.
pub(crate) fn result_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect();
            if texts.len() == blocks.len() {
                texts.join("")
            } else {
                content.to_string()
            }
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
