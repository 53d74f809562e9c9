//! The Agent Client Protocol as the CLI speaks it: JSON-RPC 2.0, one message per
//! line. Reading a line into a [`Message`], and building the lines the adapter
//! writes.

use serde_json::{json, Value};

/// The ACP version the adapter speaks.
const PROTOCOL_VERSION: u64 = 1;

/// One line the CLI printed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Message {
    /// The answer to one of the adapter's requests.
    Response {
        /// The adapter's request id.
        id: u64,
        /// `result` or, for a failure, `error`.
        outcome: Result<Value, RpcError>,
    },
    /// A request the adapter must answer (`session/request_permission`...).
    Request {
        /// The CLI's id, echoed in the answer.
        id: Value,
        method: String,
        params: Value,
    },
    /// A notification (`session/update`).
    Notification { method: String, params: Value },
}

/// A JSON-RPC error.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub code: i64,
    pub message: String,
    /// `data.details` when the CLI adds it (its explanation of an internal error).
    pub details: Option<String>,
}

impl RpcError {
    /// What a client should read: the details when there are some, else the
    /// message; an API error the CLI passes on as JSON text is unwrapped to its
    /// own message.
    pub fn describe(&self) -> String {
        if let Some(details) = &self.details {
            return details.clone();
        }
        serde_json::from_str::<Value>(&self.message)
            .ok()
            .and_then(|v| v["error"]["message"].as_str().map(str::to_owned))
            .unwrap_or_else(|| self.message.clone())
    }
}

/// Reads one line; `None` when it is not a JSON-RPC message.
pub(crate) fn parse(line: &str) -> Option<Message> {
    let value: Value = serde_json::from_str(line).ok()?;
    if value["jsonrpc"] != "2.0" {
        return None;
    }
    match (value.get("id"), value["method"].as_str()) {
        (Some(id), Some(method)) => Some(Message::Request {
            id: id.clone(),
            method: method.to_owned(),
            params: value["params"].clone(),
        }),
        (None, Some(method)) => Some(Message::Notification {
            method: method.to_owned(),
            params: value["params"].clone(),
        }),
        (Some(id), None) => {
            let id = id.as_u64()?;
            let outcome = match value.get("error") {
                Some(error) => Err(RpcError {
                    code: error["code"].as_i64().unwrap_or(0),
                    message: error["message"].as_str().unwrap_or("").to_owned(),
                    details: error["data"]["details"].as_str().map(str::to_owned),
                }),
                None => Ok(value["result"].clone()),
            };
            Some(Message::Response { id, outcome })
        }
        (None, None) => None,
    }
}

/// A request line.
pub(crate) fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// A notification line.
pub(crate) fn notification(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string()
}

/// The answer to the CLI's request `id`.
pub(crate) fn result(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// An error answer to the CLI's request `id`.
pub(crate) fn error(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// `initialize` params: no file system or terminal offered to the agent (it uses its
/// own tools on the sandbox's disk).
pub(crate) fn initialize_params() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
    })
}

/// `session/new` params.
pub(crate) fn new_session_params(cwd: &str) -> Value {
    json!({"cwd": cwd, "mcpServers": []})
}

/// `session/load` params.
pub(crate) fn load_session_params(session_id: &str, cwd: &str) -> Value {
    json!({"sessionId": session_id, "cwd": cwd, "mcpServers": []})
}

/// `session/prompt` params with one text block.
pub(crate) fn prompt_params(session_id: &str, text: &str) -> Value {
    json!({"sessionId": session_id, "prompt": [{"type": "text", "text": text}]})
}

/// The answer to `session/request_permission`: the chosen option, or `cancelled`.
pub(crate) fn permission_outcome(option_id: Option<&str>) -> Value {
    match option_id {
        Some(option_id) => json!({"outcome": {"outcome": "selected", "optionId": option_id}}),
        None => json!({"outcome": {"outcome": "cancelled"}}),
    }
}
