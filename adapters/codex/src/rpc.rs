//! JSON-RPC framing of `codex app-server`: one JSON object per line, without the
//! `"jsonrpc"` member. Requests carry `id` and `method`, responses `id` and `result` or
//! `error`, notifications only `method`.

use serde_json::{json, Value};

/// One line the server printed, classified.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Incoming {
    /// The answer to a request a client sent (any client of the shared server).
    Response {
        id: Value,
        outcome: Result<Value, RpcError>,
    },
    /// A request from the server that a client must answer (approvals, questions).
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// A notification (`turn/started`, `item/agentMessage/delta`...).
    Notification { method: String, params: Value },
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub code: i64,
    pub message: String,
}

impl Incoming {
    /// Classifies a line; `None` when it is not a JSON-RPC message.
    pub(crate) fn parse(line: &str) -> Option<Self> {
        let Value::Object(mut message) = serde_json::from_str(line).ok()? else {
            return None;
        };
        let id = message.remove("id");
        let method = match message.remove("method") {
            Some(Value::String(method)) => Some(method),
            Some(_) => return None,
            None => None,
        };
        let params = message.remove("params").unwrap_or(Value::Null);
        match (id, method) {
            (Some(id), Some(method)) => Some(Self::Request { id, method, params }),
            (None, Some(method)) => Some(Self::Notification { method, params }),
            (Some(id), None) => {
                let outcome = match (message.remove("result"), message.remove("error")) {
                    (Some(result), None) => Ok(result),
                    (_, Some(error)) => Err(RpcError {
                        code: error
                            .get("code")
                            .and_then(Value::as_i64)
                            .unwrap_or_default(),
                        message: error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("unknown error")
                            .to_owned(),
                    }),
                    (None, None) => return None,
                };
                Some(Self::Response { id, outcome })
            }
            (None, None) => None,
        }
    }
}

/// A request line.
pub(crate) fn request(id: &str, method: &str, params: Value) -> String {
    json!({ "method": method, "id": id, "params": params }).to_string()
}

/// A notification line.
pub(crate) fn notification(method: &str) -> String {
    json!({ "method": method }).to_string()
}

/// The line answering server request `id` with `result`.
pub(crate) fn result(id: &Value, result: Value) -> String {
    json!({ "id": id, "result": result }).to_string()
}

/// The line answering server request `id` with an error.
pub(crate) fn error(id: &Value, code: i64, message: &str) -> String {
    json!({ "id": id, "error": { "code": code, "message": message } }).to_string()
}
