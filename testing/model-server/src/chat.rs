//! The OpenAI Chat Completions API (`POST /v1/chat/completions`), as OpenCode's
//! OpenAI-compatible provider uses it.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::script::{Block, Conversation, Reply, ToolInput, Usage};
use crate::sse::{self, Frame};
use crate::tools::{self, Tool};
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
    let (tool_output, found_tools) = match messages.last().filter(|m| m["role"] == "tool") {
        Some(result) if called(&messages, &result["tool_call_id"]) == Some(tools::SEARCH) => {
            (None, Some(declared_tools(&result["content"])))
        }
        Some(output) => (Some(text_of(&output["content"])), None),
        None => (None, None),
    };
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
        found_tools,
        working_dir: None,
        skill_files: Vec::new(),
    }
}

/// The reply as a streamed or whole Chat Completions response. A stream ends
/// with a usage chunk only when the request asked for it (`include_usage`).
/// Prompt tokens include cache reads and writes, completion tokens the reasoning.
pub fn respond(
    reply: &Reply,
    model: &str,
    id: u64,
    stream: bool,
    usage: &Usage,
    include_usage: bool,
) -> Response {
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
    let prompt = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
    let completion = usage.output_tokens + usage.reasoning_tokens;
    let mut prompt_details = json!({"cached_tokens": usage.cache_read_tokens});
    if usage.cache_write_tokens > 0 {
        prompt_details["cache_write_tokens"] = json!(usage.cache_write_tokens);
    }
    let usage = json!({
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": prompt_details,
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
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
    if include_usage {
        frames.push(Frame::data(json!({
            "id": completion_id, "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [], "usage": usage,
        })));
    }
    frames.push(Frame::data("[DONE]"));
    sse::respond(frames)
}

fn arguments(input: &ToolInput) -> String {
    match input {
        ToolInput::Json(value) | ToolInput::Search(value) => value.to_string(),
        ToolInput::Text(text) => json!({ "input": text }).to_string(),
    }
}

/// The name of the tool the assistant last called with `call_id`.
fn called<'a>(messages: &[&'a Value], call_id: &Value) -> Option<&'a str> {
    messages
        .iter()
        .rev()
        .flat_map(|m| list(&m["tool_calls"]))
        .find(|call| call["id"] == *call_id)
        .and_then(|call| call["function"]["name"].as_str())
}

/// The tools a tool search's result declares: Qwen Code answers with a
/// `<functions>` block of `<function>{JSON declaration}</function>` lines.
fn declared_tools(content: &Value) -> Vec<Tool> {
    let text = match content {
        Value::String(text) => text.clone(),
        _ => list(content)
            .filter_map(|part| part["text"].as_str())
            .collect(),
    };
    text.split("<function>")
        .skip(1)
        .filter_map(|rest| serde_json::from_str::<Value>(rest.split_once("</function>")?.0).ok())
        .filter_map(|function| {
            let schema = match &function["parametersJsonSchema"] {
                Value::Null => function["parameters"].clone(),
                schema => schema.clone(),
            };
            Some(Tool::function(function["name"].as_str()?, schema))
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script;

    /// The model's tool call in answer to `messages`, as `(name, arguments)`.
    fn call(tools: &Value, messages: &[Value]) -> (String, Value) {
        let body = json!({"tools": tools, "messages": messages});
        let Reply::Blocks { blocks, .. } = script::reply(&conversation(&body), 1) else {
            panic!("an answer")
        };
        let Some(Block::ToolCall(call)) = blocks.last() else {
            panic!("a tool call: {blocks:?}")
        };
        (
            call.name.clone(),
            serde_json::from_str(&arguments(&call.input)).unwrap(),
        )
    }

    /// The assistant's call `id` of `name` with `arguments`, and the tool's answer `content`.
    fn exchange(id: &str, name: &str, arguments: &Value, content: Value) -> [Value; 2] {
        [
            json!({"role": "assistant", "content": "", "tool_calls": [{"id": id, "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()}}]}),
            json!({"role": "tool", "tool_call_id": id, "content": content}),
        ]
    }

    #[test]
    fn a_deferred_mcp_tool_is_searched_for_then_called_through_tool_call() {
        // Qwen Code offers `tool_search` and `tool_call`; MCP tools stay hidden.
        let function =
            |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {}}});
        let tools = json!([
            function("run_shell_command"),
            function("tool_search"),
            function("tool_call")
        ]);
        let mut messages =
            vec![json!({"role": "user", "content": "mcp: add {\"a\": 2, \"b\": 3}"})];
        let (name, arguments) = call(&tools, &messages);
        assert_eq!(
            (name.as_str(), &arguments),
            ("tool_search", &json!({"query": "add"}))
        );

        // The search's result declares the tools it found.
        let found = "<functions>\n<function>{\"name\":\"mcp__calc__add\",\"parametersJsonSchema\":{}}</function>\n</functions>";
        messages.extend(exchange(
            "call_1",
            &name,
            &arguments,
            json!([{"type": "text", "text": found}]),
        ));
        let body = json!({"tools": tools, "messages": messages});
        assert_eq!(conversation(&body).tool_output, None);
        let (name, arguments) = call(&tools, &messages);
        assert_eq!(name, "tool_call");
        assert_eq!(
            arguments,
            json!({"name": "mcp__calc__add", "arguments": {"a": 2, "b": 3}})
        );

        // The tool's output finishes the turn.
        messages.extend(exchange("call_2", &name, &arguments, json!("sum: 5")));
        let body = json!({"tools": tools, "messages": messages});
        let conversation = conversation(&body);
        assert_eq!(conversation.tool_output.as_deref(), Some("sum: 5"));
        assert!(!script::reply(&conversation, 2).calls_tool());
    }
}
