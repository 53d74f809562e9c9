//! Tool calls and their results as universal items.
//!
//! Every `tool_use` block becomes a `tool_call` item and every `tool_result` block a
//! `tool_result` item with the output text. The CLI's structured result
//! (`tool_use_result`) adds `file_ref` parts: `Read` → read, `Write` → write (with the
//! diff of the new or replaced content), `Edit`/`MultiEdit`/`NotebookEdit` → patch.

use sandbox_agent_adapter_kit::diff as kit_diff;
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

use crate::diff;
use crate::state::ToolCall;

/// The text of a `tool_result` block's `content`: a string, or the `text` of its
/// blocks joined with newlines.
pub(crate) fn output_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// The `tool_result` item `item_id` for `block` (a `tool_result` content block), with
/// the file it read or changed when the call and the structured result say which.
pub(crate) fn result_item(
    item_id: String,
    call: Option<&ToolCall>,
    block: &Value,
    structured: Option<&Value>,
) -> Item {
    let call_id = block
        .get("tool_use_id")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
    let mut result = item::tool_result(item_id, call_id, output_text(block.get("content")))
        .with_native_id(call_id);
    if let Some(call) = call {
        result = result.with_parent(call.item_id.clone());
        if let (false, Some(structured)) = (failed, structured.filter(|s| s.is_object())) {
            if let Some(part) = file_ref(call, structured) {
                result = result.with_part(part);
            }
        }
    }
    if failed {
        result.failed()
    } else {
        result
    }
}

/// The file a successful call read or changed.
fn file_ref(call: &ToolCall, structured: &Value) -> Option<ContentPart> {
    let path = path(call, structured)?;
    let part = match call.name.as_str() {
        "Read" => item::file_ref(path, FileAction::Read, None),
        "Write" => {
            let diff = match structured.get("type").and_then(Value::as_str) {
                Some("create") => structured
                    .get("content")
                    .and_then(Value::as_str)
                    .map(kit_diff::created),
                _ => structured.get("structuredPatch").and_then(diff::from_hunks),
            };
            item::file_ref(path, FileAction::Write, diff)
        }
        "Edit" | "MultiEdit" | "NotebookEdit" => {
            let diff = structured.get("structuredPatch").and_then(diff::from_hunks);
            item::file_ref(path, FileAction::Patch, diff)
        }
        _ => return None,
    };
    Some(part)
}

/// The file's path: as the model gave it in the call, else as the result names it.
fn path(call: &ToolCall, structured: &Value) -> Option<String> {
    let from_input = ["file_path", "notebook_path"]
        .iter()
        .find_map(|key| call.input.get(*key).and_then(Value::as_str));
    let from_result = structured
        .get("filePath")
        .and_then(Value::as_str)
        .or_else(|| {
            structured
                .get("file")
                .and_then(|file| file.get("filePath"))
                .and_then(Value::as_str)
        });
    from_input.or(from_result).map(str::to_owned)
}
