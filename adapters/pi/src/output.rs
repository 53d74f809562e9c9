//! Pi's stdout, one RPC line at a time, as universal events.
//!
//! | native line | universal events |
//! |---|---|
//! | `response` to `get_state` | `set-native-session-id` (when it changes) |
//! | `response` with `success: false` | `error` (a refused `prompt` also ends the turn) |
//! | `agent_start`, `turn_start`, `turn_end`, `queue_update`, other responses | nothing |
//! | `message_start` / `message_end` of the user's message or a tool result | nothing (the adapter emitted the user item; `tool_execution_*` carry the result) |
//! | `message_update` `text_start` / `thinking_start` / `toolcall_start` | `item.started`: assistant text, reasoning, `tool_call` |
//! | `message_update` `text_delta` / `thinking_delta` | `item.delta` |
//! | `message_update` `text_end` / `thinking_end` / `toolcall_end` | `item.completed` |
//! | `message_end` of an assistant message | blocks that did not stream as whole items; `error` when it failed (`stopReason: error`); its usage is added to the turn's |
//! | `message_end` of another message (extension messages) | a `system` item |
//! | `tool_execution_*` | a `tool_result` item (see `tools`) |
//! | `agent_end` | `turn.ended` with the summed usage |
//! | `compaction_*`, `auto_retry_*` | a `status` item |
//! | `extension_error` | `error` |
//! | `extension_ui_request` | a question or a `status` item (see `dialogs`) |
//! | anything else | `agent.unparsed` with the line |

use sandbox_agent_adapter_kit::prelude::*;
use serde_json::{json, Value};

use crate::dialogs;
use crate::state::{Block, BlockKind, State, Tool, TurnState};
use crate::tools;

/// The session's state and the actions of the current input, plus where the events
/// come from.
pub(crate) struct Output<'a> {
    /// The session's state.
    pub state: &'a mut State,
    /// The actions being returned.
    pub out: &'a mut Actions,
    /// The session's working directory (relative tool paths are resolved in it).
    pub directory: &'a str,
    origin: Origin<'a>,
}

impl<'a> Output<'a> {
    /// For events that come from `origin` (a Pi line, the adapter answering the
    /// client, or a gap in Pi's stream).
    pub fn new(
        state: &'a mut State,
        out: &'a mut Actions,
        directory: &'a str,
        origin: Origin<'a>,
    ) -> Self {
        Self {
            state,
            out,
            directory,
            origin,
        }
    }

    /// Emits `event`, marked by where it comes from.
    pub fn emit(&mut self, event: EmittedEvent) {
        self.out.emit(self.origin.mark(event));
    }

    /// Writes one line to the live Pi process (nothing when none runs).
    pub fn write(&mut self, line: &str) {
        if let Some(process) = &self.state.process {
            self.out.write_line(process.id.clone(), line);
        }
    }

    /// A fresh item id.
    pub fn item_id(&mut self) -> String {
        self.state.ids.next("itm")
    }

    /// The running turn; a synthetic one is opened when Pi started one by itself.
    pub fn turn(&mut self) -> &mut TurnState {
        let state = &mut *self.state;
        if state.turn.is_none() {
            let id = self.out.start_turn(&mut state.ids);
            state.turn = Some(TurnState {
                id,
                ..TurnState::default()
            });
        }
        state.turn.get_or_insert_with(TurnState::default)
    }

    /// Emits `turn.ended` for the running turn with its usage: closes what is still
    /// open (failed), declines pending dialogs, and marks a cancelled turn. Nothing
    /// when no turn runs.
    pub fn end_turn(&mut self) {
        let Some(turn) = self.state.turn.take() else {
            return;
        };
        for block in turn.blocks.values().filter(|b| !b.done) {
            self.emit(event::item_completed(block_item(block).failed()));
        }
        for (call_id, tool) in &turn.tools {
            if let Some(result_item) = &tool.result_item {
                if !tool.done {
                    let item = item::tool_result(result_item.clone(), call_id, &tool.output)
                        .with_native_id(call_id)
                        .with_parent(tool.call_item.clone())
                        .failed();
                    self.emit(event::item_completed(item));
                }
            }
        }
        dialogs::decline_all(self);
        let mut data = Turn::with_id(turn.id);
        data.usage = turn.usage;
        if turn.cancelling {
            data = data.with_metadata(json!({ "cancelled": true }).to_string());
            self.out.cancel_timer(crate::session::ABORT_TIMER);
        }
        self.emit(event::turn_ended(data));
    }

    /// Handles one stdout line of Pi.
    pub fn line(&mut self, line: &str) {
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            self.unparsed("not a JSON line");
            return;
        };
        match str_field(&message, "type") {
            "response" => self.response(&message),
            "agent_start" => {
                self.turn();
            }
            "turn_start" | "turn_end" | "queue_update" => {}
            "message_start" => {
                if role(&message) == "assistant" {
                    self.turn().blocks.clear();
                }
            }
            "message_update" => self.message_update(&message),
            "message_end" => self.message_end(&message),
            "tool_execution_start" => tools::started(self, &message),
            "tool_execution_update" => tools::updated(self, &message),
            "tool_execution_end" => tools::ended(self, &message),
            "agent_end" => {
                self.state.persisted = true;
                self.end_turn();
            }
            "compaction_start" | "compaction_end" | "auto_retry_start" | "auto_retry_end" => {
                self.status(&message)
            }
            "extension_error" => {
                let text = format!(
                    "extension {} failed on {}: {}",
                    str_field(&message, "extensionPath"),
                    str_field(&message, "event"),
                    str_field(&message, "error")
                );
                self.emit(event::error(text, Some("extension_error")));
            }
            "extension_ui_request" => dialogs::request(self, &message),
            other => self.unparsed(&format!("unknown message type {other:?}")),
        }
    }

    /// Reports the line as not understood.
    pub fn unparsed(&mut self, error: &str) {
        if let Origin::Line(line) = self.origin {
            self.out
                .emit(event::unparsed(error, "stdout", text::raw_json(line)));
        }
    }

    /// `item.started` (in progress) then `item.completed` of `item`.
    pub fn whole(&mut self, item: Item) {
        self.emit(event::item_started(item.clone().in_progress()));
        self.emit(event::item_completed(item));
    }

    fn response(&mut self, message: &Value) {
        let id = str_field(message, "id");
        let success = message.get("success").and_then(Value::as_bool) == Some(true);
        let command = str_field(message, "command");
        if command == "get_state" && success {
            let session = message
                .get("data")
                .map(|data| str_field(data, "sessionId"))
                .unwrap_or_default();
            if !session.is_empty() && self.state.native_session_id.as_deref() != Some(session) {
                self.state.native_session_id = Some(session.to_owned());
                self.state.persisted = false;
                self.out.set_native_session_id(session);
            }
            return;
        }
        let is_prompt = self
            .state
            .turn
            .as_ref()
            .and_then(|turn| turn.prompt.as_ref())
            .is_some_and(|prompt| prompt.request_id == id);
        if is_prompt {
            if let Some(turn) = self.state.turn.as_mut() {
                turn.prompt = None;
            }
        }
        if success {
            return;
        }
        let error = match str_field(message, "error") {
            "" => format!("Pi refused the {command:?} command"),
            error => error.to_owned(),
        };
        if is_prompt {
            self.turn().errored = true;
            self.emit(event::error(error, Some("prompt_failed")));
            self.end_turn();
        } else {
            self.emit(event::error(error, Some("command_failed")));
        }
    }

    fn message_update(&mut self, message: &Value) {
        let Some(update) = message.get("assistantMessageEvent") else {
            self.unparsed("message_update without assistantMessageEvent");
            return;
        };
        let index = update
            .get("contentIndex")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        match str_field(update, "type") {
            "text_start" => self.block_started(index, BlockKind::Text),
            "thinking_start" => self.block_started(index, BlockKind::Thinking),
            "toolcall_start" => {
                let call = update
                    .get("partial")
                    .and_then(|p| p.get("content"))
                    .and_then(|c| c.get(index as usize))
                    .unwrap_or(&Value::Null);
                let kind = BlockKind::ToolCall {
                    call_id: str_field(call, "id").to_owned(),
                    name: str_field(call, "name").to_owned(),
                };
                self.block_started(index, kind);
            }
            "text_delta" | "thinking_delta" | "toolcall_delta" => {
                let delta = str_field(update, "delta");
                let Some(block) = self.turn().blocks.get_mut(&index) else {
                    self.unparsed("a delta of a block that did not start");
                    return;
                };
                if block.done {
                    self.unparsed("a delta of a block that already ended");
                    return;
                }
                block.text.push_str(delta);
                let streamed = !matches!(block.kind, BlockKind::ToolCall { .. });
                let item_id = block.item_id.clone();
                if streamed && !delta.is_empty() {
                    self.emit(event::item_delta(item_id, delta));
                }
            }
            "text_end" | "thinking_end" => {
                let content = str_field(update, "content").to_owned();
                self.block_ended(index, |block| block.text = content);
            }
            "toolcall_end" => {
                let call = update.get("toolCall").cloned().unwrap_or(Value::Null);
                let arguments = call.get("arguments").cloned().unwrap_or(json!({}));
                self.block_ended(index, |block| block.text = arguments.to_string());
            }
            "start" | "done" | "error" => {}
            other => self.unparsed(&format!("unknown assistant message event {other:?}")),
        }
    }

    /// A content block starts streaming: its item starts (in progress; a tool call
    /// with its name, text and reasoning without content yet). A block still open at
    /// the same index (Pi never ended it) completes first, failed.
    fn block_started(&mut self, index: u64, kind: BlockKind) {
        if let Some(open) = self.turn().blocks.remove(&index).filter(|b| !b.done) {
            self.emit(event::item_completed(block_item(&open).failed()));
        }
        let block = Block {
            item_id: self.item_id(),
            kind,
            text: String::new(),
            done: false,
        };
        let mut started = block_item(&block).in_progress();
        if let BlockKind::ToolCall { call_id, name } = &block.kind {
            let tool = Tool {
                call_item: block.item_id.clone(),
                name: name.clone(),
                ..Tool::default()
            };
            self.turn().tools.insert(call_id.clone(), tool);
        } else {
            started = started.without_content();
        }
        self.emit(event::item_started(started));
        self.turn().blocks.insert(index, block);
    }

    /// A content block ends: `finish` sets its final text, its item completes.
    fn block_ended(&mut self, index: u64, finish: impl FnOnce(&mut Block)) {
        let turn = self.turn();
        let Some(block) = turn.blocks.get_mut(&index) else {
            self.unparsed("the end of a block that did not start");
            return;
        };
        if block.done {
            self.unparsed("the end of a block that already ended");
            return;
        }
        finish(block);
        block.done = true;
        let block = block.clone();
        if let BlockKind::ToolCall { call_id, .. } = &block.kind {
            if let Some(tool) = turn.tools.get_mut(call_id) {
                tool.args = serde_json::from_str(&block.text).unwrap_or(Value::Null);
            }
        }
        self.emit(event::item_completed(block_item(&block)));
    }

    fn message_end(&mut self, message: &Value) {
        let body = message.get("message").unwrap_or(&Value::Null);
        match role(message) {
            "assistant" => self.assistant_end(body),
            "user" | "toolResult" => {}
            other => {
                let text = tools::content_text(body.get("content"));
                let text = if text.is_empty() {
                    body.to_string()
                } else {
                    text
                };
                let item = item::system_text(self.item_id(), text).with_native_id(other);
                self.whole(item);
            }
        }
    }

    /// The end of an assistant message: what did not stream is emitted whole, an
    /// error is reported, the usage is added to the turn's.
    fn assistant_end(&mut self, body: &Value) {
        let stop = str_field(body, "stopReason");
        let failed = matches!(stop, "error" | "aborted");
        let blocks = std::mem::take(&mut self.turn().blocks);
        for block in blocks.values().filter(|b| !b.done) {
            let mut item = block_item(block);
            if failed {
                item = item.failed();
            }
            self.emit(event::item_completed(item));
        }
        let content = body.get("content").and_then(Value::as_array);
        for (index, part) in content.into_iter().flatten().enumerate() {
            if !blocks.contains_key(&(index as u64)) {
                self.whole_block(part);
            }
        }
        if let Some(usage) = body.get("usage") {
            let turn = self.turn();
            turn.usage = Some(add_usage(turn.usage.take(), usage));
        }
        if stop == "error" {
            let text = match str_field(body, "errorMessage") {
                "" => "the model request failed".to_owned(),
                text => text.to_owned(),
            };
            self.turn().errored = true;
            self.emit(event::error(text, Some("api_error")));
        }
    }

    /// A content part that did not stream, as a whole item.
    fn whole_block(&mut self, part: &Value) {
        let item_id = self.item_id();
        let item = match str_field(part, "type") {
            "text" => item::assistant_text(item_id, str_field(part, "text")),
            "thinking" => item::reasoning(
                item_id,
                str_field(part, "thinking"),
                ReasoningVisibility::Public,
            ),
            "toolCall" => {
                let call_id = str_field(part, "id").to_owned();
                let name = str_field(part, "name").to_owned();
                let args = part.get("arguments").cloned().unwrap_or(json!({}));
                let tool = Tool {
                    call_item: item_id.clone(),
                    name: name.clone(),
                    args: args.clone(),
                    ..Tool::default()
                };
                self.turn().tools.insert(call_id.clone(), tool);
                item::tool_call(item_id, name, args.to_string(), &call_id).with_native_id(call_id)
            }
            _ => Item::new(
                item_id,
                ItemKind::Unknown,
                Some(ItemRole::Assistant),
                ItemStatus::Completed,
                vec![ContentPart::Json(part.to_string())],
            ),
        };
        self.whole(item);
    }

    /// Compaction and retry notices as a `status` item labelled with the event type.
    fn status(&mut self, message: &Value) {
        let label = str_field(message, "type").to_owned();
        let detail = ["errorMessage", "finalError", "reason"]
            .iter()
            .map(|key| str_field(message, key))
            .find(|text| !text.is_empty())
            .map(str::to_owned);
        let item = item::status(self.item_id(), label, detail);
        self.whole(item);
    }
}

/// The item a streamed block has become so far.
fn block_item(block: &Block) -> Item {
    match &block.kind {
        BlockKind::Text => item::assistant_text(block.item_id.clone(), block.text.clone()),
        BlockKind::Thinking => item::reasoning(
            block.item_id.clone(),
            block.text.clone(),
            ReasoningVisibility::Public,
        ),
        BlockKind::ToolCall { call_id, name } => {
            let arguments = if block.text.is_empty() {
                "{}".to_owned()
            } else {
                block.text.clone()
            };
            item::tool_call(block.item_id.clone(), name, arguments, call_id).with_native_id(call_id)
        }
    }
}

/// The turn's usage with one assistant message's added: input includes the tokens
/// read from and written to the prompt cache, `cached` is the part read from it; the
/// cost is Pi's computed `cost.total`.
fn add_usage(sum: Option<Usage>, usage: &Value) -> Usage {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    let cost = usage
        .get("cost")
        .and_then(|cost| cost.get("total"))
        .and_then(Value::as_f64);
    let mut sum = sum.unwrap_or(Usage {
        input_tokens: Some(0),
        output_tokens: Some(0),
        cached_tokens: Some(0),
        reasoning_tokens: None,
        cost_usd: None,
    });
    // Counts are the agent's: absurd ones saturate rather than overflow.
    let add = |total: Option<u64>, more: u64| Some(total.unwrap_or(0).saturating_add(more));
    let input = count("input")
        .saturating_add(count("cacheRead"))
        .saturating_add(count("cacheWrite"));
    sum.input_tokens = add(sum.input_tokens, input);
    sum.output_tokens = add(sum.output_tokens, count("output"));
    sum.cached_tokens = add(sum.cached_tokens, count("cacheRead"));
    if let Some(cost) = cost {
        sum.cost_usd = Some(sum.cost_usd.unwrap_or(0.0) + cost);
    }
    sum
}

/// The role of a `message_start`/`message_end` line's message.
fn role(message: &Value) -> &str {
    message
        .get("message")
        .map(|m| str_field(m, "role"))
        .unwrap_or_default()
}

/// A string field, empty when absent.
pub(crate) fn str_field<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}
