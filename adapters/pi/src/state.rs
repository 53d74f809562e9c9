//! The session's serializable state: what [`crate::PiSession::snapshot`] keeps.

use std::collections::BTreeMap;

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::process_state::{ProcessState, WithProcess};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The kit's output helper over this state: what the handlers of Pi's lines and of
/// the client's replies emit and write through.
pub(crate) type Out<'a> = sandbox_agent_adapter_kit::process_state::Output<'a, State>;

/// Everything but the configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct State {
    /// Ids, the agent's session id, the live process, the running turn, the end.
    #[serde(flatten)]
    pub header: ProcessState<Process, TurnState>,
    /// True once a turn ended in the native session: Pi writes its session file with
    /// the first answer, so only then can a new process resume it.
    pub persisted: bool,
    /// Extension dialogs the client has not answered, by question id.
    pub questions: BTreeMap<String, Dialog>,
}

/// What the adapter keeps of the session's `pi --mode rpc` process (a `LiveProcess`, whose
/// id is `pi_<n>`: a fresh one per launch, so output of a killed predecessor is never
/// mistaken for the live one's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Process {
    /// The native session it was asked to resume (`--session`).
    pub resumed: Option<String>,
    /// True once it printed a line (it started).
    pub ready: bool,
    /// True when it said on stderr that the session to resume does not exist.
    pub resume_missing: bool,
    /// The session's model it was started with (`--model`) or last given
    /// (`set_model`); none for Pi's default, or in older snapshots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The session's thinking level it was started with (`--thinking`) or
    /// last given (`set_thinking_level`); none for Pi's default, or in older
    /// snapshots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The tool allowlist it was started with (`--tools`); none for Pi's own tool
    /// set, or in older snapshots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<String>,
}

/// What the adapter keeps of the running turn (a `RunningTurn`, which is cancelling once an
/// `abort` was sent: `agent_end` then ends the turn as cancelled).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct TurnState {
    /// The `prompt` command until Pi answers it (sent again when a resumed process
    /// could not find its session), or while its images are being read.
    pub prompt: Option<Prompt>,
    /// An `error` event was emitted for this turn.
    pub errored: bool,
    /// The content blocks of the assistant message being streamed, by content index.
    #[serde(with = "sandbox_agent_adapter_kit::snapshot::numeric_keys")]
    pub blocks: BTreeMap<u64, Block>,
    /// The tool calls of the turn, by Pi's tool call id.
    pub tools: BTreeMap<String, Tool>,
    /// Tokens and cost of the turn's assistant messages so far.
    pub usage: Option<Usage>,
}

/// A `prompt` command being prepared or waiting for its response.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Prompt {
    /// The request id of the command.
    pub request_id: String,
    /// The message text.
    pub text: String,
    /// The attached images, in order.
    pub images: Vec<Image>,
    /// True once the command was written.
    pub sent: bool,
}

/// An image of a prompt, read from the sandbox's filesystem by a helper process.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Image {
    /// Its path.
    pub path: String,
    /// Its MIME type.
    pub mime: String,
    /// The helper process reading it.
    pub process_id: String,
    /// Its contents in base64, once read.
    pub data: Option<String>,
}

/// A content block of the streaming assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Block {
    /// The universal item it streams into.
    pub item_id: String,
    /// What it holds.
    pub kind: BlockKind,
    /// The text streamed so far (text, thinking, or tool arguments JSON).
    pub text: String,
    /// True once its `*_end` completed the item.
    pub done: bool,
}

/// The kind of a content block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum BlockKind {
    /// Assistant text.
    Text,
    /// Thinking.
    Thinking,
    /// A tool call being written.
    ToolCall {
        /// Pi's tool call id.
        call_id: String,
        /// The tool's name.
        name: String,
    },
}

/// A tool call of the running turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Tool {
    /// Its `tool_call` item.
    pub call_item: String,
    /// Its `tool_result` item, once Pi runs it.
    pub result_item: Option<String>,
    /// The tool's name (`bash`, `read`, `write`, `edit`...).
    pub name: String,
    /// Its arguments.
    pub args: Value,
    /// The output streamed so far.
    pub output: String,
    /// True once its result item completed.
    pub done: bool,
}

/// An extension dialog (`extension_ui_request`) asked as a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Dialog {
    /// Pi's request id, to answer with `extension_ui_response`.
    pub request_id: String,
    /// The dialog method: `select`, `confirm`, `input` or `editor`.
    pub method: String,
    /// The universal question.
    pub question: Question,
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
