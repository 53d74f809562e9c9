//! Pi's tool executions (`tool_execution_start/update/end`) as `tool_result` items.
//!
//! The call itself is the `tool_call` item streamed with the assistant message. Its
//! execution becomes a `tool_result` item (parent: the call): started in progress,
//! `item.delta`s with the new output of each `tool_execution_update` (Pi sends the
//! output accumulated so far: bash streams it), completed with the final output,
//! `failed` when `isError`. Pi's file tools add a `file_ref` part: `read` → read,
//! `write` → write (no diff: Pi reports neither the old content nor a diff), `edit` →
//! patch with Pi's own diff (`details.diff`: changed lines marked `+`/`-` and numbered,
//! a few context lines, no hunk headers).

use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

use crate::native::{self, ToolEnd, ToolOutput, ToolStart, ToolUpdate};
use crate::state::{Out, Tool};

/// `tool_execution_start`: the result item starts.
pub(crate) fn started(o: &mut Out, message: ToolStart) {
    let call_id = message.tool_call_id;
    let known = o.turn().tools.contains_key(&call_id);
    if !known {
        // A call that did not come with the assistant message (an extension's).
        let call_item = o.item_id();
        let name = message.tool_name;
        let args = message
            .args
            .clone()
            .unwrap_or_else(sandbox_agent_adapter_kit::native::empty_object);
        let call = item::tool_call(call_item.clone(), &name, args.to_string(), &call_id)
            .with_native_id(&call_id);
        o.whole(call);
        let tool = Tool {
            call_item,
            name,
            args,
            ..Tool::default()
        };
        o.turn().tools.insert(call_id.clone(), tool);
    }
    if o.turn()
        .tools
        .get(&call_id)
        .is_some_and(|t| t.result_item.is_some())
    {
        o.unparsed("a tool that already started");
        return;
    }
    let result_item = o.item_id();
    let Some(tool) = o.turn().tools.get_mut(&call_id) else {
        return;
    };
    if let Some(args) = message.args.filter(|a| !a.is_null()) {
        tool.args = args;
    }
    tool.result_item = Some(result_item.clone());
    let item = item::tool_result(result_item, &call_id, "")
        .with_native_id(&call_id)
        .with_parent(tool.call_item.clone())
        .in_progress();
    o.emit(event::item_started(item));
}

/// `tool_execution_update`: the output that is new since the last update, as a delta.
pub(crate) fn updated(o: &mut Out, message: &ToolUpdate) {
    let call_id = message.tool_call_id.as_str();
    let output = native::content_text(message.partial_result.content.as_ref());
    let Some(tool) = o.turn().tools.get_mut(call_id) else {
        o.unparsed("an update of a tool that did not start");
        return;
    };
    let Some(result_item) = tool.result_item.clone() else {
        o.unparsed("an update of a tool that did not start");
        return;
    };
    if tool.done {
        o.unparsed("an update of a tool that already ended");
        return;
    }
    // Pi sends the whole output so far; when it no longer extends what was sent
    // (truncated), the final result has it all.
    let delta = output
        .strip_prefix(tool.output.as_str())
        .map(str::to_owned)
        .unwrap_or_default();
    tool.output = output;
    if !delta.is_empty() {
        o.emit(event::item_delta(result_item, delta));
    }
}

/// `tool_execution_end`: the result item completes, with the file it touched.
pub(crate) fn ended(o: &mut Out, message: &ToolEnd, directory: &str) {
    let call_id = message.tool_call_id.clone();
    let result = &message.result;
    let output = native::content_text(result.content.as_ref());
    let failed = message.is_error;
    let Some((started, done)) = o
        .turn()
        .tools
        .get(&call_id)
        .map(|t| (t.result_item.clone(), t.done))
    else {
        o.unparsed("the end of a tool that did not start");
        return;
    };
    if done {
        o.unparsed("the end of a tool that already ended");
        return;
    }
    let item_id = match &started {
        Some(id) => id.clone(),
        None => o.item_id(),
    };
    let Some(tool) = o.turn().tools.get_mut(&call_id) else {
        return;
    };
    tool.result_item = Some(item_id.clone());
    tool.output = output.clone();
    tool.done = true;
    let mut item = item::tool_result(item_id, &call_id, output)
        .with_native_id(&call_id)
        .with_parent(tool.call_item.clone());
    if failed {
        item = item.failed();
    } else if let Some(part) = file_ref(tool, result, directory) {
        item = item.with_part(part);
    }
    if started.is_some() {
        o.emit(event::item_completed(item));
    } else {
        o.whole(item);
    }
}

/// The file a successful `read`, `write` or `edit` touched.
fn file_ref(tool: &Tool, result: &ToolOutput, directory: &str) -> Option<ContentPart> {
    let path = tool.args.get("path").and_then(Value::as_str)?;
    let path = absolute(path, directory);
    let part = match tool.name.as_str() {
        "read" => item::file_ref(path, FileAction::Read, None),
        "write" => item::file_ref(path, FileAction::Write, None),
        "edit" => {
            let diff = result.details.diff.clone();
            item::file_ref(path, FileAction::Patch, diff)
        }
        _ => return None,
    };
    Some(part)
}

/// `path` as Pi resolves it: relative to the session's directory.
fn absolute(path: &str, directory: &str) -> String {
    if path.starts_with('/') || path.starts_with('~') || directory.is_empty() {
        path.to_owned()
    } else {
        format!("{}/{path}", directory.trim_end_matches('/'))
    }
}
