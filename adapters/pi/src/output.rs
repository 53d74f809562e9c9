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

use std::ops::{Deref, DerefMut};

use sandbox_agent_adapter_kit::native;
use sandbox_agent_adapter_kit::prelude::*;
use serde::Deserialize;
use serde_json::json;

use crate::dialogs;
use crate::native::{
    content_text, AssistantEvent, AssistantMessage, AssistantPart, BlockEnd, CallEnd, Content,
    EndedMessage, Indexed, Notice, PiMessage, PiUsage, Piece, Response,
};
use crate::protocol;
use crate::state::{Block, BlockKind, Out, State, Tool};
use crate::tools;

/// The kit's output helper ([`Out`]) with the conversion of Pi's lines.
pub(crate) struct Output<'a> {
    inner: Out<'a>,
    /// The session's working directory (relative tool paths are resolved in it).
    directory: &'a str,
}

impl<'a> Deref for Output<'a> {
    type Target = Out<'a>;

    fn deref(&self) -> &Out<'a> {
        &self.inner
    }
}

impl DerefMut for Output<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.inner
    }
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
            inner: Out::new(state, out, origin),
            directory,
        }
    }

    /// Emits `turn.ended` for the running turn with its usage: closes what is still
    /// open (failed), declines pending dialogs, and marks a cancelled turn. Nothing
    /// when no turn runs.
    pub fn end_turn(&mut self) {
        let Some(turn) = self.state.header.turn.take() else {
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
        data.usage = turn.data.usage;
        if turn.cancelling {
            data = data.with_metadata(json!({ "cancelled": true }).to_string());
            self.out.cancel_timer(protocol::ABORT_TIMER);
        }
        self.emit(event::turn_ended(data));
    }

    /// Handles one stdout line of Pi.
    pub fn line(&mut self, line: &str) {
        let Ok(message) = serde_json::from_str::<PiMessage>(line) else {
            self.unparsed("not a JSON line");
            return;
        };
        match message {
            PiMessage::Response(response) => self.response(response),
            PiMessage::AgentStart => {
                self.turn();
            }
            PiMessage::TurnStart | PiMessage::TurnEnd | PiMessage::QueueUpdate => {}
            PiMessage::MessageStart { message } => {
                if message.role == "assistant" {
                    self.turn().blocks.clear();
                }
            }
            PiMessage::MessageUpdate { event } => self.message_update(event),
            PiMessage::MessageEnd { message } => self.message_end(message),
            PiMessage::ToolExecutionStart(start) => tools::started(self, start),
            PiMessage::ToolExecutionUpdate(update) => tools::updated(self, &update),
            PiMessage::ToolExecutionEnd(end) => {
                let directory = self.directory;
                tools::ended(self, &end, directory)
            }
            PiMessage::AgentEnd => {
                self.state.persisted = true;
                self.end_turn();
            }
            PiMessage::CompactionStart(notice) => self.status("compaction_start", notice),
            PiMessage::CompactionEnd(notice) => self.status("compaction_end", notice),
            PiMessage::AutoRetryStart(notice) => self.status("auto_retry_start", notice),
            PiMessage::AutoRetryEnd(notice) => self.status("auto_retry_end", notice),
            PiMessage::ExtensionError(failure) => {
                let text = format!(
                    "extension {} failed on {}: {}",
                    failure.extension_path, failure.event, failure.error
                );
                self.emit(event::error(text, Some("extension_error")));
            }
            PiMessage::ExtensionUiRequest(request) => dialogs::request(self, request),
            PiMessage::Other(other) => {
                let kind = native::tag_of(&other, "type");
                self.unparsed(&format!("unknown message type {kind:?}"));
            }
        }
    }

    fn response(&mut self, response: Response) {
        let id = response.id.as_str();
        let success = response.success;
        let command = response.command.as_str();
        if command == "get_state" && success {
            let session = response.data.session_id;
            if !session.is_empty()
                && self.state.header.native_session_id.as_deref() != Some(&session)
            {
                self.out.set_native_session_id(&session);
                self.state.header.native_session_id = Some(session);
                self.state.persisted = false;
            }
            return;
        }
        let is_prompt = self
            .state
            .header
            .turn
            .as_ref()
            .and_then(|turn| turn.prompt.as_ref())
            .is_some_and(|prompt| prompt.request_id == id);
        if is_prompt {
            if let Some(turn) = self.state.header.turn.as_mut() {
                turn.prompt = None;
            }
        }
        if success {
            return;
        }
        let error = match response.error.as_str() {
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

    fn message_update(&mut self, update: Option<AssistantEvent>) {
        let Some(update) = update else {
            self.unparsed("message_update without assistantMessageEvent");
            return;
        };
        match update {
            AssistantEvent::TextStart(Indexed { index }) => {
                self.block_started(index, BlockKind::Text)
            }
            AssistantEvent::ThinkingStart(Indexed { index }) => {
                self.block_started(index, BlockKind::Thinking)
            }
            AssistantEvent::ToolcallStart(start) => {
                let (call_id, name) = match start.call() {
                    Some(call) => (call.id.clone(), call.name.clone()),
                    None => Default::default(),
                };
                self.block_started(start.index, BlockKind::ToolCall { call_id, name });
            }
            AssistantEvent::TextDelta(Piece { index, delta })
            | AssistantEvent::ThinkingDelta(Piece { index, delta })
            | AssistantEvent::ToolcallDelta(Piece { index, delta }) => {
                let Some(block) = self.turn().blocks.get_mut(&index) else {
                    self.unparsed("a delta of a block that did not start");
                    return;
                };
                if block.done {
                    self.unparsed("a delta of a block that already ended");
                    return;
                }
                block.text.push_str(&delta);
                let streamed = !matches!(block.kind, BlockKind::ToolCall { .. });
                let item_id = block.item_id.clone();
                if streamed && !delta.is_empty() {
                    self.emit(event::item_delta(item_id, delta));
                }
            }
            AssistantEvent::TextEnd(BlockEnd { index, content })
            | AssistantEvent::ThinkingEnd(BlockEnd { index, content }) => {
                self.block_ended(index, |block| block.text = content);
            }
            AssistantEvent::ToolcallEnd(CallEnd { index, call }) => {
                let arguments = call.arguments;
                self.block_ended(index, |block| block.text = arguments.to_string());
            }
            AssistantEvent::Start | AssistantEvent::Done | AssistantEvent::Error => {}
            AssistantEvent::Other(other) => {
                let kind = native::tag_of(&other, "type");
                self.unparsed(&format!("unknown assistant message event {kind:?}"));
            }
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
                tool.args = serde_json::from_str(&block.text).unwrap_or(serde_json::Value::Null);
            }
        }
        self.emit(event::item_completed(block_item(&block)));
    }

    fn message_end(&mut self, message: EndedMessage) {
        match message {
            EndedMessage::Assistant(body) => self.assistant_end(body),
            EndedMessage::User | EndedMessage::ToolResult => {}
            EndedMessage::Other(body) => {
                // An extension's message: its text, else the whole message as JSON.
                let content = body
                    .get("content")
                    .and_then(|c| Content::deserialize(c).ok());
                let text = match content_text(content.as_ref()) {
                    text if text.is_empty() => body.to_string(),
                    text => text,
                };
                let role = native::tag_of(&body, "role");
                let item = item::system_text(self.item_id(), text).with_native_id(role);
                self.whole(item);
            }
        }
    }

    /// The end of an assistant message: what did not stream is emitted whole, an
    /// error is reported, the usage is added to the turn's.
    fn assistant_end(&mut self, body: AssistantMessage) {
        let stop = body.stop_reason.as_str();
        let failed = matches!(stop, "error" | "aborted");
        let blocks = std::mem::take(&mut self.turn().blocks);
        for block in blocks.values().filter(|b| !b.done) {
            let mut item = block_item(block);
            if failed {
                item = item.failed();
            }
            self.emit(event::item_completed(item));
        }
        for (index, part) in body.content.into_iter().enumerate() {
            if !blocks.contains_key(&(index as u64)) {
                self.whole_block(part);
            }
        }
        if let Some(usage) = &body.usage {
            let turn = self.turn();
            turn.usage = Some(add_usage(turn.usage.take(), usage));
        }
        if stop == "error" {
            let text = match body.error_message.as_str() {
                "" => "the model request failed".to_owned(),
                text => text.to_owned(),
            };
            self.turn().errored = true;
            self.emit(event::error(text, Some("api_error")));
        }
    }

    /// A content part that did not stream, as a whole item.
    fn whole_block(&mut self, part: AssistantPart) {
        let item_id = self.item_id();
        let item = match part {
            AssistantPart::Text { text } => item::assistant_text(item_id, text),
            AssistantPart::Thinking { thinking } => {
                item::reasoning(item_id, thinking, ReasoningVisibility::Public)
            }
            AssistantPart::ToolCall {
                id: call_id,
                name,
                arguments: args,
            } => {
                let tool = Tool {
                    call_item: item_id.clone(),
                    name: name.clone(),
                    args: args.clone(),
                    ..Tool::default()
                };
                self.turn().tools.insert(call_id.clone(), tool);
                item::tool_call(item_id, name, args.to_string(), &call_id).with_native_id(call_id)
            }
            AssistantPart::Other(part) => Item::new(
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
    fn status(&mut self, label: &str, notice: Notice) {
        let item = item::status(self.item_id(), label, notice.detail());
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
fn add_usage(sum: Option<Usage>, usage: &PiUsage) -> Usage {
    let mut sum = sum.unwrap_or(Usage {
        input_tokens: Some(0),
        output_tokens: Some(0),
        cached_tokens: Some(0),
        reasoning_tokens: None,
        cost_usd: None,
    });
    // Counts are the agent's: absurd ones saturate rather than overflow.
    let add = |total: Option<u64>, more: u64| Some(total.unwrap_or(0).saturating_add(more));
    let input = usage
        .input
        .saturating_add(usage.cache_read)
        .saturating_add(usage.cache_write);
    sum.input_tokens = add(sum.input_tokens, input);
    sum.output_tokens = add(sum.output_tokens, usage.output);
    sum.cached_tokens = add(sum.cached_tokens, usage.cache_read);
    if let Some(cost) = usage.cost.total {
        sum.cost_usd = Some(sum.cost_usd.unwrap_or(0.0) + cost);
    }
    sum
}
