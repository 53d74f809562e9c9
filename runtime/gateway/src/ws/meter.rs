//! Metering a socket's responses, each one call: from the agent's
//! `response.create` to the upstream's terminal event.
//!
//! A socket carries one response at a time (OpenAI's answers a second
//! `response.create` only after the first response ended), so the responses
//! in flight are answered in the order they were asked, and the upstream's
//! text frames belong to the first of them. They are read by the Responses
//! tap, as an event stream's events are; the response ends at its terminal
//! event (`response.completed`, `response.incomplete`, `response.failed`),
//! whose usage is its call's, or at an `error` frame (a request the upstream
//! refused: no usage). A response still in flight when the socket ends, or
//! cut for a budget, is reported incomplete; as for HTTP, its budgets settle at
//! least its estimated prompt.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use crate::budget::{Cut, Lease};
use crate::forward::millis;
use crate::relay::{close_call, read_usage};
use crate::route::Route;
use crate::taps::{self, Tap};
use crate::usage::CallUsage;
use crate::Shared;

use super::FORMAT;

/// How a response ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum End {
    /// At its terminal event or an `error` frame.
    Ended,
    /// With the socket, before its end.
    Broke,
    /// For the budget at this index of the route's.
    Cut(usize),
}

/// One response in flight.
struct InFlight {
    call_id: u64,
    /// When its `response.create` came.
    started: Instant,
    /// When its first frame came back, in milliseconds after `started`.
    first_frame_ms: Option<u64>,
    tap: Box<dyn Tap>,
    /// Its hold on the route's budgets, if it has any.
    lease: Option<Lease>,
    /// Resolves when one of those budgets is exhausted.
    cut: Option<Cut>,
}

/// The responses in flight on one socket. Dropped, it reports those left as
/// broken off.
pub(super) struct Meter {
    shared: Arc<Shared>,
    route: Arc<Route>,
    in_flight: VecDeque<InFlight>,
}

impl Meter {
    /// A meter of the route's calls.
    pub(super) fn new(shared: Arc<Shared>, route: Arc<Route>) -> Self {
        Self {
            shared,
            route,
            in_flight: VecDeque::new(),
        }
    }

    /// The route whose calls these are.
    pub(super) fn route(&self) -> &Route {
        &self.route
    }

    /// A `response.create` was sent upstream, holding `lease`.
    pub(super) fn start(&mut self, lease: Option<Lease>) {
        self.in_flight.push_back(InFlight {
            call_id: self.shared.next_call(),
            started: Instant::now(),
            first_frame_ms: None,
            tap: taps::tap(FORMAT, None),
            cut: lease.as_ref().map(Lease::cut),
            lease,
        });
    }

    /// Reads a text frame of the upstream's, of type `kind`: returns the HTTP
    /// status of the first response in flight if the frame ends it (the
    /// `status` an `error` frame gives, else 200).
    pub(super) fn read(&mut self, kind: &str, text: &str) -> Option<u16> {
        let response = self.in_flight.front_mut()?;
        response
            .first_frame_ms
            .get_or_insert_with(|| millis(response.started));
        if kind == "error" {
            let error: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
            let status = error["status"].as_u64().and_then(|s| u16::try_from(s).ok());
            return Some(status.unwrap_or(200));
        }
        response.tap.event(kind, text);
        response.tap.over().then_some(200)
    }

    /// Ends the first response in flight with `status`.
    pub(super) fn end_first(&mut self, status: u16) {
        if let Some(response) = self.in_flight.pop_front() {
            self.report(response, status, End::Ended);
        }
    }

    /// Ends every response in flight as `end` says, with `status`; returns the
    /// messages for the agent of those cut.
    pub(super) fn end_all(&mut self, status: u16, end: End) -> Vec<String> {
        let ended: Vec<InFlight> = self.in_flight.drain(..).collect();
        ended
            .into_iter()
            .filter_map(|response| self.report(response, status, end))
            .collect()
    }

    /// Reports a `response.create` that never reached the upstream, which
    /// could not be opened: the agent was told `status`.
    pub(super) fn unanswered(&self, status: u16) {
        let tokens = crate::usage::Tokens::default();
        let call_id = self.shared.next_call();
        let mut usage = CallUsage::counted(call_id, FORMAT, "unknown".into(), tokens);
        usage.status = status;
        self.route.sink.record(usage);
    }

    /// Resolves, with the budget's index, when a budget of the first response
    /// in flight is exhausted (and so every response's: they are the route's);
    /// never while there is none.
    pub(super) async fn cut(&mut self) -> usize {
        match self.in_flight.front_mut().and_then(|r| r.cut.as_mut()) {
            Some(cut) => cut.await,
            None => std::future::pending().await,
        }
    }

    /// Reports `response`'s usage and settles its budgets; returns the message
    /// for the agent when it was cut.
    fn report(&self, response: InFlight, status: u16, end: End) -> Option<String> {
        let reading = response.tap.finish();
        let prices = &self.shared.prices;
        let mut usage = read_usage(response.call_id, FORMAT, &reading, prices);
        usage.status = status;
        usage.duration_ms = millis(response.started);
        usage.first_byte_ms = response.first_frame_ms;
        usage.complete = end == End::Ended && reading.ended;
        tracing::debug!(
            session = %self.route.session_id,
            agent = %self.route.agent,
            model = %usage.model,
            input = usage.input_tokens,
            output = usage.output_tokens,
            complete = usage.complete,
            "model gateway: call over WebSocket"
        );
        let cut = match end {
            End::Cut(index) => Some(index),
            End::Ended | End::Broke => None,
        };
        let sink = &*self.route.sink;
        close_call(usage, &reading, response.lease, cut, prices, sink)
    }
}

impl Drop for Meter {
    /// The socket ended: responses still in flight broke off.
    fn drop(&mut self) {
        self.end_all(200, End::Broke);
    }
}
