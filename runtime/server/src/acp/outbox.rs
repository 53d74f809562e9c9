//! What an ACP connection sends the client, numbered, kept for a while so an
//! SSE stream that reconnects with `Last-Event-ID` misses nothing.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::watch;

/// How many messages a connection keeps for streams that reconnect.
const KEPT: usize = 4096;

/// A connection's numbered messages to the client.
pub struct Outbox {
    messages: Mutex<VecDeque<(u64, Arc<str>)>>,
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

    /// Sends `message`.
    pub fn push(&self, message: &Value) {
        let text: Arc<str> = message.to_string().into();
        let mut messages = self.messages.lock().unwrap();
        let number = messages.back().map_or(1, |(n, _)| n + 1);
        messages.push_back((number, text));
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

    /// The messages numbered above `after`.
    fn after(&self, after: u64) -> Vec<(u64, Arc<str>)> {
        let messages = self.messages.lock().unwrap();
        messages
            .iter()
            .filter(|(number, _)| *number > after)
            .cloned()
            .collect()
    }

    /// The messages above `after`, then each new one, until the connection closes.
    pub fn follow(
        self: Arc<Self>,
        after: u64,
    ) -> impl futures::Stream<Item = (u64, Arc<str>)> + Send + 'static {
        let newest = self.newest.subscribe();
        futures::stream::unfold(
            (self, newest, after, VecDeque::new()),
            |(outbox, mut newest, mut after, mut ready)| async move {
                loop {
                    if let Some((number, text)) = ready.pop_front() {
                        after = number;
                        return Some(((number, text), (outbox, newest, after, ready)));
                    }
                    // Seen before reading: a message pushed after the read
                    // wakes `changed` below.
                    let open = newest.borrow_and_update().is_some();
                    ready.extend(outbox.after(after));
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
            },
        )
    }
}
