//! The OpenAI Responses API (`POST /v1/responses`), as Codex uses it.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::script::{Block, Conversation, Reply, ToolInput, Usage};
use crate::sse::{self, Frame};
use crate::tools::Tool;
use crate::{is_agent_context, list, openai_error};

/// What a Responses request asks.
pub fn conversation(body: &Value) -> Conversation {
    let input: Vec<&Value> = list(&body["input"]).collect();
    let last = input.last();
    let tool_output = last
        .filter(|item| {
            item["type"]
                .as_str()
                .is_some_and(|t| t.ends_with("_call_output"))
        })
        .map(|item| match &item["output"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        });
    let found_tools = last
        .filter(|item| item["type"] == "tool_search_output")
        .map(|item| tools(&item["tools"]));
    let user_text = input
        .iter()
        .filter(|item| item["role"] == "user")
        .flat_map(|item| list(&item["content"]))
        .filter_map(|part| part["text"].as_str())
        .filter(|text| !is_agent_context(text))
        .last()
        .unwrap_or_else(|| body["input"].as_str().unwrap_or(""))
        .to_owned();
    Conversation {
        user_text,
        tool_output,
        tools: tools(&body["tools"]),
        found_tools,
        working_dir: None,
        skill_files: Vec::new(),
    }
}

/// The tools of a list: functions, custom tools, the built-in tool search, and
/// the tools of namespaces (as a request's `tools` and a `tool_search_output`
/// item list them).
fn tools(list_of_tools: &Value) -> Vec<Tool> {
    list(list_of_tools)
        .flat_map(|tool| {
            let name = tool["name"].as_str().unwrap_or_default();
            match tool["type"].as_str() {
                Some("namespace") => tools(&tool["tools"])
                    .into_iter()
                    .map(|member| member.in_namespace(name))
                    .collect(),
                Some("tool_search") => vec![Tool::search(tool["parameters"].clone())],
                _ if name.is_empty() => vec![],
                Some("custom") => vec![Tool::free_form(name)],
                _ => vec![Tool::function(name, tool["parameters"].clone())],
            }
        })
        .collect()
}

/// The answer to a warmup (`generate: false`, which Codex sends on its
/// WebSocket before a turn's first request): a response without output, as
/// OpenAI's prepares the conversation and generates nothing.
pub fn warmup(body: &Value) -> Option<Reply> {
    (body["generate"] == false).then(|| Reply::Blocks {
        blocks: Vec::new(),
        chunk_delay_ms: 0,
    })
}

/// The reply as a streamed or whole Responses response. OpenAI's input includes
/// cache reads and writes, and the output the reasoning.
pub fn respond(reply: &Reply, model: &str, id: u64, stream: bool, usage: &Usage) -> Response {
    match events(reply, model, id, usage) {
        Err(message) => (StatusCode::BAD_REQUEST, Json(openai_error(&message))).into_response(),
        Ok(events) if stream => sse::respond(events),
        // The last event, `response.completed`, holds the whole response.
        Ok(mut events) => {
            let last = events.pop().map(|event| event.data).unwrap_or_default();
            let completed: Value = serde_json::from_str(&last).unwrap_or_default();
            Json(completed["response"].clone()).into_response()
        }
    }
}

/// The events of the reply as a stream, `response.created` to
/// `response.completed` (an SSE stream's, a WebSocket's text frames); the
/// error's message for an error reply.
pub fn events(reply: &Reply, model: &str, id: u64, usage: &Usage) -> Result<Vec<Frame>, String> {
    let (blocks, delay) = match reply {
        Reply::Error(message) => return Err(message.clone()),
        Reply::Blocks {
            blocks,
            chunk_delay_ms,
        } => (blocks, *chunk_delay_ms),
    };
    let response_id = format!("resp_{id}");
    let items: Vec<Value> = blocks
        .iter()
        .enumerate()
        .map(|(index, block)| whole_item(&format!("{response_id}_{index}"), block))
        .collect();
    let input = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
    let output = usage.output_tokens + usage.reasoning_tokens;
    let mut input_details = json!({"cached_tokens": usage.cache_read_tokens});
    if usage.cache_write_tokens > 0 {
        input_details["cache_write_tokens"] = json!(usage.cache_write_tokens);
    }
    let response = |status: &str, output_items: Vec<Value>| {
        json!({
            "id": response_id, "object": "response", "model": model, "status": status,
            "output": output_items,
            "usage": {
                "input_tokens": input,
                "input_tokens_details": input_details,
                "output_tokens": output,
                "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
                "total_tokens": input + output,
            },
        })
    };
    let event = |kind: &str, mut data: Value| {
        data["type"] = json!(kind);
        Frame::named(kind, data)
    };
    let mut frames = vec![
        event(
            "response.created",
            json!({"response": response("in_progress", vec![])}),
        ),
        event(
            "response.in_progress",
            json!({"response": response("in_progress", vec![])}),
        ),
    ];
    for (index, (block, item)) in blocks.iter().zip(&items).enumerate() {
        let item_id = item["id"].clone();
        let mut added = item.clone();
        added["status"] = json!("in_progress");
        match block {
            Block::Reasoning(text) => {
                added["summary"] = json!([]);
                frames.push(event(
                    "response.output_item.added",
                    json!({"output_index": index, "item": added}),
                ));
                let at = json!({"item_id": item_id, "output_index": index, "summary_index": 0});
                frames.push(event(
                    "response.reasoning_summary_part.added",
                    merge(&at, json!({"part": {"type": "summary_text", "text": ""}})),
                ));
                frames.push(event(
                    "response.reasoning_summary_text.delta",
                    merge(&at, json!({"delta": text})),
                ));
                frames.push(event(
                    "response.reasoning_summary_text.done",
                    merge(&at, json!({"text": text})),
                ));
                frames.push(event(
                    "response.reasoning_summary_part.done",
                    merge(&at, json!({"part": {"type": "summary_text", "text": text}})),
                ));
            }
            Block::Text(chunks) => {
                added["content"] = json!([]);
                frames.push(event(
                    "response.output_item.added",
                    json!({"output_index": index, "item": added}),
                ));
                let at = json!({"item_id": item_id, "output_index": index, "content_index": 0});
                frames.push(event(
                    "response.content_part.added",
                    merge(
                        &at,
                        json!({"part": {"type": "output_text", "text": "", "annotations": []}}),
                    ),
                ));
                for chunk in chunks {
                    frames.push(
                        event(
                            "response.output_text.delta",
                            merge(&at, json!({"delta": chunk})),
                        )
                        .after(delay),
                    );
                }
                let text = chunks.concat();
                frames.push(event(
                    "response.output_text.done",
                    merge(&at, json!({"text": text})),
                ));
                frames.push(event(
                    "response.content_part.done",
                    merge(
                        &at,
                        json!({"part": {"type": "output_text", "text": text, "annotations": []}}),
                    ),
                ));
            }
            Block::ToolCall(call) => {
                let at = json!({"item_id": item_id, "output_index": index});
                match &call.input {
                    ToolInput::Json(arguments) => {
                        added["arguments"] = json!("");
                        frames.push(event(
                            "response.output_item.added",
                            json!({"output_index": index, "item": added}),
                        ));
                        let arguments = arguments.to_string();
                        frames.push(event(
                            "response.function_call_arguments.delta",
                            merge(&at, json!({"delta": arguments})),
                        ));
                        frames.push(event(
                            "response.function_call_arguments.done",
                            merge(&at, json!({"arguments": arguments})),
                        ));
                    }
                    ToolInput::Search(_) => frames.push(event(
                        "response.output_item.added",
                        json!({"output_index": index, "item": added}),
                    )),
                    ToolInput::Text(text) => {
                        added["input"] = json!("");
                        frames.push(event(
                            "response.output_item.added",
                            json!({"output_index": index, "item": added}),
                        ));
                        frames.push(event(
                            "response.custom_tool_call_input.delta",
                            merge(&at, json!({"delta": text})),
                        ));
                        frames.push(event(
                            "response.custom_tool_call_input.done",
                            merge(&at, json!({"input": text})),
                        ));
                    }
                }
            }
        }
        frames.push(event(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        ));
    }
    frames.push(event(
        "response.completed",
        json!({"response": response("completed", items)}),
    ));
    Ok(frames)
}

/// A finished output item.
fn whole_item(id: &str, block: &Block) -> Value {
    match block {
        Block::Reasoning(text) => json!({
            "type": "reasoning", "id": id, "status": "completed",
            "summary": [{"type": "summary_text", "text": text}],
        }),
        Block::Text(chunks) => json!({
            "type": "message", "id": id, "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": chunks.concat(), "annotations": []}],
        }),
        Block::ToolCall(call) => {
            let mut item = match &call.input {
                ToolInput::Json(arguments) => json!({
                    "type": "function_call", "id": id, "call_id": call.id, "name": call.name,
                    "arguments": arguments.to_string(), "status": "completed",
                }),
                ToolInput::Text(text) => json!({
                    "type": "custom_tool_call", "id": id, "call_id": call.id, "name": call.name,
                    "input": text, "status": "completed",
                }),
                // The agent runs the search itself (`execution: client`).
                ToolInput::Search(arguments) => json!({
                    "type": "tool_search_call", "id": id, "call_id": call.id,
                    "execution": "client", "arguments": arguments, "status": "completed",
                }),
            };
            if let Some(namespace) = &call.namespace {
                item["namespace"] = json!(namespace);
            }
            item
        }
    }
}

/// `base` with the fields of `more` added.
fn merge(base: &Value, more: Value) -> Value {
    let mut merged = base.clone();
    if let (Some(target), Value::Object(fields)) = (merged.as_object_mut(), more) {
        target.extend(fields);
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script;

    /// The last block of the model's answer to `body`, as a finished item.
    fn answer(body: &Value) -> Value {
        let Reply::Blocks { blocks, .. } = script::reply(&conversation(body), 1) else {
            panic!("an answer")
        };
        whole_item("item", blocks.last().expect("a block"))
    }

    #[test]
    fn a_warmup_is_answered_without_output() {
        assert_eq!(warmup(&json!({"generate": true})), None);
        let reply = warmup(&json!({"type": "response.create", "generate": false})).unwrap();
        let events = events(&reply, "m", 1, &script::USAGE).unwrap();
        let kinds: Vec<_> = events.iter().map(|e| e.event.as_deref().unwrap()).collect();
        assert_eq!(
            kinds,
            [
                "response.created",
                "response.in_progress",
                "response.completed"
            ]
        );
        let completed: Value = serde_json::from_str(&events[2].data).unwrap();
        assert_eq!(completed["response"]["output"], json!([]));
    }

    #[test]
    fn a_deferred_mcp_tool_is_searched_for_then_called_in_its_namespace() {
        // Codex offers its built-in tool search, not the MCP server's tools.
        let tools = json!([
            {"type": "function", "name": "exec_command", "parameters": {}},
            {"type": "tool_search", "execution": "client", "description": "Tool discovery",
             "parameters": {"properties": {"query": {"type": "string"}, "limit": {"type": "number"}}}},
        ]);
        let mut input = vec![json!({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "mcp: add {\"a\": 2, \"b\": 3}"},
        ]})];
        let search = answer(&json!({"tools": tools, "input": input}));
        assert_eq!(
            search,
            json!({"type": "tool_search_call", "id": "item", "call_id": "call_1",
                   "execution": "client", "arguments": {"query": "add"}, "status": "completed"})
        );

        // Codex runs the search and reports the namespace it found.
        input.push(search);
        input.push(json!({
            "type": "tool_search_output", "call_id": "call_1", "execution": "client",
            "status": "completed",
            "tools": [{"type": "namespace", "name": "mcp__calc", "description": "Tools in the mcp__calc namespace.",
                       "tools": [{"type": "function", "name": "add", "defer_loading": true, "strict": false,
                                  "parameters": {"properties": {"a": {}, "b": {}}}}]}],
        }));
        let body = json!({"tools": tools, "input": input});
        assert_eq!(conversation(&body).tool_output, None);
        let add = answer(&body);
        assert_eq!(
            add,
            json!({"type": "function_call", "id": "item", "call_id": "call_1", "name": "add",
                   "namespace": "mcp__calc", "arguments": "{\"a\":2,\"b\":3}", "status": "completed"})
        );

        // The tool's output finishes the turn.
        input.push(add);
        input
            .push(json!({"type": "function_call_output", "call_id": "call_1", "output": "sum: 5"}));
        let body = json!({"tools": tools, "input": input});
        assert_eq!(conversation(&body).tool_output.as_deref(), Some("sum: 5"));
        assert_eq!(answer(&body)["content"][0]["text"], "done");
    }
}
