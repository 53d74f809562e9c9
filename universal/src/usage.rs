//! Totals of metered model calls: what `model.usage` events add up to, as a
//! session's checkpoint keeps them and its `usage` shows them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{ModelUsageData, Usage};

/// Token and cost totals of metered model calls. Input tokens include the cache
/// reads and writes; output tokens include the reasoning tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UsageTotals {
    /// Prompt tokens, the cache reads and writes included.
    pub input_tokens: u64,
    /// Tokens generated, the reasoning tokens included.
    pub output_tokens: u64,
    /// Prompt tokens read from the provider's prompt cache.
    pub cache_read_tokens: u64,
    /// Prompt tokens written to the provider's prompt cache.
    pub cache_write_tokens: u64,
    /// Tokens the models spent reasoning.
    pub reasoning_tokens: u64,
    /// What the calls of a known price cost, in US dollars; absent when no call
    /// had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Model calls counted.
    pub model_calls: u64,
}

impl UsageTotals {
    /// Adds one call (counts saturate rather than overflow).
    pub fn add(&mut self, call: &ModelUsageData) {
        self.input_tokens = self.input_tokens.saturating_add(call.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(call.output_tokens);
        self.cache_read_tokens = self
            .cache_read_tokens
            .saturating_add(call.cache_read_tokens);
        self.cache_write_tokens = self
            .cache_write_tokens
            .saturating_add(call.cache_write_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(call.reasoning_tokens);
        if let Some(cost) = call.cost_usd {
            self.cost_usd = Some(self.cost_usd.unwrap_or(0.0) + cost);
        }
        self.model_calls = self.model_calls.saturating_add(1);
    }

    /// The totals as a `turn.ended` event's `usage` (`cached_tokens` are the
    /// cache reads).
    pub fn as_usage(&self) -> Usage {
        Usage {
            input_tokens: Some(self.input_tokens),
            output_tokens: Some(self.output_tokens),
            cached_tokens: Some(self.cache_read_tokens),
            cache_write_tokens: Some(self.cache_write_tokens),
            reasoning_tokens: Some(self.reasoning_tokens),
            cost_usd: self.cost_usd,
        }
    }
}
