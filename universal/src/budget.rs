//! Budgets on what a session's model calls may spend, and the event that says
//! one was reached.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A budget's caps on metered model calls (`budget` of a session, at create and
/// with `PUT /v1/sessions/{id}/budget`). An absent cap is no cap.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BudgetLimits {
    /// The most the calls may cost, in US dollars at list prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0)]
    pub max_cost_usd: Option<f64>,
    /// The most tokens the calls may use, input and output together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
}

impl BudgetLimits {
    /// Why the caps cannot be a budget (a cost that is not a number of 0 or
    /// more), if they cannot.
    pub fn invalid(&self) -> Option<String> {
        match self.max_cost_usd {
            Some(cost) if !(cost.is_finite() && cost >= 0.0) => Some(format!(
                "budget.maxCostUsd must be a number of 0 or more, not {cost}"
            )),
            _ => None,
        }
    }
}

/// Whose budget was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BudgetScope {
    /// The session's own (`budget`).
    Session,
    /// The daemon's, over all its sessions (`--budget-usd`).
    Daemon,
}

/// Which cap was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BudgetLimit {
    /// `maxCostUsd`.
    CostUsd,
    /// `maxTokens`.
    Tokens,
}

/// What the daemon did as the budget was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BudgetAction {
    /// It refused a model call before it went to the provider.
    Refused,
    /// It cut a model call's answer as it streamed, with an error the agent shows.
    Cut,
    /// A call that ended spent what was left.
    Spent,
}

/// Data of `budget.reached`: a budget the session's model calls fall under is
/// spent. Its running turn is cancelled and further calls are refused until the
/// cap is raised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct BudgetReachedData {
    pub scope: BudgetScope,
    pub limit: BudgetLimit,
    /// The budget's cost cap, in US dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<f64>,
    /// The budget's token cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// What the calls under the budget have spent, in US dollars.
    pub spent_cost_usd: f64,
    /// The tokens the calls under the budget have used.
    pub spent_tokens: u64,
    pub action: BudgetAction,
}
