//! JSON-RPC 2.0 as ACP uses it: one message is a request (an `id` and a
//! `method`), a notification (a `method`, no `id`) or a response (an `id` and a
//! `result` or an `error`).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The error codes of JSON-RPC 2.0 and of ACP.
pub mod code {
    /// The message is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON is not a JSON-RPC message, or the call comes out of order.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The method's parameters do not fit it.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The agent failed while serving the call.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// ACP: the session (or other resource) named does not exist.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// ACP: the request was cancelled (`$/cancel_request`).
    pub const REQUEST_CANCELLED: i64 = -32800;
}

/// A JSON-RPC request id: a number or a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A numeric id.
    Number(i64),
    /// A string id.
    String(String),
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => f.write_str(s),
        }
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    /// One of [`code`], or another.
    pub code: i64,
    /// One sentence saying what went wrong.
    pub message: String,
    /// More, when there is more to say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with `code` and `message`.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// `-32602`: the parameters do not fit the method.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(code::INVALID_PARAMS, message)
    }

    /// `-32600`: not a JSON-RPC message, or a call out of order.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(code::INVALID_REQUEST, message)
    }

    /// `-32603`: the agent side failed.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(code::INTERNAL_ERROR, message)
    }

    /// `-32002`: the session named does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(code::RESOURCE_NOT_FOUND, message)
    }
}

/// One message from the other side, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A call that wants an answer.
    Request {
        /// Its id, to answer with.
        id: RequestId,
        /// The method called.
        method: String,
        /// Its parameters (`null` when absent).
        params: Value,
    },
    /// A call that wants none.
    Notification {
        /// The method called.
        method: String,
        /// Its parameters (`null` when absent).
        params: Value,
    },
    /// The answer to one of our requests.
    Response {
        /// The id of our request.
        id: RequestId,
        /// Its result, or the error the other side answered.
        outcome: Result<Value, RpcError>,
    },
}

/// Why a message could not be read: answered with `error` (and the message's id
/// when one could be read, else `null`).
#[derive(Debug, Clone, PartialEq)]
pub struct Unreadable {
    /// The id of the message, when it had a readable one.
    pub id: Option<RequestId>,
    /// What to answer.
    pub error: RpcError,
}

impl Message {
    /// Reads one JSON-RPC message from its text.
    pub fn parse(text: &str) -> Result<Self, Unreadable> {
        let value: Value = serde_json::from_str(text).map_err(|error| Unreadable {
            id: None,
            error: RpcError::new(code::PARSE_ERROR, format!("not JSON: {error}")),
        })?;
        Self::from_value(value)
    }

    /// Reads one JSON-RPC message from parsed JSON.
    pub fn from_value(value: Value) -> Result<Self, Unreadable> {
        let Value::Object(mut object) = value else {
            return Err(Unreadable {
                id: None,
                error: RpcError::invalid_request(
                    "a JSON-RPC message is an object (batches are not part of ACP)",
                ),
            });
        };
        let id = match object.remove("id") {
            None | Some(Value::Null) => None,
            Some(id) => Some(
                serde_json::from_value::<RequestId>(id).map_err(|_| Unreadable {
                    id: None,
                    error: RpcError::invalid_request("`id` must be a number or a string"),
                })?,
            ),
        };
        let invalid = |message: &str| Unreadable {
            id: id.clone(),
            error: RpcError::invalid_request(message),
        };
        if object.get("jsonrpc") != Some(&Value::from("2.0")) {
            return Err(invalid("`jsonrpc` must be \"2.0\""));
        }
        let params = object.remove("params").unwrap_or(Value::Null);
        if !matches!(params, Value::Object(_) | Value::Array(_) | Value::Null) {
            return Err(invalid("`params` must be an object"));
        }
        match (object.remove("method"), id.clone()) {
            (Some(Value::String(method)), Some(id)) => Ok(Self::Request { id, method, params }),
            (Some(Value::String(method)), None) => Ok(Self::Notification { method, params }),
            (Some(_), _) => Err(invalid("`method` must be a string")),
            (None, Some(id)) => {
                let outcome = match (object.remove("result"), object.remove("error")) {
                    (Some(result), None) => Ok(result),
                    (None, Some(error)) => Err(serde_json::from_value::<RpcError>(error)
                        .map_err(|_| invalid("`error` must have a `code` and a `message`"))?),
                    _ => return Err(invalid("a response has a `result` or an `error`")),
                };
                Ok(Self::Response { id, outcome })
            }
            (None, None) => Err(invalid("a message needs a `method` or an `id`")),
        }
    }
}

/// The text of a request we send.
pub fn request(id: &RequestId, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The text of a notification we send.
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// The text of our answer to request `id` (`null` when it could not be read).
pub fn response(id: Option<&RequestId>, outcome: Result<Value, RpcError>) -> Value {
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_kinds_are_told_apart() {
        assert_eq!(
            Message::parse(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#),
            Ok(Message::Request {
                id: RequestId::Number(1),
                method: "initialize".into(),
                params: json!({})
            })
        );
        assert_eq!(
            Message::parse(
                r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#
            ),
            Ok(Message::Notification {
                method: "session/cancel".into(),
                params: json!({"sessionId": "s"})
            })
        );
        assert_eq!(
            Message::parse(r#"{"jsonrpc":"2.0","id":"a","error":{"code":-1,"message":"no"}}"#),
            Ok(Message::Response {
                id: RequestId::String("a".into()),
                outcome: Err(RpcError::new(-1, "no"))
            })
        );
    }

    #[test]
    fn bad_messages_get_the_json_rpc_errors() {
        let code_of = |text: &str| Message::parse(text).unwrap_err().error.code;
        assert_eq!(code_of("{not json"), code::PARSE_ERROR);
        assert_eq!(code_of("[1,2]"), code::INVALID_REQUEST);
        assert_eq!(code_of(r#"{"id":1,"method":"x"}"#), code::INVALID_REQUEST);
        assert_eq!(
            code_of(r#"{"jsonrpc":"2.0","id":1,"method":7}"#),
            code::INVALID_REQUEST
        );
        assert_eq!(
            code_of(r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#),
            code::INVALID_REQUEST
        );
        assert_eq!(
            code_of(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":3}"#),
            code::INVALID_REQUEST
        );
        // The id of a bad request is kept for the answer.
        let bad = Message::parse(r#"{"jsonrpc":"1.0","id":9,"method":"x"}"#).unwrap_err();
        assert_eq!(bad.id, Some(RequestId::Number(9)));
    }
}
