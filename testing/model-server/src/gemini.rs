//! The Gemini API (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse` and
//! `:generateContent`), as the Gemini CLI uses it through `GOOGLE_GEMINI_BASE_URL`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::script::{Block, Conversation, Reply, ToolInput, Usage};
use crate::sse::{self, Frame};
use crate::tools::Tool;
use crate::{is_agent_context, list};

/// What a `generateContent` request asks.
pub fn conversation(body: &Value) -> Conversation {
    let tools = list(&body["tools"])
        .flat_map(|tool| list(&tool["functionDeclarations"]))
        .filter_map(|function| {
            let schema = match &function["parametersJsonSchema"] {
                Value::Null => function["parameters"].clone(),
                schema => schema.clone(),
            };
            Some(Tool::function(function["name"].as_str()?, schema))
        })
        .collect();
    let contents: Vec<&Value> = list(&body["contents"]).collect();
    let tool_output = contents
        .last()
        .map(|content| list(&content["parts"]))
        .into_iter()
        .flatten()
        .find_map(|part| part.get("functionResponse"))
        .map(|response| match &response["response"]["output"] {
            Value::String(text) => text.clone(),
            Value::Null => response["response"].to_string(),
            other => other.to_string(),
        });
    let user_text = contents
        .iter()
        .filter(|content| content["role"] == "user")
        .flat_map(|content| list(&content["parts"]))
        .filter_map(|part| part["text"].as_str())
        .filter(|text| !is_agent_context(text))
        .last()
        .unwrap_or_default()
        .to_owned();
    Conversation {
        user_text,
        tool_output,
        tools,
        found_tools: None,
        working_dir: None,
        skill_files: Vec::new(),
    }
}

/// The answer to a request for JSON (`responseMimeType: application/json` with a
/// schema), which the CLI sends for its own side tasks (choosing a model, checking
/// who speaks next): one text part holding an object that fits the schema. `None`
/// for an ordinary request, which the script answers.
pub fn structured_reply(body: &Value) -> Option<Reply> {
    let config = &body["generationConfig"];
    if config["responseMimeType"] != "application/json" {
        return None;
    }
    let schema = [&config["responseJsonSchema"], &config["responseSchema"]]
        .into_iter()
        .find(|schema| !schema.is_null())?;
    Some(Reply::Blocks {
        blocks: vec![Block::Text(vec![structured(schema).to_string()])],
        chunk_delay_ms: 0,
    })
}

/// A JSON value that fits `schema`: each property its first enum value, the
/// smallest number, `false`, a short string or an empty list.
fn structured(schema: &Value) -> Value {
    if let Some(first) = schema["enum"].get(0) {
        return first.clone();
    }
    let kind = schema["type"]
        .as_str()
        .unwrap_or("object")
        .to_ascii_lowercase();
    match kind.as_str() {
        "object" => {
            let properties = schema["properties"].as_object();
            let object = properties
                .into_iter()
                .flatten()
                .map(|(name, property)| (name.clone(), structured(property)))
                .collect();
            Value::Object(object)
        }
        "array" => json!([]),
        "integer" | "number" => schema["minimum"]
            .as_i64()
            .map_or(json!(1), |min| json!(min)),
        "boolean" => json!(false),
        _ => json!("scripted"),
    }
}

/// The reply as a streamed (`alt=sse`) or whole `GenerateContentResponse`.
pub fn respond(reply: &Reply, model: &str, id: u64, stream: bool, usage: &Usage) -> Response {
    let (blocks, delay) = match reply {
        Reply::Error(message) => {
            let error =
                json!({"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}});
            return (StatusCode::BAD_REQUEST, Json(error)).into_response();
        }
        Reply::Blocks {
            blocks,
            chunk_delay_ms,
        } => (blocks, *chunk_delay_ms),
    };
    let response_id = format!("resp_{id}");
    let chunk = |parts: Vec<Value>, last: bool| {
        let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
        if last {
            candidate["finishReason"] = json!("STOP");
        }
        let mut body = json!({
            "candidates": [candidate], "modelVersion": model, "responseId": response_id,
        });
        if last {
            body["usageMetadata"] = usage_metadata(blocks, usage);
        }
        body
    };
    if !stream {
        let parts = blocks.iter().flat_map(parts).collect();
        return Json(chunk(parts, true)).into_response();
    }
    let mut frames: Vec<Frame> = blocks
        .iter()
        .flat_map(|block| {
            let paced = matches!(block, Block::Text(_));
            parts(block).into_iter().map(move |part| {
                let frame = Frame::data(chunk(vec![part], false));
                if paced {
                    frame.after(delay)
                } else {
                    frame
                }
            })
        })
        .collect();
    // The last chunk carries the finish reason and the usage, with no new text.
    frames.push(Frame::data(chunk(vec![json!({"text": ""})], true)));
    sse::respond(frames)
}

/// Token counts, with the reasoning's share when the answer thinks (5, unless
/// the script set one). The prompt count includes cached content; thoughts are
/// counted apart from the candidates; Gemini reports no cache writes.
fn usage_metadata(blocks: &[Block], usage: &Usage) -> Value {
    let thoughts = thoughts(blocks, usage);
    let prompt = usage.input_tokens + usage.cache_read_tokens;
    let mut metadata = json!({
        "promptTokenCount": prompt,
        "candidatesTokenCount": usage.output_tokens,
        "thoughtsTokenCount": thoughts,
        "totalTokenCount": prompt + usage.output_tokens + thoughts,
    });
    if usage.cache_read_tokens > 0 {
        metadata["cachedContentTokenCount"] = json!(usage.cache_read_tokens);
    }
    metadata
}

/// The thought tokens an answer reports: 5 when it reasons, unless the script
/// set a count.
pub fn thoughts(blocks: &[Block], usage: &Usage) -> u64 {
    match usage.reasoning_tokens {
        0 if blocks.iter().any(|b| matches!(b, Block::Reasoning(_))) => 5,
        set => set,
    }
}

/// A block as Gemini content parts: one per text chunk, a `thought` text part for
/// reasoning, a `functionCall` part for a tool call.
fn parts(block: &Block) -> Vec<Value> {
    match block {
        Block::Reasoning(text) => vec![json!({"text": text, "thought": true})],
        Block::Text(chunks) => chunks.iter().map(|text| json!({"text": text})).collect(),
        Block::ToolCall(call) => {
            let args = match &call.input {
                ToolInput::Json(value) | ToolInput::Search(value) => value.clone(),
                ToolInput::Text(text) => json!({ "input": text }),
            };
            // The real API gives calls no id; the CLI makes its own.
            vec![json!({"functionCall": {"name": call.name, "args": args}})]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_response_is_the_tool_output_and_context_is_skipped() {
        let body = json!({
            "contents": [
                {"role": "user", "parts": [{"text": "<session_context>\nsetup\n</session_context>"}]},
                {"role": "user", "parts": [{"text": "run: ls"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "run_shell_command", "args": {"command": "ls"}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command", "response": {"output": "a.txt"}}}]},
            ],
            "tools": [{"functionDeclarations": [
                {"name": "run_shell_command", "parametersJsonSchema": {"properties": {"command": {}}}},
            ]}],
        });
        let conversation = conversation(&body);
        assert_eq!(conversation.user_text, "run: ls");
        assert_eq!(conversation.tool_output.as_deref(), Some("a.txt"));
        assert_eq!(conversation.tools[0].name, "run_shell_command");
    }

    #[test]
    fn json_requests_get_an_object_that_fits_the_schema() {
        let body = json!({"generationConfig": {
            "responseMimeType": "application/json",
            "responseJsonSchema": {"type": "OBJECT", "properties": {
                "reasoning": {"type": "STRING"},
                "score": {"type": "INTEGER"},
                "next_speaker": {"type": "STRING", "enum": ["user", "model"]},
            }},
        }});
        let Some(Reply::Blocks { blocks, .. }) = structured_reply(&body) else {
            panic!("a structured reply")
        };
        let [Block::Text(chunks)] = &blocks[..] else {
            panic!("{blocks:?}")
        };
        let answer: Value = serde_json::from_str(&chunks.concat()).unwrap();
        assert_eq!(
            answer,
            json!({"reasoning": "scripted", "score": 1, "next_speaker": "user"})
        );
        assert!(structured_reply(&json!({})).is_none());
    }
}
