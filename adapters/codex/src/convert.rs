//! Codex's thread items, token usage and errors as universal content.
//!
//! Pure functions over the protocol's types (`ThreadItem`, `ThreadTokenUsage`,
//! `TurnError`, see [`crate::native`]); the turn logic in [`crate::turn`] decides when
//! to emit what.

use sandbox_agent_adapter_kit::native::{self, Lenient};
use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::tool_request;
use serde_json::{json, Value};

use crate::native::{
    CommandExecution, ErrorInfo, FileChange, ItemType, ProviderError, ThreadItem, TokenUsage,
    TurnError,
};

/// What a Codex item becomes in the transcript.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// `userMessage`: the echo of the user's message.
    User,
    /// `agentMessage` and `plan`: assistant text.
    Message,
    /// `reasoning`: summary and raw reasoning text.
    Reasoning,
    /// A tool invocation: a `tool_call` item, then a `tool_result` item.
    Tool(ToolCall),
    /// A notice without a result (review mode, compaction, sub-agent activity...).
    Status(String),
    /// An item type this adapter does not know.
    Unknown,
}

/// The universal `tool_call` of a tool-like item.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolCall {
    /// Tool name (`shell`, `apply_patch`, `mcp__<server>__<tool>`...).
    pub name: String,
    /// Arguments as JSON text.
    pub arguments: String,
    /// A few words for a permission request (`shell: ls`).
    pub action: String,
    /// What an approval of it asks for, for an approval policy.
    pub request: ToolRequest,
}

/// How a tool-like item ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outcome {
    /// The `tool_result` output.
    pub output: String,
    /// False when the tool failed, was declined or exited non-zero.
    pub ok: bool,
    /// More parts for the result (`file_ref`s with diffs, images).
    pub parts: Vec<ContentPart>,
}

/// What `item` becomes, from its `type`.
pub(crate) fn kind(item: &ThreadItem) -> Kind {
    let tool = |name: String, arguments: Value, action: String, request: ToolRequest| {
        Kind::Tool(ToolCall {
            name,
            arguments: arguments.to_string(),
            action,
            request,
        })
    };
    match &item.kind {
        ItemType::UserMessage => Kind::User,
        ItemType::AgentMessage(_) | ItemType::Plan(_) => Kind::Message,
        ItemType::Reasoning { .. } => Kind::Reasoning,
        ItemType::CommandExecution(command) => tool(
            "shell".into(),
            json!({ "command": command.command, "cwd": command.cwd }),
            format!("shell: {}", display_command(command)),
            crate::requests::shell_request(command.command.as_str().unwrap_or_default()),
        ),
        ItemType::FileChange { changes: list } => {
            let changes = changes(list);
            let arguments: Vec<Value> = changes
                .iter()
                .map(|c| json!({ "path": c.path, "kind": c.kind }))
                .collect();
            let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
            tool(
                "apply_patch".into(),
                json!({ "changes": arguments }),
                format!("edit: {}", paths.join(", ")),
                tool_request::writes(paths),
            )
        }
        ItemType::McpToolCall(call) => {
            let name = format!("mcp__{}__{}", call.server, call.tool);
            let request = tool_request::mcp(&call.server, &call.tool);
            tool(name.clone(), call.arguments.clone(), name, request)
        }
        ItemType::DynamicToolCall(call) => {
            let name = match &call.namespace {
                Some(namespace) => format!("{namespace}.{}", call.tool),
                None => call.tool.clone(),
            };
            tool(
                name.clone(),
                call.arguments.clone(),
                name,
                tool_request::other(),
            )
        }
        ItemType::CollabAgentToolCall(call) => {
            let name = call.tool.clone();
            let arguments = json!({
                "prompt": call.prompt,
                "receiverThreadIds": call.receiver_thread_ids,
                "model": call.model,
            });
            tool(name.clone(), arguments, name, tool_request::other())
        }
        ItemType::WebSearch { query, action, .. } => tool(
            "web_search".into(),
            json!({ "query": query, "action": action }),
            format!("web search: {}", query.as_str().unwrap_or_default()),
            tool_request::fetch(),
        ),
        ItemType::ImageView { path } => tool(
            "view_image".into(),
            json!({ "path": path }),
            format!("view image: {}", path.as_str().unwrap_or_default()),
            tool_request::read(path.as_str().unwrap_or_default()),
        ),
        ItemType::ImageGeneration { revised_prompt, .. } => tool(
            "image_generation".into(),
            json!({ "revisedPrompt": revised_prompt }),
            "image generation".into(),
            tool_request::other(),
        ),
        ItemType::ContextCompaction => Kind::Status("context compacted".into()),
        ItemType::EnteredReviewMode(_) => Kind::Status("review started".into()),
        ItemType::ExitedReviewMode(_) => Kind::Status("review finished".into()),
        ItemType::SubAgentActivity { kind, .. } => Kind::Status(format!("subagent {kind}")),
        ItemType::HookPrompt { .. } => Kind::Status("hook prompt".into()),
        ItemType::Sleep { .. } => Kind::Status("sleep".into()),
        ItemType::FunctionCallOutput { name, .. } => Kind::Status(format!("{name} output")),
        ItemType::Other => Kind::Unknown,
    }
}

/// The command as the model wrote it: the parsed command when Codex found exactly one
/// (`echo hello` rather than `/bin/bash -lc 'echo hello'`), else the whole command.
fn display_command(command: &CommandExecution) -> &str {
    match command.command_actions.as_deref() {
        Some([action]) => action.get().map_or("", |a| a.command.as_str()),
        _ => command.command.as_str().unwrap_or_default(),
    }
}

/// How the tool-like `item` ended; `streamed` is the output streamed as deltas.
pub(crate) fn outcome(item: &ThreadItem, streamed: &str) -> Outcome {
    let status = item.status.as_str();
    let completed = status == "completed";
    let simple = |output: String, ok: bool| Outcome {
        output,
        ok,
        parts: Vec::new(),
    };
    match &item.kind {
        ItemType::CommandExecution(command) => {
            let output = command.aggregated_output.as_deref().unwrap_or(streamed);
            let exit_ok = command.exit_code.unwrap_or(0) == 0;
            simple(output.to_owned(), completed && exit_ok)
        }
        ItemType::FileChange { changes: list } => {
            let changes = changes(list);
            let lines: Vec<String> = changes
                .iter()
                .map(|c| format!("{} {}", c.letter(), c.path))
                .collect();
            let output = match status {
                "completed" => lines.join("\n"),
                other => format!("{other}: {}", lines.join(", ")),
            };
            let parts = if completed {
                changes.iter().map(Change::file_ref).collect()
            } else {
                Vec::new()
            };
            Outcome {
                output,
                ok: completed,
                parts,
            }
        }
        ItemType::McpToolCall(call) => match call.error.as_ref().and_then(|e| e.message.as_ref()) {
            Some(message) => simple(message.as_str().unwrap_or_default().to_owned(), false),
            None => Outcome {
                output: content_text(call.result.content.as_ref()),
                ok: completed,
                parts: call
                    .result
                    .content
                    .as_ref()
                    .map(item::mcp_images)
                    .unwrap_or_default(),
            },
        },
        ItemType::DynamicToolCall(call) => {
            let ok = call.success.unwrap_or(completed);
            simple(
                content_text(call.content_items.as_ref()),
                ok && status != "failed",
            )
        }
        ItemType::CollabAgentToolCall(call) => simple(
            call.agents_states
                .as_ref()
                .map(Value::to_string)
                .unwrap_or_default(),
            completed,
        ),
        ItemType::WebSearch { results, .. } => simple(
            results.as_ref().map(Value::to_string).unwrap_or_default(),
            true,
        ),
        ItemType::ImageView { path } => {
            let path = path.as_str().unwrap_or_default();
            Outcome {
                output: path.to_owned(),
                ok: true,
                parts: vec![image(path)],
            }
        }
        ItemType::ImageGeneration {
            saved_path,
            failure,
            ..
        } => Outcome {
            output: saved_path.clone(),
            ok: failure.is_none(),
            parts: if saved_path.is_empty() {
                Vec::new()
            } else {
                vec![image(saved_path)]
            },
        },
        _ => simple(streamed.to_owned(), completed),
    }
}

/// An image part for a file Codex read or wrote.
fn image(path: &str) -> ContentPart {
    ContentPart::Image(ImagePart {
        path: path.to_owned(),
        mime: None,
    })
}

/// The text of MCP or dynamic tool content: text items joined, others as JSON.
fn content_text(content: Option<&Value>) -> String {
    let Some(Value::Array(items)) = content else {
        return String::new();
    };
    let texts: Vec<String> = items
        .iter()
        .map(|item| match item.get("text").and_then(Value::as_str) {
            Some(text) => text.to_owned(),
            None => item.to_string(),
        })
        .collect();
    texts.join("\n")
}

/// The detail of a status item: the review text, the hook prompt, the sub-agent path.
pub(crate) fn status_detail(item: &ThreadItem) -> Option<String> {
    let detail = match &item.kind {
        ItemType::EnteredReviewMode(review) | ItemType::ExitedReviewMode(review) => {
            review.review.clone()
        }
        ItemType::SubAgentActivity { agent_path, .. } => agent_path.clone(),
        ItemType::Sleep { duration_ms } => format!("{} ms", (*duration_ms)?),
        ItemType::HookPrompt { fragments } => {
            let texts: Vec<&str> = fragments
                .as_ref()?
                .iter()
                .map(|f| f.get().map_or("", |f| f.text.as_str()))
                .collect();
            texts.join("\n")
        }
        ItemType::FunctionCallOutput { output, .. } => match output.as_ref()? {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        },
        _ => return None,
    };
    (!detail.is_empty()).then_some(detail)
}

/// The reasoning parts of a completed `reasoning` item: the summary (meant for users)
/// as public parts, the raw reasoning as private ones; `streamed` when it has neither.
pub(crate) fn reasoning_parts(item: &ThreadItem, streamed: &str) -> Vec<ContentPart> {
    let mut parts: Vec<ContentPart> = Vec::new();
    if let ItemType::Reasoning { summary, content } = &item.kind {
        let texts = |list: &[Lenient<String>], visibility: ReasoningVisibility| {
            let texts = list.iter().filter_map(Lenient::get);
            texts
                .map(|text| item::reasoning_part(text.clone(), visibility))
                .collect::<Vec<_>>()
        };
        parts.extend(texts(summary, ReasoningVisibility::Public));
        parts.extend(texts(content, ReasoningVisibility::Private));
    }
    if parts.is_empty() && !streamed.is_empty() {
        parts.push(item::reasoning_part(streamed, ReasoningVisibility::Public));
    }
    parts
}

/// One entry of a `fileChange` item.
struct Change {
    path: String,
    /// `add`, `delete` or `update`.
    kind: String,
    /// Codex's diff: the new content for `add`, the old one for `delete`, a unified
    /// diff for `update`.
    diff: String,
}

impl Change {
    /// `A`, `D` or `M`, as `git status --short` says it.
    fn letter(&self) -> &'static str {
        match self.kind.as_str() {
            "add" => "A",
            "delete" => "D",
            _ => "M",
        }
    }

    /// The change as a `file_ref` with a unified diff (`a/`, `b/` prefixes for
    /// relative paths, as git writes them; absolute paths as they are).
    fn file_ref(&self) -> ContentPart {
        let path = &self.path;
        let (a, b) = if path.starts_with('/') {
            (path.clone(), path.clone())
        } else {
            (format!("a/{path}"), format!("b/{path}"))
        };
        let whole = |sign: char| -> (usize, String) {
            let lines: Vec<String> = self.diff.lines().map(|l| format!("{sign}{l}\n")).collect();
            (lines.len(), lines.concat())
        };
        let (action, diff) = match self.kind.as_str() {
            "add" => {
                let (count, body) = whole('+');
                let diff = format!("--- /dev/null\n+++ {b}\n@@ -0,0 +1,{count} @@\n{body}");
                (FileAction::Write, diff)
            }
            "delete" => {
                let (count, body) = whole('-');
                let diff = format!("--- {a}\n+++ /dev/null\n@@ -1,{count} +0,0 @@\n{body}");
                (FileAction::Patch, diff)
            }
            _ if self.diff.starts_with("---") => (FileAction::Patch, self.diff.clone()),
            _ => (
                FileAction::Patch,
                format!("--- {a}\n+++ {b}\n{}", self.diff),
            ),
        };
        item::file_ref(path, action, Some(diff))
    }
}

/// The changes of a `fileChange` item.
fn changes(list: &Option<Vec<Lenient<FileChange>>>) -> Vec<Change> {
    let list = list.as_deref().unwrap_or_default();
    list.iter()
        .map(|change| {
            let change = change.get().cloned().unwrap_or_default();
            Change {
                path: change.path,
                kind: change.kind.kind,
                diff: change.diff,
            }
        })
        .collect()
}

/// The usage of one model request (`tokenUsage.last`), added to `total`.
pub(crate) fn add_usage(total: Option<Usage>, token_usage: &TokenUsage) -> Option<Usage> {
    let last = token_usage.last.as_ref()?;
    let mut usage = total.unwrap_or(Usage {
        input_tokens: Some(0),
        output_tokens: Some(0),
        cached_tokens: Some(0),
        reasoning_tokens: Some(0),
        cost_usd: None,
    });
    let add = |field: &mut Option<u64>, value: u64| *field = Some(field.unwrap_or(0) + value);
    add(&mut usage.input_tokens, last.input_tokens);
    add(&mut usage.output_tokens, last.output_tokens);
    add(&mut usage.cached_tokens, last.cached_input_tokens);
    add(&mut usage.reasoning_tokens, last.reasoning_output_tokens);
    Some(usage)
}

/// A `TurnError` as an `error` event: the provider's own message when Codex passes its
/// error body through (`{"error":{"message":...}}`), `codexErrorInfo` as the code, and
/// the whole error (as it came) as details.
pub(crate) fn error_event(error: &Value) -> EmittedEvent {
    let TurnError {
        message,
        codex_error_info,
    } = native::read(error);
    let provider_message = serde_json::from_str::<ProviderError>(&message)
        .ok()
        .and_then(|body| body.error.message);
    let code = match codex_error_info {
        Some(ErrorInfo::Name(code)) => Some(code),
        Some(ErrorInfo::Details(map)) => map.keys().next().cloned(),
        None => None,
    };
    event::error_with_details(
        provider_message.unwrap_or(message),
        code.as_deref(),
        Some(error.to_string()),
    )
}
