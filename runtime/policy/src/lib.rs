//! Approval policies: one rule set that decides an agent's requests the same way
//! whatever the agent.
//!
//! A policy is a list of rules and a default. Each rule names a tool kind
//! ([`ToolKind`]: `shell`, `read`, `write`, `fetch`, `mcp`, `other`; any kind
//! when left out), globs on what the request is about (`command` for `shell`,
//! `path` for `read` and `write`, `mcp` for `mcp` as `server/tool`) and a
//! [`Decision`]. Of the rules that match a request, a `deny` wins over an `ask`,
//! which wins over an `allow`; when none matches, the default decides.
//!
//! What the rules are matched against:
//! - a command line is split into the simple commands it runs (at `;`, `&`,
//!   `&&`, `|`, `||`, new lines, and into command substitutions), each decided
//!   on its own, the strictest decision deciding the line; leading `NAME=value`
//!   assignments are left out and spaces collapse;
//! - a path is made absolute from the session's directory, its `.` and `..`
//!   resolved, and decided both as written and with its links resolved (the
//!   caller says how), the stricter deciding. A relative `path` glob is matched
//!   inside the session's directory, one starting `~/` inside the home, others
//!   as absolute paths; in paths `*` stays within a folder and `**` crosses them.
//!
//! The crate does no I/O: the caller resolves links ([`Context::resolve`]).

mod command;
mod decide;
mod error;
mod paths;
mod rules;

pub use decide::{Context, Request, Verdict};
pub use error::PolicyError;
pub use rules::{Decision, Policy, ToolKind, DEFAULT_ASK_TIMEOUT_SECS};

#[cfg(test)]
mod tests;
