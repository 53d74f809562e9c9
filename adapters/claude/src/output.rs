//! The CLI's stdout, one stream-json line at a time, as universal events.
//!
//! | native line | universal events |
//! |---|---|
//! | `system/init` | `set-native-session-id` (when it changes) |
//! | `system/status`, `system/thinking_tokens`, `keep_alive`, `control_response` | nothing (an error response: `error`) |
//! | other `system/*` notices | a `status` item (label = subtype) |
//! | `stream_event` `content_block_start` | `item.started`: assistant text, reasoning, or `tool_call` |
//! | `stream_event` `text_delta` / `thinking_delta` | `item.delta` |
//! | `assistant` (one content block per line) | `item.completed` of the streamed item (or a whole item) |
//! | `assistant` with `error` | `error` |
//! | `user` `tool_result` | a `tool_result` item (with `file_ref` parts) |
//! | `user` text (`[Request interrupted by user]`...) | a `system` item |
//! | `control_request` `can_use_tool` | `permission.requested` or `question.requested` (see `requests`) |
//! | `control_cancel_request` | `*.resolved` as rejected |
//! | `result` | `turn.ended` with usage (`error` first when it is an error) |
//! | anything else | `agent.unparsed` with the line |
//!
//! Content that arrives while no turn runs (the CLI can start a turn by itself, for
//! a finished background task) opens a synthetic turn.

use std::ops::{Deref, DerefMut};

use sandbox_agent_adapter_kit::native;
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::json;

use crate::launch;
use crate::native::{
    ApiEvent, Assistant, AssistantBlock, ClaudeMessage, ControlRequest, Delta, StartedBlock,
    StreamEvent, System, TurnResult, User, UserBlock, UserContent,
};
use crate::protocol;
use crate::requests;
use crate::state::{BlockKind, OpenBlock, Out, State, ToolCall};

/// The kit's output helper ([`Out`]) with the conversion of the CLI's lines.
pub(crate) struct Output<'a>(Out<'a>);

impl<'a> Deref for Output<'a> {
    type Target = Out<'a>;

    fn deref(&self) -> &Out<'a> {
        &self.0
    }
}

impl DerefMut for Output<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl<'a> Output<'a> {
    /// For events that come from `origin` (a CLI line, the adapter answering the
    /// client, or a gap in the CLI's stream).
    pub fn new(state: &'a mut State, out: &'a mut Actions, origin: Origin<'a>) -> Self {
        Self(Out::new(state, out, origin))
    }

    /// Emits `turn.ended` for the running turn: closes what is still streaming
    /// (failed when cancelled), resolves what is still pending as rejected, and reports
    /// `usage`. Nothing when no turn runs.
    pub fn end_turn(&mut self, usage: Option<Usage>) {
        let Some(turn) = self.state.header.turn.take() else {
            return;
        };
        for block in turn.data.blocks {
            let item = block_item(&block, turn.cancelling || turn.data.errored);
            self.emit(event::item_completed(item));
        }
        requests::reject_all(self);
        let mut data = Turn::with_id(turn.id);
        data.usage = usage;
        if turn.cancelling {
            data = data.with_metadata(json!({ "cancelled": true }).to_string());
            self.out.cancel_timer(protocol::INTERRUPT_TIMER);
        }
        self.emit(event::turn_ended(data));
    }

    /// Handles one stdout line of the CLI.
    pub fn line(&mut self, line: &str) {
        let Ok(message) = serde_json::from_str::<ClaudeMessage>(line) else {
            self.unparsed("not a JSON line");
            return;
        };
        match message {
            ClaudeMessage::System(system) => self.system(system),
            ClaudeMessage::StreamEvent(event) => self.stream_event(event),
            ClaudeMessage::Assistant(assistant) => self.assistant(assistant),
            ClaudeMessage::User(user) => self.user(user),
            ClaudeMessage::Result(result) => self.result(&result),
            ClaudeMessage::ControlRequest(request) => self.control_request(request),
            ClaudeMessage::ControlCancelRequest { request_id } => {
                requests::cancelled_by_agent(self, &request_id);
            }
            ClaudeMessage::ControlResponse { response } => {
                if response.subtype == "error" {
                    self.emit(event::error(response.error, Some("control_error")));
                }
            }
            ClaudeMessage::KeepAlive => {}
            ClaudeMessage::Other(other) => {
                let kind = native::tag_of(&other, "type");
                self.unparsed(&format!("unknown message type {kind:?}"));
            }
        }
    }

    fn system(&mut self, system: System) {
        match system.subtype.as_str() {
            "init" => {
                let id = system.session_id;
                if !id.is_empty() && self.state.header.native_session_id.as_deref() != Some(&id) {
                    self.out.set_native_session_id(&id);
                    self.state.header.native_session_id = Some(id);
                }
            }
            "status" | "thinking_tokens" => {}
            _ => {
                let subtype = system.subtype.clone();
                let item = item::status(self.item_id(), &subtype, system.detail());
                self.whole(item);
            }
        }
    }

    fn stream_event(&mut self, message: StreamEvent) {
        let stream = message.parent_tool_use_id;
        let Some(event) = message.event else {
            self.unparsed("stream_event without event");
            return;
        };
        match event {
            ApiEvent::MessageStart { message } => {
                self.turn().messages.insert(stream, message.id);
            }
            ApiEvent::ContentBlockStart {
                index,
                content_block,
            } => self.block_started(stream, index, content_block),
            ApiEvent::ContentBlockDelta { index, delta } => self.block_delta(&stream, index, delta),
            ApiEvent::ContentBlockStop
            | ApiEvent::MessageDelta
            | ApiEvent::MessageStop
            | ApiEvent::Ping => {}
            ApiEvent::Other(other) => {
                let kind = native::tag_of(&other, "type");
                self.unparsed(&format!("unknown stream event {kind:?}"));
            }
        }
    }

    /// A streamed block starts: its item starts (in progress, no content yet). Blocks
    /// of other types are left to their `assistant` line.
    fn block_started(&mut self, stream: String, index: u64, block: StartedBlock) {
        let kind = match block {
            StartedBlock::Text => BlockKind::Text,
            StartedBlock::Thinking => BlockKind::Thinking,
            StartedBlock::ToolUse { id, name } => BlockKind::ToolUse { call_id: id, name },
            StartedBlock::Other => return,
        };
        let parent = self.parent_of(&stream);
        let message_id = self
            .turn()
            .messages
            .get(&stream)
            .cloned()
            .unwrap_or_default();
        let open = OpenBlock {
            stream,
            message_id,
            index,
            item_id: self.item_id(),
            kind,
            text: String::new(),
        };
        let mut item = block_item(&open, false).in_progress();
        match &open.kind {
            BlockKind::ToolUse { call_id, .. } => item = item.with_native_id(call_id.clone()),
            BlockKind::Text | BlockKind::Thinking => {
                item = item.without_content();
                if !open.message_id.is_empty() {
                    item = item.with_native_id(open.message_id.clone());
                }
            }
        }
        if let Some(parent) = parent {
            item = item.with_parent(parent);
        }
        self.emit(event::item_started(item));
        self.turn().blocks.push(open);
    }

    fn block_delta(&mut self, stream: &str, index: u64, delta: Delta) {
        let (piece, streamed) = match delta {
            Delta::Text { text } => (text, true),
            Delta::Thinking { thinking } => (thinking, true),
            Delta::InputJson { partial_json } => (partial_json, false),
            Delta::Signature => return,
            Delta::Other(other) => {
                let kind = native::tag_of(&other, "type");
                self.unparsed(&format!("unknown content delta {kind:?}"));
                return;
            }
        };
        let turn = self.turn();
        let message_id = turn.messages.get(stream).cloned().unwrap_or_default();
        let Some(block) = turn
            .blocks
            .iter_mut()
            .find(|b| b.stream == stream && b.message_id == message_id && b.index == index)
        else {
            return;
        };
        block.text.push_str(&piece);
        if streamed && !piece.is_empty() {
            let item_id = block.item_id.clone();
            self.emit(event::item_delta(item_id, piece));
        }
    }

    fn assistant(&mut self, message: Assistant) {
        let content = message.message.content;
        if let Some(code) = message.error {
            // The CLI classifies API errors (`rate_limit`, `authentication_failed`...).
            let code = if code == "unknown" {
                "api_error"
            } else {
                &code
            };
            let text = content
                .map(|blocks| {
                    let texts: Vec<&str> = blocks.iter().filter_map(AssistantBlock::text).collect();
                    texts.join("\n")
                })
                .unwrap_or_default();
            self.turn().errored = true;
            self.emit(event::error(text, Some(code)));
            return;
        }
        let stream = message.parent_tool_use_id;
        let message_id = message.message.id;
        for block in content.into_iter().flatten() {
            self.assistant_block(&stream, &message_id, block);
        }
    }

    /// One content block of an `assistant` line: completes the item that streamed it,
    /// or emits the whole item.
    fn assistant_block(&mut self, stream: &str, message_id: &str, block: AssistantBlock) {
        let (kind, content) = match block {
            AssistantBlock::Text { text } => (
                Some(BlockKind::Text),
                ContentPart::Text(text.unwrap_or_default()),
            ),
            AssistantBlock::Thinking { thinking } => (
                Some(BlockKind::Thinking),
                item::reasoning_part(&thinking, ReasoningVisibility::Public),
            ),
            AssistantBlock::RedactedThinking => {
                (None, item::reasoning_part("", ReasoningVisibility::Private))
            }
            AssistantBlock::ToolUse { id, name, input } => {
                let part = ContentPart::ToolCall(ToolCallPart {
                    name: name.clone(),
                    arguments: input.to_string(),
                    call_id: id.clone(),
                });
                let kind = BlockKind::ToolUse {
                    call_id: id.clone(),
                    name: name.clone(),
                };
                let item_id = self.complete_block(stream, message_id, Some(kind), part);
                self.turn().tools.insert(
                    id,
                    ToolCall {
                        item_id,
                        name,
                        input,
                    },
                );
                return;
            }
            AssistantBlock::Other(block) => (None, ContentPart::Json(block.to_string())),
        };
        self.complete_block(stream, message_id, kind, content);
    }

    /// Completes the streamed block of `kind` in `message_id` with `content`, or emits
    /// a whole item (with one delta for text) when none streamed. Returns its item id.
    fn complete_block(
        &mut self,
        stream: &str,
        message_id: &str,
        kind: Option<BlockKind>,
        content: ContentPart,
    ) -> String {
        let parent = self.parent_of(stream);
        let turn = self.turn();
        let interrupted = turn.cancelling;
        let position = kind.as_ref().and_then(|kind| {
            turn.blocks.iter().position(|b| {
                b.stream == stream && b.message_id == message_id && same_kind(&b.kind, kind)
            })
        });
        let streamed = position.map(|p| turn.blocks.remove(p));
        let item_id = match &streamed {
            Some(block) => block.item_id.clone(),
            None => self.item_id(),
        };
        let mut item = match (&kind, &content) {
            (Some(BlockKind::ToolUse { .. }), _) => Item::new(
                item_id.clone(),
                ItemKind::ToolCall,
                Some(ItemRole::Assistant),
                ItemStatus::Completed,
                vec![content.clone()],
            ),
            (None, ContentPart::Json(_)) => Item::new(
                item_id.clone(),
                ItemKind::Unknown,
                Some(ItemRole::Assistant),
                ItemStatus::Completed,
                vec![content.clone()],
            ),
            _ => item::assistant_message(item_id.clone(), vec![content.clone()]),
        };
        if !message_id.is_empty() && !matches!(kind, Some(BlockKind::ToolUse { .. })) {
            item = item.with_native_id(message_id);
        }
        if let Some(BlockKind::ToolUse { call_id, .. }) = &kind {
            item = item.with_native_id(call_id.clone());
        }
        if let Some(parent) = parent {
            item = item.with_parent(parent);
        }
        if interrupted {
            item = item.failed();
        }
        if streamed.is_none() {
            let mut started = item.clone().in_progress();
            let text = match &content {
                ContentPart::Text(text) => Some(text.clone()),
                ContentPart::Reasoning(reasoning) => Some(reasoning.text.clone()),
                _ => None,
            };
            if text.is_some() {
                started = started.without_content();
            }
            self.emit(event::item_started(started));
            if let Some(text) = text.filter(|t| !t.is_empty()) {
                self.emit(event::item_delta(item_id.clone(), text));
            }
        }
        self.emit(event::item_completed(item));
        item_id
    }

    fn user(&mut self, message: User) {
        let stream = message.parent_tool_use_id;
        let blocks = match message.message.content {
            UserContent::Text(text) => vec![UserBlock::Text { text }],
            UserContent::Blocks(blocks) => blocks,
        };
        let results = blocks
            .iter()
            .filter(|b| matches!(b, UserBlock::ToolResult(_)))
            .count();
        let structured = message.tool_use_result.filter(|_| results == 1);
        for block in blocks {
            match block {
                UserBlock::ToolResult(result) => {
                    let call = self.turn().tools.get(&result.tool_use_id).cloned();
                    if let Some(call) = &call {
                        self.note_native(&result.tool_use_id, call);
                    }
                    let item_id = self.item_id();
                    let item = crate::tools::result_item(
                        item_id,
                        call.as_ref(),
                        &result,
                        structured.as_ref(),
                    );
                    self.whole(item);
                }
                UserBlock::Text { text } => {
                    let item = match self.parent_of(&stream) {
                        // A subagent's prompt.
                        Some(parent) => {
                            item::user_message(self.item_id(), &[MessagePart::Text(text)])
                                .with_parent(parent)
                        }
                        // A notice of the CLI's own (`[Request interrupted by user]`).
                        None => item::system_text(self.item_id(), text),
                    };
                    self.whole(item);
                }
                UserBlock::Other(block) => {
                    let item = Item::new(
                        self.item_id(),
                        ItemKind::Unknown,
                        Some(ItemRole::User),
                        ItemStatus::Completed,
                        vec![ContentPart::Json(block.to_string())],
                    );
                    self.whole(item);
                }
            }
        }
    }

    /// A call of [`launch::DECIDED_TOOLS`] that ended without the CLI asking
    /// about it: decided by the rules it was handed for the session's policy.
    fn note_native(&mut self, call_id: &str, call: &ToolCall) {
        let decided = launch::DECIDED_TOOLS
            .iter()
            .any(|(tool, _)| *tool == call.name);
        if decided && !self.turn().asked.contains(call_id) {
            let request = crate::policy::request(&call.name, &call.input);
            self.state.native.note_call(call_id, request);
        }
    }

    fn result(&mut self, message: &TurnResult) {
        let turn_cost = match (&mut self.state.header.process, message.total_cost_usd) {
            (Some(process), Some(total)) => {
                // Rounded to a billionth of a cent: the difference of two sums
                // is not exact in floating point.
                let spent = ((total - process.cost_usd).max(0.0) * 1e11).round() / 1e11;
                process.cost_usd = total;
                Some(spent)
            }
            (None, cost) => cost,
            (_, None) => None,
        };
        let reported = match &self.state.header.turn {
            Some(turn) => turn.cancelling || turn.errored,
            None => false,
        };
        if message.is_error && forgets_session(message) {
            // `--resume` of a conversation the CLI does not have: start afresh next
            // time instead of failing every message.
            self.state.header.native_session_id = None;
        }
        if message.is_error && !reported {
            let (text, code) = result_error(message);
            self.emit(event::error(text, Some(&code)));
        }
        let usage = message.usage.as_ref().map(|usage| {
            let mut usage = Usage::from(usage);
            usage.cost_usd = turn_cost;
            usage
        });
        self.end_turn(usage);
    }

    fn control_request(&mut self, message: ControlRequest) {
        let request_id = message.request_id;
        if request_id.is_empty() {
            // Nothing to answer it by, nor to name the permission or question by.
            return self.unparsed("control_request without a request_id");
        }
        match message.request.subtype.as_str() {
            "can_use_tool" => requests::asked(self, &request_id, message.request),
            other => {
                let error = format!("unsupported control request {other:?}");
                self.unparsed(&error);
                self.write(&protocol::error(&request_id, &error));
            }
        }
    }

    /// The item a subagent's stream belongs to: the call of its `Task` tool.
    fn parent_of(&mut self, stream: &str) -> Option<String> {
        if stream.is_empty() {
            return None;
        }
        let turn = self.turn();
        turn.tools.get(stream).map(|call| call.item_id.clone())
    }
}

/// The item a streamed block has become so far: its text, or the tool call with the
/// input streamed so far; failed when the turn was cancelled or failed.
fn block_item(block: &OpenBlock, failed: bool) -> Item {
    let item = match &block.kind {
        BlockKind::Text => item::assistant_text(block.item_id.clone(), block.text.clone()),
        BlockKind::Thinking => item::reasoning(
            block.item_id.clone(),
            block.text.clone(),
            ReasoningVisibility::Public,
        ),
        BlockKind::ToolUse { call_id, name } => {
            let arguments = if block.text.is_empty() {
                "{}".to_owned()
            } else {
                block.text.clone()
            };
            item::tool_call(block.item_id.clone(), name, arguments, call_id)
        }
    };
    if failed {
        item.failed()
    } else {
        item
    }
}

fn same_kind(open: &BlockKind, kind: &BlockKind) -> bool {
    match (open, kind) {
        (BlockKind::Text, BlockKind::Text) | (BlockKind::Thinking, BlockKind::Thinking) => true,
        (BlockKind::ToolUse { call_id: a, .. }, BlockKind::ToolUse { call_id: b, .. }) => a == b,
        _ => false,
    }
}

/// The message and code of an error `result`: its `result` text or `errors`, and
/// its subtype (`api_error` for a failed API call).
fn result_error(message: &TurnResult) -> (String, String) {
    let errors: Vec<&str> = message.errors().collect();
    let text = match message.result.as_deref() {
        Some(text) if !text.is_empty() => text.to_owned(),
        _ if !errors.is_empty() => errors.join("\n"),
        _ => "Claude Code reported an error".to_owned(),
    };
    let code = match message.subtype.as_str() {
        "success" | "" => "api_error",
        subtype => subtype,
    };
    (text, code.to_owned())
}

/// True when an error `result` says the resumed conversation does not exist.
fn forgets_session(message: &TurnResult) -> bool {
    message
        .errors()
        .any(|error| error.starts_with("No conversation found with session ID"))
}
