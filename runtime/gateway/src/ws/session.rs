//! Relaying a carried socket: frames go both ways as they come (text, binary,
//! ping, pong, close), unchanged, but for what the gateway answers itself.
//!
//! - A `response.create` a budget refuses is answered with an `error` frame
//!   and not sent upstream.
//! - When a budget of the responses in flight is exhausted, each is ended with
//!   the format's error frames (`error`, `response.failed`) and the upstream's
//!   socket is closed, which stops the model; the agent's stays open, and its
//!   next `response.create` that is admitted opens a new one to the upstream.
//! - When the upstream closes its socket, the agent's is closed with its close
//!   frame; when it breaks off, with `1011`. When the agent closes, the
//!   upstream's is closed.

use std::sync::Arc;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use hyper_util::rt::TokioIo;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::WebSocketStream;

use super::dial::{Dial, UpstreamSocket};
use super::meter::{End, Meter};
use super::{cut_frames, kind, refusal_frame, FORMAT};
use crate::budget::{Estimate, RouteBudgets};
use crate::format::Refusal;
use crate::forward::Call;
use crate::Shared;

/// The agent's end of a carried socket.
pub(super) type AgentSocket = WebSocketStream<TokioIo<hyper::upgrade::Upgraded>>;

/// How long the gateway waits for its close frame to go out to an upstream
/// it leaves.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// A carried socket's state.
pub(super) struct Session {
    shared: Arc<Shared>,
    /// The budgets the route's calls fall under, if any.
    budgets: Option<Arc<RouteBudgets>>,
    /// The path after the agent's base URL (`/responses`).
    rest: String,
    dial: Dial,
    /// The upstream's socket; none after a budget cut closed it.
    upstream: Option<UpstreamSocket>,
    meter: Meter,
}

/// A frame read from one side, or the end of its socket (`None`, an error).
type Read = Option<Result<Message, tokio_tungstenite::tungstenite::Error>>;

/// What happened next on the socket.
enum Step {
    /// The agent's socket was read.
    Agent(Read),
    /// The upstream's socket was read.
    Upstream(Read),
    /// The budget at this index of the route's is exhausted.
    Cut(usize),
}

impl Session {
    /// The session of `call`'s upgrade, its upstream socket opened by `dial`.
    pub(super) fn new(call: Call, dial: Dial, upstream: UpstreamSocket) -> Self {
        Self {
            shared: call.shared.clone(),
            budgets: call.budgets,
            rest: call.rest,
            dial,
            upstream: Some(upstream),
            meter: Meter::new(call.shared, call.route),
        }
    }

    /// Relays until either side closes or breaks off.
    pub(super) async fn run(mut self, mut agent: AgentSocket) {
        loop {
            let upstream = self.upstream.as_mut();
            let step = tokio::select! {
                message = agent.next() => Step::Agent(message),
                message = async {
                    match upstream {
                        Some(upstream) => upstream.next().await,
                        None => std::future::pending().await,
                    }
                } => Step::Upstream(message),
                index = self.meter.cut() => Step::Cut(index),
            };
            let go_on = match step {
                Step::Agent(Some(Ok(message))) => self.agents_frame(message, &mut agent).await,
                Step::Agent(_) => false,
                Step::Upstream(Some(Ok(message))) => {
                    self.upstreams_frame(message, &mut agent).await
                }
                Step::Upstream(_) => self.upstream_broke(&mut agent).await,
                Step::Cut(index) => self.cut(index, &mut agent).await,
            };
            if !go_on {
                break;
            }
        }
    }

    /// Passes on a frame of the agent's; whether the socket goes on.
    async fn agents_frame(&mut self, message: Message, agent: &mut AgentSocket) -> bool {
        match message {
            Message::Text(text) if kind(&text).as_deref() == Some("response.create") => {
                self.create(text, agent).await
            }
            Message::Close(frame) => {
                if let Some(mut upstream) = self.upstream.take() {
                    let _ = tokio::time::timeout(CLOSE_WAIT, upstream.close(frame)).await;
                }
                // The close frame that answers the agent's.
                let _ = agent.flush().await;
                false
            }
            message => {
                let sent = match &mut self.upstream {
                    Some(upstream) => upstream.send(message).await.is_ok(),
                    // Nothing to pass a frame to after a cut: only a
                    // `response.create` opens the upstream again.
                    None => true,
                };
                sent || self.upstream_broke(agent).await
            }
        }
    }

    /// Admits a `response.create` and sends it upstream, or answers it with an
    /// `error` frame; whether the socket goes on.
    async fn create(&mut self, text: Utf8Bytes, agent: &mut AgentSocket) -> bool {
        let lease = match &self.budgets {
            Some(budgets) => {
                let estimate = Estimate::of(FORMAT, &self.rest, text.as_bytes());
                let route = self.meter.route();
                match budgets.admit(estimate, &self.shared.prices, &*route.sink) {
                    Ok(lease) => Some(lease),
                    Err(message) => {
                        let (session, agent_name) = (&route.session_id, &route.agent);
                        tracing::info!(%session, agent = %agent_name, format = %FORMAT, "{message}");
                        return send(agent, refusal_frame(Refusal::Budget, &message)).await;
                    }
                }
            }
            None => None,
        };
        if self.upstream.is_none() {
            match self.dial.open().await {
                Ok((upstream, _)) => self.upstream = Some(upstream),
                Err(failure) => {
                    self.meter.unanswered(failure.status());
                    return send(agent, failure.into_frame().await).await;
                }
            }
        }
        self.meter.start(lease);
        let sent = match &mut self.upstream {
            Some(upstream) => upstream.send(Message::Text(text)).await.is_ok(),
            None => false,
        };
        sent || self.upstream_broke(agent).await
    }

    /// Passes on a frame of the upstream's, reading it for the response in
    /// flight; whether the socket goes on.
    async fn upstreams_frame(&mut self, message: Message, agent: &mut AgentSocket) -> bool {
        match message {
            Message::Text(text) => {
                let ended = kind(&text).and_then(|kind| self.meter.read(&kind, &text));
                let sent = agent.send(Message::Text(text)).await.is_ok();
                if let Some(status) = ended {
                    self.meter.end_first(status);
                }
                sent
            }
            Message::Close(frame) => {
                self.meter.end_all(502, End::Broke);
                let _ = agent.send(Message::Close(frame)).await;
                false
            }
            message => agent.send(message).await.is_ok(),
        }
    }

    /// The upstream's socket broke off: the responses in flight are reported
    /// incomplete, and the agent's socket is closed. The socket does not go on.
    async fn upstream_broke(&mut self, agent: &mut AgentSocket) -> bool {
        self.upstream = None;
        self.meter.end_all(502, End::Broke);
        let reason = "model gateway: the upstream's socket broke off";
        let frame = CloseFrame {
            code: CloseCode::Error,
            reason: reason.into(),
        };
        let _ = agent.send(Message::Close(Some(frame))).await;
        false
    }

    /// A budget at `index` is exhausted: ends the responses in flight with the
    /// format's error frames and closes the upstream's socket; whether the
    /// agent's goes on.
    async fn cut(&mut self, index: usize, agent: &mut AgentSocket) -> bool {
        let route = self.meter.route();
        tracing::info!(
            session = %route.session_id,
            agent = %route.agent,
            format = %FORMAT,
            "model gateway: a budget is reached; the response is cut"
        );
        if let Some(mut upstream) = self.upstream.take() {
            let _ = tokio::time::timeout(CLOSE_WAIT, upstream.close(None)).await;
        }
        for message in self.meter.end_all(200, End::Cut(index)) {
            for frame in cut_frames(&message) {
                if !send(agent, frame).await {
                    return false;
                }
            }
        }
        true
    }
}

/// Sends a text frame to the agent; whether it went.
async fn send(agent: &mut AgentSocket, text: String) -> bool {
    agent.send(Message::Text(text.into())).await.is_ok()
}
