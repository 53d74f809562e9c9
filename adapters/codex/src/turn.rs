//! The running turn: Codex's turn and item notifications as universal events.
//!
//! Every function here takes the native line (`raw`) so the events keep it. Items
//! stream as `item/started`, deltas, `item/completed`; tool-like items become a
//! `tool_call` (complete when it starts) and a `tool_result` that receives the output
//! deltas. An interrupted turn never completes its open items: [`State::end_turn`]
//! completes them as failed.

use sandbox_agent_adapter_kit::native;
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::json;

use crate::convert::{self, Kind};
use crate::native::{CodexTurn, ErrorParams, ItemType, Text, ThreadItem, TurnError, UsageParams};
use crate::requests;
use crate::state::{OpenItem, Shape, State, TurnState};

impl State {
    /// Emits `turn.started` and the user's message if not done yet: native (with
    /// `raw`) when Codex reported the turn, synthetic when the turn ends before that.
    pub(crate) fn open_turn(&mut self, out: &mut Actions, raw: Option<&str>) {
        let Some(turn) = &mut self.turn else { return };
        if turn.started {
            return;
        }
        turn.started = true;
        let started = event::turn_started(turn_record(turn));
        out.emit(match raw {
            Some(raw) => started.with_raw(raw),
            None => started.synthetic(),
        });
    }

    /// Queues a warning, shown as a `warning` status item once the running turn has
    /// shown the user's message (every item of a transcript belongs to a turn).
    pub(crate) fn notice(&mut self, out: &mut Actions, message: String, raw: &str) {
        self.notices.push((message, raw.to_owned()));
        self.flush_notices(out);
    }

    /// Shows the queued warnings if the running turn has shown the user's message.
    fn flush_notices(&mut self, out: &mut Actions) {
        let shown = matches!(
            &self.turn,
            Some(TurnState {
                user_item: Some((_, true)),
                ..
            })
        );
        if !shown {
            return;
        }
        for (message, raw) in std::mem::take(&mut self.notices) {
            let id = self.ids.next("itm");
            let notice = item::status(&id, "warning", Some(message));
            out.emit(event::item_started(notice.clone().in_progress()).with_raw(&raw))
                .emit(event::item_completed(notice).with_raw(&raw));
        }
    }

    /// Emits the whole user item synthetically when Codex did not echo it (or completes
    /// an echo that never completed).
    fn ensure_user_item(&mut self, out: &mut Actions) {
        let Some(turn) = &mut self.turn else { return };
        match &mut turn.user_item {
            Some((_, true)) => {}
            Some((id, done)) => {
                *done = true;
                out.emit(
                    event::item_completed(item::user_message(id.clone(), &turn.parts)).synthetic(),
                );
            }
            None => {
                let id = self.ids.next("itm");
                out.emit_all(event::user_message(id.clone(), &turn.parts));
                turn.user_item = Some((id, true));
            }
        }
    }

    /// `item/started` of this session's thread.
    pub(crate) fn item_started(&mut self, out: &mut Actions, item: &ThreadItem, raw: &str) {
        self.open_turn(out, None);
        self.start_item(out, item, raw);
    }

    /// Emits the start of `item` and remembers it as open.
    fn start_item(&mut self, out: &mut Actions, item: &ThreadItem, raw: &str) {
        let native_id = item.id.clone();
        let kind = convert::kind(item);
        if kind == Kind::User {
            return self.start_user_item(out, &native_id, raw);
        }
        // The user's message comes first even if Codex did not echo it.
        self.ensure_user_item(out);
        self.flush_notices(out);
        let id = self.ids.next("itm");
        let shape = match kind {
            Kind::User => return,
            Kind::Message => {
                let started = item::assistant_text(&id, "")
                    .in_progress()
                    .without_content();
                out.emit(event::item_started(started.with_native_id(&native_id)).with_raw(raw));
                Shape::Message
            }
            Kind::Reasoning => {
                let started = item::reasoning(&id, "", ReasoningVisibility::Public)
                    .in_progress()
                    .without_content();
                out.emit(event::item_started(started.with_native_id(&native_id)).with_raw(raw));
                Shape::Reasoning
            }
            Kind::Tool(call) => {
                let call_item = id;
                let tool_call =
                    item::tool_call(&call_item, &call.name, &call.arguments, &native_id)
                        .with_native_id(&native_id);
                out.emit(event::item_started(tool_call.clone().in_progress()).with_raw(raw))
                    .emit(event::item_completed(tool_call).with_raw(raw));
                let result_id = self.ids.next("itm");
                let result = item::tool_result(&result_id, &native_id, "")
                    .in_progress()
                    .with_parent(&call_item)
                    .with_native_id(&native_id);
                out.emit(event::item_started(result).with_raw(raw));
                return self.remember(
                    native_id.clone(),
                    OpenItem {
                        item_id: result_id,
                        shape: Shape::Tool {
                            call_item,
                            call_id: native_id,
                            action: call.action,
                            request: Some(call.request),
                        },
                        text: String::new(),
                    },
                );
            }
            Kind::Status(label) => {
                let started = item::status(&id, label.clone(), None).in_progress();
                out.emit(event::item_started(started.with_native_id(&native_id)).with_raw(raw));
                Shape::Status(Some(label))
            }
            Kind::Unknown => {
                let started = Item::new(
                    &id,
                    ItemKind::Unknown,
                    None,
                    ItemStatus::InProgress,
                    vec![ContentPart::Json(item.raw.to_string())],
                );
                out.emit(event::item_started(started.with_native_id(&native_id)).with_raw(raw));
                Shape::Status(None)
            }
        };
        self.remember(
            native_id,
            OpenItem {
                item_id: id,
                shape,
                text: String::new(),
            },
        );
    }

    /// The echo of the user's message starts the user item (native, with the content
    /// the client sent: Codex echoes attachments in its own words).
    fn start_user_item(&mut self, out: &mut Actions, native_id: &str, raw: &str) {
        let Some(turn) = &mut self.turn else { return };
        if turn.user_item.is_some() {
            return;
        }
        let id = self.ids.next("itm");
        let started = item::user_message(&id, &turn.parts)
            .in_progress()
            .with_native_id(native_id);
        out.emit(event::item_started(started).with_raw(raw));
        turn.user_item = Some((id, false));
    }

    fn remember(&mut self, native_id: String, open: OpenItem) {
        if let Some(turn) = &mut self.turn {
            turn.items.insert(native_id, open);
        }
    }

    /// `item/completed` of this session's thread.
    pub(crate) fn item_completed(&mut self, out: &mut Actions, item: &ThreadItem, raw: &str) {
        let native_id = item.id.clone();
        self.open_turn(out, None);
        if convert::kind(item) == Kind::User {
            return self.complete_user_item(out, &native_id, raw);
        }
        let open = match self.turn.as_mut().and_then(|t| t.items.remove(&native_id)) {
            Some(open) => open,
            None => {
                // Completed without a start: start it now.
                self.start_item(out, item, raw);
                match self.turn.as_mut().and_then(|t| t.items.remove(&native_id)) {
                    Some(open) => open,
                    None => return,
                }
            }
        };
        out.emit(event::item_completed(completed_item(&open, item, &native_id)).with_raw(raw));
        self.note_native(&open, &native_id);
    }

    /// A command or patch that ended unasked in a turn Codex ran with approval
    /// policy `never`: decided by the rule it was handed for the session's policy.
    fn note_native(&mut self, open: &OpenItem, native_id: &str) {
        let Some(turn) = &self.turn else { return };
        let Shape::Tool {
            call_id,
            request: Some(request),
            ..
        } = &open.shape
        else {
            return;
        };
        let decided = matches!(request.kind, ToolKind::Shell | ToolKind::Write);
        if turn.never_asks && decided && !turn.asked.contains(native_id) {
            self.native.note_call(call_id, request.clone());
        }
    }

    fn complete_user_item(&mut self, out: &mut Actions, native_id: &str, raw: &str) {
        self.start_user_item(out, native_id, raw);
        let Some(turn) = &mut self.turn else { return };
        if let Some((id, done @ false)) = &mut turn.user_item {
            *done = true;
            let completed = item::user_message(id.clone(), &turn.parts).with_native_id(native_id);
            out.emit(event::item_completed(completed).with_raw(raw));
        }
        self.flush_notices(out);
    }

    /// A streamed piece of an open item (`delta` for text and output deltas, the
    /// progress message of an MCP call).
    pub(crate) fn item_delta(&mut self, out: &mut Actions, native_id: &str, text: &str, raw: &str) {
        let open = self.turn.as_mut().and_then(|t| t.items.get_mut(native_id));
        let Some(open) = open else {
            out.emit(event::unparsed("delta for an unknown item", "stdout", raw));
            return;
        };
        open.text.push_str(text);
        out.emit(event::native_item_delta(&open.item_id, native_id, text).with_raw(raw));
    }

    /// `thread/tokenUsage/updated`: adds the last request's tokens to the turn's usage
    /// (only for this turn: resuming a thread reports the usage of its last turn).
    pub(crate) fn usage_updated(&mut self, params: &UsageParams) {
        let Some(turn) = &mut self.turn else { return };
        let current = turn
            .native_id
            .as_deref()
            .is_some_and(|id| id == params.turn_id);
        if let (true, Some(usage)) = (current, &params.token_usage) {
            turn.usage = convert::add_usage(turn.usage.take(), usage);
        }
    }

    /// An `error` notification: a final error is an `error` event; one Codex retries
    /// is a status item (an `error` would end a client's turn stream).
    pub(crate) fn turn_error(&mut self, out: &mut Actions, params: &ErrorParams, raw: &str) {
        let error = &params.error;
        if params.will_retry {
            let id = self.ids.next("itm");
            let detail = Some(native::read::<TurnError>(error).message);
            out.emit(
                event::item_started(item::status(&id, "retrying", detail.clone()).in_progress())
                    .with_raw(raw),
            )
            .emit(event::item_completed(item::status(id, "retrying", detail)).with_raw(raw));
            return;
        }
        if let Some(turn) = &mut self.turn {
            turn.error_reported = true;
        }
        out.emit(convert::error_event(error).with_raw(raw));
    }

    /// Ends the running turn: completes what is still open (failed), rejects pending
    /// approvals and questions, reports the turn's error if no `error` did, and emits
    /// `turn.ended` with the usage. `turn` is Codex's `Turn` from `turn/completed` and
    /// `raw` its line; both `None` when the adapter ends the turn itself, with `status`
    /// (`interrupted`, `failed`) as the turn's status.
    pub(crate) fn end_turn(
        &mut self,
        out: &mut Actions,
        turn: Option<&CodexTurn>,
        raw: Option<&str>,
        status: &str,
    ) {
        if self.turn.is_none() {
            return;
        }
        self.open_turn(out, None);
        self.ensure_user_item(out);
        self.flush_notices(out);
        let Some(mut state) = self.turn.take() else {
            return;
        };
        for (native_id, open) in std::mem::take(&mut state.items) {
            let item = ThreadItem::failed(&native_id);
            let failed = completed_item(&open, &item, &native_id).failed();
            out.emit(event::item_completed(failed).synthetic());
        }
        for (_, pending) in std::mem::take(&mut self.requests) {
            out.emit(requests::rejected(&pending).synthetic());
        }
        let status = turn.map_or(status, |t| t.status.as_str());
        let error = turn.and_then(|t| t.error.as_ref());
        if let (Some(error), false) = (error, state.error_reported) {
            let event = convert::error_event(error);
            out.emit(match raw {
                Some(raw) => event.with_raw(raw),
                None => event.synthetic(),
            });
        }
        let mut metadata = json!({ "status": status });
        if state.cancelling {
            metadata["cancelled"] = true.into();
        }
        let mut record = turn_record(&state).with_metadata(metadata.to_string());
        record.usage = state.usage.take();
        let ended = event::turn_ended(record);
        out.emit(match raw {
            Some(raw) => ended.with_raw(raw),
            None => ended.synthetic(),
        });
    }
}

/// The turn's `turn.started`/`turn.ended` record: Codex's turn id once known.
fn turn_record(turn: &TurnState) -> Turn {
    match &turn.native_id {
        Some(id) => Turn::with_id(id.clone()),
        None => Turn::default(),
    }
}

/// The final form of an open item from Codex's completed `item`.
fn completed_item(open: &OpenItem, item: &ThreadItem, native_id: &str) -> Item {
    let id = open.item_id.as_str();
    let completed = match &open.shape {
        Shape::Message => {
            let text = match &item.kind {
                ItemType::AgentMessage(Text { text: Some(text) })
                | ItemType::Plan(Text { text: Some(text) }) => text.as_str(),
                _ => open.text.as_str(),
            };
            item::assistant_text(id, text)
        }
        Shape::Reasoning => item::assistant_message(id, convert::reasoning_parts(item, &open.text)),
        Shape::Tool {
            call_item, call_id, ..
        } => {
            let outcome = convert::outcome(item, &open.text);
            let mut result = item::tool_result(id, call_id, outcome.output).with_parent(call_item);
            result.content.extend(outcome.parts);
            if outcome.ok {
                result
            } else {
                result.failed()
            }
        }
        Shape::Status(Some(label)) => item::status(id, label.clone(), convert::status_detail(item)),
        Shape::Status(None) => Item::new(
            id,
            ItemKind::Unknown,
            None,
            ItemStatus::Completed,
            vec![ContentPart::Json(item.raw.to_string())],
        ),
    };
    completed.with_native_id(native_id)
}
