//! The session's serializable state: what [`crate::AmpSession::snapshot`] keeps.

use std::collections::BTreeMap;

use sandbox_agent_adapter_kit::prelude::*;
use serde::{Deserialize, Serialize};

use crate::flags::{Flags, HelpScan};

/// Everything but the configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct State {
    /// Item, turn and process ids.
    pub ids: IdCounter,
    /// Amp's thread id (`session_id` of its lines, `T-…`), continued by later turns.
    pub thread: Option<String>,
    /// The launch flags, once the probe has run.
    pub flags: Option<Flags>,
    /// The running `amp --help` probe.
    pub probe: Option<Probe>,
    /// The running turn's `amp` process (`amp_<n>`, a fresh id per turn).
    pub process: Option<String>,
    /// The running turn.
    pub turn: Option<TurnState>,
    /// True once `session.ended` was emitted.
    pub ended: bool,
}

/// The `amp --help` probe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Probe {
    /// Its process id (`probe_<n>`).
    pub id: String,
    /// What its output showed so far.
    pub scan: HelpScan,
}

/// The running turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct TurnState {
    /// `turn_<n>`.
    pub id: String,
    /// The prompt, while the turn waits for the probe to pick the flags.
    pub waiting: Option<String>,
    /// Amp echoed the prompt (its first `user` text line of the turn).
    pub echoed: bool,
    /// Tokens of the turn's model calls so far (Amp's `result` has none).
    pub tokens: Option<Tokens>,
    /// The turn's tool calls, by Amp's `tool_use` id.
    pub calls: BTreeMap<String, Call>,
}

/// Token counts, summed over a turn's `assistant` lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cached: u64,
}

impl Tokens {
    /// Adds one model call's usage.
    pub fn add(&mut self, usage: &Usage) {
        // The agent's counts: absurd ones saturate rather than overflow.
        self.input = self.input.saturating_add(usage.input_tokens.unwrap_or(0));
        self.output = self.output.saturating_add(usage.output_tokens.unwrap_or(0));
        self.cached = self.cached.saturating_add(usage.cached_tokens.unwrap_or(0));
    }

    /// As the universal usage of `turn.ended`.
    pub fn usage(&self) -> Usage {
        Usage {
            cached_tokens: Some(self.cached),
            ..Usage::tokens(self.input, self.output)
        }
    }
}

/// A tool call of the turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Call {
    /// The `tool_call` item.
    pub item_id: String,
    /// The tool's name (`Bash`, `Read`, `edit_file`...).
    pub name: String,
    /// Its input, as JSON text.
    pub input: String,
}
