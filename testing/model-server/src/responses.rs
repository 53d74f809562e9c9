//! The OpenAI Responses API (`POST /v1/responses`), as Codex uses it.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::script::{Block, Conversation, Reply, ToolInput, USAGE};
use crate::sse::{self, Frame};
use crate::tools::Tool;
use crate::{is_agent_context, list, openai_error};

/// What a Responses request asks.
pub fn conversation(body: &Value) -> Conversation {
    let tools = list(&body["tools"])
        .filter_map(|tool| {
            let name = tool["name"].as_str()?;
            Some(match tool["type"].as_str() {
                Some("custom") => Tool::free_form(name),
                _ => Tool::function(name, tool["parameters"].clone()),
            })
        })
        .collect();
    let input: Vec<&Value> = list(&body["input"]).collect();
    let tool_output = input
        .last()
        .filter(|item| {
            item["type"]
                .as_str()
                .is_some_and(|t| t.ends_with("_call_output"))
        })
        .map(|item| match &item["output"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        });
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
        tools,
        working_dir: None,
    }
}

/// The reply as a streamed or whole Responses response.
pub fn respond(reply: &Reply, model: &str, id: u64, stream: bool) -> Response {
    let (blocks, delay) = match reply {
        Reply::Error(message) => {
            return (StatusCode::BAD_REQUEST, Json(openai_error(message))).into_response()
        }
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
    let response = |status: &str, output: Vec<Value>| {
        json!({
            "id": response_id, "object": "response", "model": model, "status": status,
            "output": output,
            "usage": {
                "input_tokens": USAGE.input_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": USAGE.output_tokens,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": USAGE.input_tokens + USAGE.output_tokens,
            },
        })
    };
    if !stream {
        return Json(response("completed", items)).into_response();
    }
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
    sse::respond(frames)
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
        Block::ToolCall(call) => match &call.input {
            ToolInput::Json(arguments) => json!({
                "type": "function_call", "id": id, "call_id": call.id, "name": call.name,
                "arguments": arguments.to_string(), "status": "completed",
            }),
            ToolInput::Text(text) => json!({
                "type": "custom_tool_call", "id": id, "call_id": call.id, "name": call.name,
                "input": text, "status": "completed",
            }),
        },
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
