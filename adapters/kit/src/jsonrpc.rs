//! JSON-RPC 2.0 over lines (NDJSON): one message per line, as agents that speak the
//! Agent Client Protocol ([`crate::acp`]) or an app-server protocol print and read
//! them. [`parse`] classifies a line the agent printed; a [`Framing`] writes the
//! lines the adapter sends.
//!
//! ```
//! use sandbox_agent_adapter_kit::jsonrpc::{self, Framing, Message};
//! use serde_json::json;
//!
//! let line = Framing::JSONRPC.request(1, "initialize", json!({}));
//! assert_eq!(line, r#"{"id":1,"jsonrpc":"2.0","method":"initialize","params":{}}"#);
//! let answer = jsonrpc::parse(r#"{"jsonrpc":"2.0","id":1,"result":{"ok":true}}"#);
//! assert_eq!(
//!     answer,
//!     Some(Message::Response { id: json!(1), outcome: Ok(json!({"ok": true})) })
//! );
//! // Some agents leave out the `jsonrpc` member.
//! assert!(matches!(
//!     jsonrpc::parse(r#"{"method":"turn/started","params":{}}"#),
//!     Some(Message::Notification { .. })
//! ));
//! assert_eq!(jsonrpc::parse("not json"), None);
//! ```

use serde_json::{json, Map, Value};

/// One line the agent printed.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// The answer to one of the adapter's requests.
    Response {
        /// The adapter's request id.
        id: Value,
        /// `result` or, for a failure, `error`.
        outcome: Result<Value, RpcError>,
    },
    /// A request the adapter must answer.
    Request {
        /// The agent's id, echoed in the answer.
        id: Value,
        /// The method.
        method: String,
        /// Its params (`null` when absent).
        params: Value,
    },
    /// A notification.
    Notification {
        /// The method.
        method: String,
        /// Its params (`null` when absent).
        params: Value,
    },
}

/// A JSON-RPC error.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The error code.
    pub code: i64,
    /// The message.
    pub message: String,
    /// `data.details` when the agent adds it (its explanation of an internal error).
    pub details: Option<String>,
}

impl RpcError {
    /// What a client should read: the details when there are some, else the
    /// message; an API error the agent passes on as JSON text is unwrapped to its
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

/// Reads one line; `None` when it is not a JSON-RPC message (not a JSON object, a
/// `jsonrpc` member other than `"2.0"`, or neither a method nor an answer).
pub fn parse(line: &str) -> Option<Message> {
    let Value::Object(mut message) = serde_json::from_str(line).ok()? else {
        return None;
    };
    if message
        .get("jsonrpc")
        .is_some_and(|version| version != "2.0")
    {
        return None;
    }
    let id = message.remove("id");
    let method = match message.remove("method") {
        Some(Value::String(method)) => Some(method),
        Some(_) => return None,
        None => None,
    };
    let params = message.remove("params").unwrap_or(Value::Null);
    match (id, method) {
        (Some(id), Some(method)) => Some(Message::Request { id, method, params }),
        (None, Some(method)) => Some(Message::Notification { method, params }),
        (Some(id), None) => {
            let outcome = match (message.remove("result"), message.remove("error")) {
                (_, Some(error)) => Err(RpcError {
                    code: error["code"].as_i64().unwrap_or_default(),
                    message: error["message"]
                        .as_str()
                        .unwrap_or("unknown error")
                        .to_owned(),
                    details: error["data"]["details"].as_str().map(str::to_owned),
                }),
                (Some(result), None) => Ok(result),
                (None, None) => return None,
            };
            Some(Message::Response { id, outcome })
        }
        (None, None) => None,
    }
}

/// How the adapter writes its lines: with the `"jsonrpc": "2.0"` member (the
/// standard, and ACP) or without it (agents whose protocol leaves it out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Framing {
    tagged: bool,
}

impl Framing {
    /// Standard JSON-RPC 2.0: every line carries `"jsonrpc": "2.0"`.
    pub const JSONRPC: Framing = Framing { tagged: true };
    /// JSON-RPC without the `jsonrpc` member.
    pub const UNTAGGED: Framing = Framing { tagged: false };

    /// A request line.
    pub fn request(&self, id: impl Into<Value>, method: &str, params: Value) -> String {
        self.line([
            ("id", id.into()),
            ("method", method.into()),
            ("params", params),
        ])
    }

    /// A notification line; `params` are left out when `null`.
    pub fn notification(&self, method: &str, params: Value) -> String {
        self.line([("method", method.into()), ("params", params)])
    }

    /// The answer to the agent's request `id`.
    pub fn result(&self, id: &Value, result: Value) -> String {
        self.line([("id", id.clone()), ("result", result)])
    }

    /// An error answer to the agent's request `id`.
    pub fn error(&self, id: &Value, code: i64, message: &str) -> String {
        self.line([
            ("id", id.clone()),
            ("error", json!({"code": code, "message": message})),
        ])
    }

    fn line<const N: usize>(&self, members: [(&str, Value); N]) -> String {
        let mut object = Map::new();
        if self.tagged {
            object.insert("jsonrpc".into(), "2.0".into());
        }
        for (name, value) in members {
            if !(name == "params" && value.is_null()) {
                object.insert(name.into(), value);
            }
        }
        Value::Object(object).to_string()
    }
}
