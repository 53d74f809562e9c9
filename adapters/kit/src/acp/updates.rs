//! `session/update` notifications → universal events, and the items of a turn.
//!
//! Text and thought chunks stream into one assistant message or reasoning item
//! until something else arrives; `tool_call` opens a `tool_call` item and
//! `tool_call_update` (completed or failed) adds its `tool_result`, with diffs as
//! `file_ref` parts (an `edit` call that completes without a diff: its locations,
//! as written).

use crate::prelude::*;
use serde_json::{json, Value};

use super::diff;
use super::native::{Chunk, SessionUpdate, ToolCall, ToolCallUpdate, ToolContent, UpdateMeta};
use super::state::{OpenItem, State, ToolCall as OpenCall, TurnState};
use crate::native::Lenient;
use crate::process_state::ProcessState;

/// Turns one `session/update` (`params.update`) of the running turn into events.
/// `raw` is the native line. Updates outside a turn are shown as unparsed, except the
/// silent kinds (the agent's slash commands, its mode, the client's own message,
/// the session's details, its configuration options).
pub(crate) fn apply(state: &mut State, out: &mut Actions, update: &Value, raw: &str) {
    let meta: UpdateMeta = crate::native::read(update);
    let update = SessionUpdate::of(update);
    if update.is_silent() {
        return;
    }
    let ProcessState { ids, turn, .. } = &mut state.header;
    let Some(turn) = turn.as_mut() else {
        out.emit(event::unparsed(
            "session/update outside a turn",
            "stdout",
            raw,
        ));
        return;
    };
    // Some agents report the turn's tokens on an update (`_meta.usage`).
    let usage = meta.meta.usage;
    if let (Some(input), Some(output)) = (usage.input_tokens, usage.output_tokens) {
        turn.usage = Some(Usage::tokens(input, output));
    }
    match update {
        SessionUpdate::AgentMessageChunk(chunk) | SessionUpdate::AgentThoughtChunk(chunk)
            if chunk.content.text.is_none() =>
        {
            out.emit(event::unparsed("chunk without text", "stdout", raw));
        }
        SessionUpdate::AgentMessageChunk(Chunk { content }) => {
            let text = content.text.unwrap_or_default();
            // An empty chunk carries only `_meta` (the usage above).
            if !text.is_empty() {
                self::chunk(ids, turn, out, false, &text, raw);
            }
        }
        SessionUpdate::AgentThoughtChunk(Chunk { content }) => {
            let text = content.text.unwrap_or_default();
            if !text.is_empty() {
                self::chunk(ids, turn, out, true, &text, raw);
            }
        }
        SessionUpdate::ToolCall(call) => {
            close_open(turn, out, false);
            open_tool_call(ids, turn, out, &call, raw);
        }
        SessionUpdate::ToolCallUpdate(update) => {
            close_open(turn, out, false);
            tool_call_update(ids, turn, out, &update, raw);
        }
        SessionUpdate::Plan { entries } => {
            close_open(turn, out, false);
            let detail = entries.to_string();
            let item = item::status(ids.next("itm"), "plan", Some(detail));
            out.emit(event::item_started(item.clone().in_progress()).with_raw(raw))
                .emit(event::item_completed(item).with_raw(raw));
        }
        _ => {
            out.emit(event::unparsed("unknown session/update", "stdout", raw));
        }
    }
}

/// A text or thought chunk: a delta of the open item, or of a new one.
fn chunk(
    ids: &mut IdCounter,
    turn: &mut TurnState,
    out: &mut Actions,
    reasoning: bool,
    text: &str,
    raw: &str,
) {
    if turn.open.as_ref().is_some_and(|o| o.reasoning != reasoning) {
        close_open(turn, out, false);
    }
    let text = if reasoning {
        // The CLI formats a thought as `**subject**\n<text>`; without a subject
        // only the empty bold marks remain.
        text.strip_prefix("****\n").unwrap_or(text)
    } else {
        text
    };
    let open = turn.open.get_or_insert_with(|| {
        let item_id = ids.next("itm");
        let started = if reasoning {
            item::reasoning(&item_id, "", ReasoningVisibility::Public)
        } else {
            item::assistant_text(&item_id, "")
        };
        out.emit(event::item_started(started.in_progress().without_content()).with_raw(raw));
        OpenItem {
            item_id,
            reasoning,
            text: String::new(),
        }
    });
    open.text.push_str(text);
    out.emit(event::item_delta(open.item_id.clone(), text).with_raw(raw));
}

/// Completes the streaming message or reasoning item, if any (`failed` when the
/// turn was interrupted).
pub(crate) fn close_open(turn: &mut TurnState, out: &mut Actions, failed: bool) {
    let Some(open) = turn.open.take() else {
        return;
    };
    let mut item = if open.reasoning {
        item::reasoning(open.item_id, open.text, ReasoningVisibility::Public)
    } else {
        item::assistant_text(open.item_id, open.text)
    };
    if failed {
        item = item.failed();
    }
    out.emit(event::item_completed(item).synthetic());
}

/// The tool's name: the CLI's call ids are `<tool>__<tool>_<time>_<n>`; else the
/// ACP kind (`execute`, `edit`, `read`...).
fn tool_name(tool_call: &ToolCall) -> String {
    match tool_call.tool_call_id.split_once("__") {
        Some((name, _)) if !name.is_empty() => name.to_owned(),
        _ => tool_call.kind.as_str().unwrap_or("tool").to_owned(),
    }
}

/// A `tool_call` item for an ACP tool call (from `tool_call`, or from the
/// `toolCall` of a permission request): its arguments are the CLI's description
/// (title, kind, locations), as ACP carries no raw input.
pub(crate) fn open_tool_call(
    ids: &mut IdCounter,
    turn: &mut TurnState,
    out: &mut Actions,
    tool_call: &ToolCall,
    raw: &str,
) {
    let call_id = tool_call.tool_call_id.clone();
    if turn.tools.contains_key(&call_id) {
        return;
    }
    let mut arguments = json!({
        "title": tool_call.title,
        "kind": tool_call.kind,
        "locations": tool_call.locations,
    });
    if !tool_call.raw_input.is_null() {
        arguments["rawInput"] = tool_call.raw_input.clone();
    }
    let item_id = ids.next("itm");
    let call = item::tool_call(
        &item_id,
        tool_name(tool_call),
        arguments.to_string(),
        &call_id,
    )
    .with_native_id(&call_id);
    out.emit(event::item_started(call.clone().in_progress()).with_raw(raw))
        .emit(event::item_completed(call).with_raw(raw));
    turn.tools.insert(
        call_id,
        OpenCall {
            item_id,
            done: false,
            edits: match tool_call.kind.as_str() {
                Some("edit") => tool_call.location_paths(),
                _ => Vec::new(),
            },
        },
    );
}

/// A `tool_call_update`: the `tool_result` once the call completed or failed.
fn tool_call_update(
    ids: &mut IdCounter,
    turn: &mut TurnState,
    out: &mut Actions,
    update: &ToolCallUpdate,
    raw: &str,
) {
    let status = update.status.as_str();
    if !matches!(status, "completed" | "failed") {
        // Progress of a running call: nothing to show yet.
        return;
    }
    open_tool_call(ids, turn, out, &update.call, raw);
    let call_id = update.call.tool_call_id.as_str();
    let Some(call) = turn.tools.get_mut(call_id) else {
        return;
    };
    call.done = true;
    let mut texts = Vec::new();
    let mut files = Vec::new();
    for content in update.content.iter().filter_map(Lenient::get) {
        match content {
            ToolContent::Diff {
                path,
                old_text,
                new_text,
            } => {
                let action = if old_text.is_empty() {
                    FileAction::Write
                } else {
                    FileAction::Patch
                };
                files.push(item::file_ref(
                    path,
                    action,
                    Some(diff::unified(path, old_text, new_text)),
                ));
            }
            ToolContent::Content { content } => {
                if let Some(text) = &content.text {
                    texts.push(text.clone());
                }
            }
        }
    }
    if texts.is_empty() {
        match &update.raw_output {
            Value::Null => {}
            Value::String(text) => texts.push(text.clone()),
            other => texts.push(other.to_string()),
        }
    }
    if update.call.kind == "read" {
        for path in update.call.location_paths() {
            files.push(item::file_ref(path, FileAction::Read, None));
        }
    }
    if status == "completed" && files.is_empty() {
        // An edit the agent showed no diff of: the files it named were written.
        for path in &call.edits {
            files.push(item::file_ref(path, FileAction::Write, None));
        }
    }
    let mut result = item::tool_result(ids.next("itm"), call_id, texts.join("\n"))
        .with_parent(&call.item_id)
        .with_native_id(call_id);
    result.content.extend(files);
    if status == "failed" {
        result = result.failed();
    }
    out.emit(event::item_started(result.clone().in_progress()).with_raw(raw))
        .emit(event::item_completed(result).with_raw(raw));
}

/// A synthetic failed `tool_result` for a call that will report none (its
/// permission was rejected, or the turn was cancelled), with `output`: started,
/// then completed, as every item.
pub(crate) fn fail_tool_call(
    ids: &mut IdCounter,
    turn: &mut TurnState,
    out: &mut Actions,
    call_id: &str,
    output: &str,
) {
    let Some(call) = turn.tools.get_mut(call_id).filter(|c| !c.done) else {
        return;
    };
    call.done = true;
    let result = item::tool_result(ids.next("itm"), call_id, output)
        .with_parent(&call.item_id)
        .with_native_id(call_id)
        .failed();
    out.emit(event::item_started(result.clone().in_progress()).synthetic())
        .emit(event::item_completed(result).synthetic());
}
