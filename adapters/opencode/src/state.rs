//! The session's serializable state: everything [`crate::OpenCodeSession`] needs to
//! continue after a snapshot and restore.

use std::collections::BTreeMap;

use sandbox_agent_adapter_kit::native_rules::NativeRules;
use sandbox_agent_adapter_kit::prelude::*;
use serde::{Deserialize, Serialize};

use crate::turn::RunningTurn;

/// Format version of the snapshot; bump it when [`State`] changes shape.
pub(crate) const STATE_VERSION: u32 = 1;

/// Everything the session remembers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct State {
    /// Item, turn and request ids.
    pub ids: IdCounter,
    /// Where the server is.
    pub server: Server,
    /// OpenCode's session id, once created (or the one to resume).
    pub native_id: Option<String>,
    /// True while `POST /session` is on its way.
    pub creating: bool,
    /// The running turn.
    pub turn: Option<RunningTurn>,
    /// A prompt body waiting for the server or the native session.
    pub queued_prompt: Option<String>,
    /// The newest OpenCode message id seen (ids grow with time).
    pub newest_message: Option<String>,
    /// Permission requests waiting for the client, by OpenCode's id.
    pub permissions: BTreeMap<String, Permission>,
    /// Questions waiting for the client, by OpenCode's id.
    pub questions: BTreeMap<String, Question>,
    /// Event-stream failures in a row (the stream is reopened a few times).
    pub stream_failures: u32,
    /// True once `session.ended` was emitted.
    pub ended: bool,
    /// The agent mode and permission mode the native session's permission rules
    /// were made for (unknown for a resumed session, and in older snapshots): a
    /// prompt after the session's modes changed waits for new rules first.
    #[serde(default)]
    pub given_modes: Option<(String, String)>,
    /// The request replacing the native session's rules for changed modes is out:
    /// the queued prompt waits for its answer.
    #[serde(default)]
    pub changing_modes: bool,
    /// The session's model OpenCode cannot take (not `provider/model`), once
    /// the session was told: it is told again only about another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unusable_model: Option<String>,
    /// The permission rules the native session has for the session's approval
    /// policy, and the calls OpenCode decided by them (from the configuration,
    /// not kept).
    #[serde(skip)]
    pub native: NativeRules,
}

/// The shared `opencode serve` process, as this session knows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) enum Server {
    /// Not running (never started, or exited): the next message starts it.
    #[default]
    Down,
    /// Spawned (or attached), its URL not printed yet.
    Starting,
    /// Listening at this base URL.
    Up(String),
}

impl State {
    /// The server's base URL when it listens.
    pub fn base_url(&self) -> Option<&str> {
        match &self.server {
            Server::Up(url) => Some(url),
            _ => None,
        }
    }

    /// Notes a message id, keeping the newest.
    pub fn saw_message(&mut self, id: &str) {
        if self
            .newest_message
            .as_deref()
            .is_none_or(|newest| id > newest)
        {
            self.newest_message = Some(id.to_owned());
        }
    }
}
