//! The OpenAI Responses tap.
//!
//! Every response object in a stream has a `usage` field, but only the terminal
//! events' is final: `response.created` and `response.in_progress` carry none or
//! a partial one. So usage is read from `response.completed`,
//! `response.incomplete` or `response.failed` only; `response.created` gives the
//! model early, for a stream that never gets that far.
//!
//! OpenAI's `input_tokens` already include cached tokens
//! (`input_tokens_details.cached_tokens`), and `output_tokens` the reasoning
//! (`output_tokens_details.reasoning_tokens`). Cache writes are counted where an
//! API reports them (`input_tokens_details.cache_write_tokens`), else they are 0.

use serde_json::Value;

use super::{text, Reading, Tap};
use crate::usage::Tokens;

/// The events that end a response, with its final usage.
const TERMINAL: [&str; 3] = [
    "response.completed",
    "response.incomplete",
    "response.failed",
];

/// The tap's state: what it read so far.
#[derive(Debug, Default)]
pub(crate) struct Responses {
    reading: Reading,
}

impl Responses {
    /// Takes a response object's model and usage.
    fn response(&mut self, response: &Value) {
        self.reading.model = text(&response["model"]).or(self.reading.model.take());
        let usage = &response["usage"];
        if usage.is_object() {
            self.reading.tokens = tokens(usage);
        }
    }
}

/// A Responses `usage` object in the gateway's meaning.
fn tokens(usage: &Value) -> Tokens {
    let details = &usage["input_tokens_details"];
    let cache_write = details["cache_write_tokens"].as_u64().unwrap_or(0);
    Tokens {
        input: usage["input_tokens"].as_u64().unwrap_or(0),
        output: usage["output_tokens"].as_u64().unwrap_or(0),
        cache_read: details["cached_tokens"].as_u64().unwrap_or(0),
        cache_write,
        cache_write_1h: 0,
        reasoning: usage["output_tokens_details"]["reasoning_tokens"]
            .as_u64()
            .unwrap_or(0),
    }
}

impl Tap for Responses {
    fn event(&mut self, name: &str, data: &str) {
        let named = |name: &str| TERMINAL.contains(&name) || name == "response.created";
        if !name.is_empty() && !named(name) {
            return;
        }
        let Ok(value) = serde_json::from_str::<Value>(data) else {
            return;
        };
        let kind = if name.is_empty() {
            value["type"].as_str().unwrap_or("")
        } else {
            name
        };
        if TERMINAL.contains(&kind) {
            self.response(&value["response"]);
            self.reading.ended = true;
        } else if kind == "response.created" {
            self.reading.model = text(&value["response"]["model"]);
        }
    }

    fn whole(&mut self, body: &[u8]) {
        let Ok(value) = serde_json::from_slice::<Value>(body) else {
            return;
        };
        if value["object"] == "response" {
            self.response(&value);
        }
        // An error answer (`{"error": ...}`) is whole too; it used nothing.
        self.reading.ended = value.is_object();
    }

    fn so_far(&self) -> (Option<&str>, Tokens) {
        (self.reading.model.as_deref(), self.reading.tokens)
    }

    fn over(&self) -> bool {
        self.reading.ended
    }

    fn finish(self: Box<Self>) -> Reading {
        self.reading
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(events: &[(&str, &str)]) -> Reading {
        let mut tap = Box::<Responses>::default();
        for (name, data) in events {
            tap.event(name, data);
        }
        tap.finish()
    }

    #[test]
    fn only_the_terminal_events_usage_counts() {
        let reading = read(&[
            (
                "response.created",
                r#"{"type":"response.created","response":{"model":"gpt-6.2-sol","status":"in_progress","usage":{"input_tokens":999,"output_tokens":999}}}"#,
            ),
            (
                "response.in_progress",
                r#"{"type":"response.in_progress","response":{"usage":{"input_tokens":998}}}"#,
            ),
            (
                "response.output_text.delta",
                r#"{"type":"response.output_text.delta","delta":"usage"}"#,
            ),
            (
                "response.completed",
                r#"{"type":"response.completed","response":{"model":"gpt-6.2-sol-2026-11-01","status":"completed","usage":{"input_tokens":1200,"input_tokens_details":{"cached_tokens":1000},"output_tokens":80,"output_tokens_details":{"reasoning_tokens":50},"total_tokens":1280}}}"#,
            ),
        ]);
        assert_eq!(reading.model.as_deref(), Some("gpt-6.2-sol-2026-11-01"));
        assert_eq!(
            reading.tokens,
            Tokens {
                input: 1200,
                output: 80,
                cache_read: 1000,
                cache_write: 0,
                cache_write_1h: 0,
                reasoning: 50
            }
        );
        assert!(reading.ended);
    }

    #[test]
    fn a_stream_cut_before_its_end_has_the_model_and_no_usage() {
        let reading = read(&[(
            "response.created",
            r#"{"type":"response.created","response":{"model":"gpt-6.2-sol","usage":{"input_tokens":999}}}"#,
        )]);
        assert_eq!(reading.model.as_deref(), Some("gpt-6.2-sol"));
        assert_eq!(reading.tokens, Tokens::default());
        assert!(!reading.ended);
    }

    #[test]
    fn incomplete_and_failed_responses_end_with_usage_and_cache_writes_count() {
        for terminal in ["response.incomplete", "response.failed"] {
            let data = format!(
                r#"{{"type":"{terminal}","response":{{"model":"m","usage":{{"input_tokens":10,"input_tokens_details":{{"cached_tokens":2,"cache_write_tokens":3}},"output_tokens":4}}}}}}"#
            );
            let reading = read(&[("", &data)]);
            assert_eq!(
                (
                    reading.tokens.input,
                    reading.tokens.cache_read,
                    reading.tokens.cache_write
                ),
                (10, 2, 3)
            );
            assert!(reading.ended, "{terminal}");
        }
    }

    #[test]
    fn a_whole_response_is_read() {
        let mut tap = Box::<Responses>::default();
        tap.whole(br#"{"id":"resp_1","object":"response","model":"m","usage":{"input_tokens":5,"output_tokens":6}}"#);
        let reading = tap.finish();
        assert_eq!((reading.tokens.input, reading.tokens.output), (5, 6));
        assert!(reading.ended);
    }
}
