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

use crate::native::{AmpMessage, AssistantBlock, Message, System, TurnResult, UserBlock};
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
    let Ok(message) = serde_json::from_str::<AmpMessage>(raw) else {
        return line.unparsed("not JSON");
    };
    if line.state.turn.is_none() {
        return line.unparsed("output after the turn ended");
    }
    line.thread(message.session_id());
    match message {
        AmpMessage::System(system) => line.system(&system),
        AmpMessage::Assistant(assistant) => line.assistant(assistant),
        AmpMessage::User(user) => line.user(user),
        AmpMessage::Result(result) => line.result(&result),
        AmpMessage::Other(_) => line.unparsed("unknown line type"),
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
    fn thread(&mut self, id: Option<&str>) {
        let Some(id) = id else {
            return;
        };
        if !id.is_empty() && self.state.thread.as_deref() != Some(id) {
            self.state.thread = Some(id.to_owned());
            self.out.set_native_session_id(id.to_owned());
        }
    }

    /// The item of the subagent call a line belongs to, if any.
    fn parent<B>(&mut self, message: &Message<B>) -> Option<String> {
        let call = message.parent_call()?;
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

    /// `system/init` is silent; other subtypes are status notices, with the whole
    /// line (free-form) as their detail.
    fn system(&mut self, system: &System) {
        if system.subtype == "init" {
            return;
        }
        let id = self.state.ids.next("itm");
        let detail = serde_json::from_str::<serde_json::Value>(self.raw)
            .ok()
            .map(|line| line.to_string());
        self.whole_item(item::status(id, &system.subtype, detail), &None);
    }

    /// An `assistant` message: its usage, then one item per content block.
    fn assistant(&mut self, message: Message<AssistantBlock>) {
        if let Some(usage) = &message.message.usage {
            let usage = Usage::from(usage);
            self.turn()
                .tokens
                .get_or_insert_with(Default::default)
                .add(&usage);
        }
        let parent = self.parent(&message);
        for block in message.message.content {
            self.assistant_block(block.0, &parent);
        }
    }

    /// One content block of an `assistant` message.
    fn assistant_block(&mut self, block: Option<AssistantBlock>, parent: &Option<String>) {
        match block {
            Some(AssistantBlock::Text { text: Some(text) }) => {
                let id = self.state.ids.next("itm");
                let item = item::assistant_text(id.clone(), &text);
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
            Some(AssistantBlock::Thinking { thinking }) => {
                let id = self.state.ids.next("itm");
                let item = item::reasoning(id, thinking, ReasoningVisibility::Public);
                self.whole_item(item, parent);
            }
            Some(AssistantBlock::ToolUse {
                id: call_id,
                name,
                input,
            }) => {
                let input = input.to_string();
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
    fn user(&mut self, message: Message<UserBlock>) {
        let parent = self.parent(&message);
        let in_subagent = message.parent_tool_use_id.is_some();
        for block in message.message.content {
            match block.0 {
                Some(UserBlock::Text { text }) => {
                    if !in_subagent && !self.turn().echoed {
                        self.turn().echoed = true;
                        continue;
                    }
                    let id = self.state.ids.next("itm");
                    let item = item::user_message(id, &[MessagePart::Text(text)]);
                    self.whole_item(item, &parent);
                }
                Some(UserBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                }) => self.tool_result(tool_use_id, &content, is_error),
                _ => self.unparsed("unknown user content block"),
            }
        }
    }

    /// A `tool_result` block: a `tool_result` item under its call.
    fn tool_result(&mut self, call_id: String, content: &serde_json::Value, is_error: bool) {
        let output = tools::result_text(content);
        let id = self.state.ids.next("itm");
        let mut item = item::tool_result(id, &call_id, output).with_native_id(&call_id);
        if let Some(call) = self.turn().calls.get(&call_id).cloned() {
            item = item.with_parent(call.item_id);
            if let Some(part) = tools::file_ref(&call.name, &call.input) {
                item = item.with_part(part);
            }
        }
        if is_error {
            item = item.failed();
        }
        self.whole_item(item, &None);
    }

    /// The `result` line ends the turn (after an `error` when it failed).
    fn result(&mut self, result: &TurnResult) {
        let subtype = result.subtype.as_str();
        if result.is_error || subtype != "success" {
            let message = result.message().unwrap_or("Amp reported an error");
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
