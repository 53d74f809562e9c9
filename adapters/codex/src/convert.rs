//! Codex's thread items, token usage and errors as universal content.
//!
//! Pure functions over the JSON of the protocol (`ThreadItem`, `ThreadTokenUsage`,
//! `TurnError`); the turn logic in [`crate::turn`] decides when to emit what.

use sandbox_agent_adapter_kit::prelude::*;
use serde_json::{json, Value};

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

/// A string field of `value`, empty when absent.
pub(crate) fn str_of<'a>(value: &'a Value, name: &str) -> &'a str {
    value.get(name).and_then(Value::as_str).unwrap_or_default()
}

/// What `item` becomes, from its `type`.
pub(crate) fn kind(item: &Value) -> Kind {
    let tool = |name: String, arguments: Value, action: String| {
        Kind::Tool(ToolCall {
            name,
            arguments: arguments.to_string(),
            action,
        })
    };
    let field = |name: &str| item.get(name).cloned().unwrap_or(Value::Null);
    match str_of(item, "type") {
        "userMessage" => Kind::User,
        "agentMessage" | "plan" => Kind::Message,
        "reasoning" => Kind::Reasoning,
        "commandExecution" => tool(
            "shell".into(),
            json!({ "command": field("command"), "cwd": field("cwd") }),
            format!("shell: {}", display_command(item)),
        ),
        "fileChange" => {
            let changes = changes(item);
            let arguments: Vec<Value> = changes
                .iter()
                .map(|c| json!({ "path": c.path, "kind": c.kind }))
                .collect();
            let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
            tool(
                "apply_patch".into(),
                json!({ "changes": arguments }),
                format!("edit: {}", paths.join(", ")),
            )
        }
        "mcpToolCall" => {
            let name = format!("mcp__{}__{}", str_of(item, "server"), str_of(item, "tool"));
            tool(name.clone(), field("arguments"), name)
        }
        "dynamicToolCall" => {
            let name = match item.get("namespace").and_then(Value::as_str) {
                Some(namespace) => format!("{namespace}.{}", str_of(item, "tool")),
                None => str_of(item, "tool").to_owned(),
            };
            tool(name.clone(), field("arguments"), name)
        }
        "collabAgentToolCall" => {
            let name = str_of(item, "tool").to_owned();
            let arguments = json!({
                "prompt": field("prompt"),
                "receiverThreadIds": field("receiverThreadIds"),
                "model": field("model"),
            });
            tool(name.clone(), arguments, name)
        }
        "webSearch" => tool(
            "web_search".into(),
            json!({ "query": field("query"), "action": field("action") }),
            format!("web search: {}", str_of(item, "query")),
        ),
        "imageView" => tool(
            "view_image".into(),
            json!({ "path": field("path") }),
            format!("view image: {}", str_of(item, "path")),
        ),
        "imageGeneration" => tool(
            "image_generation".into(),
            json!({ "revisedPrompt": field("revisedPrompt") }),
            "image generation".into(),
        ),
        "contextCompaction" => Kind::Status("context compacted".into()),
        "enteredReviewMode" => Kind::Status("review started".into()),
        "exitedReviewMode" => Kind::Status("review finished".into()),
        "subAgentActivity" => Kind::Status(format!("subagent {}", str_of(item, "kind"))),
        "hookPrompt" => Kind::Status("hook prompt".into()),
        "sleep" => Kind::Status("sleep".into()),
        "functionCallOutput" => Kind::Status(format!("{} output", str_of(item, "name"))),
        _ => Kind::Unknown,
    }
}

/// The command as the model wrote it: the parsed command when Codex found exactly one
/// (`echo hello` rather than `/bin/bash -lc 'echo hello'`), else the whole command.
fn display_command(item: &Value) -> &str {
    match item.get("commandActions").and_then(Value::as_array) {
        Some(actions) if actions.len() == 1 => str_of(&actions[0], "command"),
        _ => str_of(item, "command"),
    }
}

/// How the tool-like `item` ended; `streamed` is the output streamed as deltas.
pub(crate) fn outcome(item: &Value, streamed: &str) -> Outcome {
    let status = str_of(item, "status");
    let completed = status == "completed";
    let simple = |output: String, ok: bool| Outcome {
        output,
        ok,
        parts: Vec::new(),
    };
    match str_of(item, "type") {
        "commandExecution" => {
            let output = item
                .get("aggregatedOutput")
                .and_then(Value::as_str)
                .unwrap_or(streamed);
            let exit_ok = item.get("exitCode").and_then(Value::as_i64).unwrap_or(0) == 0;
            simple(output.to_owned(), completed && exit_ok)
        }
        "fileChange" => {
            let changes = changes(item);
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
        "mcpToolCall" => match item.get("error").and_then(|e| e.get("message")) {
            Some(message) => simple(message.as_str().unwrap_or_default().to_owned(), false),
            None => {
                let content = item.get("result").and_then(|r| r.get("content"));
                simple(content_text(content), completed)
            }
        },
        "dynamicToolCall" => {
            let ok = item
                .get("success")
                .and_then(Value::as_bool)
                .unwrap_or(completed);
            simple(
                content_text(item.get("contentItems")),
                ok && status != "failed",
            )
        }
        "collabAgentToolCall" => simple(
            item.get("agentsStates")
                .map(Value::to_string)
                .unwrap_or_default(),
            completed,
        ),
        "webSearch" => {
            let results = item.get("results").filter(|r| !r.is_null());
            simple(results.map(Value::to_string).unwrap_or_default(), true)
        }
        "imageView" => {
            let path = str_of(item, "path");
            Outcome {
                output: path.to_owned(),
                ok: true,
                parts: vec![image(path)],
            }
        }
        "imageGeneration" => {
            let path = str_of(item, "savedPath");
            let failed = item.get("failure").is_some_and(|f| !f.is_null());
            Outcome {
                output: path.to_owned(),
                ok: !failed,
                parts: if path.is_empty() {
                    Vec::new()
                } else {
                    vec![image(path)]
                },
            }
        }
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
pub(crate) fn status_detail(item: &Value) -> Option<String> {
    let detail = match str_of(item, "type") {
        "enteredReviewMode" | "exitedReviewMode" => str_of(item, "review").to_owned(),
        "subAgentActivity" => str_of(item, "agentPath").to_owned(),
        "sleep" => format!("{} ms", item.get("durationMs").and_then(Value::as_u64)?),
        "hookPrompt" => {
            let fragments = item.get("fragments").and_then(Value::as_array)?;
            let texts: Vec<&str> = fragments.iter().map(|f| str_of(f, "text")).collect();
            texts.join("\n")
        }
        "functionCallOutput" => item.get("output").map(|o| match o.as_str() {
            Some(text) => text.to_owned(),
            None => o.to_string(),
        })?,
        _ => return None,
    };
    (!detail.is_empty()).then_some(detail)
}

/// The reasoning parts of a completed `reasoning` item: the summary (meant for users)
/// as public parts, the raw reasoning as private ones; `streamed` when it has neither.
pub(crate) fn reasoning_parts(item: &Value, streamed: &str) -> Vec<ContentPart> {
    let texts = |name: &str| -> Vec<String> {
        item.get(name)
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut parts: Vec<ContentPart> = texts("summary")
        .into_iter()
        .map(|text| item::reasoning_part(text, ReasoningVisibility::Public))
        .collect();
    parts.extend(
        texts("content")
            .into_iter()
            .map(|text| item::reasoning_part(text, ReasoningVisibility::Private)),
    );
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
fn changes(item: &Value) -> Vec<Change> {
    let Some(list) = item.get("changes").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .map(|change| Change {
            path: str_of(change, "path").to_owned(),
            kind: change
                .get("kind")
                .map(|k| str_of(k, "type"))
                .unwrap_or_default()
                .to_owned(),
            diff: str_of(change, "diff").to_owned(),
        })
        .collect()
}

/// The usage of one model request (`tokenUsage.last`), added to `total`.
pub(crate) fn add_usage(total: Option<Usage>, token_usage: &Value) -> Option<Usage> {
    let last = token_usage.get("last")?;
    let count = |name: &str| last.get(name).and_then(Value::as_u64).unwrap_or(0);
    let mut usage = total.unwrap_or(Usage {
        input_tokens: Some(0),
        output_tokens: Some(0),
        cached_tokens: Some(0),
        reasoning_tokens: Some(0),
        cost_usd: None,
    });
    let add = |field: &mut Option<u64>, value: u64| *field = Some(field.unwrap_or(0) + value);
    add(&mut usage.input_tokens, count("inputTokens"));
    add(&mut usage.output_tokens, count("outputTokens"));
    add(&mut usage.cached_tokens, count("cachedInputTokens"));
    add(&mut usage.reasoning_tokens, count("reasoningOutputTokens"));
    Some(usage)
}

/// A `TurnError` as an `error` event: the provider's own message when Codex passes its
/// error body through (`{"error":{"message":...}}`), `codexErrorInfo` as the code, and
/// the whole error as details.
pub(crate) fn error_event(error: &Value) -> EmittedEvent {
    let message = str_of(error, "message");
    let provider_message = serde_json::from_str::<Value>(message)
        .ok()
        .and_then(|body| {
            body.get("error")
                .and_then(|e| e.get("message"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    let code = match error.get("codexErrorInfo") {
        Some(Value::String(code)) => Some(code.clone()),
        Some(Value::Object(map)) => map.keys().next().cloned(),
        _ => None,
    };
    event::error_with_details(
        provider_message.unwrap_or_else(|| message.to_owned()),
        code.as_deref(),
        Some(error.to_string()),
    )
}
