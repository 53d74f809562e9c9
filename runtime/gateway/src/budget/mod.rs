//! Budgets: caps on what a session, or the whole daemon, may spend on model
//! calls, in US dollars and in tokens (input + output), enforced by the
//! gateway before a call goes upstream and while its answer streams.
//!
//! A [`Budget`] keeps three amounts: what calls that ended have spent
//! (*settled*, starting from what a restored session had spent), what calls in
//! flight are known to have used so far (their running counts), and what calls
//! in flight *hold*: for each, the larger of its estimate and its running count.
//! Its *spent* is settled plus running.
//!
//! **The rule.** Before a call goes upstream it is estimated (`estimate.rs`:
//! input from the body's size at the model's input price, output from the
//! request's `max_tokens` or the like, at most 4096). It is admitted when, for
//! every limit of every budget it falls under, `settled + held + estimate ≤
//! limit` and `spent < limit`; its estimate is then held by each. The check and
//! the hold are one critical section over all those budgets (their locks are
//! taken in address order), so concurrent calls, subagents say, are admitted one
//! after the other against what those before them hold. A refused call gets a
//! 403 in its format's shape and never reaches the upstream.
//!
//! **The guarantee.** The estimates of the calls in flight never add up to more
//! than what was left under a limit. So spend can only pass a limit by what calls
//! already in flight use beyond their estimates (a longer answer, a prompt
//! denser than its size suggests), never by calls admitted after the room was
//! taken. Once the spend reaches a limit (a call ends; a stream's running counts
//! show it: Anthropic's `message_start` and `message_delta`, Gemini's
//! `usageMetadata`; or the limit is lowered), the budget is *exhausted*: no call
//! is admitted, and every stream in flight under it is cut after its last whole
//! event, with its format's error events, and its upstream connection dropped.
//! The overshoot is then what those calls used beyond their estimates, plus what
//! their upstream generated past the last counts it sent. Two answers are not
//! cut: one whose final usage was read (only its closing events are left: the
//! model wrote it all), and one that is not an event stream once its head came
//! (it could not end well formed); a call still waiting for its head is
//! answered with the refusal.
//!
//! **Settling.** A call settles with the counts read from its answer. One that
//! ended before its usage was read (cut, broken off, hung up on) settles at least
//! its estimated input: the upstream bills the prompt once it answers. One whose
//! upstream could not be reached settles nothing.
//!
//! **Unpriced models.** Tokens always count. A call to a model the price table
//! does not know is refused by a budget that has a cost limit (its cost cannot be
//! bounded; add the model to a price file, or budget in tokens). A known model
//! whose call has a count the table has no rate for (a cache read on Gemini) is
//! priced as if its input had not touched a cache, and an answer naming an
//! unknown model is priced as the model the request named.
//!
//! **Telling the daemon.** A budget is *reached* when it refuses a call, cuts
//! one, or is left exhausted by a call's end; it is open again when it admits a
//! call or its limits are set. Each route is told of each reaching once, through
//! [`UsageSink::budget_reached`](crate::UsageSink::budget_reached), when one of
//! its calls meets it.

mod estimate;
mod lease;
mod message;

use std::ops::{Add, Sub};
use std::sync::{Mutex, MutexGuard};

use tokio::sync::watch;

pub(crate) use estimate::Estimate;
pub(crate) use lease::{Cut, Lease, RouteBudgets};

/// A budget's caps; `None` is no cap.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Limits {
    /// The most that may be spent, in US dollars at list prices. A value that
    /// is not a number of 0 or more is read as 0: nothing may be spent.
    pub max_cost_usd: Option<f64>,
    /// The most tokens that may be used, input and output together.
    pub max_tokens: Option<u64>,
}

/// An amount spent on model calls.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spend {
    /// US dollars, at list prices.
    pub cost_usd: f64,
    /// Tokens, input and output together.
    pub tokens: u64,
}

/// Whose budget it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BudgetScope {
    /// One session's.
    Session,
    /// The daemon's, over every session.
    Daemon,
}

/// One of a budget's two limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// [`Limits::max_cost_usd`].
    CostUsd,
    /// [`Limits::max_tokens`].
    Tokens,
}

/// What the gateway did when it found a budget reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetAction {
    /// It refused a call before it went upstream.
    Refused,
    /// It cut a call's answer as it streamed.
    Cut,
    /// Nothing: a call ended and its spend exhausted the budget.
    Spent,
}

/// A budget a route's calls fall under was reached: told to the route's sink
/// once per reaching.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetReached {
    /// Whose budget.
    pub scope: BudgetScope,
    /// The limit that was reached.
    pub limit: Limit,
    /// The budget's limits.
    pub limits: Limits,
    /// What was spent: by calls that ended, and by calls in flight so far.
    pub spent: Spend,
    /// What the gateway did.
    pub action: BudgetAction,
}

/// A budget, shared (in an `Arc`) by the routes whose calls fall under it and by
/// whoever sets its limits.
#[derive(Debug)]
pub struct Budget {
    scope: BudgetScope,
    state: Mutex<State>,
    /// Whether the budget is exhausted, for streams to be cut and the daemon woken.
    exhausted: watch::Sender<bool>,
}

impl Budget {
    /// A budget with `limits` that has already seen `spent` (zero for a new
    /// session; what a restored one had spent).
    pub fn new(scope: BudgetScope, limits: Limits, spent: Spend) -> Self {
        let state = State {
            limits,
            settled: Amount::of(spent),
            ..State::default()
        };
        let exhausted = state.exhausted().is_some();
        Self {
            scope,
            state: Mutex::new(state),
            exhausted: watch::Sender::new(exhausted),
        }
    }

    /// Whose budget it is.
    pub fn scope(&self) -> BudgetScope {
        self.scope
    }

    /// The budget's limits.
    pub fn limits(&self) -> Limits {
        self.lock().limits
    }

    /// Replaces the limits, at once: a call is admitted against them from now
    /// on, and streams in flight are cut if the spend has reached them.
    pub fn set_limits(&self, limits: Limits) {
        let mut state = self.lock();
        state.limits = limits;
        state.reached = false;
        self.publish(&state);
    }

    /// What was spent: by calls that ended, and by calls in flight so far.
    pub fn spent(&self) -> Spend {
        self.lock().spent().spend()
    }

    /// What calls in flight hold: for each, the larger of its estimate and what
    /// it has used so far.
    pub fn reserved(&self) -> Spend {
        self.lock().held.spend()
    }

    /// Whether the spend has reached a limit.
    pub fn is_exhausted(&self) -> bool {
        *self.exhausted.borrow()
    }

    /// A receiver of whether the budget is exhausted, which changes when that
    /// does: to be woken when it becomes exhausted.
    pub fn watch(&self) -> watch::Receiver<bool> {
        self.exhausted.subscribe()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Tells the watchers whether `state` is exhausted, if that changed.
    fn publish(&self, state: &State) {
        let now = state.exhausted().is_some();
        self.exhausted
            .send_if_modified(|exhausted| std::mem::replace(exhausted, now) != now);
    }
}

/// An amount in whole units: nano-dollars (so holds add and release exactly)
/// and tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Amount {
    nanos: u64,
    tokens: u64,
}

impl Amount {
    /// `cost_usd` dollars and `tokens` tokens.
    fn new(cost_usd: f64, tokens: u64) -> Self {
        Self {
            nanos: nanos(cost_usd),
            tokens,
        }
    }

    fn of(spend: Spend) -> Self {
        Self::new(spend.cost_usd, spend.tokens)
    }

    fn spend(self) -> Spend {
        Spend {
            cost_usd: self.nanos as f64 / 1e9,
            tokens: self.tokens,
        }
    }

    /// The larger of each.
    fn max(self, other: Self) -> Self {
        Self {
            nanos: self.nanos.max(other.nanos),
            tokens: self.tokens.max(other.tokens),
        }
    }
}

impl Add for Amount {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            nanos: self.nanos.saturating_add(other.nanos),
            tokens: self.tokens.saturating_add(other.tokens),
        }
    }
}

impl Sub for Amount {
    type Output = Self;

    fn sub(self, other: Self) -> Self {
        Self {
            nanos: self.nanos.saturating_sub(other.nanos),
            tokens: self.tokens.saturating_sub(other.tokens),
        }
    }
}

/// Dollars in nano-dollars; anything but a number of 0 or more is 0.
fn nanos(usd: f64) -> u64 {
    if usd > 0.0 {
        // `as` saturates: an infinite limit is the largest amount.
        (usd * 1e9).round() as u64
    } else {
        0
    }
}

/// A budget's amounts, behind its lock.
#[derive(Debug, Default)]
struct State {
    limits: Limits,
    /// Spent by calls that ended.
    settled: Amount,
    /// Used so far by calls in flight.
    running: Amount,
    /// Held by calls in flight: for each, the larger of its estimate and its use.
    held: Amount,
    /// Whether the budget was reached since it was last open.
    reached: bool,
    /// How many times it was reached.
    episode: u64,
}

impl State {
    fn spent(&self) -> Amount {
        self.settled + self.running
    }

    /// The limits as amounts, for the dimensions that have one.
    fn caps(&self) -> [(Limit, Option<u64>); 2] {
        [
            (Limit::CostUsd, self.limits.max_cost_usd.map(nanos)),
            (Limit::Tokens, self.limits.max_tokens),
        ]
    }

    /// The limit the spend has reached, if any.
    fn exhausted(&self) -> Option<Limit> {
        let spent = self.spent();
        self.caps()
            .into_iter()
            .find_map(|(limit, cap)| (cap? <= pick(limit, spent)).then_some(limit))
    }

    /// The limit that refuses a call with `estimate`, if any.
    fn refuses(&self, estimate: Amount) -> Option<Limit> {
        let after = self.settled + self.held + estimate;
        let spent = self.spent();
        self.caps().into_iter().find_map(|(limit, cap)| {
            let cap = cap?;
            (pick(limit, after) > cap || pick(limit, spent) >= cap).then_some(limit)
        })
    }

    /// Marks the budget reached; returns the reaching's number.
    fn reach(&mut self) -> u64 {
        if !self.reached {
            self.reached = true;
            self.episode += 1;
        }
        self.episode
    }

    /// A call that held `estimate` and used `before` has now used `after`.
    fn run(&mut self, estimate: Amount, before: Amount, after: Amount) {
        self.held = self.held - estimate.max(before) + estimate.max(after);
        self.running = self.running - before + after;
    }

    /// What a route is told about this budget's reaching `limit`.
    fn reached(&self, scope: BudgetScope, limit: Limit, action: BudgetAction) -> BudgetReached {
        BudgetReached {
            scope,
            limit,
            limits: self.limits,
            spent: self.spent().spend(),
            action,
        }
    }
}

/// The part of `amount` that `limit` caps.
fn pick(limit: Limit, amount: Amount) -> u64 {
    match limit {
        Limit::CostUsd => amount.nanos,
        Limit::Tokens => amount.tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(count: u64) -> Amount {
        Amount {
            nanos: 0,
            tokens: count,
        }
    }

    fn capped(max_tokens: u64) -> State {
        State {
            limits: Limits {
                max_tokens: Some(max_tokens),
                max_cost_usd: None,
            },
            ..State::default()
        }
    }

    #[test]
    fn a_call_fits_while_settled_held_and_its_estimate_stay_within_the_limit() {
        let mut state = capped(100);
        state.settled = tokens(40);
        state.held = tokens(30);
        assert_eq!(state.refuses(tokens(30)), None);
        assert_eq!(state.refuses(tokens(31)), Some(Limit::Tokens));
        state.settled = tokens(100);
        state.held = tokens(0);
        assert_eq!(state.refuses(tokens(0)), Some(Limit::Tokens));
        assert_eq!(state.exhausted(), Some(Limit::Tokens));
    }

    #[test]
    fn a_running_count_beyond_the_estimate_is_held_instead() {
        let mut state = capped(100);
        let estimate = tokens(20);
        state.held = estimate;
        state.run(estimate, tokens(0), tokens(15));
        assert_eq!((state.held, state.running), (tokens(20), tokens(15)));
        state.run(estimate, tokens(15), tokens(100));
        assert_eq!((state.held, state.running), (tokens(100), tokens(100)));
        assert_eq!(state.exhausted(), Some(Limit::Tokens));
        state.run(estimate, tokens(100), tokens(0));
        assert_eq!((state.held, state.running), (tokens(20), tokens(0)));
    }

    #[test]
    fn dollars_are_counted_exactly_and_odd_limits_admit_nothing() {
        assert_eq!(nanos(0.000055), 55_000);
        assert_eq!(nanos(f64::NAN), 0);
        assert_eq!(nanos(-1.0), 0);
        assert_eq!(nanos(f64::INFINITY), u64::MAX);
        let budget = Budget::new(
            BudgetScope::Session,
            Limits {
                max_cost_usd: Some(f64::NAN),
                max_tokens: None,
            },
            Spend::default(),
        );
        assert!(budget.is_exhausted());
    }

    #[test]
    fn limits_replaced_wake_the_watchers() {
        let budget = Budget::new(
            BudgetScope::Daemon,
            Limits::default(),
            Spend {
                cost_usd: 0.5,
                tokens: 10,
            },
        );
        let mut watch = budget.watch();
        assert!(!*watch.borrow_and_update());
        budget.set_limits(Limits {
            max_cost_usd: Some(0.5),
            max_tokens: None,
        });
        assert!(watch.has_changed().unwrap());
        assert!(budget.is_exhausted());
        assert_eq!(budget.spent().cost_usd, 0.5);
        budget.set_limits(Limits::default());
        assert!(!budget.is_exhausted());
    }
}
