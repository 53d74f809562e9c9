//! What a call is reserved before it goes upstream: a guess at its tokens from
//! the request alone.
//!
//! - Input: one token per [`BYTES_PER_TOKEN`] bytes of the request body (the
//!   usual rule of thumb for English text and JSON; the system prompt, tools
//!   and conversation are all in the body).
//! - Output: the most the request lets the model write (`max_tokens`,
//!   `max_output_tokens`, `max_completion_tokens`,
//!   `generationConfig.maxOutputTokens`), at most [`OUTPUT_CEILING`], and
//!   [`OUTPUT_CEILING`] when it names none. Agents ask for 32k and more and
//!   mostly write a few hundred: reserving all of it would stop a session long
//!   before its budget.
//! - The model: the request's `model`, or the one a Gemini path names.
//!
//! Only the top level of the body is read, skipping nested values without
//! parsing them, so a large conversation costs a scan, not a parse.

use memchr::memchr2;
use serde_json::Value;

use crate::format::Format;
use crate::taps;
use crate::usage::Tokens;

/// Bytes of request body counted as one input token.
const BYTES_PER_TOKEN: u64 = 4;

/// The most output tokens reserved for one call.
const OUTPUT_CEILING: u64 = 4096;

/// A call's expected use, before it is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Estimate {
    /// The model the request names.
    pub model: Option<String>,
    /// The expected input and output tokens.
    pub tokens: Tokens,
}

impl Estimate {
    /// The estimate of a `format` call to `path` (after the base URL) with `body`.
    pub(crate) fn of(format: Format, path: &str, body: &[u8]) -> Self {
        let names: &[&str] = match format {
            Format::AnthropicMessages => &["model", "max_tokens"],
            Format::OpenaiResponses => &["model", "max_output_tokens"],
            Format::OpenaiChatCompletions => &["model", "max_completion_tokens", "max_tokens"],
            Format::Gemini => &["generationConfig"],
        };
        let mut model = None;
        let mut asked = None;
        for (name, raw) in top_level(body, names) {
            match name {
                "model" => model = serde_json::from_slice::<String>(raw).ok(),
                "generationConfig" => {
                    let config = serde_json::from_slice::<Value>(raw).unwrap_or(Value::Null);
                    asked = asked.or(config["maxOutputTokens"].as_u64());
                }
                _ => asked = asked.or(serde_json::from_slice::<u64>(raw).ok()),
            }
        }
        if format == Format::Gemini {
            model = taps::model_in_path(path);
        }
        let length = u64::try_from(body.len()).unwrap_or(u64::MAX);
        Self {
            model,
            tokens: Tokens {
                input: length.div_ceil(BYTES_PER_TOKEN),
                output: asked.map_or(OUTPUT_CEILING, |asked| asked.clamp(1, OUTPUT_CEILING)),
                ..Tokens::default()
            },
        }
    }
}

/// The raw values of the top-level members of the JSON object `body` named in
/// `names`, in the body's order; nothing for a body that is not an object.
fn top_level<'a>(body: &'a [u8], names: &[&'static str]) -> Vec<(&'static str, &'a [u8])> {
    let mut found = Vec::new();
    let mut cursor = Cursor { bytes: body, at: 0 };
    if cursor.eat(b'{').is_none() {
        return found;
    }
    while let Some(name) = cursor.member_name() {
        let Some(value) = cursor.value() else {
            break;
        };
        if let Some(name) = names.iter().find(|wanted| wanted.as_bytes() == name) {
            found.push((*name, value));
        }
        if cursor.eat(b',').is_none() {
            break;
        }
    }
    found
}

/// A position in JSON bytes.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn skip_space(&mut self) {
        while matches!(self.bytes.get(self.at), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.at += 1;
        }
    }

    /// Takes `byte`, after any space.
    fn eat(&mut self, byte: u8) -> Option<()> {
        self.skip_space();
        (self.bytes.get(self.at) == Some(&byte)).then(|| self.at += 1)
    }

    /// A member's name (raw, between its quotes) and its `:`.
    fn member_name(&mut self) -> Option<&'a [u8]> {
        self.skip_space();
        let name = self.string()?;
        self.eat(b':')?;
        Some(&name[1..name.len() - 1])
    }

    /// The string starting here, quotes included.
    fn string(&mut self) -> Option<&'a [u8]> {
        let start = self.at;
        if self.bytes.get(start) != Some(&b'"') {
            return None;
        }
        let mut from = start + 1;
        loop {
            let end = from + memchr2(b'"', b'\\', self.bytes.get(from..)?)?;
            if self.bytes[end] == b'"' {
                self.at = end + 1;
                return Some(&self.bytes[start..self.at]);
            }
            from = end + 2;
        }
    }

    /// The value starting here (after any space), skipped whole.
    fn value(&mut self) -> Option<&'a [u8]> {
        self.skip_space();
        let start = self.at;
        match self.bytes.get(start)? {
            b'"' => {
                self.string()?;
            }
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.bytes.get(self.at)? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            _ => {
                let rest = &self.bytes[start..];
                let end = rest
                    .iter()
                    .position(|byte| {
                        matches!(byte, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
                    })
                    .unwrap_or(rest.len());
                self.at = start + end;
            }
        }
        Some(&self.bytes[start..self.at])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_top_level_members_are_read() {
        let body = br#" { "messages": [{"role": "user", "content": "say \"max_tokens\": 9 {"}, {"max_tokens": 7}],
            "tools": {"max_tokens": {"type": "integer"}}, "model" : "claude-haiku-4-5", "max_tokens":300 } "#;
        let found = top_level(body, &["model", "max_tokens"]);
        assert_eq!(
            found,
            [
                ("model", &br#""claude-haiku-4-5""#[..]),
                ("max_tokens", &b"300"[..])
            ]
        );
        assert!(top_level(b"[1, 2]", &["model"]).is_empty());
        assert!(top_level(br#"{"model": "unterminated"#, &["model"]).is_empty());
    }

    #[test]
    fn the_estimate_is_the_body_size_and_the_output_asked_for_within_a_ceiling() {
        let body = br#"{"model":"gpt-6.2-sol","input":"hello","max_output_tokens":200}"#;
        let estimate = Estimate::of(Format::OpenaiResponses, "/responses", body);
        assert_eq!(estimate.model.as_deref(), Some("gpt-6.2-sol"));
        let input = u64::try_from(body.len()).unwrap().div_ceil(4);
        assert_eq!(
            (estimate.tokens.input, estimate.tokens.output),
            (input, 200)
        );

        let greedy = br#"{"model":"m","max_tokens":64000,"messages":[]}"#;
        let estimate = Estimate::of(Format::AnthropicMessages, "/v1/messages", greedy);
        assert_eq!(estimate.tokens.output, OUTPUT_CEILING);
        let silent = br#"{"model":"m","messages":[]}"#;
        let estimate = Estimate::of(Format::OpenaiChatCompletions, "/chat/completions", silent);
        assert_eq!(estimate.tokens.output, OUTPUT_CEILING);
    }

    #[test]
    fn gemini_names_its_model_in_the_path_and_its_output_in_the_config() {
        let body = br#"{"contents":[],"generationConfig":{"temperature":0,"maxOutputTokens":50}}"#;
        let path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent";
        let estimate = Estimate::of(Format::Gemini, path, body);
        assert_eq!(estimate.model.as_deref(), Some("gemini-2.5-flash"));
        assert_eq!(estimate.tokens.output, 50);
    }
}
