//! The shape of an approval policy, for the API's documentation and SDKs. The
//! daemon reads policies with `agentplex-policy`, whose errors name the field at
//! fault; these types only describe the document.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// An approval policy: rules over the tool an agent asks to use, deciding
/// `allow`, `deny` or `ask`; deny wins over ask, ask over allow (docs/policies.md).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalPolicy {
    /// The rules; every rule that matches a request is weighed.
    #[serde(default)]
    pub rules: Vec<PolicyRule>,
    /// The decision where no rule matches; `ask` when absent.
    #[serde(default)]
    pub default: Option<PolicyDecision>,
    /// How long an `ask` waits for the client before it is denied, in seconds
    /// (300 when absent, at most a day).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 86400)]
    pub ask_timeout_secs: Option<u64>,
}

/// One rule of an approval policy.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PolicyRule {
    /// The kind of tool; any when absent.
    #[serde(default)]
    pub tool: Option<PolicyToolKind>,
    /// A glob on each command of a `shell` request's command line (`rm *`).
    #[serde(default)]
    pub command: Option<String>,
    /// A glob on a `read` or `write` request's path (relative to the session's
    /// directory, absolute, or `~/`).
    #[serde(default)]
    pub path: Option<String>,
    /// A glob on an `mcp` request's `server/tool`.
    #[serde(default)]
    pub mcp: Option<String>,
    pub decision: PolicyDecision,
}

/// What a policy decides.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PolicyDecision {
    Allow,
    Ask,
    Deny,
}

/// The kinds of tool a policy's rules name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PolicyToolKind {
    Shell,
    Read,
    Write,
    Fetch,
    Mcp,
    Other,
}
