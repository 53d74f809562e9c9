//! The OpenAI Chat Completions API (`POST /v1/chat/completions`), as OpenCode's
//! OpenAI-compatible provider uses it.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::script::{Block, Conversation, Reply, ToolInput, USAGE};
use crate::sse::{self, Frame};
use crate::tools::Tool;
use crate::{is_agent_context, list, openai_error};

/// What a Chat Completions request asks.
pub fn conversation(body: &Value) -> Conversation {
    let tools = list(&body["tools"])
        .filter_map(|tool| {
            let function = &tool["function"];
            Some(Tool::function(
                function["name"].as_str()?,
                function["parameters"].clone(),
            ))
        })
        .collect();
    let messages: Vec<&Value> = list(&body["messages"])
        .filter(|m| m["role"] != "system")
        .collect();
    let tool_output = messages
        .last()
        .filter(|m| m["role"] == "tool")
        .map(|m| text_of(&m["content"]));
    let user_text = messages
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| text_of(&m["content"]))
        .rfind(|text| !is_agent_context(text))
        .unwrap_or_default();
    Conversation {
        user_text,
        tool_output,
        tools,
        working_dir: None,
    }
}

/// The reply as a streamed or whole Chat Completions response.
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
    let completion_id = format!("chatcmpl_{id}");
    let finish_reason = if reply.calls_tool() {
        "tool_calls"
    } else {
        "stop"
    };
    let usage = json!({
        "prompt_tokens": USAGE.input_tokens,
        "completion_tokens": USAGE.output_tokens,
        "total_tokens": USAGE.input_tokens + USAGE.output_tokens,
    });
    let tool_calls: Vec<Value> = blocks
        .iter()
        .filter_map(|block| match block {
            Block::ToolCall(call) => Some(call),
            _ => None,
        })
        .enumerate()
        .map(|(index, call)| {
            json!({
                "index": index, "id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": arguments(&call.input)},
            })
        })
        .collect();
    if !stream {
        let text: String = blocks
            .iter()
            .filter_map(|b| match b {
                Block::Text(chunks) => Some(chunks.concat()),
                _ => None,
            })
            .collect();
        let reasoning: String = blocks
            .iter()
            .filter_map(|b| match b {
                Block::Reasoning(text) => Some(text.clone()),
                _ => None,
            })
            .collect();
        let mut message = json!({"role": "assistant", "content": text});
        if !reasoning.is_empty() {
            message["reasoning_content"] = json!(reasoning);
        }
        if !tool_calls.is_empty() {
            message["tool_calls"] = json!(tool_calls);
        }
        return Json(json!({
            "id": completion_id, "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": usage,
        }))
        .into_response();
    }
    let chunk = |delta: Value, finish: Option<&str>| {
        Frame::data(json!({
            "id": completion_id, "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }))
    };
    let mut frames = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    for block in blocks {
        match block {
            Block::Reasoning(text) => frames.push(chunk(json!({"reasoning_content": text}), None)),
            Block::Text(chunks) => frames.extend(
                chunks
                    .iter()
                    .map(|text| chunk(json!({"content": text}), None).after(delay)),
            ),
            Block::ToolCall(_) => {}
        }
    }
    if !tool_calls.is_empty() {
        frames.push(chunk(json!({"tool_calls": tool_calls}), None));
    }
    frames.push(chunk(json!({}), Some(finish_reason)));
    frames.push(Frame::data(json!({
        "id": completion_id, "object": "chat.completion.chunk", "created": 0, "model": model,
        "choices": [], "usage": usage,
    })));
    frames.push(Frame::data("[DONE]"));
    sse::respond(frames)
}

fn arguments(input: &ToolInput) -> String {
    match input {
        ToolInput::Json(value) => value.to_string(),
        ToolInput::Text(text) => json!({ "input": text }).to_string(),
    }
}

/// A message's text: a string, or the text of its parts.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        _ => list(content)
            .filter_map(|part| part["text"].as_str())
            .filter(|text| !is_agent_context(text))
            .last()
            .unwrap_or("")
            .to_owned(),
    }
}
