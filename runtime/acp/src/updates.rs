//! Universal events as ACP sees a session: `session/update` notifications, and
//! the moments the client is needed (a permission, a question) or answered (the
//! turn ended, the session ended).
//!
//! One [`Updates`] per session a client follows, fed every event in order. It
//! remembers which items are text and which are reasoning (so deltas become
//! message or thought chunks), which tool calls the client has heard of (so a
//! result is always an update of a call it knows), and whether events are a
//! replay of the past (`session/load`, where the user's own messages are sent
//! back too).

use std::collections::{HashMap, HashSet};

use agentplex_universal::{
    ContentPart, ItemKind, ItemRole, ItemStatus, PermissionStatus, QuestionStatus, UniversalEvent,
    UniversalEventData, UniversalEventType, UniversalItem,
};
use serde_json::{json, Map, Value};

/// Why a prompt turn stopped, as ACP says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The agent finished its turn.
    EndTurn,
    /// The client cancelled it.
    Cancelled,
    /// A budget on the session's model calls stopped it (`budget.reached`).
    MaxTokens,
}

impl StopReason {
    /// The `stopReason` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::EndTurn => "end_turn",
            Self::Cancelled => "cancelled",
            Self::MaxTokens => "max_tokens",
        }
    }
}

/// What one event means to an ACP client.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A `session/update` notification's `update`.
    Update(Value),
    /// The agent asks for a permission: a `session/request_permission` to send.
    AskPermission {
        /// The universal permission id, to answer with.
        permission_id: String,
        /// The request's `toolCall` and `options`.
        params: Value,
    },
    /// The agent asks a question: an `elicitation/create` to send.
    AskQuestion {
        /// The universal question id, to answer with.
        question_id: String,
        /// The question's choices, when it has some.
        options: Vec<String>,
        /// The request's `message` and `requestedSchema`.
        params: Value,
    },
    /// A permission or question was answered (here or by another client): a
    /// request for it still open is to be withdrawn.
    Resolved {
        /// The universal permission or question id.
        id: String,
    },
    /// The session's modes or model changed (from its next message on): a
    /// `current_mode_update` and a `config_option_update` to send.
    ModesChanged {
        /// The agent mode.
        agent_mode: String,
        /// The permission mode.
        permission_mode: String,
        /// The model, when the session names one.
        model: Option<String>,
        /// The model's variant, when the session names one.
        variant: Option<String>,
    },
    /// The agent offers other modes or models (the daemon's status item
    /// [`agentplex_universal::AGENT_OFFERED`]): a `config_option_update` to
    /// send with the session's options as they now are.
    OfferChanged,
    /// The turn ended.
    TurnEnded(StopReason),
    /// The session ended (its agent exited, or it was terminated).
    SessionEnded {
        /// What the daemon said about the end.
        message: String,
    },
}

/// What an item's deltas are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    Text,
    Thought,
    Other,
}

/// The state of one followed session.
#[derive(Debug, Default)]
pub struct Updates {
    /// The stream kind of items that started and have not completed.
    open: HashMap<String, (Stream, bool)>,
    /// The tool calls the client was told of.
    calls: HashSet<String>,
    /// Whether the events are a replay (`session/load`).
    replay: bool,
    /// Whether the running turn was stopped by a budget.
    budget_stopped: bool,
    /// The session's metered cost so far.
    cost_usd: f64,
}

impl Updates {
    /// The state of a session the client starts following now.
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks the events that follow as a replay (or no longer).
    pub fn set_replay(&mut self, replay: bool) {
        self.replay = replay;
    }

    /// What `event` means to the client.
    pub fn apply(&mut self, event: &UniversalEvent) -> Vec<Step> {
        let mut steps = Vec::new();
        match (&event.event_type, &event.data) {
            (UniversalEventType::ItemStarted, UniversalEventData::Item(data)) => {
                self.item_started(&data.item, &mut steps);
            }
            (UniversalEventType::ItemDelta, UniversalEventData::ItemDelta(data)) => {
                let stream = self.open.get_mut(&data.item_id).map(|(stream, streamed)| {
                    *streamed = true;
                    *stream
                });
                let kind = match stream {
                    Some(Stream::Thought) => "agent_thought_chunk",
                    Some(Stream::Other) => return steps,
                    Some(Stream::Text) | None => "agent_message_chunk",
                };
                if !data.delta.is_empty() {
                    steps.push(Step::Update(chunk(kind, &data.delta)));
                }
            }
            (UniversalEventType::ItemCompleted, UniversalEventData::Item(data)) => {
                self.item_completed(&data.item, &mut steps);
            }
            (UniversalEventType::PermissionRequested, UniversalEventData::Permission(data))
                if data.status == PermissionStatus::Requested && !self.replay =>
            {
                steps.push(Step::AskPermission {
                    permission_id: data.permission_id.clone(),
                    params: permission_params(
                        &data.permission_id,
                        &data.action,
                        data.metadata.as_ref(),
                    ),
                });
            }
            (UniversalEventType::PermissionResolved, UniversalEventData::Permission(data)) => {
                steps.push(Step::Resolved {
                    id: data.permission_id.clone(),
                });
            }
            (UniversalEventType::QuestionRequested, UniversalEventData::Question(data))
                if data.status == QuestionStatus::Requested && !self.replay =>
            {
                steps.push(Step::AskQuestion {
                    question_id: data.question_id.clone(),
                    options: data.options.clone(),
                    params: question_params(&data.prompt, &data.options),
                });
            }
            (UniversalEventType::QuestionResolved, UniversalEventData::Question(data)) => {
                steps.push(Step::Resolved {
                    id: data.question_id.clone(),
                });
            }
            (UniversalEventType::ModelUsage, UniversalEventData::ModelUsage(data)) => {
                if let Some(cost) = data.cost_usd {
                    self.cost_usd += cost;
                }
                let used = data.input_tokens
                    + data.cache_read_tokens
                    + data.cache_write_tokens
                    + data.output_tokens;
                let mut update = json!({
                    "sessionUpdate": "usage_update",
                    "used": used,
                    // ACP wants the context window's size; the daemon does not
                    // know it (docs/acp.md): 0 says so.
                    "size": 0,
                });
                if self.cost_usd > 0.0 {
                    update["cost"] = json!({"amount": self.cost_usd, "currency": "USD"});
                }
                steps.push(Step::Update(update));
            }
            (UniversalEventType::BudgetReached, _) => self.budget_stopped = true,
            (UniversalEventType::TurnStarted, _) => self.budget_stopped = false,
            (UniversalEventType::TurnEnded, _) => {
                self.open.clear();
                let reason = if self.budget_stopped {
                    StopReason::MaxTokens
                } else {
                    StopReason::EndTurn
                };
                steps.push(Step::TurnEnded(reason));
            }
            (UniversalEventType::SessionEnded, UniversalEventData::SessionEnded(data)) => {
                let message = data
                    .message
                    .clone()
                    .unwrap_or_else(|| format!("the session ended ({:?})", data.reason));
                steps.push(Step::SessionEnded { message });
            }
            _ => {}
        }
        steps
    }

    fn item_started(&mut self, item: &UniversalItem, steps: &mut Vec<Step>) {
        let stream = match (item.kind, item.role) {
            (ItemKind::Message, Some(ItemRole::Assistant)) => {
                if item
                    .content
                    .iter()
                    .any(|part| matches!(part, ContentPart::Reasoning { .. }))
                {
                    Stream::Thought
                } else {
                    Stream::Text
                }
            }
            _ => Stream::Other,
        };
        self.open.insert(item.item_id.clone(), (stream, false));
        self.announce_calls(item, steps);
    }

    fn item_completed(&mut self, item: &UniversalItem, steps: &mut Vec<Step>) {
        let streamed = self
            .open
            .remove(&item.item_id)
            .is_some_and(|(_, streamed)| streamed);
        match (item.kind, item.role) {
            (ItemKind::Message, Some(ItemRole::Assistant)) if !streamed => {
                for part in &item.content {
                    match part {
                        ContentPart::Text { text } if !text.is_empty() => {
                            steps.push(Step::Update(chunk("agent_message_chunk", text)));
                        }
                        ContentPart::Reasoning { text, .. } if !text.is_empty() => {
                            steps.push(Step::Update(chunk("agent_thought_chunk", text)));
                        }
                        _ => {}
                    }
                }
            }
            (ItemKind::Message, Some(ItemRole::User)) if self.replay => {
                for part in &item.content {
                    if let ContentPart::Text { text } = part {
                        steps.push(Step::Update(chunk("user_message_chunk", text)));
                    }
                }
            }
            (ItemKind::Status, _) => {
                if let Some(plan) = plan(item) {
                    steps.push(Step::Update(plan));
                }
                // A replay's answer already says the modes as they are now.
                if let Some(changed) = modes_changed(item).filter(|_| !self.replay) {
                    steps.push(changed);
                }
                if offered(item) && !self.replay {
                    steps.push(Step::OfferChanged);
                }
            }
            _ => {}
        }
        self.announce_calls(item, steps);
        for part in &item.content {
            if let ContentPart::ToolResult { call_id, output } = part {
                self.result(call_id, output, item, steps);
            }
        }
    }

    /// A `tool_call` for each call of `item` the client has not heard of, or a
    /// `tool_call_update` with its input once the call is complete.
    fn announce_calls(&mut self, item: &UniversalItem, steps: &mut Vec<Step>) {
        for part in &item.content {
            let ContentPart::ToolCall {
                name,
                arguments,
                call_id,
            } = part
            else {
                continue;
            };
            let input: Value =
                serde_json::from_str(arguments).unwrap_or_else(|_| Value::from(arguments.clone()));
            let mut call = json!({
                "toolCallId": call_id,
                "title": title(name, &input),
                "kind": tool_kind(name),
                "rawInput": input,
            });
            let locations = locations(&input);
            if !locations.is_empty() {
                call["locations"] = Value::Array(locations);
            }
            if self.calls.insert(call_id.clone()) {
                call["sessionUpdate"] = "tool_call".into();
                call["status"] = "in_progress".into();
            } else if item.status == ItemStatus::InProgress || arguments.is_empty() {
                continue;
            } else {
                call["sessionUpdate"] = "tool_call_update".into();
            }
            steps.push(Step::Update(call));
        }
    }

    /// The `tool_call_update` that completes call `call_id` with `output`.
    fn result(&mut self, call_id: &str, output: &str, item: &UniversalItem, steps: &mut Vec<Step>) {
        if self.calls.insert(call_id.to_owned()) {
            steps.push(Step::Update(json!({
                "sessionUpdate": "tool_call",
                "toolCallId": call_id,
                "title": "tool",
                "kind": "other",
                "status": "in_progress",
            })));
        }
        let mut content = Vec::new();
        if !output.is_empty() {
            content.push(text_content(output));
        }
        let mut locations = Vec::new();
        for part in &item.content {
            if let ContentPart::FileRef { path, diff, .. } = part {
                locations.push(json!({"path": path}));
                if let Some(diff) = diff {
                    content.push(text_content(diff));
                }
            }
        }
        let status = if item.status == ItemStatus::Failed {
            "failed"
        } else {
            "completed"
        };
        let mut update = json!({
            "sessionUpdate": "tool_call_update",
            "toolCallId": call_id,
            "status": status,
            "content": content,
            "rawOutput": output,
        });
        if !locations.is_empty() {
            update["locations"] = Value::Array(locations);
        }
        steps.push(Step::Update(update));
    }
}

/// A content chunk update of `kind` with `text`.
fn chunk(kind: &str, text: &str) -> Value {
    json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}})
}

/// Tool call content of text.
fn text_content(text: &str) -> Value {
    json!({"type": "content", "content": {"type": "text", "text": text}})
}

/// ACP's kind of a tool, from the names agents give theirs.
fn tool_kind(name: &str) -> &'static str {
    let name = name.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|word| name.contains(word));
    if has(&["bash", "shell", "exec", "command", "terminal", "run"]) {
        "execute"
    } else if has(&["edit", "write", "patch", "replace", "create"]) {
        "edit"
    } else if has(&["delete", "remove"]) {
        "delete"
    } else if has(&["move", "rename"]) {
        "move"
    } else if has(&["grep", "glob", "search", "find", "list", "ls"]) {
        "search"
    } else if has(&["read", "view", "cat", "open"]) {
        "read"
    } else if has(&["fetch", "http", "url", "web"]) {
        "fetch"
    } else if has(&["think", "todo", "plan"]) {
        "think"
    } else {
        "other"
    }
}

/// The argument that says what a call does (its command, path, pattern or URL).
fn subject(input: &Value) -> Option<&str> {
    [
        "command",
        "cmd",
        "file_path",
        "filePath",
        "path",
        "pattern",
        "query",
        "url",
    ]
    .iter()
    .find_map(|key| input.get(*key).and_then(Value::as_str))
}

/// A call's title: its name and what it acts on.
fn title(name: &str, input: &Value) -> String {
    match subject(input) {
        Some(subject) => {
            let subject: String = subject.chars().take(120).collect();
            format!("{name}: {subject}")
        }
        None => name.to_owned(),
    }
}

/// The files a call names.
fn locations(input: &Value) -> Vec<Value> {
    ["file_path", "filePath", "path"]
        .iter()
        .filter_map(|key| input.get(*key).and_then(Value::as_str))
        .take(1)
        .map(|path| json!({"path": path}))
        .collect()
}

/// A `plan` update from a status item labelled `plan` whose detail lists the
/// entries (as ACP agents report them).
fn plan(item: &UniversalItem) -> Option<Value> {
    item.content.iter().find_map(|part| match part {
        ContentPart::Status { label, detail } if label == "plan" => {
            let entries: Vec<Value> = serde_json::from_str(detail.as_deref()?).ok()?;
            let entries: Vec<Value> = entries
                .into_iter()
                .filter_map(|entry| {
                    let content = entry.get("content")?.as_str()?.to_owned();
                    let field = |key: &str, default: &str| {
                        entry
                            .get(key)
                            .and_then(Value::as_str)
                            .unwrap_or(default)
                            .to_owned()
                    };
                    Some(json!({
                        "content": content,
                        "priority": field("priority", "medium"),
                        "status": field("status", "pending"),
                    }))
                })
                .collect();
            Some(json!({"sessionUpdate": "plan", "entries": entries}))
        }
        _ => None,
    })
}

/// The modes a status item labelled [`agentplex_universal::MODES_CHANGED`]
/// gives the session.
fn modes_changed(item: &UniversalItem) -> Option<Step> {
    item.content.iter().find_map(|part| match part {
        ContentPart::Status { label, detail } if label == agentplex_universal::MODES_CHANGED => {
            let modes: Value = serde_json::from_str(detail.as_deref()?).ok()?;
            Some(Step::ModesChanged {
                agent_mode: modes["agentMode"].as_str()?.to_owned(),
                permission_mode: modes["permissionMode"].as_str()?.to_owned(),
                model: modes["model"].as_str().map(str::to_owned),
                variant: modes["variant"].as_str().map(str::to_owned),
            })
        }
        _ => None,
    })
}

/// Whether `item` is the daemon's record of what the agent offers.
fn offered(item: &UniversalItem) -> bool {
    item.content.iter().any(|part| {
        matches!(part, ContentPart::Status { label, .. } if label == agentplex_universal::AGENT_OFFERED)
    })
}

/// The `toolCall` and `options` of a permission request.
fn permission_params(permission_id: &str, action: &str, metadata: Option<&Value>) -> Value {
    let metadata = metadata.and_then(Value::as_object);
    let call_id = metadata
        .and_then(|m| {
            ["toolCallId", "callId", "call_id", "tool_call_id"]
                .iter()
                .find_map(|key| m.get(*key).and_then(Value::as_str))
        })
        .unwrap_or(permission_id);
    let mut tool_call = Map::new();
    tool_call.insert("toolCallId".into(), call_id.into());
    tool_call.insert("title".into(), action.into());
    tool_call.insert("kind".into(), tool_kind(action).into());
    if let Some(metadata) = metadata {
        tool_call.insert("rawInput".into(), Value::Object(metadata.clone()));
    }
    json!({
        "toolCall": tool_call,
        "options": [
            {"optionId": "once", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "always", "name": "Allow always", "kind": "allow_always"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
        ],
    })
}

/// The `message` and `requestedSchema` of a question's elicitation: one answer,
/// one of `options` when it has some.
fn question_params(prompt: &str, options: &[String]) -> Value {
    let mut answer = json!({"type": "string", "title": "Answer"});
    if !options.is_empty() {
        answer["enum"] = json!(options);
    }
    json!({
        "mode": "form",
        "message": prompt,
        "requestedSchema": {
            "type": "object",
            "properties": {"answer": answer},
            "required": ["answer"],
        },
    })
}

#[cfg(test)]
mod tests;
