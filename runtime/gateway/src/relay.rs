//! Relaying an answer: its bytes go to the agent as they come, unchanged (a
//! stream's whole events at a time: the SSE splitter holds an unfinished event
//! until its end comes), and the format's tap reads them, event by event for a
//! stream, the whole body at the end otherwise. When the answer ends, breaks
//! off, or the agent hangs up (the relay is dropped), the call's usage is
//! reported and its budgets settled, once.
//!
//! Under budgets, a stream's running counts go to the call's lease as they are
//! read, and the relay also waits for one of its budgets to be exhausted: then
//! it stops reading the upstream (dropping its connection), sends the format's
//! error events after the last whole event, and ends the answer. An answer whose
//! final usage was read (only its closing events are left) is let through: the
//! model wrote it all, and cutting it would only lose it.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{FutureExt, Stream, StreamExt};
use hyper::body::Frame;

use crate::budget::{Cut, Lease};
use crate::format::Format;
use crate::forward::millis;
use crate::listener::BoxError;
use crate::prices::Prices;
use crate::route::Route;
use crate::sse::Splitter;
use crate::taps::{Reading, Tap};
use crate::usage::{CallUsage, UsageSink};
use crate::Shared;

/// Largest whole answer copied for its tap; a larger one is relayed all the
/// same, unread.
const MAX_WHOLE: usize = 32 << 20;

/// What the usage report of a call needs besides the tap.
pub(crate) struct Report {
    pub shared: Arc<Shared>,
    pub route: Arc<Route>,
    pub format: Format,
    pub call_id: u64,
    pub status: u16,
    pub started: Instant,
    pub first_byte_ms: u64,
    /// The call's hold on its route's budgets, if it has any.
    pub lease: Option<Lease>,
}

/// How the tap is fed.
enum Reader {
    /// Event by event.
    Stream(Splitter),
    /// With the whole body at the end; `None` once it outgrew [`MAX_WHOLE`].
    Whole(Option<Vec<u8>>),
}

/// How an answer's relaying ended.
#[derive(Debug, Clone, Copy)]
pub(crate) enum End {
    /// The answer ended as it should.
    Ended,
    /// The upstream broke off, or fell silent past the idle timeout.
    Broke(Lapse),
    /// The agent hung up.
    HungUp,
    /// The budget at this index of the route's was exhausted.
    Cut(usize),
}

/// How an upstream's answer stopped before its end.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Lapse {
    /// Its connection broke.
    BrokeOff,
    /// Nothing came for longer than the idle timeout.
    FellSilent,
}

/// Why an answer's body stopped before its end, as its stream says.
#[derive(Debug)]
pub(crate) struct Broken {
    pub lapse: Lapse,
    pub reason: String,
}

impl Broken {
    /// The upstream broke off, for `reason`.
    pub(crate) fn off(reason: &str) -> Self {
        Broken {
            lapse: Lapse::BrokeOff,
            reason: reason.into(),
        }
    }
}

/// An answer's body as it comes from the upstream.
pub(crate) type AnswerBody = BoxStream<'static, Result<Bytes, Broken>>;

/// The tap and what it reports to, until the call is reported.
pub(crate) struct Metering {
    tap: Box<dyn Tap>,
    reader: Reader,
    report: Report,
}

/// The answer's body on its way to the agent.
pub(crate) struct Relay {
    body: AnswerBody,
    /// Bytes still to come when the answer said its length: hyper stops
    /// polling a body once that many are written, so the end is seen here.
    remaining: Option<u64>,
    metering: Option<Metering>,
    /// For a stream under budgets: resolves when one of them is exhausted.
    cut: Option<Cut>,
}

impl Relay {
    /// Relays `body` unread (a call that is not metered).
    pub(crate) fn plain(body: AnswerBody) -> Self {
        Self {
            body,
            remaining: None,
            metering: None,
            cut: None,
        }
    }

    /// Relays `body`, of `length` bytes if the answer said, a stream of events
    /// when `streamed`, through `tap`.
    pub(crate) fn metered(
        body: AnswerBody,
        length: Option<u64>,
        tap: Box<dyn Tap>,
        streamed: bool,
        report: Report,
    ) -> Self {
        Self {
            body,
            remaining: length,
            metering: Some(Metering::new(tap, streamed, report)),
            cut: None,
        }
    }

    /// Cuts a stream when `cut` resolves. A whole answer is not cut: it could
    /// not end well formed, and it is the model's finished answer.
    pub(crate) fn cut_on(mut self, cut: Cut) -> Self {
        let streamed = matches!(
            &self.metering,
            Some(Metering {
                reader: Reader::Stream(_),
                ..
            })
        );
        if streamed {
            self.cut = Some(cut);
        }
        self
    }

    /// Reports the call, once.
    fn finish(&mut self, end: End) -> Option<String> {
        self.metering
            .take()
            .and_then(|metering| metering.finish(end))
    }

    /// The answer ended: passes on `passed` and what the splitter still held,
    /// and reports the call.
    fn end(&mut self, passed: Bytes) -> Option<Result<Frame<Bytes>, BoxError>> {
        self.body = futures::stream::empty().boxed();
        self.cut = None;
        let held = self
            .metering
            .as_mut()
            .map(Metering::drain)
            .unwrap_or_default();
        self.finish(End::Ended);
        let last = match (passed.is_empty(), held.is_empty()) {
            (_, true) => passed,
            (true, false) => held,
            (false, false) => Bytes::from([passed, held].concat()),
        };
        (!last.is_empty()).then(|| Ok(Frame::data(last)))
    }

    /// Whether the tap read the answer's final usage (or its failure): only
    /// closing events are left, and the answer is not cut.
    fn answer_over(&self) -> bool {
        self.metering
            .as_ref()
            .is_some_and(|metering| metering.tap.over())
    }

    /// A budget at `index` is exhausted: drops the upstream, reports the call,
    /// and ends the answer with the format's error events.
    fn cut_here(&mut self, index: usize) -> Option<Result<Frame<Bytes>, BoxError>> {
        self.body = futures::stream::empty().boxed();
        self.cut = None;
        let metering = self.metering.as_ref()?;
        let format = metering.report.format;
        let mid_event =
            matches!(&metering.reader, Reader::Stream(splitter) if splitter.mid_event());
        tracing::info!(
            session = %metering.report.route.session_id,
            agent = %metering.report.route.agent,
            %format,
            "model gateway: a budget is reached; the answer is cut"
        );
        let message = self.finish(End::Cut(index))?;
        Some(if mid_event {
            // Error events after half an event would not be read as events.
            Err(BoxError::from(message))
        } else {
            Ok(Frame::data(format.stream_error(&message)))
        })
    }
}

impl Metering {
    /// Meters an answer through `tap`: event by event when it is `streamed`,
    /// else whole at its end.
    pub(crate) fn new(tap: Box<dyn Tap>, streamed: bool, report: Report) -> Self {
        let reader = match streamed {
            true => Reader::Stream(Splitter::default()),
            false => Reader::Whole(Some(Vec::new())),
        };
        Metering {
            tap,
            reader,
            report,
        }
    }

    /// Feeds `chunk` to the tap; returns the bytes to pass on.
    pub(crate) fn feed(&mut self, chunk: Bytes) -> Bytes {
        match &mut self.reader {
            Reader::Stream(splitter) => {
                let tap = &mut self.tap;
                let passed = splitter.feed(chunk, &mut |name, data| tap.event(name, data));
                if let Some(lease) = &mut self.report.lease {
                    let (model, tokens) = self.tap.so_far();
                    lease.run(&self.report.shared.prices, model, tokens);
                }
                passed
            }
            Reader::Whole(copy) => {
                let full = copy
                    .as_ref()
                    .is_some_and(|copy| copy.len() + chunk.len() > MAX_WHOLE);
                if full {
                    *copy = None;
                } else if let Some(copy) = copy {
                    copy.extend_from_slice(&chunk);
                }
                chunk
            }
        }
    }

    /// Ends a stream's splitting: the bytes it still held, to pass on.
    fn drain(&mut self) -> Bytes {
        match &mut self.reader {
            Reader::Stream(splitter) => {
                let tap = &mut self.tap;
                std::mem::take(splitter).finish(&mut |name, data| tap.event(name, data))
            }
            Reader::Whole(_) => Bytes::new(),
        }
    }

    /// Reports the call's usage and settles its budgets; returns the message
    /// for the agent when it was cut.
    pub(crate) fn finish(self, end: End) -> Option<String> {
        let Metering {
            mut tap,
            reader,
            report,
        } = self;
        let ended = matches!(end, End::Ended);
        match reader {
            Reader::Stream(splitter) => {
                splitter.finish(&mut |name, data| tap.event(name, data));
            }
            Reader::Whole(Some(body)) if ended => tap.whole(&body),
            Reader::Whole(_) => {}
        }
        let reading = tap.finish();
        let prices = &report.shared.prices;
        let mut usage = read_usage(report.call_id, report.format, &reading, prices);
        usage.status = report.status;
        usage.duration_ms = millis(report.started);
        usage.first_byte_ms = Some(report.first_byte_ms);
        usage.complete = ended && reading.ended;
        usage.failure = failure(end, report.status, report.format, &reading);
        tracing::debug!(
            session = %report.route.session_id,
            agent = %report.route.agent,
            format = %usage.format,
            model = %usage.model,
            status = usage.status,
            input = usage.input_tokens,
            output = usage.output_tokens,
            complete = usage.complete,
            "model gateway: call"
        );
        let cut = match end {
            End::Cut(index) => Some(index),
            _ => None,
        };
        let sink = &*report.route.sink;
        close_call(usage, &reading, report.lease, cut, prices, sink)
    }
}

/// The usage of a call whose answer `reading` read, priced with `prices` (the
/// model `unknown` when the answer named none).
pub(crate) fn read_usage(
    call_id: u64,
    format: Format,
    reading: &Reading,
    prices: &Prices,
) -> CallUsage {
    let model = reading.model.clone().unwrap_or_else(|| "unknown".into());
    let mut usage = CallUsage::counted(call_id, format, model, reading.tokens);
    usage.cost_usd = prices.cost(&usage.model, &reading.tokens);
    usage
}

/// Closes a finished call: reports its `usage` to `sink`, then settles its
/// `lease`, if it has one, with the counts its answer's `reading` holds, as cut
/// by the budget at index `cut` of the route's if one cut it. Returns the
/// message for the agent when one did.
pub(crate) fn close_call(
    usage: CallUsage,
    reading: &Reading,
    lease: Option<Lease>,
    cut: Option<usize>,
    prices: &Prices,
    sink: &dyn UsageSink,
) -> Option<String> {
    let complete = usage.complete;
    sink.record(usage);
    let (model, tokens) = (reading.model.as_deref(), reading.tokens);
    match (lease, cut) {
        (Some(lease), Some(index)) => Some(lease.settle_cut(index, prices, model, tokens, sink)),
        (Some(lease), None) => {
            lease.settle(prices, model, tokens, complete, sink);
            None
        }
        (None, _) => None,
    }
}

/// Why a call the provider answered with a success failed, if it did (see
/// [`CallUsage::failure`]).
fn failure(end: End, status: u16, format: Format, reading: &Reading) -> Option<String> {
    if !(200..300).contains(&status) {
        return None;
    }
    match end {
        End::Broke(Lapse::BrokeOff) => Some("the provider's answer broke off".into()),
        End::Broke(Lapse::FellSilent) => {
            Some("the provider's answer fell silent for longer than the idle timeout".into())
        }
        End::Ended if !reading.ended => Some(format!(
            "the provider's answer ended without what ends a well-formed {format} answer: \
             it stopped early, reported an error, or could not be read"
        )),
        End::Ended | End::HungUp | End::Cut(_) => None,
    }
}

impl Stream for Relay {
    type Item = Result<Frame<Bytes>, BoxError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let relay = &mut *self;
        loop {
            if let Some(cut) = &mut relay.cut {
                if let Poll::Ready(index) = cut.poll_unpin(cx) {
                    if !relay.answer_over() {
                        return Poll::Ready(relay.cut_here(index));
                    }
                    // Only its closing events are left: the answer is let through.
                    relay.cut = None;
                }
            }
            let chunk = match ready!(relay.body.poll_next_unpin(cx)) {
                Some(Ok(chunk)) => chunk,
                Some(Err(broken)) => {
                    relay.finish(End::Broke(broken.lapse));
                    return Poll::Ready(Some(Err(BoxError::from(broken.reason))));
                }
                None => return Poll::Ready(relay.end(Bytes::new())),
            };
            let chunk_length = u64::try_from(chunk.len()).unwrap_or(u64::MAX);
            relay.remaining = relay
                .remaining
                .map(|left| left.saturating_sub(chunk_length));
            let passed = match &mut relay.metering {
                Some(metering) => metering.feed(chunk),
                None => chunk,
            };
            if relay.remaining == Some(0) {
                return Poll::Ready(relay.end(passed));
            }
            if !passed.is_empty() {
                return Poll::Ready(Some(Ok(Frame::data(passed))));
            }
        }
    }
}

impl Drop for Relay {
    /// The agent hung up before the end: the call is reported incomplete.
    fn drop(&mut self) {
        self.finish(End::HungUp);
    }
}
