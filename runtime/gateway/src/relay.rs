//! Relaying an answer: each chunk goes to the agent as it comes, unchanged,
//! and a copy to the format's tap, through the SSE splitter for a stream or
//! into a copy of the body for a whole answer. When the answer ends, breaks
//! off, or the agent hangs up (the relay is dropped), the call's usage is
//! reported, once.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use hyper::body::Frame;

use crate::format::Format;
use crate::forward::millis;
use crate::listener::BoxError;
use crate::route::Route;
use crate::sse::Splitter;
use crate::taps::Tap;
use crate::usage::CallUsage;
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
}

/// How the tap is fed.
enum Reader {
    /// Event by event.
    Stream(Splitter),
    /// With the whole body at the end; `None` once it outgrew [`MAX_WHOLE`].
    Whole(Option<Vec<u8>>),
}

/// The tap and what it reports to, until the call is reported.
struct Metering {
    tap: Box<dyn Tap>,
    reader: Reader,
    report: Report,
}

/// The answer's body on its way to the agent.
pub(crate) struct Relay {
    body: BoxStream<'static, reqwest::Result<Bytes>>,
    /// Bytes still to come when the answer said its length: hyper stops
    /// polling a body once that many are written, so the end is seen here.
    remaining: Option<u64>,
    metering: Option<Metering>,
}

impl Relay {
    /// Relays `body` unread (a call that is not metered).
    pub(crate) fn plain(body: impl Stream<Item = reqwest::Result<Bytes>> + Send + 'static) -> Self {
        Self {
            body: body.boxed(),
            remaining: None,
            metering: None,
        }
    }

    /// Relays `body`, of `length` bytes if the answer said, a stream of events
    /// when `streamed`, through `tap`.
    pub(crate) fn metered(
        body: impl Stream<Item = reqwest::Result<Bytes>> + Send + 'static,
        length: Option<u64>,
        tap: Box<dyn Tap>,
        streamed: bool,
        report: Report,
    ) -> Self {
        let reader = if streamed {
            Reader::Stream(Splitter::default())
        } else {
            Reader::Whole(Some(Vec::new()))
        };
        Self {
            body: body.boxed(),
            remaining: length,
            metering: Some(Metering {
                tap,
                reader,
                report,
            }),
        }
    }

    /// Reports the call: `ended` says whether the body ended as it should.
    fn finish(&mut self, ended: bool) {
        if let Some(metering) = self.metering.take() {
            metering.finish(ended);
        }
    }
}

impl Metering {
    fn feed(&mut self, chunk: &[u8]) {
        match &mut self.reader {
            Reader::Stream(splitter) => {
                let tap = &mut self.tap;
                splitter.feed(chunk, &mut |name, data| tap.event(name, data));
            }
            Reader::Whole(copy) => {
                let full = copy
                    .as_ref()
                    .is_some_and(|copy| copy.len() + chunk.len() > MAX_WHOLE);
                if full {
                    *copy = None;
                } else if let Some(copy) = copy {
                    copy.extend_from_slice(chunk);
                }
            }
        }
    }

    fn finish(self, ended: bool) {
        let Metering {
            mut tap,
            reader,
            report,
        } = self;
        match reader {
            Reader::Stream(splitter) => splitter.finish(&mut |name, data| tap.event(name, data)),
            Reader::Whole(Some(body)) if ended => tap.whole(&body),
            Reader::Whole(_) => {}
        }
        let reading = tap.finish();
        let model = reading.model.unwrap_or_else(|| "unknown".into());
        let mut usage = CallUsage::counted(report.call_id, report.format, model, reading.tokens);
        usage.cost_usd = report.shared.prices.cost(&usage.model, &reading.tokens);
        usage.status = report.status;
        usage.duration_ms = millis(report.started);
        usage.first_byte_ms = Some(report.first_byte_ms);
        usage.complete = ended && reading.ended;
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
        report.route.sink.record(usage);
    }
}

impl Stream for Relay {
    type Item = Result<Frame<Bytes>, BoxError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.body.poll_next_unpin(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Some(Ok(chunk))) => {
                if let Some(metering) = &mut self.metering {
                    metering.feed(&chunk);
                }
                let chunk_length = u64::try_from(chunk.len()).unwrap_or(u64::MAX);
                self.remaining = self.remaining.map(|left| left.saturating_sub(chunk_length));
                if self.remaining == Some(0) {
                    self.finish(true);
                }
                Poll::Ready(Some(Ok(Frame::data(chunk))))
            }
            Poll::Ready(Some(Err(error))) => {
                self.finish(false);
                // Without its URL: a key may be in the query.
                Poll::Ready(Some(Err(BoxError::from(error.without_url()))))
            }
            Poll::Ready(None) => {
                self.finish(true);
                Poll::Ready(None)
            }
        }
    }
}

impl Drop for Relay {
    /// The agent hung up before the end: the call is reported incomplete.
    fn drop(&mut self) {
        self.finish(false);
    }
}
