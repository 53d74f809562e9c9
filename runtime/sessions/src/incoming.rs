//! What reaches a session's task from its own I/O (process output, loopback HTTP
//! answers, timers), shared by the task and the I/O that feeds it.
//!
//! Output that an agent can produce faster than the session converts it (process
//! lines, loopback SSE events) is sent with [`Room`] from the session's budget of
//! [`IN_FLIGHT`] messages and [`IN_FLIGHT_BYTES`] bytes: a reader that finds none
//! waits, the pipe fills, and the agent waits on its writes. The daemon's memory
//! never holds more than the budget (plus one line, when a line is bigger than
//! the whole budget).

use std::sync::Arc;
use std::time::Instant;

use agentplex_session::Incoming;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Most lines or streamed events of one session waiting for its task.
pub const IN_FLIGHT: usize = 256;
/// Most bytes of lines or streamed events of one session waiting for its task; a
/// message bigger than that (a line may be up to `--max-line-bytes`) waits until
/// it is the only one.
pub const IN_FLIGHT_BYTES: usize = 4 << 20;

/// Where a session's I/O sends what it receives.
#[derive(Clone)]
pub struct Inbox {
    /// Boxed: a channel allocates 32 slots up front, which for a session at
    /// rest should be 32 pointers, not 32 inputs.
    sender: UnboundedSender<Box<Delivery>>,
    /// Messages that may wait for the task ([`IN_FLIGHT`]).
    messages: Arc<Semaphore>,
    /// Bytes that may wait for the task ([`IN_FLIGHT_BYTES`]).
    bytes: Arc<Semaphore>,
}

/// A place for one message in a session's budget, given back once the task has
/// handled the message.
pub struct Room {
    _message: OwnedSemaphorePermit,
    _bytes: OwnedSemaphorePermit,
}

/// One message for a session task, holding its room (if it took one) until the
/// task has handled it.
pub struct Delivery {
    pub incoming: Incoming,
    /// When the I/O handed it over (the start of a policy decision's time).
    pub received: Instant,
    _room: Option<Room>,
}

/// What a session's task reads its inbox from.
pub type InboxReceiver = UnboundedReceiver<Box<Delivery>>;

/// The session task has stopped: nothing more is delivered.
#[derive(Debug)]
pub struct Closed;

impl Inbox {
    /// A session's inbox and the receiving end its task reads.
    pub fn new() -> (Self, InboxReceiver) {
        let (sender, receiver) = unbounded_channel();
        let inbox = Self {
            sender,
            messages: Arc::new(Semaphore::new(IN_FLIGHT)),
            bytes: Arc::new(Semaphore::new(IN_FLIGHT_BYTES)),
        };
        (inbox, receiver)
    }

    /// Delivers a message that does not come in floods (an exit, a timer, an
    /// HTTP answer, a replay of a bounded number of lines) without waiting.
    pub fn send(&self, incoming: Incoming) -> Result<(), Closed> {
        self.deliver(incoming, None)
    }

    /// Waits until the session has room for one more line or streamed event of
    /// `size` bytes (counted as the whole byte budget when bigger).
    pub async fn room(&self, size: usize) -> Result<Room, Closed> {
        let message = self.messages.clone().acquire_owned().await;
        // At most the whole budget, which always fits in a u32.
        let weight = size.min(IN_FLIGHT_BYTES) as u32;
        let bytes = self.bytes.clone().acquire_many_owned(weight).await;
        match (message, bytes) {
            (Ok(message), Ok(bytes)) => Ok(Room {
                _message: message,
                _bytes: bytes,
            }),
            _ => Err(Closed),
        }
    }

    /// Delivers a line or streamed event in the room [`room`](Self::room) gave.
    pub fn send_in(&self, incoming: Incoming, room: Room) -> Result<(), Closed> {
        self.deliver(incoming, Some(room))
    }

    /// Delivers a line or streamed event once the session has room for it.
    pub async fn send_paced(&self, incoming: Incoming) -> Result<(), Closed> {
        let room = self.room(incoming.size()).await?;
        self.send_in(incoming, room)
    }

    /// Whether the session task still receives.
    pub fn is_closed(&self) -> bool {
        self.sender.is_closed()
    }

    fn deliver(&self, incoming: Incoming, room: Option<Room>) -> Result<(), Closed> {
        self.sender
            .send(Box::new(Delivery {
                incoming,
                received: Instant::now(),
                _room: room,
            }))
            .map_err(|_| Closed)
    }
}
