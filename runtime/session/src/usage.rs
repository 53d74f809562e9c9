//! What the daemon metered of a session's model calls (the agent's calls to its
//! provider, seen on their way by the daemon): each call becomes a `model.usage`
//! event and adds to the running turn's totals and the session's. A turn that
//! had metered calls ends with those totals as its `usage`. The totals are kept
//! in the checkpoint, so they outlive a daemon restart.

use agentplex_adapter_types::EmittedEvent;
use agentplex_adapter_types::Input;
use agentplex_universal::{
    BudgetLimits, BudgetReachedData, ModelUsageData, UniversalEventData, UsageTotals,
};
use serde::{Deserialize, Serialize};

use crate::{events, SessionCore};

/// What the daemon metered of one session, as its checkpoint keeps it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MeteredUsage {
    /// Every metered call of the session, in a turn or not.
    pub total: UsageTotals,
    /// The calls of the running turn, once it had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_turn: Option<UsageTotals>,
    /// The calls of the turn that ended last, when it had any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_turn: Option<UsageTotals>,
}

impl MeteredUsage {
    /// Whether no call was ever metered.
    pub fn is_empty(&self) -> bool {
        self.total.model_calls == 0
    }

    /// Adds one call to the session's totals, and to the turn's when one runs.
    fn add(&mut self, call: &ModelUsageData, turn_running: bool) {
        self.total.add(call);
        if turn_running {
            self.current_turn.get_or_insert_default().add(call);
        }
    }

    /// Ends the running turn: its totals become the last turn's (none when it had
    /// no metered call), and are returned.
    pub(crate) fn end_turn(&mut self) -> Option<UsageTotals> {
        self.last_turn = self.current_turn.take();
        self.last_turn
    }
}

impl SessionCore {
    /// What the daemon metered of the session's model calls.
    pub fn usage(&self) -> &MeteredUsage {
        &self.usage
    }

    /// The caps on what the session's model calls may spend, once set.
    pub fn budget(&self) -> Option<BudgetLimits> {
        self.budget
    }

    /// Sets the caps of a new session (later ones come as [`Command::SetBudget`](crate::Command::SetBudget)).
    pub fn set_budget(&mut self, limits: BudgetLimits) {
        self.budget = Some(limits);
    }

    /// A budget was reached: recorded as `budget.reached`, and the running
    /// turn, whose model calls are refused from now on, is cancelled.
    pub(crate) fn budget_reached(&mut self, reached: BudgetReachedData) {
        self.append(events::budget_reached(reached));
        if self.turn_running {
            self.steps
                .push_back(crate::Step::Feed(Input::CancelTurn, crate::Then::Ignore));
        }
    }

    /// A metered model call: counted, then recorded as `model.usage`, followed
    /// by an `error` when the provider failed (`model_call_failed`: a 5xx
    /// answer, the daemon's own 502 or 504 for one down or too slow, or an
    /// answer that broke off, fell silent or could not be read) or when
    /// the model has no price (`model_unpriced`, once per model and daemon run:
    /// its calls count their tokens and no cost).
    pub(crate) fn meter(&mut self, call: ModelUsageData) {
        self.usage.add(&call, self.turn_running);
        let failed = match &call.error {
            _ if call.status >= 500 => Some(format!(
                "the agent's {} call to its model provider failed with HTTP {}",
                call.format, call.status
            )),
            Some(error) => Some(format!(
                "the agent's {} call to its model provider failed: {error}",
                call.format
            )),
            None => None,
        };
        let used = call.input_tokens + call.output_tokens > 0;
        let unpriced = (used && call.cost_usd.is_none() && self.unpriced.insert(call.model.clone()))
            .then(|| {
                format!(
                    "model {:?} has no price in the daemon's price table: its calls are metered \
                     with their tokens and no cost (give the daemon a table with it: --prices FILE)",
                    call.model
                )
            });
        self.append(events::model_usage(call));
        if let Some(message) = failed {
            self.append(events::error("model_call_failed", message));
        }
        if let Some(message) = unpriced {
            self.append(events::error("model_unpriced", message));
        }
    }

    /// Closes the running turn's totals as its `turn.ended` is recorded. When
    /// the turn had metered calls, their totals become the event's `usage`; the
    /// adapter's own count stays in the event's `raw` payload: the agent's
    /// output it came from, or, when the adapter made the event without one,
    /// `{"adapter_usage": ...}`.
    pub(crate) fn meter_turn_end(&mut self, event: &mut EmittedEvent) {
        let Some(metered) = self.usage.end_turn() else {
            return;
        };
        let UniversalEventData::Turn(turn) = &mut event.data else {
            return;
        };
        let reported = turn.usage.replace(metered.as_usage());
        if let (None, Some(reported)) = (&event.raw, reported) {
            let raw = serde_json::json!({ "adapter_usage": reported });
            event.raw = Some(
                serde_json::value::to_raw_value(&raw).expect("a JSON value always serializes"),
            );
        }
    }
}
