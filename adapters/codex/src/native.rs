//! The app-server's messages (`codex app-server`, JSON-RPC), as types.
//!
//! The kit's `jsonrpc` module splits a line into id, method and params; these are the
//! typed views of the params and results this adapter reads ([`native::read`]). Every
//! field reads leniently: a missing field or one of another shape reads as its default,
//! as the messages were read before they had types. What the adapter passes on as it
//! is stays a JSON value: tool arguments, tool results, request ids, and the raw item
//! or error a transcript shows as JSON.

use sandbox_agent_adapter_kit::native::{self, Lenient};
use serde::Deserialize;
use serde_json::Value;

/// The thread and turn a notification or server request is about.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Scope {
    /// The thread.
    #[serde(default, deserialize_with = "native::lenient")]
    pub thread_id: Option<String>,
    /// The turn.
    #[serde(default, deserialize_with = "native::lenient")]
    pub turn_id: Option<String>,
}

/// A Codex item (`ThreadItem`) of `item/started` and `item/completed`: its id, its
/// status, what it is, and the item as it came (`raw`: an unknown item is shown as
/// JSON).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(from = "Value")]
pub(crate) struct ThreadItem {
    /// Codex's item id.
    pub id: String,
    /// `inProgress`, `completed`, `failed`, `declined`...
    pub status: String,
    /// What it is.
    pub kind: ItemType,
    /// The item as it came.
    pub raw: Value,
}

impl From<Value> for ThreadItem {
    fn from(raw: Value) -> Self {
        let ItemHeader { id, status } = native::read(&raw);
        let kind = ItemType::deserialize(&raw).unwrap_or_default();
        Self {
            id,
            status,
            kind,
            raw,
        }
    }
}

impl ThreadItem {
    /// What the adapter completes an item with when the turn ends before Codex did.
    pub fn failed(id: &str) -> Self {
        let item = serde_json::json!({ "id": id, "status": "failed" });
        Self::from(item)
    }
}

/// The fields every item has.
#[derive(Debug, Default, Deserialize)]
struct ItemHeader {
    #[serde(default, deserialize_with = "native::lenient")]
    id: String,
    #[serde(default, deserialize_with = "native::lenient")]
    status: String,
}

/// What a Codex item is, by its `type`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub(crate) enum ItemType {
    /// The echo of the user's message.
    UserMessage,
    /// Assistant text.
    AgentMessage(Text),
    /// The agent's plan, as text.
    Plan(Text),
    /// Reasoning: a summary for users and the raw reasoning.
    Reasoning {
        /// The summary's parts (those that are strings).
        #[serde(default, deserialize_with = "native::lenient")]
        summary: Vec<Lenient<String>>,
        /// The raw reasoning's parts (those that are strings).
        #[serde(default, deserialize_with = "native::lenient")]
        content: Vec<Lenient<String>>,
    },
    /// A shell command.
    CommandExecution(CommandExecution),
    /// A patch.
    FileChange {
        /// The files it changes; `None` when not a list.
        #[serde(default, deserialize_with = "native::lenient")]
        changes: Option<Vec<Lenient<FileChange>>>,
    },
    /// A tool of an MCP server.
    McpToolCall(McpToolCall),
    /// A tool the client registered.
    DynamicToolCall(DynamicToolCall),
    /// A call that drives sub-agents.
    CollabAgentToolCall(CollabAgentToolCall),
    /// A web search.
    WebSearch {
        /// The query (passed on as it is).
        #[serde(default)]
        query: Value,
        /// The search action (passed on as it is).
        #[serde(default)]
        action: Value,
        /// The results (shown as JSON); `None` when missing or `null`.
        #[serde(default)]
        results: Option<Value>,
    },
    /// An image the agent looked at.
    ImageView {
        /// Its path (passed on as it is).
        #[serde(default)]
        path: Value,
    },
    /// An image the agent generated.
    ImageGeneration {
        /// The prompt the model rewrote (passed on as it is).
        #[serde(default, rename = "revisedPrompt")]
        revised_prompt: Value,
        /// Where the image was saved.
        #[serde(default, rename = "savedPath", deserialize_with = "native::lenient")]
        saved_path: String,
        /// Why it failed; `None` when missing or `null`.
        #[serde(default)]
        failure: Option<Value>,
    },
    /// The context was compacted.
    ContextCompaction,
    /// Review mode started.
    EnteredReviewMode(Review),
    /// Review mode ended.
    ExitedReviewMode(Review),
    /// A sub-agent did something.
    SubAgentActivity {
        /// What it did.
        #[serde(default, deserialize_with = "native::lenient")]
        kind: String,
        /// Which sub-agent.
        #[serde(default, rename = "agentPath", deserialize_with = "native::lenient")]
        agent_path: String,
    },
    /// A hook's prompt.
    HookPrompt {
        /// Its fragments; `None` when not a list.
        #[serde(default, deserialize_with = "native::lenient")]
        fragments: Option<Vec<Lenient<Fragment>>>,
    },
    /// The agent waited.
    Sleep {
        /// How long.
        #[serde(default, rename = "durationMs", deserialize_with = "native::lenient")]
        duration_ms: Option<u64>,
    },
    /// A function call's output.
    FunctionCallOutput {
        /// The function.
        #[serde(default, deserialize_with = "native::lenient")]
        name: String,
        /// Its output (text, else shown as JSON), when the item has one.
        #[serde(default, deserialize_with = "native::present")]
        output: Option<Value>,
    },
    /// An item of another type (or not an item).
    #[default]
    #[serde(other)]
    Other,
}

/// The text of an `agentMessage` or `plan` item.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Text {
    /// The whole text, when Codex gives it (else the streamed text is used).
    #[serde(default, deserialize_with = "native::lenient")]
    pub text: Option<String>,
}

/// A `commandExecution` item.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CommandExecution {
    /// The command (passed on as it is; shown when it is a string).
    #[serde(default)]
    pub command: Value,
    /// Its working directory (passed on as it is).
    #[serde(default)]
    pub cwd: Value,
    /// The commands Codex parsed out of it; `None` when not a list.
    #[serde(default, deserialize_with = "native::lenient")]
    pub command_actions: Option<Vec<Lenient<CommandAction>>>,
    /// Its whole output.
    #[serde(default, deserialize_with = "native::lenient")]
    pub aggregated_output: Option<String>,
    /// Its exit code.
    #[serde(default, deserialize_with = "native::lenient")]
    pub exit_code: Option<i64>,
}

/// One command Codex parsed out of a command line.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CommandAction {
    /// The command.
    #[serde(default, deserialize_with = "native::lenient")]
    pub command: String,
}

/// One file of a `fileChange` item.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct FileChange {
    /// The file.
    #[serde(default, deserialize_with = "native::lenient")]
    pub path: String,
    /// What happens to it.
    #[serde(default, deserialize_with = "native::lenient")]
    pub kind: ChangeKind,
    /// The new content (`add`), the old one (`delete`) or a unified diff (`update`).
    #[serde(default, deserialize_with = "native::lenient")]
    pub diff: String,
}

/// The kind of a file change.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ChangeKind {
    /// `add`, `delete` or `update`.
    #[serde(default, rename = "type", deserialize_with = "native::lenient")]
    pub kind: String,
}

/// An `mcpToolCall` item.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct McpToolCall {
    /// The MCP server.
    #[serde(default, deserialize_with = "native::lenient")]
    pub server: String,
    /// The tool.
    #[serde(default, deserialize_with = "native::lenient")]
    pub tool: String,
    /// Its arguments (passed on as they are).
    #[serde(default)]
    pub arguments: Value,
    /// Its error, when it failed.
    #[serde(default, deserialize_with = "native::lenient")]
    pub error: Option<McpError>,
    /// Its result.
    #[serde(default, deserialize_with = "native::lenient")]
    pub result: McpResult,
}

/// The error of an MCP tool call.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct McpError {
    /// The message (shown when it is a string), when the error has one.
    #[serde(default, deserialize_with = "native::present")]
    pub message: Option<Value>,
}

/// The result of an MCP tool call.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct McpResult {
    /// Its content items (free-form: texts, or shown as JSON).
    #[serde(default)]
    pub content: Option<Value>,
}

/// A `dynamicToolCall` item.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DynamicToolCall {
    /// The tool's namespace.
    #[serde(default, deserialize_with = "native::lenient")]
    pub namespace: Option<String>,
    /// The tool.
    #[serde(default, deserialize_with = "native::lenient")]
    pub tool: String,
    /// Its arguments (passed on as they are).
    #[serde(default)]
    pub arguments: Value,
    /// Whether it succeeded.
    #[serde(default, deserialize_with = "native::lenient")]
    pub success: Option<bool>,
    /// Its content items (free-form: texts, or shown as JSON).
    #[serde(default)]
    pub content_items: Option<Value>,
}

/// A `collabAgentToolCall` item.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CollabAgentToolCall {
    /// The tool.
    #[serde(default, deserialize_with = "native::lenient")]
    pub tool: String,
    /// The prompt (passed on as it is).
    #[serde(default)]
    pub prompt: Value,
    /// The sub-agents' threads (passed on as they are).
    #[serde(default)]
    pub receiver_thread_ids: Value,
    /// The model (passed on as it is).
    #[serde(default)]
    pub model: Value,
    /// The sub-agents' states (shown as JSON), when the item has them.
    #[serde(default, deserialize_with = "native::present")]
    pub agents_states: Option<Value>,
}

/// An `enteredReviewMode` or `exitedReviewMode` item.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Review {
    /// The review's text.
    #[serde(default, deserialize_with = "native::lenient")]
    pub review: String,
}

/// A fragment of a hook's prompt.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Fragment {
    /// Its text.
    #[serde(default, deserialize_with = "native::lenient")]
    pub text: String,
}

/// The params of `item/started` and `item/completed`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ItemParams {
    /// The item.
    #[serde(default)]
    pub item: ThreadItem,
}

/// The params of the delta and progress notifications of an item.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DeltaParams {
    /// The item.
    #[serde(default, deserialize_with = "native::lenient")]
    pub item_id: String,
    /// The piece (text and output deltas).
    #[serde(default, deserialize_with = "native::lenient")]
    pub delta: String,
    /// The progress message (`item/mcpToolCall/progress`).
    #[serde(default, deserialize_with = "native::lenient")]
    pub message: String,
}

/// The params of `turn/started` and `turn/completed`, and the result of `turn/start`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct TurnParams {
    /// The turn, when the message has one.
    #[serde(default, deserialize_with = "native::present")]
    pub turn: Option<CodexTurn>,
}

/// Codex's `Turn`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct CodexTurn {
    /// Its id.
    #[serde(default, deserialize_with = "native::lenient")]
    pub id: String,
    /// `completed`, `interrupted`, `failed`.
    #[serde(default, deserialize_with = "native::lenient")]
    pub status: String,
    /// Its error (a `TurnError`, shown whole as the error's details); `None` when
    /// missing or `null`.
    #[serde(default)]
    pub error: Option<Value>,
}

/// The params of `thread/tokenUsage/updated`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UsageParams {
    /// The turn.
    #[serde(default, deserialize_with = "native::lenient")]
    pub turn_id: String,
    /// The usage, when the message has it.
    #[serde(default, deserialize_with = "native::present")]
    pub token_usage: Option<TokenUsage>,
}

/// Codex's `ThreadTokenUsage`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct TokenUsage {
    /// The last model request's counts, when the usage has them.
    #[serde(default, deserialize_with = "native::present")]
    pub last: Option<TokenCounts>,
}

/// The token counts of a model request.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TokenCounts {
    /// Input tokens.
    #[serde(default, deserialize_with = "native::lenient")]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default, deserialize_with = "native::lenient")]
    pub output_tokens: u64,
    /// Input tokens read from the cache.
    #[serde(default, deserialize_with = "native::lenient")]
    pub cached_input_tokens: u64,
    /// Output tokens spent reasoning.
    #[serde(default, deserialize_with = "native::lenient")]
    pub reasoning_output_tokens: u64,
}

/// The params of an `error` notification.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ErrorParams {
    /// The error (a `TurnError`, shown whole as the error's details).
    #[serde(default)]
    pub error: Value,
    /// True when Codex retries.
    #[serde(default, deserialize_with = "native::lenient")]
    pub will_retry: bool,
}

/// A `TurnError`: the fields the adapter reads.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TurnError {
    /// The message (the provider's error body, when Codex passes it through).
    #[serde(default, deserialize_with = "native::lenient")]
    pub message: String,
    /// Codex's classification: a name, or an object named by its only key.
    #[serde(default, deserialize_with = "native::lenient")]
    pub codex_error_info: Option<ErrorInfo>,
}

/// Codex's `codexErrorInfo`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum ErrorInfo {
    /// A name.
    Name(String),
    /// An object with details, named by its key.
    Details(serde_json::Map<String, Value>),
}

/// A provider's error body (`{"error":{"message":...}}`), as Codex passes it in a
/// `TurnError`'s message.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ProviderError {
    /// The error.
    #[serde(default, deserialize_with = "native::lenient")]
    pub error: ProviderMessage,
}

/// The error of a [`ProviderError`].
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ProviderMessage {
    /// Its message.
    #[serde(default, deserialize_with = "native::lenient")]
    pub message: Option<String>,
}

/// The params of the warning notifications.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Warning {
    /// The warning.
    #[serde(default, deserialize_with = "native::lenient")]
    pub message: String,
    /// Its summary, when it has no message.
    #[serde(default, deserialize_with = "native::lenient")]
    pub summary: String,
}

/// The params of `serverRequest/resolved`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Resolved {
    /// The JSON-RPC id of the request Codex dropped, when it names one.
    #[serde(default, deserialize_with = "native::present")]
    pub request_id: Option<Value>,
}

/// The params of `turn/plan/updated`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct PlanParams {
    /// Why the plan changed.
    #[serde(default, deserialize_with = "native::lenient")]
    pub explanation: Option<String>,
    /// The steps.
    #[serde(default, deserialize_with = "native::lenient")]
    pub plan: Vec<Lenient<PlanStep>>,
}

/// A step of the agent's plan.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct PlanStep {
    /// What to do.
    #[serde(default, deserialize_with = "native::lenient")]
    pub step: String,
    /// `pending`, `inProgress`, `completed`.
    #[serde(default, deserialize_with = "native::lenient")]
    pub status: String,
}

/// The result of `thread/start` and `thread/resume`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ThreadOpened {
    /// The thread.
    #[serde(default, deserialize_with = "native::lenient")]
    pub thread: ThreadRef,
    /// The model it runs.
    #[serde(default, deserialize_with = "native::lenient")]
    pub model: Option<String>,
}

/// A thread, by id.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ThreadRef {
    /// Its id.
    #[serde(default, deserialize_with = "native::lenient")]
    pub id: String,
}

/// The params of an approval request (`item/*/requestApproval`).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ApprovalParams {
    /// The item it is about.
    #[serde(default, deserialize_with = "native::lenient")]
    pub item_id: String,
    /// The command to run (command approvals).
    #[serde(default, deserialize_with = "native::lenient")]
    pub command: String,
    /// Why more access is asked for (permissions approvals).
    #[serde(default, deserialize_with = "native::lenient")]
    pub reason: String,
    /// The access asked for (granted back as it is).
    #[serde(default)]
    pub permissions: Value,
}

/// The params of `item/tool/requestUserInput`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct UserInputParams {
    /// The questions.
    #[serde(default, deserialize_with = "native::lenient")]
    pub questions: Vec<Lenient<AskedQuestion>>,
}

/// One question of a `request_user_input` request.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct AskedQuestion {
    /// Codex's id for the answer.
    #[serde(default, deserialize_with = "native::lenient")]
    pub id: String,
    /// The question.
    #[serde(default, deserialize_with = "native::lenient")]
    pub question: String,
    /// Its options.
    #[serde(default, deserialize_with = "native::lenient")]
    pub options: Vec<Lenient<AnswerOption>>,
}

/// An option of a question.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct AnswerOption {
    /// What is shown and answered.
    #[serde(default, deserialize_with = "native::lenient")]
    pub label: String,
}
