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
use crate::native::{StructuredResult, ToolOutput, ToolResult};
use crate::state::ToolCall;

/// The `tool_result` item `item_id` for `block` (a `tool_result` content block), with
/// the file it read or changed when the call and the structured result say which.
pub(crate) fn result_item(
    item_id: String,
    call: Option<&ToolCall>,
    block: &ToolResult,
    structured: Option<&StructuredResult>,
) -> Item {
    let call_id = block.tool_use_id.as_str();
    let failed = block.is_error;
    let output = block.content.as_ref().map(ToolOutput::text);
    let mut result =
        item::tool_result(item_id, call_id, output.unwrap_or_default()).with_native_id(call_id);
    for image in block.content.iter().flat_map(ToolOutput::images) {
        result = result.with_part(image);
    }
    if let Some(call) = call {
        result = result.with_parent(call.item_id.clone());
        if let (false, Some(structured)) = (failed, structured) {
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
fn file_ref(call: &ToolCall, structured: &StructuredResult) -> Option<ContentPart> {
    let path = path(call, structured)?;
    let part = match call.name.as_str() {
        "Read" => item::file_ref(path, FileAction::Read, None),
        "Write" => {
            let diff = match structured.kind.as_deref() {
                Some("create") => structured.content.as_deref().map(kit_diff::created),
                _ => diff::from_hunks(&structured.structured_patch),
            };
            item::file_ref(path, FileAction::Write, diff)
        }
        "Edit" | "MultiEdit" | "NotebookEdit" => {
            let diff = diff::from_hunks(&structured.structured_patch);
            item::file_ref(path, FileAction::Patch, diff)
        }
        _ => return None,
    };
    Some(part)
}

/// The file's path: as the model gave it in the call (its input is free-form), else
/// as the result names it.
fn path(call: &ToolCall, structured: &StructuredResult) -> Option<String> {
    let from_input = ["file_path", "notebook_path"]
        .iter()
        .find_map(|key| call.input.get(*key).and_then(Value::as_str));
    let from_result = structured
        .file_path
        .as_deref()
        .or(structured.file.file_path.as_deref());
    from_input.or(from_result).map(str::to_owned)
}
