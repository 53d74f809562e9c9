//! The OpenAI Chat Completions tap, and the gateway's one request rewrite.
//!
//! A streamed completion reports usage only when the request asks for it
//! (`stream_options.include_usage`): then a last chunk with no choices carries
//! `usage`. So a streamed request that does not ask gets
//! `"stream_options": {"include_usage": true}` added to its body
//! ([`ask_for_usage`]), the one change the gateway makes to a request. The
//! agent then receives one more chunk than it asked for, with an empty `choices`
//! list, which OpenAI-compatible clients take as a usage report.
//!
//! Chunks are parsed only when they hold `"usage"` (some servers put
//! `"usage": null` in every chunk, and the first non-null one wins until a later
//! one replaces it), or to learn the model from the first chunk. `[DONE]` ends
//! the stream. `prompt_tokens` include cached tokens and `completion_tokens`
//! the reasoning, as in the Responses API.

use memchr::memmem;
use serde_json::Value;

use super::{text, Reading, Tap};
use crate::usage::Tokens;

/// The tap's state: what it read so far.
#[derive(Debug, Default)]
pub(crate) struct Chat {
    reading: Reading,
    /// Whether the usage chunk, which follows the last choice, came.
    usage: bool,
}

impl Chat {
    /// Takes a chunk's or a completion's model and usage.
    fn completion(&mut self, value: &Value) {
        self.reading.model = text(&value["model"]).or(self.reading.model.take());
        if value["usage"].is_object() {
            self.reading.tokens = tokens(&value["usage"]);
            self.usage = true;
        }
    }
}

/// A Chat Completions `usage` object in the gateway's meaning.
fn tokens(usage: &Value) -> Tokens {
    let prompt = &usage["prompt_tokens_details"];
    Tokens {
        input: usage["prompt_tokens"].as_u64().unwrap_or(0),
        output: usage["completion_tokens"].as_u64().unwrap_or(0),
        cache_read: prompt["cached_tokens"].as_u64().unwrap_or(0),
        cache_write: prompt["cache_write_tokens"].as_u64().unwrap_or(0),
        cache_write_1h: 0,
        reasoning: usage["completion_tokens_details"]["reasoning_tokens"]
            .as_u64()
            .unwrap_or(0),
    }
}

impl Tap for Chat {
    fn event(&mut self, _name: &str, data: &str) {
        if data == "[DONE]" {
            self.reading.ended = true;
            return;
        }
        if self.reading.model.is_some() && memmem::find(data.as_bytes(), b"\"usage\"").is_none() {
            return;
        }
        if let Ok(value) = serde_json::from_str::<Value>(data) {
            self.completion(&value);
        }
    }

    fn whole(&mut self, body: &[u8]) {
        let Ok(value) = serde_json::from_slice::<Value>(body) else {
            return;
        };
        self.completion(&value);
        self.reading.ended = value.is_object();
    }

    fn so_far(&self) -> (Option<&str>, Tokens) {
        (self.reading.model.as_deref(), self.reading.tokens)
    }

    fn over(&self) -> bool {
        self.usage || self.reading.ended
    }

    fn finish(self: Box<Self>) -> Reading {
        self.reading
    }
}

/// The request body with `stream_options.include_usage` set, when the request
/// streams without asking for usage; `None` when it needs no change (not a
/// JSON object, not streamed, or already asking, even for `false`: an agent that
/// said no is not overruled).
pub(crate) fn ask_for_usage(body: &[u8]) -> Option<Vec<u8>> {
    let mut request: Value = serde_json::from_slice(body).ok()?;
    if request["stream"] != Value::Bool(true) {
        return None;
    }
    let options = request.as_object_mut()?.entry("stream_options");
    let options = options.or_insert_with(|| Value::Object(Default::default()));
    let options = options.as_object_mut()?;
    if options.contains_key("include_usage") {
        return None;
    }
    options.insert("include_usage".into(), Value::Bool(true));
    serde_json::to_vec(&request).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_usage_chunk_is_read_and_null_usages_are_passed_over() {
        let mut tap = Box::<Chat>::default();
        for data in [
            r#"{"id":"c","model":"deepseek-chat","choices":[{"delta":{"content":"hi"}}],"usage":null}"#,
            r#"{"id":"c","model":"deepseek-chat","choices":[{"delta":{},"finish_reason":"stop"}],"usage":null}"#,
            r#"{"id":"c","model":"deepseek-chat","choices":[],"usage":{"prompt_tokens":900,"completion_tokens":70,"prompt_tokens_details":{"cached_tokens":800},"completion_tokens_details":{"reasoning_tokens":30}}}"#,
            "[DONE]",
        ] {
            tap.event("", data);
        }
        let reading = tap.finish();
        assert_eq!(reading.model.as_deref(), Some("deepseek-chat"));
        assert_eq!(
            reading.tokens,
            Tokens {
                input: 900,
                output: 70,
                cache_read: 800,
                cache_write: 0,
                cache_write_1h: 0,
                reasoning: 30
            }
        );
        assert!(reading.ended);
    }

    #[test]
    fn a_stream_without_done_did_not_end() {
        let mut tap = Box::<Chat>::default();
        tap.event(
            "",
            r#"{"model":"m","choices":[{"delta":{"content":"hi"}}]}"#,
        );
        assert!(!tap.finish().ended);
    }

    #[test]
    fn streamed_requests_are_asked_for_usage_once() {
        let asked = ask_for_usage(br#"{"model":"m","stream":true,"messages":[]}"#).unwrap();
        let asked: Value = serde_json::from_slice(&asked).unwrap();
        assert_eq!(asked["stream_options"], json!({"include_usage": true}));
        assert_eq!(asked["messages"], json!([]));

        let with_options = br#"{"stream":true,"stream_options":{"continuous_usage_stats":true}}"#;
        let asked: Value = serde_json::from_slice(&ask_for_usage(with_options).unwrap()).unwrap();
        assert_eq!(
            asked["stream_options"],
            json!({"continuous_usage_stats": true, "include_usage": true})
        );

        for unchanged in [
            &br#"{"stream":true,"stream_options":{"include_usage":true}}"#[..],
            br#"{"stream":true,"stream_options":{"include_usage":false}}"#,
            br#"{"stream":false}"#,
            br#"{"messages":[]}"#,
            b"not json",
        ] {
            assert_eq!(ask_for_usage(unchanged), None);
        }
    }
}
