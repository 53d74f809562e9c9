//! Usage taps: one per wire format, each reading a copy of an answer for the
//! model and its token counts.
//!
//! A tap sees a streamed answer event by event ([`Tap::event`], from the SSE
//! splitter) or a whole one at once ([`Tap::whole`]). It parses only the few
//! events that carry usage; text deltas, the bulk of a stream, are passed over by
//! their name or a byte search. [`Tap::so_far`] gives the running counts while
//! the answer streams, [`Tap::finish`] what it read.

mod anthropic;
mod chat;
mod gemini;
mod responses;

use serde_json::Value;

use crate::format::Format;
use crate::usage::Tokens;

pub(crate) use chat::ask_for_usage;
pub(crate) use gemini::model_in_path;

/// What a tap read from one answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Reading {
    /// The model the answer names.
    pub model: Option<String>,
    /// The token counts, in the gateway's meaning (`usage.rs`).
    pub tokens: Tokens,
    /// Whether the answer's end was seen with its usage: the event that closes
    /// a stream, or a whole answer that could be read.
    pub ended: bool,
}

/// Reads one answer's usage.
pub(crate) trait Tap: Send {
    /// One event of a streamed answer: its `event:` name (empty when it has none) and data.
    fn event(&mut self, name: &str, data: &str);
    /// The body of an answer that was not streamed.
    fn whole(&mut self, body: &[u8]);
    /// The model and the counts read so far.
    fn so_far(&self) -> (Option<&str>, Tokens);
    /// Whether the answer is over: its final usage was read (or it failed),
    /// and only closing events may follow.
    fn over(&self) -> bool;
    /// What was read.
    fn finish(self: Box<Self>) -> Reading;
}

/// A tap for an answer in `format`; `path_model` is the model a Gemini call
/// names in its path, the fallback when the answer names none.
pub(crate) fn tap(format: Format, path_model: Option<String>) -> Box<dyn Tap> {
    match format {
        Format::AnthropicMessages => Box::<anthropic::Messages>::default(),
        Format::OpenaiResponses => Box::<responses::Responses>::default(),
        Format::OpenaiChatCompletions => Box::<chat::Chat>::default(),
        Format::Gemini => Box::new(gemini::Gemini::new(path_model)),
    }
}

/// A string field, if it is one and not empty.
fn text(value: &Value) -> Option<String> {
    value.as_str().filter(|s| !s.is_empty()).map(str::to_owned)
}
