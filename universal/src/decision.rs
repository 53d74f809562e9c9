//! The event that records how a permission request was decided under a
//! session's approval policy (`permission.decided`), so an audit can replay it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What was decided of a permission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PermissionDecision {
    /// Answered yes (once).
    Allow,
    /// Left to the client.
    Ask,
    /// Answered no.
    Deny,
}

/// Who decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// A rule of the policy (`rule` is its index).
    Rule,
    /// The policy's `default`: no rule matched.
    Default,
    /// The client, answering an `ask`.
    Client,
    /// Nobody: an `ask` waited past the policy's `askTimeoutSecs` and was denied.
    Timeout,
    /// The agent, by a rule of its own that is no longer the policy's (it
    /// decided just before the policy was replaced); `native` is true.
    Agent,
}

/// What the request asks for, as the policy saw it (the adapter's description).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DecidedInput {
    /// For `shell`: the command line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// For `read` and `write`: the paths, as the agent named them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// For `mcp`: the tool, `server/tool`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<String>,
}

/// Data of `permission.decided`: one decision on a permission request of a
/// session with an approval policy (always `source: daemon`). An `ask` is
/// followed by the client's decision (or the timeout's), under the same
/// `permission_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PermissionDecidedData {
    /// The request decided (as in `permission.requested`).
    pub permission_id: String,
    pub decision: PermissionDecision,
    pub by: DecidedBy,
    /// With `by: rule`: the index of the deciding rule in the policy's `rules`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<u32>,
    /// The kind of tool: `shell`, `read`, `write`, `fetch`, `mcp` or `other`
    /// (`other` when the adapter could not say).
    pub tool: String,
    /// What the tool would do.
    #[serde(default)]
    pub input: DecidedInput,
    /// What the deciding rule matched, when it was a part of the request: one
    /// command of a command line, or a path with its links resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// Why, in words (`denied by rules[0]: shell command "rm *"`).
    pub reason: String,
    /// The agent decided it by itself, without asking, by the native rule its
    /// adapter handed it for the policy (a kind of tool the policy decides the
    /// same way whatever the call); `permission_id` is then the tool call's
    /// `call_id`, and no `permission.requested` or `permission.resolved` goes
    /// with it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub native: bool,
}
