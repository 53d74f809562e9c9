//! A route's budgets, and a call's hold on them from its admission to its
//! settling.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use futures::future::BoxFuture;
use futures::FutureExt;

use super::{message, Amount, Budget, BudgetAction, BudgetReached, Estimate, Limit};
use crate::prices::Prices;
use crate::usage::{Tokens, UsageSink};

/// Resolves, with the budget's index, when a budget a call falls under is
/// exhausted.
pub(crate) type Cut = BoxFuture<'static, usize>;

/// The budgets a route's calls fall under, in the order their locks are taken.
#[derive(Debug)]
pub(crate) struct RouteBudgets {
    entries: Vec<Entry>,
}

/// One budget of a route.
#[derive(Debug)]
struct Entry {
    budget: Arc<Budget>,
    /// The reaching of the budget this route last reported (0: none).
    reported: AtomicU64,
}

impl RouteBudgets {
    /// The route's budgets, each once; `None` when there are none.
    pub(crate) fn new(budgets: impl IntoIterator<Item = Arc<Budget>>) -> Option<Arc<Self>> {
        let mut budgets: Vec<Arc<Budget>> = budgets.into_iter().collect();
        budgets.sort_by_key(|budget| Arc::as_ptr(budget) as usize);
        budgets.dedup_by(|one, other| Arc::ptr_eq(one, other));
        let entries: Vec<Entry> = budgets
            .into_iter()
            .map(|budget| Entry {
                budget,
                reported: AtomicU64::new(0),
            })
            .collect();
        (!entries.is_empty()).then(|| Arc::new(Self { entries }))
    }

    /// Admits a call with `estimate` under every budget and holds its estimate,
    /// in one critical section; or refuses it, telling `sink` if that reaches a
    /// budget, and returns the message for the agent.
    pub(crate) fn admit(
        self: &Arc<Self>,
        estimate: Estimate,
        prices: &Prices,
        sink: &dyn UsageSink,
    ) -> Result<Lease, String> {
        let model = estimate.model.as_deref().unwrap_or("unknown");
        let cost = prices.cost(model, &estimate.tokens);
        let amount = Amount::new(
            cost.unwrap_or(0.0),
            estimate.tokens.input + estimate.tokens.output,
        );
        let mut states: Vec<_> = self
            .entries
            .iter()
            .map(|entry| entry.budget.lock())
            .collect();
        let refusal = states
            .iter()
            .enumerate()
            .filter_map(|(index, state)| {
                let unpriced = cost.is_none() && state.limits.max_cost_usd.is_some();
                let limit = if unpriced {
                    None
                } else {
                    state.refuses(amount)
                };
                (unpriced || limit.is_some()).then_some((index, limit))
            })
            .min_by_key(|(index, _)| self.entries[*index].budget.scope);
        let Some((index, limit)) = refusal else {
            for state in &mut states {
                state.held = state.held + amount;
                state.reached = false;
            }
            return Ok(Lease {
                budgets: self.clone(),
                estimate: amount,
                input: estimate.tokens.input,
                model: estimate.model,
                counted: Tokens::default(),
                used: Amount::default(),
                open: true,
            });
        };
        let scope = self.entries[index].budget.scope;
        let Some(limit) = limit else {
            return Err(message::unpriced(scope, model, prices.as_of()));
        };
        let state = &mut states[index];
        let message = message::refused(scope, limit, state, amount);
        let episode = state.reach();
        let reached = state.reached(scope, limit, BudgetAction::Refused);
        drop(states);
        self.report(index, episode, reached, sink);
        Err(message)
    }

    /// Tells `sink` that the budget at `index` was reached, unless this route
    /// already told of that reaching.
    fn report(&self, index: usize, episode: u64, reached: BudgetReached, sink: &dyn UsageSink) {
        if self.entries[index].reported.swap(episode, Ordering::AcqRel) != episode {
            sink.budget_reached(reached);
        }
    }
}

/// A call's hold on its route's budgets. Dropped unsettled (the upstream
/// could not be reached), it releases its hold and settles nothing.
#[derive(Debug)]
pub(crate) struct Lease {
    budgets: Arc<RouteBudgets>,
    /// What the call holds at the least.
    estimate: Amount,
    /// The estimated input tokens, settled at the least by an incomplete call.
    input: u64,
    /// The model the request named.
    model: Option<String>,
    /// The running counts last taken.
    counted: Tokens,
    /// What the call has used so far.
    used: Amount,
    /// Whether the hold is still to be released.
    open: bool,
}

impl Lease {
    /// A future that resolves when one of the budgets is exhausted.
    pub(crate) fn cut(&self) -> Cut {
        let waits = self
            .budgets
            .entries
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                let mut exhausted = entry.budget.watch();
                async move {
                    if exhausted.wait_for(|exhausted| *exhausted).await.is_err() {
                        // The budget is gone: it can never be exhausted.
                        std::future::pending::<()>().await;
                    }
                    index
                }
                .boxed()
            });
        futures::future::select_all(waits)
            .map(|(index, _, _)| index)
            .boxed()
    }

    /// Takes the call's running counts, read from its answer as it streams.
    pub(crate) fn run(&mut self, prices: &Prices, model: Option<&str>, tokens: Tokens) {
        if tokens == self.counted {
            return;
        }
        self.counted = tokens;
        let used = self.amount(prices, model, tokens);
        for entry in &self.budgets.entries {
            let mut state = entry.budget.lock();
            state.run(self.estimate, self.used, used);
            entry.budget.publish(&state);
        }
        self.used = used;
    }

    /// Settles the call with its final counts (`complete` when its usage was
    /// read to the end), telling `sink` of budgets it leaves exhausted.
    pub(crate) fn settle(
        mut self,
        prices: &Prices,
        model: Option<&str>,
        tokens: Tokens,
        complete: bool,
        sink: &dyn UsageSink,
    ) {
        let spent = self.spent(prices, model, tokens, complete);
        self.release(spent, Some(sink));
    }

    /// Settles a call that was cut because the budget at `index` is exhausted,
    /// with the counts read so far; tells `sink`, and returns the message for
    /// the agent.
    pub(crate) fn settle_cut(
        mut self,
        index: usize,
        prices: &Prices,
        model: Option<&str>,
        tokens: Tokens,
        sink: &dyn UsageSink,
    ) -> String {
        let spent = self.spent(prices, model, tokens, false);
        self.release(spent, None);
        let entry = &self.budgets.entries[index];
        let mut state = entry.budget.lock();
        // Exhausted when the cut was decided; its limits may have changed since.
        let limit = state
            .exhausted()
            .unwrap_or(match state.limits.max_cost_usd {
                Some(_) => Limit::CostUsd,
                None => Limit::Tokens,
            });
        let scope = entry.budget.scope;
        let message = message::cut(scope, limit, &state);
        let episode = state.reach();
        let reached = state.reached(scope, limit, BudgetAction::Cut);
        drop(state);
        self.budgets.report(index, episode, reached, sink);
        message
    }

    /// What a call that ended with `tokens` spent: at least its estimated
    /// input if its usage was not read to the end.
    fn spent(
        &self,
        prices: &Prices,
        model: Option<&str>,
        mut tokens: Tokens,
        complete: bool,
    ) -> Amount {
        if !complete && tokens.input == 0 {
            tokens.input = self.input;
        }
        self.amount(prices, model, tokens)
    }

    /// Releases the hold and settles `spent` in every budget; tells `sink`, if
    /// given, of budgets this leaves exhausted that were not reached yet.
    fn release(&mut self, spent: Amount, sink: Option<&dyn UsageSink>) {
        self.open = false;
        for (index, entry) in self.budgets.entries.iter().enumerate() {
            let mut state = entry.budget.lock();
            state.run(self.estimate, self.used, Amount::default());
            state.held = state.held - self.estimate;
            state.settled = state.settled + spent;
            entry.budget.publish(&state);
            let Some(sink) = sink else {
                continue;
            };
            let Some(limit) = state.exhausted().filter(|_| !state.reached) else {
                continue;
            };
            let episode = state.reach();
            let reached = state.reached(entry.budget.scope, limit, BudgetAction::Spent);
            drop(state);
            self.budgets.report(index, episode, reached, sink);
        }
    }

    /// What `tokens` of `model` (the answer's) count for: their list price, or
    /// without cache rates, or at the request's model's prices; nothing for a
    /// model neither the answer nor the request makes known.
    fn amount(&self, prices: &Prices, model: Option<&str>, tokens: Tokens) -> Amount {
        let plain = Tokens {
            input: tokens.input,
            output: tokens.output,
            ..Tokens::default()
        };
        let cost = [model, self.model.as_deref()]
            .into_iter()
            .flatten()
            .find_map(|model| {
                prices
                    .cost(model, &tokens)
                    .or_else(|| prices.cost(model, &plain))
            });
        Amount::new(cost.unwrap_or(0.0), tokens.input + tokens.output)
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if self.open {
            self.release(Amount::default(), None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{BudgetScope, Limits, Spend};
    use std::sync::Mutex;

    #[derive(Default)]
    struct Told(Mutex<Vec<BudgetReached>>);

    impl UsageSink for Told {
        fn record(&self, _: crate::CallUsage) {}

        fn budget_reached(&self, reached: BudgetReached) {
            self.0.lock().unwrap().push(reached);
        }
    }

    fn tokens(input: u64, output: u64) -> Tokens {
        Tokens {
            input,
            output,
            ..Tokens::default()
        }
    }

    fn estimate(input: u64, output: u64) -> Estimate {
        Estimate {
            model: Some("claude-haiku-4-5".into()),
            tokens: tokens(input, output),
        }
    }

    fn budget(scope: BudgetScope, max_tokens: u64) -> Arc<Budget> {
        let limits = Limits {
            max_tokens: Some(max_tokens),
            max_cost_usd: None,
        };
        Arc::new(Budget::new(scope, limits, Spend::default()))
    }

    #[test]
    fn holds_are_taken_released_and_settled_in_every_budget() {
        let (session, daemon) = (
            budget(BudgetScope::Session, 100),
            budget(BudgetScope::Daemon, 1000),
        );
        let route = RouteBudgets::new([session.clone(), daemon.clone(), session.clone()]).unwrap();
        assert_eq!(route.entries.len(), 2);
        let prices = Prices::built_in();
        let told = Told::default();
        let mut lease = route.admit(estimate(30, 20), &prices, &told).unwrap();
        assert_eq!(session.reserved().tokens, 50);
        assert_eq!(daemon.reserved().tokens, 50);
        let refused = route.admit(estimate(30, 21), &prices, &told).unwrap_err();
        assert!(
            refused
                .contains("the session's budget is reached (0 of 100 tokens used; 50 tokens held"),
            "{refused}"
        );
        lease.run(&prices, None, tokens(40, 2));
        assert_eq!(
            (session.reserved().tokens, session.spent().tokens),
            (50, 42)
        );
        lease.settle(
            &prices,
            Some("claude-haiku-4-5"),
            tokens(40, 5),
            true,
            &told,
        );
        assert_eq!((session.reserved().tokens, session.spent().tokens), (0, 45));
        assert_eq!(daemon.spent().tokens, 45);
        // Haiku 4.5: $1 in, $5 out per million.
        assert_eq!(daemon.spent().cost_usd, 65e-6);
        let told = told.0.lock().unwrap();
        assert_eq!(told.len(), 1);
        assert_eq!(
            (told[0].scope, told[0].action),
            (BudgetScope::Session, BudgetAction::Refused)
        );
    }

    #[test]
    fn a_dropped_lease_releases_its_hold_and_an_incomplete_one_settles_its_input() {
        let session = budget(BudgetScope::Session, 100);
        let route = RouteBudgets::new([session.clone()]).unwrap();
        let (prices, told) = (Prices::built_in(), Told::default());
        drop(route.admit(estimate(30, 20), &prices, &told).unwrap());
        assert_eq!((session.reserved().tokens, session.spent().tokens), (0, 0));
        let lease = route.admit(estimate(30, 20), &prices, &told).unwrap();
        lease.settle(&prices, None, tokens(0, 3), false, &told);
        assert_eq!(session.spent().tokens, 33);
    }

    #[test]
    fn each_reaching_is_told_once_per_route() {
        let session = budget(BudgetScope::Session, 10);
        let route = RouteBudgets::new([session.clone()]).unwrap();
        let (prices, told) = (Prices::built_in(), Told::default());
        for _ in 0..3 {
            assert!(route.admit(estimate(30, 20), &prices, &told).is_err());
        }
        assert_eq!(told.0.lock().unwrap().len(), 1);
        session.set_limits(Limits {
            max_tokens: Some(100),
            max_cost_usd: None,
        });
        let lease = route.admit(estimate(30, 20), &prices, &told).unwrap();
        lease.settle(&prices, None, tokens(90, 10), true, &told);
        assert!(route.admit(estimate(30, 20), &prices, &told).is_err());
        let told = told.0.lock().unwrap();
        let actions: Vec<_> = told.iter().map(|reached| reached.action).collect();
        assert_eq!(actions, [BudgetAction::Refused, BudgetAction::Spent]);
        assert_eq!(told[1].spent.tokens, 100);
    }

    #[test]
    fn a_cost_budget_refuses_unpriced_models_and_a_token_budget_does_not() {
        let (prices, told) = (Prices::built_in(), Told::default());
        let unknown = Estimate {
            model: Some("scripted".into()),
            tokens: tokens(1, 1),
        };
        let tokens_only = RouteBudgets::new([budget(BudgetScope::Session, 100)]).unwrap();
        assert!(tokens_only.admit(unknown.clone(), &prices, &told).is_ok());
        let limits = Limits {
            max_cost_usd: Some(1.0),
            max_tokens: None,
        };
        let dollars = Arc::new(Budget::new(BudgetScope::Daemon, limits, Spend::default()));
        let route = RouteBudgets::new([dollars]).unwrap();
        let refused = route.admit(unknown, &prices, &told).unwrap_err();
        assert!(
            refused.contains("no price for the model \"scripted\""),
            "{refused}"
        );
        assert!(told.0.lock().unwrap().is_empty());
    }
}
