//! The Anthropic Messages tap.
//!
//! A stream's `message_start` carries the usage so far (input and cache counts,
//! a first output count); `message_delta` carries cumulative counts, the output
//! always and, in newer API versions, input and cache counts too, so every field
//! it has overwrites the one before. `message_stop` ends the answer; an `error`
//! event means it broke off. A whole answer has one `usage` object.
//!
//! Anthropic's `input_tokens` leaves the cache out: the gateway's input is
//! `input_tokens + cache_creation_input_tokens + cache_read_input_tokens`. The
//! output includes thinking, which Anthropic does not count apart.

use serde_json::Value;

use super::{text, Reading, Tap};
use crate::usage::Tokens;

/// The tap's state: the latest value of each usage field.
#[derive(Debug, Default)]
pub(crate) struct Messages {
    model: Option<String>,
    uncached_input: u64,
    cache_write: u64,
    cache_write_1h: u64,
    cache_read: u64,
    output: u64,
    /// Whether `message_delta`, the answer's last event but its stop, came.
    delta: bool,
    ended: bool,
    failed: bool,
}

impl Messages {
    /// The counts so far, in the gateway's meaning.
    fn tokens(&self) -> Tokens {
        let cache_write = self.cache_write;
        Tokens {
            input: self.uncached_input + cache_write + self.cache_read,
            output: self.output,
            cache_read: self.cache_read,
            cache_write,
            cache_write_1h: self.cache_write_1h.min(cache_write),
            reasoning: 0,
        }
    }

    /// Takes every count `usage` has.
    fn usage(&mut self, usage: &Value) {
        let fields = [
            ("input_tokens", &mut self.uncached_input),
            ("cache_creation_input_tokens", &mut self.cache_write),
            ("cache_read_input_tokens", &mut self.cache_read),
            ("output_tokens", &mut self.output),
        ];
        for (name, slot) in fields {
            if let Some(count) = usage[name].as_u64() {
                *slot = count;
            }
        }
        if let Some(count) = usage["cache_creation"]["ephemeral_1h_input_tokens"].as_u64() {
            self.cache_write_1h = count;
        }
    }
}

impl Tap for Messages {
    fn event(&mut self, name: &str, data: &str) {
        let parse = || serde_json::from_str::<Value>(data).unwrap_or(Value::Null);
        let (name, value) = if name.is_empty() {
            // A server that leaves out `event:` lines still says the type in the data.
            let value = parse();
            (value["type"].as_str().unwrap_or("").to_owned(), Some(value))
        } else {
            (name.to_owned(), None)
        };
        match name.as_str() {
            "message_start" => {
                let value = value.unwrap_or_else(parse);
                self.model = text(&value["message"]["model"]).or(self.model.take());
                self.usage(&value["message"]["usage"]);
            }
            "message_delta" => {
                self.usage(&value.unwrap_or_else(parse)["usage"]);
                self.delta = true;
            }
            "message_stop" => self.ended = true,
            "error" => self.failed = true,
            _ => {}
        }
    }

    fn whole(&mut self, body: &[u8]) {
        let Ok(value) = serde_json::from_slice::<Value>(body) else {
            return;
        };
        match value["type"].as_str() {
            Some("message") => {
                self.model = text(&value["model"]);
                self.usage(&value["usage"]);
                self.ended = true;
            }
            // An error answer is whole too; it used nothing.
            Some("error") => self.ended = true,
            _ => {}
        }
    }

    fn so_far(&self) -> (Option<&str>, Tokens) {
        (self.model.as_deref(), self.tokens())
    }

    fn over(&self) -> bool {
        self.delta || self.ended || self.failed
    }

    fn finish(self: Box<Self>) -> Reading {
        Reading {
            tokens: self.tokens(),
            ended: self.ended && !self.failed,
            model: self.model,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(events: &[(&str, &str)]) -> Reading {
        let mut tap = Box::<Messages>::default();
        for (name, data) in events {
            tap.event(name, data);
        }
        tap.finish()
    }

    #[test]
    fn message_delta_overwrites_with_its_cumulative_counts() {
        // The shape of a current API stream: message_delta repeats the input and
        // cache counts with the final output, and says how the cache write splits.
        let reading = read(&[
            (
                "message_start",
                r#"{"type":"message_start","message":{"id":"msg_1","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":12,"cache_creation_input_tokens":2000,"cache_read_input_tokens":300,"output_tokens":1,"cache_creation":{"ephemeral_5m_input_tokens":500,"ephemeral_1h_input_tokens":1500}}}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"usage"}}"#,
            ),
            (
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":12,"cache_creation_input_tokens":2000,"cache_read_input_tokens":300,"output_tokens":420}}"#,
            ),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ]);
        assert_eq!(reading.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
        assert_eq!(
            reading.tokens,
            Tokens {
                input: 2312,
                output: 420,
                cache_read: 300,
                cache_write: 2000,
                cache_write_1h: 1500,
                reasoning: 0
            }
        );
        assert!(reading.ended);
    }

    #[test]
    fn an_older_delta_with_only_the_output_keeps_the_start_counts() {
        let reading = read(&[
            (
                "message_start",
                r#"{"type":"message_start","message":{"model":"m","usage":{"input_tokens":100,"output_tokens":1}}}"#,
            ),
            (
                "message_delta",
                r#"{"type":"message_delta","usage":{"output_tokens":10}}"#,
            ),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ]);
        assert_eq!((reading.tokens.input, reading.tokens.output), (100, 10));
    }

    #[test]
    fn an_error_event_mid_stream_is_not_complete() {
        let reading = read(&[
            (
                "message_start",
                r#"{"type":"message_start","message":{"model":"m","usage":{"input_tokens":5,"output_tokens":1}}}"#,
            ),
            (
                "error",
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            ),
        ]);
        assert!(!reading.ended);
        assert_eq!(reading.tokens.input, 5);
    }

    #[test]
    fn events_without_names_are_known_by_their_type() {
        let reading = read(&[
            (
                "",
                r#"{"type":"message_start","message":{"model":"m","usage":{"input_tokens":7,"output_tokens":1}}}"#,
            ),
            ("", r#"{"type":"message_stop"}"#),
        ]);
        assert_eq!(reading.tokens.input, 7);
        assert!(reading.ended);
    }

    #[test]
    fn a_whole_answer_has_one_usage() {
        let mut tap = Box::<Messages>::default();
        tap.whole(br#"{"type":"message","model":"claude-haiku-4-5","usage":{"input_tokens":3,"cache_read_input_tokens":4,"cache_creation_input_tokens":5,"output_tokens":6}}"#);
        let reading = tap.finish();
        assert_eq!((reading.tokens.input, reading.tokens.output), (12, 6));
        assert_eq!(reading.model.as_deref(), Some("claude-haiku-4-5"));
        assert!(reading.ended);
    }
}
