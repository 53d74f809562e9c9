//! What the agent is told when a budget refuses or cuts its call: which
//! budget, its limit, and what was spent.

use super::{Amount, BudgetScope, Limit, State};

/// A call refused by a cost limit because the price table does not know its model.
pub(super) fn unpriced(scope: BudgetScope, model: &str, prices_as_of: &str) -> String {
    format!(
        "model gateway: {} is in US dollars, and the price table (as of {prices_as_of}) has no price for the model {model:?}; add it to a price file (--prices), or set a token budget instead",
        whose(scope)
    )
}

/// A call cut because `limit` of the budget in `state` was reached.
pub(super) fn cut(scope: BudgetScope, limit: Limit, state: &State) -> String {
    format!(
        "model gateway: {} was reached while this call was in flight ({}); its answer is cut here. Raise the budget to go on",
        whose(scope),
        of_limit(limit, state)
    )
}

/// `the session's budget` or `the daemon's budget`.
fn whose(scope: BudgetScope) -> &'static str {
    match scope {
        BudgetScope::Session => "the session's budget",
        BudgetScope::Daemon => "the daemon's budget",
    }
}

/// A call with `estimate` refused by `limit` of the budget in `state`.
pub(super) fn refused(scope: BudgetScope, limit: Limit, state: &State, estimate: Amount) -> String {
    let (held, needs) = match limit {
        Limit::CostUsd => (usd(state.held.nanos), usd(estimate.nanos)),
        Limit::Tokens => (
            format!("{} tokens", state.held.tokens),
            format!("{} tokens", estimate.tokens),
        ),
    };
    format!(
        "model gateway: {} is reached ({}; {held} held by calls in flight; this call may need {needs}). Raise the budget to go on",
        whose(scope),
        of_limit(limit, state)
    )
}

/// `$0.98 of $1.00 spent` or `9800 of 10000 tokens used`.
fn of_limit(limit: Limit, state: &State) -> String {
    let spent = state.spent();
    match limit {
        Limit::CostUsd => {
            let cap = state.limits.max_cost_usd.map_or(0, super::nanos);
            format!("{} of {} spent", usd(spent.nanos), usd(cap))
        }
        Limit::Tokens => {
            let cap = state.limits.max_tokens.unwrap_or(0);
            format!("{} of {cap} tokens used", spent.tokens)
        }
    }
}

/// Nano-dollars as dollars: `$1.50`, `$0.000055`.
fn usd(nanos: u64) -> String {
    let text = format!("{:.6}", nanos as f64 / 1e9);
    let text = text.trim_end_matches('0');
    let cents = text.find('.').map_or(0, |dot| text.len() - dot - 1);
    format!("${text}{}", "0".repeat(2usize.saturating_sub(cents)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_read_as_people_write_them() {
        assert_eq!(usd(1_500_000_000), "$1.50");
        assert_eq!(usd(55_000), "$0.000055");
        assert_eq!(usd(0), "$0.00");
        assert_eq!(usd(123_456_000), "$0.123456");
    }
}
