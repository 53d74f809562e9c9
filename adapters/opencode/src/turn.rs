//! One turn: which native messages belong to it, the items its message parts became,
//! and its token usage.
//!
//! OpenCode reports a turn as messages (the user's, then one assistant message per
//! model step) made of parts. The adapter turns parts into universal items:
//!
//! | part | items |
//! |---|---|
//! | `text` | assistant `message` with a `text` part, streamed by `message.part.delta` |
//! | `reasoning` | assistant `message` with a `reasoning` part, streamed likewise |
//! | `tool` | `tool_call` (arguments = the tool's input), then `tool_result` (its output, streamed from `metadata.output`; `file_ref` parts for `read`, `write`, `edit`) |
//! | `step-finish` | tokens and cost, summed into the turn's `usage` |
//! | `retry` | a `status` item |
//!
//! Messages are told apart by id: OpenCode's ids grow with time, so a message whose id
//! is not above the newest one seen before the prompt belongs to an earlier turn (a
//! cancelled turn's last updates arrive after the next prompt).

use std::collections::{BTreeMap, BTreeSet};

use sandbox_agent_adapter_kit::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::native::{Part, PartDelta, Tokens};

/// Emits the events one native payload produced, each with the payload as `raw`.
pub(crate) struct Emitter<'a> {
    pub out: &'a mut Actions,
    pub raw: &'a str,
}

impl Emitter<'_> {
    /// Emits `event` with the payload as its raw.
    pub fn emit(&mut self, event: EmittedEvent) {
        self.out.emit(event.with_raw(self.raw));
    }
}

/// The running turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunningTurn {
    /// `turn_<number>`.
    pub id: String,
    /// The turn's number in the session, from 1; names its requests.
    pub number: u64,
    /// The newest message id seen before the prompt; this turn's messages are newer.
    pub watermark: Option<String>,
    /// The user's message, once OpenCode echoed it.
    pub user_message: Option<String>,
    /// True once OpenCode works on this prompt (busy, or the user message seen): only
    /// then does `session.idle` end the turn, not a late one of the previous turn.
    pub armed: bool,
    /// Items of the turn's parts, by native part id.
    pub parts: BTreeMap<String, PartItem>,
    /// Diffs OpenCode showed in edit permission requests, by tool call id.
    pub diffs: BTreeMap<String, String>,
    /// Tokens and cost of the steps so far.
    pub usage: Option<Usage>,
    /// The tool calls OpenCode asked permission for, by call id.
    #[serde(default)]
    pub asked: BTreeSet<String>,
    /// Tool calls that ended (ran, or were refused) since the session last looked,
    /// as (call id, tool, input): the ones not asked about were decided by the
    /// session's permission rules.
    #[serde(skip)]
    pub ended_calls: Vec<(String, String, Value)>,
}

/// The item(s) one part became.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum PartItem {
    /// A text or reasoning message.
    Text {
        item_id: String,
        reasoning: bool,
        text: String,
        done: bool,
    },
    /// A tool call and its result.
    Tool {
        call_item: String,
        /// The `tool_result` item, once the tool runs.
        result_item: Option<String>,
        call_id: String,
        name: String,
        arguments: String,
        /// Output streamed so far.
        output: String,
        done: bool,
    },
}

impl RunningTurn {
    /// The tool and input of this turn's tool call `call_id`, when it is known.
    pub fn call(&self, call_id: &str) -> Option<(String, Value)> {
        self.parts.values().find_map(|part| match part {
            PartItem::Tool {
                call_id: id,
                name,
                arguments,
                ..
            } if id == call_id => Some((name.clone(), serde_json::from_str(arguments).ok()?)),
            _ => None,
        })
    }

    /// A turn that starts now; `watermark` is the newest message id seen so far.
    pub fn new(number: u64, watermark: Option<String>) -> Self {
        Self {
            id: format!("turn_{number}"),
            number,
            watermark,
            user_message: None,
            armed: false,
            parts: BTreeMap::new(),
            diffs: BTreeMap::new(),
            usage: None,
            asked: BTreeSet::new(),
            ended_calls: Vec::new(),
        }
    }

    /// True when the message is newer than the prompt, so part of this turn.
    pub fn owns(&self, message_id: &str) -> bool {
        self.watermark
            .as_deref()
            .is_none_or(|mark| message_id > mark)
    }

    /// A part was created or updated.
    pub fn on_part(&mut self, ids: &mut IdCounter, part: Part, em: &mut Emitter<'_>) {
        if !self.owns(&part.message_id) || self.user_message.as_deref() == Some(&part.message_id) {
            return;
        }
        match part.kind.as_str() {
            "text" => self.text_part(ids, part, false, em),
            "reasoning" => self.text_part(ids, part, true, em),
            "tool" => self.tool_part(ids, part, em),
            "step-finish" => self.add_step(part.tokens.unwrap_or_default(), part.cost),
            "retry" => {
                let detail = part.error.map(|error| error.message());
                let label = format!("retry {}", part.attempt.unwrap_or_default());
                let item = item::status(ids.next("itm"), label, detail).with_native_id(part.id);
                em.emit(event::item_started(item.clone().in_progress()));
                em.emit(event::item_completed(item));
            }
            // Step boundaries, file snapshots and the files a step changed add nothing
            // to the items above; agent and subtask parts are the user's.
            "step-start" | "snapshot" | "patch" | "compaction" | "agent" | "subtask" | "file" => {}
            other => em.emit(event::unparsed(
                format!("unknown part type {other:?}"),
                "sse:message.part.updated",
                em.raw,
            )),
        }
    }

    /// Text was appended to a part.
    pub fn on_delta(&mut self, delta: PartDelta, em: &mut Emitter<'_>) {
        if !self.owns(&delta.message_id) {
            return;
        }
        match self.parts.get_mut(&delta.part_id) {
            Some(PartItem::Text {
                item_id,
                text,
                done: false,
                ..
            }) if delta.field == "text" => {
                text.push_str(&delta.delta);
                em.emit(event::item_delta(item_id.clone(), delta.delta));
            }
            // The user's echoed text and parts already closed.
            _ => {}
        }
    }

    /// A text or reasoning part: started on first sight, streamed, completed once
    /// OpenCode sets its end time.
    fn text_part(
        &mut self,
        ids: &mut IdCounter,
        part: Part,
        reasoning: bool,
        em: &mut Emitter<'_>,
    ) {
        let entry = self.parts.entry(part.id.clone()).or_insert_with(|| {
            let item_id = ids.next("itm");
            em.emit(event::item_started(
                text_item(&item_id, "", reasoning, &part.id)
                    .in_progress()
                    .without_content(),
            ));
            PartItem::Text {
                item_id,
                reasoning,
                text: String::new(),
                done: false,
            }
        });
        let PartItem::Text {
            item_id,
            text,
            done,
            ..
        } = entry
        else {
            return;
        };
        if *done {
            return;
        }
        // Parts updated without deltas (providers that do not stream) still stream here.
        if let Some(rest) = part
            .text
            .strip_prefix(text.as_str())
            .filter(|rest| !rest.is_empty())
        {
            em.emit(event::item_delta(item_id.clone(), rest));
            text.push_str(rest);
        }
        if part.time.as_ref().is_some_and(|time| time.end.is_some()) {
            *done = true;
            em.emit(event::item_completed(text_item(
                item_id, &part.text, reasoning, &part.id,
            )));
        }
    }

    /// A tool part: the call starts when it appears, completes when the tool runs
    /// (its input known), and the result streams until the tool completes or fails.
    fn tool_part(&mut self, ids: &mut IdCounter, part: Part, em: &mut Emitter<'_>) {
        let (status, input, metadata) = match &part.state {
            Some(state) => (state.status.as_str(), &state.input, &state.metadata),
            None => ("pending", &Value::Null, &Value::Null),
        };
        let arguments = if input.is_object() {
            input.to_string()
        } else {
            "{}".to_owned()
        };
        let entry = self.parts.entry(part.id.clone()).or_insert_with(|| {
            let call_item = ids.next("itm");
            let call = item::tool_call(&call_item, &part.tool, &arguments, &part.call_id);
            em.emit(event::item_started(
                call.with_native_id(&part.id).in_progress(),
            ));
            PartItem::Tool {
                call_item,
                result_item: None,
                call_id: part.call_id.clone(),
                name: part.tool.clone(),
                arguments: arguments.clone(),
                output: String::new(),
                done: false,
            }
        });
        let PartItem::Tool {
            call_item,
            result_item,
            call_id,
            name,
            output,
            done,
            arguments: known,
        } = entry
        else {
            return;
        };
        if *done || status == "pending" {
            return;
        }
        let result_id = match result_item {
            Some(id) => id.clone(),
            None => {
                *known = arguments.clone();
                let call = item::tool_call(
                    call_item.as_str(),
                    name.as_str(),
                    &arguments,
                    call_id.as_str(),
                );
                em.emit(event::item_completed(call.with_native_id(&part.id)));
                let id = ids.next("itm");
                let result = Item::new(
                    &id,
                    ItemKind::ToolResult,
                    Some(ItemRole::Tool),
                    ItemStatus::InProgress,
                    Vec::new(),
                );
                em.emit(event::item_started(
                    result
                        .with_parent(call_item.as_str())
                        .with_native_id(&part.id),
                ));
                *result_item = Some(id.clone());
                id
            }
        };
        let state = part.state.as_ref();
        match status {
            "running" => {
                let so_far = metadata
                    .get("output")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if let Some(rest) = so_far
                    .strip_prefix(output.as_str())
                    .filter(|rest| !rest.is_empty())
                {
                    em.emit(event::item_delta(&result_id, rest));
                    output.push_str(rest);
                }
            }
            "completed" | "error" => {
                *done = true;
                let ended = (call_id.clone(), name.clone(), input.clone());
                self.ended_calls.push(ended);
                let failed = status == "error";
                let text = match state {
                    Some(state) if failed => state.error.clone().unwrap_or_default(),
                    Some(state) => state.output.clone().unwrap_or_default(),
                    None => String::new(),
                };
                let mut result = item::tool_result(&result_id, call_id.as_str(), text)
                    .with_parent(call_item.as_str())
                    .with_native_id(&part.id);
                if !failed {
                    let diff = self.diffs.get(call_id.as_str()).cloned();
                    result
                        .content
                        .extend(file_refs(name, input, metadata, diff));
                    let images = state
                        .iter()
                        .flat_map(|state| &state.attachments)
                        .filter(|file| file.mime.starts_with("image/"));
                    for image in images {
                        result = result.with_part(ContentPart::Image(ImagePart {
                            path: image.url.clone(),
                            mime: Some(image.mime.clone()),
                        }));
                    }
                } else {
                    result = result.failed();
                }
                em.emit(event::item_completed(result));
            }
            other => em.emit(event::unparsed(
                format!("unknown tool status {other:?}"),
                "sse:message.part.updated",
                em.raw,
            )),
        }
    }

    /// Adds a step's tokens and cost to the turn's usage.
    fn add_step(&mut self, tokens: Tokens, cost: Option<f64>) {
        let usage = self.usage.get_or_insert(Usage {
            input_tokens: Some(0),
            output_tokens: Some(0),
            cached_tokens: Some(0),
            reasoning_tokens: Some(0),
            cost_usd: None,
        });
        let add =
            |field: &mut Option<u64>, value: f64| *field = Some(field.unwrap_or(0) + value as u64);
        add(&mut usage.input_tokens, tokens.input);
        add(&mut usage.output_tokens, tokens.output);
        add(&mut usage.cached_tokens, tokens.cache.read);
        add(&mut usage.reasoning_tokens, tokens.reasoning);
        if let Some(cost) = cost {
            usage.cost_usd = Some(usage.cost_usd.unwrap_or(0.0) + cost);
        }
    }

    /// Closes the items still open when the turn ends: completed, or failed when the
    /// turn was interrupted. Tool calls that never finished always fail.
    pub fn close_items(&mut self, interrupted: bool, out: &mut Actions) {
        for (native_id, part) in &mut self.parts {
            match part {
                PartItem::Text {
                    item_id,
                    reasoning,
                    text,
                    done: done @ false,
                } => {
                    *done = true;
                    let item = text_item(item_id, text, *reasoning, native_id);
                    let item = if interrupted { item.failed() } else { item };
                    out.emit(event::item_completed(item).synthetic());
                }
                PartItem::Tool {
                    call_item,
                    result_item,
                    call_id,
                    name,
                    arguments,
                    output,
                    done: done @ false,
                } => {
                    *done = true;
                    // The result when the tool ran, else the call itself.
                    let open = match result_item {
                        Some(result) => {
                            item::tool_result(result.as_str(), call_id.as_str(), output.as_str())
                                .with_parent(call_item.as_str())
                        }
                        None => item::tool_call(
                            call_item.as_str(),
                            name.as_str(),
                            arguments.as_str(),
                            call_id.as_str(),
                        ),
                    };
                    out.emit(
                        event::item_completed(open.with_native_id(native_id).failed()).synthetic(),
                    );
                }
                _ => {}
            }
        }
    }
}

/// An assistant message with one text or reasoning part.
fn text_item(item_id: &str, text: &str, reasoning: bool, native_id: &str) -> Item {
    let item = if reasoning {
        item::reasoning(item_id, text, ReasoningVisibility::Public)
    } else {
        item::assistant_text(item_id, text)
    };
    item.with_native_id(native_id)
}

/// The files a completed tool touched (the absolute path OpenCode reports, else the
/// model's): `read` reads, `write` writes (with the diff of its permission request
/// when there was one), `edit` patches (with its diff).
fn file_refs(
    tool: &str,
    input: &Value,
    metadata: &Value,
    asked_diff: Option<String>,
) -> Vec<ContentPart> {
    let action = match tool {
        "read" => FileAction::Read,
        "write" => FileAction::Write,
        "edit" => FileAction::Patch,
        _ => return Vec::new(),
    };
    let path = metadata
        .get("filepath")
        .or_else(|| input.get("filePath"))
        .and_then(Value::as_str);
    let Some(path) = path else {
        return Vec::new();
    };
    let diff = match action {
        FileAction::Read => None,
        _ => metadata
            .get("diff")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or(asked_diff),
    };
    vec![item::file_ref(path, action, diff)]
}
