//! What one model call used, and where the gateway sends it.
//!
//! Token counts follow one meaning whatever the vendor's: `input` counts every
//! token the model read, cache reads and writes included; `output` every token
//! it wrote, reasoning included. The cache and reasoning counts say how much of
//! those was what.

use crate::budget::BudgetReached;
use crate::format::Format;

/// Token counts of one call, as the taps read them and prices take them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Every token the model read, cache reads and writes included.
    pub input: u64,
    /// Every token the model wrote, reasoning included.
    pub output: u64,
    /// Of `input`, the tokens read from a prompt cache.
    pub cache_read: u64,
    /// Of `input`, the tokens written to a prompt cache.
    pub cache_write: u64,
    /// Of `cache_write`, the tokens written for an hour (Anthropic's longer, dearer cache).
    pub cache_write_1h: u64,
    /// Of `output`, the reasoning tokens.
    pub reasoning: u64,
}

/// One model call through the gateway, reported once it is over.
#[derive(Debug, Clone, PartialEq)]
pub struct CallUsage {
    /// A number the gateway gives each call, counting from 1.
    pub call_id: u64,
    /// The call's wire format.
    pub format: Format,
    /// The model that answered (`unknown` when neither the answer nor the request said).
    pub model: String,
    /// Every token the model read, cache reads and writes included.
    pub input_tokens: u64,
    /// Every token the model wrote, reasoning included.
    pub output_tokens: u64,
    /// Of the input, the tokens read from a prompt cache.
    pub cache_read_tokens: u64,
    /// Of the input, the tokens written to a prompt cache.
    pub cache_write_tokens: u64,
    /// Of the output, the reasoning tokens.
    pub reasoning_tokens: u64,
    /// The call's list price in US dollars; `None` when the model is not in the
    /// price table or one of its counts has no price there.
    pub cost_usd: Option<f64>,
    /// The HTTP status the agent got: the upstream's, or the gateway's own (401,
    /// 502, 504...) when it answered itself.
    pub status: u16,
    /// From the request's arrival to the answer's last byte, in milliseconds.
    pub duration_ms: u64,
    /// From the request's arrival to the upstream's response head, in
    /// milliseconds; `None` when none came.
    pub first_byte_ms: Option<u64>,
    /// Whether the whole answer arrived and its usage was read: `false` when the
    /// upstream was down, timed out or broke off, the agent hung up first, or the
    /// stream ended without its final usage (an `error` event).
    pub complete: bool,
    /// Why the call failed though the provider answered it with a success: the
    /// answer broke off, fell silent past the idle timeout, or ended without
    /// what ends a well-formed answer of its format (it stopped early, reported
    /// an error in its stream, or could not be read).
    /// `None` for a call that ended well, one the agent hung up on, one a
    /// budget cut, and one answered with an error status (which says it).
    pub failure: Option<String>,
}

impl CallUsage {
    /// The usage of a call with these counts.
    pub(crate) fn counted(call_id: u64, format: Format, model: String, tokens: Tokens) -> Self {
        Self {
            call_id,
            format,
            model,
            input_tokens: tokens.input,
            output_tokens: tokens.output,
            cache_read_tokens: tokens.cache_read,
            cache_write_tokens: tokens.cache_write,
            reasoning_tokens: tokens.reasoning,
            cost_usd: None,
            status: 0,
            duration_ms: 0,
            first_byte_ms: None,
            complete: false,
            failure: None,
        }
    }
}

/// Where a session's call usage goes: called once per model call, from the
/// gateway's tasks, when the call is over. It must not block.
///
/// Any `Fn(CallUsage)` closure is a sink (one that sends to a channel, or to the
/// session's inbox), one that is not told of budgets.
pub trait UsageSink: Send + Sync + 'static {
    /// Takes the usage of one finished call.
    fn record(&self, usage: CallUsage);

    /// Told once each time a budget the route's calls fall under is reached
    /// (see [`Budget`](crate::Budget)): a call of the route was refused or cut,
    /// or its end left the budget exhausted. Told again only once the budget
    /// was open again (its limits set, or a call admitted) and then reached.
    /// Does nothing unless implemented.
    fn budget_reached(&self, reached: BudgetReached) {
        let _ = reached;
    }
}

impl<F> UsageSink for F
where
    F: Fn(CallUsage) + Send + Sync + 'static,
{
    fn record(&self, usage: CallUsage) {
        self(usage)
    }
}
