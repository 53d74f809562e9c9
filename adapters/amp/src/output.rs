//! A turn process's stdout, one stream-json line at a time, as universal events.
//!
//! | native line | universal events |
//! |---|---|
//! | any line's `session_id` (Amp's thread id) | `set-native-session-id` when it changes |
//! | `system/init` | nothing |
//! | other `system/*` | a `status` item (label = subtype) |
//! | `user` text, the first of the turn | nothing (Amp echoes the prompt; the adapter already emitted it) |
//! | `user` text, later or inside a subagent | a `user` message item |
//! | `user` `tool_result` | a `tool_result` item (parent = its call; `failed` when `is_error`; `file_ref` for file tools) |
//! | `assistant` `text` / `thinking` / `tool_use` blocks | an assistant message (one delta) / a reasoning item / a `tool_call` item, in order |
//! | `result` `success` | `turn.ended` with the turn's summed usage |
//! | `result` with `is_error` | `error` (code = subtype), then `turn.ended` |
//! | anything else, unknown content blocks, lines after the `result` | `agent.unparsed` with the line |
//!
//! Lines with a `parent_tool_use_id` come from a subagent: their items get the
//! `Task` call's item as `parent_id`. Every event made from a line carries it as `raw`.

use sandbox_agent_adapter_kit::prelude::*;
use serde_json::{json, Value};

use crate::state::{Call, State, TurnState};
use crate::tools;

/// The events of one native line.
struct Line<'a> {
    state: &'a mut State,
    out: &'a mut Actions,
    raw: &'a str,
}

/// Turns one stdout line of the running turn's process into actions.
pub(crate) fn line(state: &mut State, out: &mut Actions, raw: &str) {
    let mut line = Line { state, out, raw };
    let Ok(value) = serde_json::from_str::<Value>(raw) else {
        return line.unparsed("not JSON");
    };
    if line.state.turn.is_none() {
        return line.unparsed("output after the turn ended");
    }
    line.thread(&value);
    let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "system" => line.system(&value),
        "assistant" => line.assistant(&value),
        "user" => line.user(&value),
        "result" => line.result(&value),
        _ => line.unparsed("unknown line type"),
    }
}

impl Line<'_> {
    /// Emits `event` with the line as its raw payload.
    fn emit(&mut self, event: EmittedEvent) {
        self.out.emit(event.with_raw(self.raw));
    }

    /// `agent.unparsed` for the whole line.
    fn unparsed(&mut self, error: &str) {
        self.out
            .emit(event::unparsed(error, "stdout", text::raw_json(self.raw)));
    }

    /// The running turn (every caller checked there is one).
    fn turn(&mut self) -> &mut TurnState {
        self.state.turn.get_or_insert_with(TurnState::default)
    }

    /// Records Amp's thread id when a line names a new one.
    fn thread(&mut self, value: &Value) {
        let Some(id) = value.get("session_id").and_then(Value::as_str) else {
            return;
        };
        if !id.is_empty() && self.state.thread.as_deref() != Some(id) {
            self.state.thread = Some(id.to_owned());
            self.out.set_native_session_id(id.to_owned());
        }
    }

    /// The item of the subagent call a line belongs to, if any.
    fn parent(&mut self, value: &Value) -> Option<String> {
        let call = value.get("parent_tool_use_id")?.as_str()?;
        self.turn().calls.get(call).map(|c| c.item_id.clone())
    }

    /// Emits `item` as started (in progress, without content) then completed.
    fn whole_item(&mut self, item: Item, parent: &Option<String>) {
        let item = match parent {
            Some(parent) => item.with_parent(parent.clone()),
            None => item,
        };
        self.emit(event::item_started(
            item.clone().in_progress().without_content(),
        ));
        self.emit(event::item_completed(item));
    }

    /// `system/init` is silent; other subtypes are status notices.
    fn system(&mut self, value: &Value) {
        let subtype = value.get("subtype").and_then(Value::as_str).unwrap_or("");
        if subtype == "init" {
            return;
        }
        let id = self.state.ids.next("itm");
        let detail = Some(value.to_string());
        self.whole_item(item::status(id, subtype, detail), &None);
    }

    /// An `assistant` message: its usage, then one item per content block.
    fn assistant(&mut self, value: &Value) {
        let message = value.get("message").unwrap_or(&Value::Null);
        if let Some(usage) = message.get("usage") {
            let usage = Usage::from_anthropic(usage);
            self.turn()
                .tokens
                .get_or_insert_with(Default::default)
                .add(&usage);
        }
        let parent = self.parent(value);
        let blocks = message.get("content").and_then(Value::as_array);
        for block in blocks.into_iter().flatten() {
            self.assistant_block(block, &parent);
        }
    }

    /// One content block of an `assistant` message.
    fn assistant_block(&mut self, block: &Value, parent: &Option<String>) {
        let str_of = |key: &str| block.get(key).and_then(Value::as_str);
        match (block.get("type").and_then(Value::as_str), str_of("text")) {
            (Some("text"), Some(text)) => {
                let id = self.state.ids.next("itm");
                let item = item::assistant_text(id.clone(), text);
                let item = match parent {
                    Some(parent) => item.with_parent(parent.clone()),
                    None => item,
                };
                self.emit(event::item_started(
                    item.clone().in_progress().without_content(),
                ));
                self.emit(event::item_delta(id, text));
                self.emit(event::item_completed(item));
            }
            (Some("thinking"), _) => {
                let thinking = str_of("thinking").unwrap_or("");
                let id = self.state.ids.next("itm");
                let item = item::reasoning(id, thinking, ReasoningVisibility::Public);
                self.whole_item(item, parent);
            }
            (Some("tool_use"), _) => {
                let call_id = str_of("id").unwrap_or("").to_owned();
                let name = str_of("name").unwrap_or("").to_owned();
                let input = block.get("input").unwrap_or(&json!({})).to_string();
                let item_id = self.state.ids.next("itm");
                let item = item::tool_call(item_id.clone(), &name, &input, &call_id)
                    .with_native_id(&call_id);
                self.whole_item(item, parent);
                let call = Call {
                    item_id,
                    name,
                    input,
                };
                self.turn().calls.insert(call_id, call);
            }
            _ => self.unparsed("unknown assistant content block"),
        }
    }

    /// A `user` message: the prompt's echo, tool results, or a subagent's prompt.
    fn user(&mut self, value: &Value) {
        let parent = self.parent(value);
        let in_subagent = value
            .get("parent_tool_use_id")
            .is_some_and(|p| !p.is_null());
        let message = value.get("message").unwrap_or(&Value::Null);
        let blocks = message.get("content").and_then(Value::as_array);
        for block in blocks.into_iter().flatten() {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                    if !in_subagent && !self.turn().echoed {
                        self.turn().echoed = true;
                        continue;
                    }
                    let id = self.state.ids.next("itm");
                    let item = item::user_message(id, &[MessagePart::Text(text.to_owned())]);
                    self.whole_item(item, &parent);
                }
                Some("tool_result") => self.tool_result(block),
                _ => self.unparsed("unknown user content block"),
            }
        }
    }

    /// A `tool_result` block: a `tool_result` item under its call.
    fn tool_result(&mut self, block: &Value) {
        let call_id = block
            .get("tool_use_id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let output = tools::result_text(block.get("content").unwrap_or(&Value::Null));
        let id = self.state.ids.next("itm");
        let mut item = item::tool_result(id, &call_id, output).with_native_id(&call_id);
        if let Some(call) = self.turn().calls.get(&call_id).cloned() {
            item = item.with_parent(call.item_id);
            if let Some(part) = tools::file_ref(&call.name, &call.input) {
                item = item.with_part(part);
            }
        }
        if block.get("is_error").and_then(Value::as_bool) == Some(true) {
            item = item.failed();
        }
        self.whole_item(item, &None);
    }

    /// The `result` line ends the turn (after an `error` when it failed).
    fn result(&mut self, value: &Value) {
        let subtype = value.get("subtype").and_then(Value::as_str).unwrap_or("");
        let is_error = value.get("is_error").and_then(Value::as_bool) == Some(true);
        if is_error || subtype != "success" {
            let message = value
                .get("error")
                .or_else(|| value.get("result"))
                .and_then(Value::as_str)
                .unwrap_or("Amp reported an error");
            let code = if subtype.is_empty() { "error" } else { subtype };
            self.emit(event::error(message, Some(code)));
        }
        let Some(turn) = self.state.turn.take() else {
            return;
        };
        let mut ended = Turn::with_id(turn.id);
        if let Some(tokens) = turn.tokens {
            ended = ended.with_usage(tokens.usage());
        }
        self.emit(event::turn_ended(ended));
    }
}
