//! What reaches a session's task from its own I/O (process output, loopback HTTP
//! answers, timers), shared by the task and the I/O that feeds it.
//!
//! Output that an agent can produce faster than the session converts it (process
//! lines, loopback SSE events) is sent with a permit from the session's budget of
//! [`IN_FLIGHT`]: a reader that finds none waits, the pipe fills, and the agent
//! waits on its writes. The daemon's memory never holds more than the budget.

use std::sync::Arc;

use sandbox_agent_host::Input;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Most lines or streamed events of one session waiting for its task.
pub const IN_FLIGHT: usize = 256;

/// Where a session's I/O sends what it receives.
#[derive(Clone)]
pub struct Inbox {
    /// Boxed: a channel allocates 32 slots up front, which for a session at
    /// rest should be 32 pointers, not 32 inputs.
    sender: UnboundedSender<Box<Delivery>>,
    budget: Arc<Semaphore>,
}

/// One message for a session task, holding its permit (if it took one) until
/// the task has handled it.
pub struct Delivery {
    pub incoming: Incoming,
    _permit: Option<OwnedSemaphorePermit>,
}

/// The session task has stopped: nothing more is delivered.
#[derive(Debug)]
pub struct Closed;

impl Inbox {
    /// A session's inbox and the receiving end its task reads.
    pub fn new() -> (Self, UnboundedReceiver<Box<Delivery>>) {
        let (sender, receiver) = unbounded_channel();
        let budget = Arc::new(Semaphore::new(IN_FLIGHT));
        (Self { sender, budget }, receiver)
    }

    /// Delivers a message that does not come in floods (an exit, a timer, an
    /// HTTP answer, a replay of a bounded number of lines) without waiting.
    pub fn send(&self, incoming: Incoming) -> Result<(), Closed> {
        self.deliver(incoming, None)
    }

    /// Waits until the session has room for one more line or streamed event.
    pub async fn room(&self) -> Result<OwnedSemaphorePermit, Closed> {
        self.budget
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| Closed)
    }

    /// Delivers a line or streamed event in the room [`room`](Self::room) gave.
    pub fn send_in(&self, incoming: Incoming, room: OwnedSemaphorePermit) -> Result<(), Closed> {
        self.deliver(incoming, Some(room))
    }

    /// Delivers a line or streamed event once the session has room for it.
    pub async fn send_paced(&self, incoming: Incoming) -> Result<(), Closed> {
        let room = self.room().await?;
        self.send_in(incoming, room)
    }

    /// Whether the session task still receives.
    pub fn is_closed(&self) -> bool {
        self.sender.is_closed()
    }

    fn deliver(
        &self,
        incoming: Incoming,
        permit: Option<OwnedSemaphorePermit>,
    ) -> Result<(), Closed> {
        self.sender
            .send(Box::new(Delivery {
                incoming,
                _permit: permit,
            }))
            .map_err(|_| Closed)
    }
}

/// What reaches a session task from its own I/O.
pub enum Incoming {
    /// Something for the adapter.
    Adapter(Input),
    /// A process printed a line longer than the limit; it is not given to the adapter.
    LineTooLong {
        process_id: String,
        stream: Stream,
        length: usize,
        head: String,
    },
}

/// Which output stream a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    /// `stdout` or `stderr`.
    pub fn name(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}
