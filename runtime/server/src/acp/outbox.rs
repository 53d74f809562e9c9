//! What an ACP connection sends the client, numbered, kept for a while so an
//! SSE stream that reconnects with `Last-Event-ID` misses nothing. Each message
//! has its scope: the session it is about, or none (the connection's own); the
//! remote transport streams each scope apart, the others stream them all.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::watch;

/// How many messages a connection keeps for streams that reconnect.
const KEPT: usize = 4096;

/// One message sent: its number, scope and text.
#[derive(Clone)]
struct Sent {
    number: u64,
    scope: Option<Arc<str>>,
    text: Arc<str>,
}

/// Which of a connection's messages a stream carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// All of them.
    All,
    /// The connection's own (scoped to no session).
    Connection,
    /// The ones about this session.
    Session(String),
}

impl Scope {
    fn carries(&self, sent: &Sent) -> bool {
        match self {
            Self::All => true,
            Self::Connection => sent.scope.is_none(),
            Self::Session(id) => sent.scope.as_deref() == Some(id.as_str()),
        }
    }
}

/// A connection's numbered messages to the client.
pub struct Outbox {
    messages: Mutex<VecDeque<Sent>>,
    /// The number of the newest message; closed with the connection.
    newest: watch::Sender<Option<u64>>,
}

impl Outbox {
    /// An empty outbox.
    pub fn new() -> Self {
        Self {
            messages: Mutex::new(VecDeque::new()),
            newest: watch::Sender::new(Some(0)),
        }
    }

    /// Sends `message`, about session `scope` (or the connection's own).
    pub fn push(&self, scope: Option<&str>, message: &Value) {
        let text: Arc<str> = message.to_string().into();
        let mut messages = self.messages.lock().unwrap();
        let number = messages.back().map_or(1, |sent| sent.number + 1);
        messages.push_back(Sent {
            number,
            scope: scope.map(Arc::from),
            text,
        });
        if messages.len() > KEPT {
            messages.pop_front();
        }
        drop(messages);
        self.newest.send_if_modified(|newest| match newest {
            Some(_) => {
                *newest = Some(number);
                true
            }
            None => false,
        });
    }

    /// Ends every stream of the outbox.
    pub fn close(&self) {
        self.newest.send_replace(None);
    }

    /// The messages of `scope` numbered above `after`, and the number of the
    /// last message looked at.
    fn after(&self, after: u64, scope: &Scope) -> (Vec<(u64, Arc<str>)>, u64) {
        let messages = self.messages.lock().unwrap();
        let last = messages.back().map_or(after, |sent| sent.number.max(after));
        let found = messages
            .iter()
            .filter(|sent| sent.number > after && scope.carries(sent))
            .map(|sent| (sent.number, sent.text.clone()))
            .collect();
        (found, last)
    }

    /// The messages of `scope` above `after`, then each new one, until the
    /// connection closes.
    pub fn follow(
        self: Arc<Self>,
        after: u64,
        scope: Scope,
    ) -> impl futures::Stream<Item = (u64, Arc<str>)> + Send + 'static {
        let newest = self.newest.subscribe();
        futures::stream::unfold(
            (self, newest, after, VecDeque::new()),
            move |(outbox, mut newest, mut after, mut ready)| {
                let scope = scope.clone();
                async move {
                    loop {
                        if let Some((number, text)) = ready.pop_front() {
                            return Some(((number, text), (outbox, newest, after, ready)));
                        }
                        // Seen before reading: a message pushed after the read
                        // wakes `changed` below.
                        let open = newest.borrow_and_update().is_some();
                        let (found, last) = outbox.after(after, &scope);
                        after = last;
                        ready.extend(found);
                        if !ready.is_empty() {
                            continue;
                        }
                        if !open {
                            return None;
                        }
                        if newest.changed().await.is_err() {
                            return None;
                        }
                    }
                }
            },
        )
    }
}
