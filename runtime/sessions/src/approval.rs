//! The session task's part of approval policies: the policy a session decides
//! with, what a permission request asks for (from the adapter), the decision,
//! and the timers of the requests left to the client.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentplex_host::{AdapterSession, NativeDecision, ToolKind as WitKind, ToolRequest};
use agentplex_policy::{Context, Decision, Policy, Request, ToolKind, Verdict};
use agentplex_session::Incoming;
use agentplex_universal::{DecidedBy, DecidedInput, PermissionDecidedData, PermissionDecision};
use tokio::task::AbortHandle;

use crate::incoming::Inbox;
use crate::SessionError;

/// A session's approval policy, checked; `InvalidRequest` names the field at
/// fault (`policy.rules[1].command: ...`).
pub fn read_policy(document: &serde_json::Value) -> Result<Policy, SessionError> {
    Policy::from_value(document).map_err(|error| match error.field() {
        Some(_) => SessionError::InvalidRequest(format!("policy.{error}")),
        None => SessionError::InvalidRequest(format!("policy: {error}")),
    })
}

/// What the task keeps to decide its session's permission requests.
#[derive(Default)]
pub(crate) struct Approvals {
    /// The policy; none: requests go to the client undecided.
    policy: Option<Policy>,
    /// The timers of the requests left to the client, by permission id.
    asks: BTreeMap<String, AbortHandle>,
}

impl Approvals {
    /// Decides with `policy` from now on (`None`: no policy).
    pub fn set(&mut self, policy: Option<Policy>) {
        self.policy = policy;
    }

    /// Decides with the policy a checkpoint kept (one that no longer reads, as a
    /// newer daemon's could, is dropped with a warning: requests go to the client).
    pub fn restore(&mut self, document: Option<&serde_json::Value>) {
        self.policy = document.and_then(|document| {
            Policy::from_value(document)
                .inspect_err(|error| tracing::warn!(%error, "the session's policy no longer reads"))
                .ok()
        });
    }

    /// How the pending request `permission_id` is decided: what the adapter says
    /// it asks for (`other` when it cannot say), decided by the policy in
    /// `directory` with `home` for `~/` (every path of it, and every path with
    /// its links resolved: the strictest decision stands).
    pub fn decide(
        &self,
        adapter: &mut AdapterSession,
        permission_id: &str,
        directory: &Path,
        home: Option<&Path>,
    ) -> PermissionDecidedData {
        let request = adapter
            .describe_permission(permission_id)
            .inspect_err(|error| tracing::warn!(%error, "describe-permission failed"))
            .ok()
            .flatten()
            .unwrap_or_else(|| ToolRequest {
                kind: WitKind::Other,
                command: None,
                paths: Vec::new(),
                mcp: None,
            });
        self.decide_request(permission_id, request, directory, home)
    }

    /// How a call the agent decided by its native rules is recorded: as the
    /// policy decides it (the rule or default behind the rule the agent was
    /// handed), or, when the agent decided otherwise (by a rule of a policy
    /// replaced meanwhile), as the agent's with `by: agent`.
    pub fn decide_native(
        &self,
        native: NativeDecision,
        directory: &Path,
        home: Option<&Path>,
    ) -> PermissionDecidedData {
        let mut decided = self.decide_request(&native.call_id, native.request, directory, home);
        decided.native = true;
        let agent = match native.decision {
            agentplex_host::PolicyDecision::Allow => PermissionDecision::Allow,
            agentplex_host::PolicyDecision::Ask => PermissionDecision::Ask,
            agentplex_host::PolicyDecision::Deny => PermissionDecision::Deny,
        };
        if decided.decision != agent {
            decided.reason = format!(
                "{} by the agent's own rule, handed to it for an earlier policy (this one: {})",
                word(agent),
                decided.reason
            );
            decided.decision = agent;
            decided.by = DecidedBy::Agent;
            decided.rule = None;
            decided.subject = None;
        } else {
            decided.reason = format!(
                "{} (by the agent, with the rule it was handed)",
                decided.reason
            );
        }
        decided
    }

    /// `request`, decided by the policy (`ask` without one).
    fn decide_request(
        &self,
        permission_id: &str,
        request: ToolRequest,
        directory: &Path,
        home: Option<&Path>,
    ) -> PermissionDecidedData {
        let tool = kind(request.kind);
        let verdict = match &self.policy {
            Some(policy) => {
                let context = Context {
                    directory,
                    home,
                    resolve: &resolve_links,
                };
                decide_all(policy, tool, &request, &context)
            }
            None => Verdict {
                decision: Decision::Ask,
                rule: None,
                subject: None,
            },
        };
        PermissionDecidedData {
            permission_id: permission_id.to_owned(),
            decision: decision(verdict.decision),
            by: if verdict.rule.is_some() {
                DecidedBy::Rule
            } else {
                DecidedBy::Default
            },
            rule: verdict.rule.map(|index| index as u32),
            tool: tool.as_str().to_owned(),
            reason: reason(&verdict),
            subject: verdict.subject,
            input: DecidedInput {
                command: request.command,
                paths: request.paths,
                mcp: request.mcp,
            },
            native: false,
        }
    }

    /// Starts the wait of a request left to the client: past the policy's
    /// `askTimeoutSecs` it is denied.
    pub fn arm(&mut self, permission_id: &str, inbox: &Inbox) {
        let Some(policy) = &self.policy else {
            return;
        };
        let wait = Duration::from_secs(policy.ask_timeout_secs());
        let inbox = inbox.clone();
        let id = permission_id.to_owned();
        let task = tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            let _ = inbox.send(Incoming::AskExpired { permission_id: id });
        });
        if let Some(old) = self
            .asks
            .insert(permission_id.to_owned(), task.abort_handle())
        {
            old.abort();
        }
    }

    /// Stops every wait (the session ended).
    pub fn stop(&mut self) {
        for (_, task) in std::mem::take(&mut self.asks) {
            task.abort();
        }
    }
}

/// The policy's verdict on every path of `request` (none: on the request as it
/// is): the strictest, the first path to reach it named.
fn decide_all(
    policy: &Policy,
    tool: ToolKind,
    request: &ToolRequest,
    context: &Context,
) -> Verdict {
    let one = |path: Option<&str>| {
        policy.decide(
            &Request {
                tool,
                command: request.command.as_deref(),
                path,
                mcp: request.mcp.as_deref(),
            },
            context,
        )
    };
    if request.paths.is_empty() {
        return one(None);
    }
    request
        .paths
        .iter()
        .map(|path| one(Some(path)))
        .reduce(|strictest, verdict| {
            if verdict.decision > strictest.decision {
                verdict
            } else {
                strictest
            }
        })
        .expect("at least one path")
}

/// The policy's kind for the contract's.
fn kind(kind: WitKind) -> ToolKind {
    match kind {
        WitKind::Shell => ToolKind::Shell,
        WitKind::Read => ToolKind::Read,
        WitKind::Write => ToolKind::Write,
        WitKind::Fetch => ToolKind::Fetch,
        WitKind::Mcp => ToolKind::Mcp,
        WitKind::Other => ToolKind::Other,
    }
}

/// The event's decision for the policy's.
fn decision(decision: Decision) -> PermissionDecision {
    match decision {
        Decision::Allow => PermissionDecision::Allow,
        Decision::Ask => PermissionDecision::Ask,
        Decision::Deny => PermissionDecision::Deny,
    }
}

/// A decision as a past participle.
fn word(decision: PermissionDecision) -> &'static str {
    match decision {
        PermissionDecision::Allow => "allowed",
        PermissionDecision::Ask => "left to the client",
        PermissionDecision::Deny => "denied",
    }
}

/// A decision in words: what decided it, and what it matched.
fn reason(verdict: &Verdict) -> String {
    let what = word(decision(verdict.decision));
    let by = match verdict.rule {
        Some(index) => format!("rules[{index}]"),
        None => "the policy's default".to_owned(),
    };
    match &verdict.subject {
        Some(subject) => format!("{what} by {by} (it matched {subject:?})"),
        None => format!("{what} by {by}"),
    }
}

/// `path` with its links resolved as far as it exists (a file about to be
/// created resolves through its folder).
fn resolve_links(path: &Path) -> PathBuf {
    let mut existing = path;
    let mut rest = Vec::new();
    loop {
        if let Ok(resolved) = std::fs::canonicalize(existing) {
            return rest
                .iter()
                .rev()
                .fold(resolved, |path, part| path.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

impl crate::SessionManager {
    /// Decides the permission requests of sessions created without a policy of
    /// their own with `policy` (`--policy`).
    pub fn with_default_policy(mut self, policy: Option<Policy>) -> Self {
        self.default_policy = policy;
        self
    }

    /// Replaces session `id`'s approval policy: requests asked from now on are
    /// decided with it (those already waiting for the client stay as they
    /// are). Answers the policy as kept.
    pub async fn set_policy(
        &self,
        id: &str,
        document: serde_json::Value,
    ) -> Result<serde_json::Value, SessionError> {
        let policy = read_policy(&document)?;
        let session = self.get(id)?;
        let kept = policy.document().clone();
        session
            .command(agentplex_session::Command::SetPolicy(Some(kept.clone())))
            .await?;
        Ok(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_native_decision_is_recorded_with_the_policys_rule_or_as_the_agents() {
        let mut approvals = Approvals::default();
        let document = serde_json::json!({
            "rules": [{"tool": "shell", "command": "rm *", "decision": "deny"},
                      {"tool": "read", "decision": "allow"}],
            "default": "ask"
        });
        approvals.set(Some(read_policy(&document).unwrap()));
        let read = |decision| NativeDecision {
            call_id: "toolu_1".into(),
            request: ToolRequest {
                kind: WitKind::Read,
                command: None,
                paths: vec!["notes.md".into()],
                mcp: None,
            },
            decision,
        };
        let directory = Path::new("/work");
        let agreed =
            approvals.decide_native(read(agentplex_host::PolicyDecision::Allow), directory, None);
        assert_eq!(
            (agreed.decision, agreed.by, agreed.rule, agreed.native),
            (PermissionDecision::Allow, DecidedBy::Rule, Some(1), true)
        );
        assert_eq!(agreed.permission_id, "toolu_1");
        assert_eq!(agreed.input.paths, ["notes.md"]);
        // Decided by a rule of a policy replaced since: recorded as the agent's.
        let stale =
            approvals.decide_native(read(agentplex_host::PolicyDecision::Deny), directory, None);
        assert_eq!(
            (stale.decision, stale.by, stale.rule, stale.native),
            (PermissionDecision::Deny, DecidedBy::Agent, None, true)
        );
        assert!(
            stale.reason.contains("allowed by rules[1]"),
            "{}",
            stale.reason
        );
    }

    #[test]
    fn links_resolve_as_far_as_the_path_exists() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
        let real = std::fs::canonicalize(&real).unwrap();
        assert_eq!(
            resolve_links(&dir.path().join("link/new.txt")),
            real.join("new.txt")
        );
        assert_eq!(
            resolve_links(&dir.path().join("link/a/b")),
            real.join("a/b")
        );
    }
}
