//! The wire formats the gateway forwards: their names in endpoint paths, the
//! base-URL form each agent expects, where a key goes in their calls
//! ([`KeyPlacement`]), and each one's error body and stream error event, so a
//! refusal or a cut reads to the agent like one from its own vendor.

use std::fmt;
use std::str::FromStr;

use bytes::Bytes;
use serde_json::{json, Value};

/// The wire format of a model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Anthropic Messages: `POST {base}/v1/messages`; the base has no `/v1`.
    AnthropicMessages,
    /// OpenAI Responses: `POST {base}/responses`; the base ends in `/v1`.
    OpenaiResponses,
    /// OpenAI Chat Completions: `POST {base}/chat/completions`; the base ends in `/v1`.
    OpenaiChatCompletions,
    /// Gemini: `POST {base}/v1beta/models/{model}:streamGenerateContent` and `:generateContent`.
    Gemini,
}

/// Every format, in the order of the contract's `model-api-format`.
pub const FORMATS: [Format; 4] = [
    Format::AnthropicMessages,
    Format::OpenaiResponses,
    Format::OpenaiChatCompletions,
    Format::Gemini,
];

/// Why the gateway answers a call itself instead of the upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No live session has the token in the path (401).
    UnknownToken,
    /// The request did not name `127.0.0.1`, `localhost` or `[::1]` as its host (403).
    ForeignHost,
    /// The session has no upstream for this format (404).
    NoUpstream,
    /// The request body could not be read (400).
    UnreadableBody,
    /// The upstream could not be reached or broke off (502).
    UpstreamFailed,
    /// The upstream did not answer in time (504).
    UpstreamTimedOut,
    /// A budget the call falls under is reached (403: a status no agent retries).
    Budget,
    /// A broker's keys file no longer reads or parses (503, until it does).
    KeysUnusable,
}

impl Refusal {
    /// The HTTP status of the refusal.
    pub(crate) fn status(self) -> u16 {
        match self {
            Refusal::UnknownToken => 401,
            Refusal::ForeignHost => 403,
            Refusal::NoUpstream => 404,
            Refusal::UnreadableBody => 400,
            Refusal::UpstreamFailed => 502,
            Refusal::UpstreamTimedOut => 504,
            Refusal::Budget => 403,
            Refusal::KeysUnusable => 503,
        }
    }
}

impl Format {
    /// The format's name in endpoint paths and in the contract (`anthropic-messages`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::AnthropicMessages => "anthropic-messages",
            Format::OpenaiResponses => "openai-responses",
            Format::OpenaiChatCompletions => "openai-chat-completions",
            Format::Gemini => "gemini",
        }
    }

    /// What the agent's base URL ends in after the format's name: `/v1` for the
    /// OpenAI forms (their clients append `/responses`, `/chat/completions`),
    /// nothing for Anthropic (clients append `/v1/messages`) and Gemini (clients
    /// append `/v1beta/models/...`). The upstream's base URL stands for the same
    /// point, so this part is not repeated when a call is forwarded.
    pub fn base_suffix(self) -> &'static str {
        match self {
            Format::OpenaiResponses | Format::OpenaiChatCompletions => "/v1",
            Format::AnthropicMessages | Format::Gemini => "",
        }
    }

    /// Where the format's clients send an API key: `x-api-key` (Anthropic),
    /// `Authorization: Bearer` (OpenAI), `x-goog-api-key` (Gemini).
    pub(crate) fn key_placement(self) -> KeyPlacement {
        match self {
            Format::AnthropicMessages => KeyPlacement::XApiKey,
            Format::OpenaiResponses | Format::OpenaiChatCompletions => KeyPlacement::Bearer,
            Format::Gemini => KeyPlacement::XGoogApiKey,
        }
    }

    /// Whether a `POST` to `path` (after the base URL) asks the model for an
    /// answer, and so is metered: `/v1/messages`, `/responses`,
    /// `/chat/completions`, `:generateContent` and `:streamGenerateContent`.
    /// Other calls (token counting, model lists, batches) are forwarded unmetered.
    pub(crate) fn is_model_call(self, path: &str) -> bool {
        match self {
            Format::AnthropicMessages => path.ends_with("/messages"),
            Format::OpenaiResponses => path.ends_with("/responses"),
            Format::OpenaiChatCompletions => path.ends_with("/chat/completions"),
            Format::Gemini => {
                path.ends_with(":generateContent") || path.ends_with(":streamGenerateContent")
            }
        }
    }

    /// The format's error body for a refusal, as its vendor would write one.
    pub(crate) fn error_body(self, refusal: Refusal, message: &str) -> Value {
        match self {
            Format::AnthropicMessages => {
                let kind = match refusal {
                    Refusal::UnknownToken => "authentication_error",
                    Refusal::ForeignHost | Refusal::Budget => "permission_error",
                    Refusal::NoUpstream => "not_found_error",
                    Refusal::UnreadableBody => "invalid_request_error",
                    Refusal::UpstreamFailed | Refusal::UpstreamTimedOut | Refusal::KeysUnusable => {
                        "api_error"
                    }
                };
                json!({"type": "error", "error": {"type": kind, "message": message}})
            }
            Format::OpenaiResponses | Format::OpenaiChatCompletions => {
                let (kind, code) = match refusal {
                    Refusal::UnknownToken => ("invalid_request_error", json!("invalid_api_key")),
                    Refusal::ForeignHost => ("invalid_request_error", json!("forbidden")),
                    Refusal::NoUpstream => ("invalid_request_error", json!("not_found")),
                    Refusal::Budget => ("invalid_request_error", json!("budget_exceeded")),
                    Refusal::UnreadableBody => ("invalid_request_error", Value::Null),
                    Refusal::UpstreamFailed | Refusal::UpstreamTimedOut | Refusal::KeysUnusable => {
                        ("server_error", Value::Null)
                    }
                };
                json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
            }
            Format::Gemini => {
                let status = match refusal {
                    Refusal::UnknownToken => "UNAUTHENTICATED",
                    Refusal::ForeignHost | Refusal::Budget => "PERMISSION_DENIED",
                    Refusal::NoUpstream => "NOT_FOUND",
                    Refusal::UnreadableBody => "INVALID_ARGUMENT",
                    Refusal::UpstreamFailed | Refusal::KeysUnusable => "UNAVAILABLE",
                    Refusal::UpstreamTimedOut => "DEADLINE_EXCEEDED",
                };
                json!({"error": {"code": refusal.status(), "message": message, "status": status}})
            }
        }
    }

    /// The events that end a stream the gateway cuts for a budget, in the
    /// format's shape:
    /// Anthropic's `error` event; the Responses API's `error` event then
    /// `response.failed`; a Chat Completions chunk holding only the error, with
    /// no `[DONE]` after it (the answer did not finish); Gemini's error object as
    /// the last chunk.
    pub(crate) fn stream_error(self, message: &str) -> Bytes {
        let body = self.error_body(Refusal::Budget, message);
        let text = match self {
            Format::AnthropicMessages => format!("event: error\ndata: {body}\n\n"),
            Format::OpenaiResponses => {
                let error = &body["error"];
                let event = json!({"type": "error", "code": error["code"], "message": message, "param": null});
                let failed = json!({"type": "response.failed", "response": {
                    "object": "response", "status": "failed", "output": [], "usage": null,
                    "error": {"code": error["code"], "message": message},
                }});
                format!("event: error\ndata: {event}\n\nevent: response.failed\ndata: {failed}\n\n")
            }
            Format::OpenaiChatCompletions | Format::Gemini => format!("data: {body}\n\n"),
        };
        Bytes::from(text)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of the formats.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no model API format is called {0:?}")]
pub struct UnknownFormat(pub String);

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        FORMATS
            .into_iter()
            .find(|format| format.as_str() == name)
            .ok_or_else(|| UnknownFormat(name.to_owned()))
    }
}

/// Where the real key goes on a call that carried the session's token. In a
/// broker's keys file (`sendKeyAs`): `as-sent`, `x-api-key`, `bearer`,
/// `x-goog-api-key`, `query-key`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyPlacement {
    /// Where the agent put the token: `x-api-key`, `Authorization: Bearer`,
    /// `x-goog-api-key` or the `key` query parameter.
    AsSent,
    /// In `x-api-key` (Anthropic API keys), wherever the agent put the token.
    XApiKey,
    /// In `Authorization: Bearer` (OpenAI keys, Anthropic OAuth tokens).
    Bearer,
    /// In `x-goog-api-key` (Gemini API keys).
    XGoogApiKey,
    /// In the `key` query parameter (Gemini API keys).
    QueryKey,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for format in FORMATS {
            assert_eq!(format.as_str().parse::<Format>(), Ok(format));
        }
        assert!("openai".parse::<Format>().is_err());
    }

    #[test]
    fn only_calls_for_an_answer_are_metered() {
        let anthropic = Format::AnthropicMessages;
        assert!(anthropic.is_model_call("/v1/messages"));
        assert!(!anthropic.is_model_call("/v1/messages/count_tokens"));
        assert!(!anthropic.is_model_call("/v1/messages/batches"));
        assert!(Format::OpenaiResponses.is_model_call("/responses"));
        assert!(!Format::OpenaiResponses.is_model_call("/responses/resp_1/cancel"));
        assert!(Format::OpenaiChatCompletions.is_model_call("/chat/completions"));
        assert!(!Format::OpenaiChatCompletions.is_model_call("/models"));
        assert!(Format::Gemini.is_model_call("/v1beta/models/gemini-2.5-pro:streamGenerateContent"));
        assert!(!Format::Gemini.is_model_call("/v1beta/models/gemini-2.5-pro:countTokens"));
    }

    #[test]
    fn each_format_refuses_in_its_vendors_shape() {
        let anthropic = Format::AnthropicMessages.error_body(Refusal::UnknownToken, "no");
        assert_eq!(anthropic["type"], "error");
        assert_eq!(anthropic["error"]["type"], "authentication_error");
        let openai = Format::OpenaiChatCompletions.error_body(Refusal::UnknownToken, "no");
        assert_eq!(openai["error"]["code"], "invalid_api_key");
        let gemini = Format::Gemini.error_body(Refusal::UpstreamTimedOut, "late");
        assert_eq!(gemini["error"]["code"], 504);
        assert_eq!(gemini["error"]["status"], "DEADLINE_EXCEEDED");
    }

    #[test]
    fn a_cut_stream_ends_with_whole_error_events() {
        for format in FORMATS {
            let tail = format.stream_error("spent");
            let text = std::str::from_utf8(&tail).unwrap();
            assert!(text.ends_with("\n\n"), "{format}: {text}");
            for event in text.trim_end().split("\n\n") {
                let data = event.lines().find_map(|line| line.strip_prefix("data: "));
                let data: Value = serde_json::from_str(data.unwrap()).unwrap();
                assert!(data.to_string().contains("spent"), "{format}: {data}");
            }
        }
    }
}
