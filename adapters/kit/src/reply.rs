//! [`ReplySession`]: a complete session for agents that answer each message at once.
//!
//! Many simple adapters (test doubles, examples, wrappers around a one-shot command)
//! answer every message with one assistant message. Implement [`Replier`] and use
//! `ReplySession<Self>` as the [`crate::Adapter::Session`]; the session emits
//! `session.started`, and for each message a turn: `turn.started`, the user's message
//! as a synthetic user item, the reply as an assistant message (started, one delta,
//! completed), and `turn.ended`.

use std::marker::PhantomData;

use serde::{Deserialize, Serialize};

use crate::types::{Action, MessagePart, SessionConfig, Turn};
use crate::{event, snapshot, text, Actions, IdCounter, SessionMachine};

/// How a [`ReplySession`] answers a message.
pub trait Replier: 'static {
    /// The answer to a message whose text parts, joined, are `text`.
    fn reply(text: &str) -> Reply;
}

/// An answer from a [`Replier`].
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Answer with this text as an assistant message and end the turn.
    Text(String),
    /// Return these actions as they are, after `turn.started` and the user item; the
    /// turn then ends only if they include `turn.ended`.
    Actions(Vec<Action>),
}

/// A session that answers every message with its [`Replier`]'s reply. Its state is one
/// [`IdCounter`].
pub struct ReplySession<R> {
    ids: IdCounter,
    replier: PhantomData<R>,
}

#[derive(Serialize, Deserialize)]
struct State {
    ids: IdCounter,
}

const STATE_VERSION: u32 = 1;

impl<R: Replier> SessionMachine for ReplySession<R> {
    fn new(_config: SessionConfig) -> Self {
        Self {
            ids: IdCounter::new(),
            replier: PhantomData,
        }
    }

    fn restore(_config: SessionConfig, state: &[u8]) -> Result<Self, String> {
        let State { ids } = snapshot::decode(STATE_VERSION, state)?;
        Ok(Self {
            ids,
            replier: PhantomData,
        })
    }

    fn snapshot(&self) -> Vec<u8> {
        snapshot::encode(
            STATE_VERSION,
            &State {
                ids: self.ids.clone(),
            },
        )
    }

    fn start(&mut self) -> Vec<Action> {
        Actions::one(event::session_started(None))
    }

    fn send_message(&mut self, parts: Vec<MessagePart>) -> Vec<Action> {
        let turn = Turn::with_id(self.ids.next("turn"));
        let mut out = Actions::new();
        out.emit(event::turn_started(turn.clone()))
            .emit_all(event::user_message(self.ids.next("itm"), &parts));
        match R::reply(&text::message_text(&parts)) {
            Reply::Text(answer) => {
                out.emit_all(event::assistant_message(self.ids.next("itm"), [answer]))
                    .emit(event::turn_ended(turn));
            }
            Reply::Actions(actions) => {
                out.append(actions);
            }
        }
        out.finish()
    }
}
