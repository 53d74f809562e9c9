//! The Gemini tap.
//!
//! Chunks carry `usageMetadata` (often on the last only, sometimes on each, as
//! running totals), so the last one seen wins. The answer is over when a
//! candidate has a `finishReason`. Only chunks that hold either word are parsed.
//! The model is the chunks' `modelVersion`, else the one the request's path
//! names (`/v1beta/models/{model}:streamGenerateContent`).
//!
//! Gemini's `promptTokenCount` includes cached content
//! (`cachedContentTokenCount`); tool-use prompts
//! (`toolUsePromptTokenCount`) are counted apart and added to the input.
//! Thoughts (`thoughtsTokenCount`) are billed as output but not counted in
//! `candidatesTokenCount`: output is their sum, reasoning the thoughts. A
//! `streamGenerateContent` call without `alt=sse` answers with one JSON array
//! of the same chunks.

use memchr::memmem;
use serde_json::Value;

use super::{text, Reading, Tap};
use crate::usage::Tokens;

/// The tap's state.
#[derive(Debug, Default)]
pub(crate) struct Gemini {
    path_model: Option<String>,
    reading: Reading,
}

impl Gemini {
    /// A tap for a call whose path names `path_model`.
    pub(crate) fn new(path_model: Option<String>) -> Self {
        Self {
            path_model,
            ..Self::default()
        }
    }

    /// Takes one `GenerateContentResponse` chunk.
    fn chunk(&mut self, chunk: &Value) {
        self.reading.model = text(&chunk["modelVersion"]).or(self.reading.model.take());
        let usage = &chunk["usageMetadata"];
        if usage.is_object() {
            self.reading.tokens = tokens(usage);
        }
        let finished = chunk["candidates"].as_array().is_some_and(|candidates| {
            candidates
                .iter()
                .any(|candidate| candidate["finishReason"].is_string())
        });
        self.reading.ended |= finished;
    }
}

/// A Gemini `usageMetadata` object in the gateway's meaning.
fn tokens(usage: &Value) -> Tokens {
    let count = |name: &str| usage[name].as_u64().unwrap_or(0);
    let thoughts = count("thoughtsTokenCount");
    Tokens {
        input: count("promptTokenCount") + count("toolUsePromptTokenCount"),
        output: count("candidatesTokenCount") + thoughts,
        cache_read: count("cachedContentTokenCount"),
        cache_write: 0,
        cache_write_1h: 0,
        reasoning: thoughts,
    }
}

/// The model a Gemini path names: `gemini-2.5-pro` from
/// `/v1beta/models/gemini-2.5-pro:streamGenerateContent` (or from a
/// `tunedModels/...` path, its last segment).
pub(crate) fn model_in_path(path: &str) -> Option<String> {
    let (_, rest) = path.rsplit_once('/')?;
    let model = rest.split_once(':').map_or(rest, |(model, _)| model);
    (!model.is_empty()).then(|| model.to_owned())
}

impl Tap for Gemini {
    fn event(&mut self, _name: &str, data: &str) {
        let bytes = data.as_bytes();
        let interesting = memmem::find(bytes, b"usageMetadata").is_some()
            || memmem::find(bytes, b"finishReason").is_some()
            || self.reading.model.is_none();
        if !interesting {
            return;
        }
        if let Ok(chunk) = serde_json::from_str::<Value>(data) {
            self.chunk(&chunk);
        }
    }

    fn whole(&mut self, body: &[u8]) {
        let Ok(value) = serde_json::from_slice::<Value>(body) else {
            return;
        };
        match &value {
            Value::Array(chunks) => chunks.iter().for_each(|chunk| self.chunk(chunk)),
            chunk => self.chunk(chunk),
        }
        // A whole answer, an error one included, has been read to its end.
        self.reading.ended = true;
    }

    fn so_far(&self) -> (Option<&str>, Tokens) {
        (self.reading.model.as_deref(), self.reading.tokens)
    }

    fn over(&self) -> bool {
        self.reading.ended
    }

    fn finish(self: Box<Self>) -> Reading {
        let Gemini {
            path_model,
            mut reading,
        } = *self;
        reading.model = reading
            .model
            .or(path_model)
            .map(|model| model.trim_start_matches("models/").to_owned());
        reading
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_usage_metadata_wins() {
        let mut tap = Box::new(Gemini::new(Some("gemini-2.5-pro".into())));
        for data in [
            r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":1000,"totalTokenCount":1000},"modelVersion":"gemini-2.5-pro-001"}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"b"}]}}],"modelVersion":"gemini-2.5-pro-001"}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1000,"candidatesTokenCount":40,"cachedContentTokenCount":600,"thoughtsTokenCount":25,"toolUsePromptTokenCount":7,"totalTokenCount":1072},"modelVersion":"gemini-2.5-pro-001"}"#,
        ] {
            tap.event("", data);
        }
        let reading = tap.finish();
        assert_eq!(reading.model.as_deref(), Some("gemini-2.5-pro-001"));
        assert_eq!(
            reading.tokens,
            Tokens {
                input: 1007,
                output: 65,
                cache_read: 600,
                cache_write: 0,
                cache_write_1h: 0,
                reasoning: 25
            }
        );
        assert!(reading.ended);
    }

    #[test]
    fn without_model_version_the_path_names_the_model() {
        assert_eq!(
            model_in_path("/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent").as_deref(),
            Some("gemini-3.1-pro-preview")
        );
        let mut tap = Box::new(Gemini::new(model_in_path(
            "/v1beta/models/gemini-2.5-flash:generateContent",
        )));
        tap.whole(br#"{"candidates":[{"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":4}}"#);
        let reading = tap.finish();
        assert_eq!(reading.model.as_deref(), Some("gemini-2.5-flash"));
        assert_eq!((reading.tokens.input, reading.tokens.output), (3, 4));
    }

    #[test]
    fn a_json_array_stream_is_read_chunk_by_chunk() {
        let mut tap = Box::new(Gemini::new(None));
        tap.whole(br#"[{"candidates":[{}],"usageMetadata":{"promptTokenCount":1},"modelVersion":"models/gemini-2.5-flash"},{"candidates":[{"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":2}}]"#);
        let reading = tap.finish();
        assert_eq!(reading.model.as_deref(), Some("gemini-2.5-flash"));
        assert_eq!((reading.tokens.input, reading.tokens.output), (9, 2));
    }

    #[test]
    fn a_stream_that_stops_before_its_finish_reason_did_not_end() {
        let mut tap = Box::new(Gemini::new(None));
        tap.event(
            "",
            r#"{"candidates":[{"content":{}}],"usageMetadata":{"promptTokenCount":5}}"#,
        );
        assert!(!tap.finish().ended);
    }
}
