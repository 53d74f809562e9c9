//! The session's serializable state: what [`super::AcpSession`] snapshots.

use std::collections::BTreeMap;

use super::options::Setters;
use crate::prelude::*;
use crate::process_state::{ProcessState, WithProcess};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Everything but the configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct State {
    /// Ids, the agent's session id, the live process, the running turn, the end.
    #[serde(flatten)]
    pub header: ProcessState<Process, TurnState>,
    /// Permission requests the client has not answered, by universal id.
    pub pending: BTreeMap<String, PendingPermission>,
    /// What the agent offers for its session, as it last said (its answer to
    /// `session/new` or `session/load`, with the configuration options and
    /// mode it reported since): never in a snapshot, the host keeps it.
    #[serde(skip)]
    pub offered: Option<super::native::Offered>,
    /// [`Self::offered`] changed since the host was last told
    /// ([`crate::SessionMachine::agent_offer`], asked right after each input).
    #[serde(skip)]
    pub offer_untold: bool,
}

/// What the adapter keeps of the session's CLI process (a `LiveProcess`, whose id is
/// `<AcpAgent::PROCESS>_<n>`, see [`super::AcpAgent::PROCESS`]): where its ACP
/// handshake is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Process {
    /// The last JSON-RPC request id used.
    pub last_request: u64,
    /// What each request waiting for an answer was, by request id.
    #[serde(with = "crate::snapshot::numeric_keys")]
    pub requests: BTreeMap<u64, Call>,
    /// Where the handshake is.
    pub phase: Phase,
    /// The ACP session mode it runs with ([`super::AcpAgent::mode_id`] at its
    /// launch, or the last `session/set_mode`); unknown in older snapshots.
    #[serde(default)]
    pub mode: Option<String>,
    /// The model it runs with (the session's at its launch, or the last
    /// `session/set_model`); none for the agent's default, or in older
    /// snapshots.
    #[serde(default)]
    pub model: Option<String>,
    /// The ids of the modes the agent offered for its session (its answer to
    /// `session/new` or `session/load`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub offered_modes: Vec<String>,
    /// The mode the agent said its session runs when it opened it: the one it
    /// goes back to when [`super::AcpAgent::mode_id`] names none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_mode: Option<String>,
    /// The agent offered models for its session (`models` in that answer):
    /// it takes `session/set_model`.
    #[serde(default)]
    pub offers_models: bool,
    /// The agent's configuration options for its mode, model and thought
    /// level, when it offers them: those it takes `session/set_config_option`
    /// for.
    #[serde(default, skip_serializing_if = "Setters::is_empty")]
    pub config_options: Setters,
    /// The thought level it runs with (the last `session/set_config_option`
    /// of it); none for the agent's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// One of the adapter's requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Call {
    Initialize,
    NewSession,
    /// `session/load` of this native session.
    LoadSession(String),
    Prompt,
    /// `session/set_mode` for the session's changed modes.
    SetMode,
    /// `session/set_model` for the session's changed model.
    SetModel,
    /// `session/set_config_option` for the session's changed mode, model or
    /// variant.
    SetConfigOption(Setting),
}

/// What a `session/set_config_option` sets.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) enum Setting {
    /// The agent's mode.
    Mode,
    /// Its model.
    Model,
    /// Its thought level (the session's variant).
    Variant,
}

impl Setting {
    /// What it sets, in words, and the code of the `error` event when the
    /// agent keeps its own.
    pub fn refusal(self) -> (&'static str, &'static str) {
        match self {
            Setting::Mode => ("mode", "mode_refused"),
            Setting::Model => ("model", "model_refused"),
            Setting::Variant => ("thought level", "variant_refused"),
        }
    }
}

/// Where a process's handshake is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Phase {
    /// `initialize`, then `session/new` or `session/load`, are under way.
    Starting,
    /// `session/load` answered; the CLI replays the conversation before the next
    /// prompt goes out (its replay is not part of this transcript).
    Replaying,
    /// The native session is open.
    Ready,
}

/// What the adapter keeps of the running turn (a `RunningTurn`, which is cancelling once
/// `session/cancel` was sent, or when the prompt was never sent).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct TurnState {
    /// The prompt, until it is sent (while the process starts).
    pub unsent: Option<String>,
    /// An `error` event was emitted for this turn.
    pub errored: bool,
    /// The message or reasoning streaming now.
    pub open: Option<OpenItem>,
    /// The tool calls of the turn, by the agent's `toolCallId`.
    pub tools: BTreeMap<String, ToolCall>,
    /// Token usage an update reported (`_meta.usage`).
    #[serde(default)]
    pub usage: Option<Usage>,
}

/// A streaming assistant message or reasoning item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct OpenItem {
    pub item_id: String,
    /// True for reasoning (`agent_thought_chunk`), false for text.
    pub reasoning: bool,
    /// The text so far.
    pub text: String,
}

/// A tool call of the running turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ToolCall {
    /// Its `tool_call` item.
    pub item_id: String,
    /// Its result was reported.
    pub done: bool,
    /// For a call of kind `edit`: the paths it names, the files it writes (an
    /// agent that sends no diff of them is still seen to change them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<String>,
}

/// A `session/request_permission` the client has not answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PendingPermission {
    /// The CLI's request id to answer.
    pub request_id: Value,
    /// The universal request.
    pub permission: Permission,
    /// The CLI's options, by kind (`allow_once`, `allow_always`, `reject_once`...)
    /// → `optionId`.
    pub options: BTreeMap<String, String>,
    /// The tool call it is about.
    pub tool_call_id: String,
}

impl WithProcess for State {
    type Process = Process;
    type Turn = TurnState;

    fn header(&self) -> &ProcessState<Process, TurnState> {
        &self.header
    }

    fn header_mut(&mut self) -> &mut ProcessState<Process, TurnState> {
        &mut self.header
    }
}
