//! The Anthropic Messages API (`POST /v1/messages`), as Claude Code uses it.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::script::{Block, Conversation, Reply, ToolInput, Usage};
use crate::sse::{self, Frame};
use crate::tools::Tool;
use crate::{is_agent_context, list};

/// What a Messages request asks.
pub fn conversation(body: &Value) -> Conversation {
    let tools = list(&body["tools"])
        .map(|tool| {
            Tool::function(
                tool["name"].as_str().unwrap_or(""),
                tool["input_schema"].clone(),
            )
        })
        .collect();
    // Agents may close the conversation with a `system` note (Claude Code after a
    // plan approval): the last user or assistant message is what counts.
    let last = list(&body["messages"])
        .filter(|m| m["role"] != "system")
        .last();
    let tool_output = last
        .map(|m| blocks(&m["content"]))
        .unwrap_or_default()
        .iter()
        .find(|b| b["type"] == "tool_result")
        .map(|b| text_of(&b["content"]));
    let user_text = list(&body["messages"])
        .filter(|m| m["role"] == "user")
        .flat_map(|m| blocks(&m["content"]))
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .filter(|text| !is_agent_context(text))
        .last()
        .unwrap_or_default();
    Conversation {
        user_text,
        tool_output,
        tools,
        found_tools: None,
        working_dir: None,
        skill_files: Vec::new(),
    }
}

/// The reply as a streamed or whole Messages response. Anthropic counts input
/// apart from cache reads and writes, and thinking in the output.
pub fn respond(reply: &Reply, model: &str, id: u64, stream: bool, usage: &Usage) -> Response {
    let (blocks, delay) = match reply {
        Reply::Error(message) => {
            let error = json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}});
            return (StatusCode::BAD_REQUEST, Json(error)).into_response();
        }
        Reply::Blocks {
            blocks,
            chunk_delay_ms,
        } => (blocks, *chunk_delay_ms),
    };
    let stop_reason = if reply.calls_tool() {
        "tool_use"
    } else {
        "end_turn"
    };
    let message_id = format!("msg_{id}");
    if !stream {
        let content: Vec<Value> = blocks.iter().map(whole_block).collect();
        return Json(json!({
            "id": message_id, "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop_reason, "stop_sequence": null,
            "usage": whole_usage(usage),
        }))
        .into_response();
    }
    let mut frames = vec![Frame::named(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": usage.input_tokens, "output_tokens": 1,
                      "cache_creation_input_tokens": usage.cache_write_tokens,
                      "cache_read_input_tokens": usage.cache_read_tokens},
        }}),
    )];
    for (index, block) in blocks.iter().enumerate() {
        frames.extend(block_frames(index, block, delay));
    }
    frames.push(Frame::named(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": usage.output_tokens + usage.reasoning_tokens}}),
    ));
    frames.push(Frame::named(
        "message_stop",
        json!({"type": "message_stop"}),
    ));
    sse::respond(frames)
}

fn whole_usage(usage: &Usage) -> Value {
    json!({"input_tokens": usage.input_tokens,
           "output_tokens": usage.output_tokens + usage.reasoning_tokens,
           "cache_creation_input_tokens": usage.cache_write_tokens,
           "cache_read_input_tokens": usage.cache_read_tokens})
}

fn whole_block(block: &Block) -> Value {
    match block {
        Block::Reasoning(text) => {
            json!({"type": "thinking", "thinking": text, "signature": "c2NyaXB0ZWQ="})
        }
        Block::Text(chunks) => json!({"type": "text", "text": chunks.concat()}),
        Block::ToolCall(call) => {
            json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input_json(&call.input)})
        }
    }
}

fn block_frames(index: usize, block: &Block, delay: u64) -> Vec<Frame> {
    let delta = |delta: Value| {
        Frame::named(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        )
    };
    let start = match block {
        Block::Reasoning(_) => json!({"type": "thinking", "thinking": "", "signature": ""}),
        Block::Text(_) => json!({"type": "text", "text": ""}),
        Block::ToolCall(call) => {
            json!({"type": "tool_use", "id": call.id, "name": call.name, "input": {}})
        }
    };
    let mut frames = vec![Frame::named(
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": start}),
    )];
    match block {
        Block::Reasoning(text) => {
            frames.push(delta(json!({"type": "thinking_delta", "thinking": text})));
            frames.push(delta(
                json!({"type": "signature_delta", "signature": "c2NyaXB0ZWQ="}),
            ));
        }
        Block::Text(chunks) => frames.extend(
            chunks
                .iter()
                .map(|chunk| delta(json!({"type": "text_delta", "text": chunk})).after(delay)),
        ),
        Block::ToolCall(call) => frames.push(delta(json!({
            "type": "input_json_delta", "partial_json": input_json(&call.input).to_string()
        }))),
    }
    frames.push(Frame::named(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": index}),
    ));
    frames
}

fn input_json(input: &ToolInput) -> Value {
    match input {
        ToolInput::Json(value) | ToolInput::Search(value) => value.clone(),
        ToolInput::Text(text) => json!({ "input": text }),
    }
}

/// A message's content blocks (a bare string is one text block).
fn blocks(content: &Value) -> Vec<Value> {
    match content {
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        _ => list(content).cloned().collect(),
    }
}

/// The text of a tool result's content (a string or text blocks).
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        _ => list(content)
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}
