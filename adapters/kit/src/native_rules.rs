//! Native rules: what of a session's approval policy an agent can be handed as
//! its own `allow` or `deny`, and the calls it then decides by itself.
//!
//! A policy fixes the decision of a whole kind of tool when no rule that applies
//! to the kind has a glob: every `read`, say, is then allowed whatever its path.
//! Such a decision is one the agent's own rules make exactly as the policy does,
//! so it is handed over (`session-config.policy`, WIT `set-policy`) and the agent
//! no longer asks. Globs are never handed over: agents match commands and paths
//! their own way, and the daemon's matching is the one that holds. Each call of
//! a handed kind is kept ([`NativeRules::note_call`]) until the host asks for
//! them (WIT `native-decisions`), so every decision is still recorded.

use crate::types::{
    ApprovalPolicy, NativeDecision, PolicyDecision, PolicyRule, ToolKind, ToolRequest,
};

/// The decision `policy` makes for every request of `kind`, whatever it asks;
/// `None` when a rule that applies to the kind has a glob.
pub fn fixed(policy: &ApprovalPolicy, kind: ToolKind) -> Option<PolicyDecision> {
    let mut decision = None;
    for rule in policy.rules.iter().filter(|rule| applies(rule, kind)) {
        if has_glob(rule) {
            return None;
        }
        decision = Some(match decision {
            Some(before) => strictest(before, rule.decision),
            None => rule.decision,
        });
    }
    Some(decision.unwrap_or(policy.default))
}

/// Whether `rule` can decide a request of `kind`: its kind is that one or none,
/// and its glob, if any, is on something a request of the kind has.
fn applies(rule: &PolicyRule, kind: ToolKind) -> bool {
    if rule.tool.is_some_and(|own| own != kind) {
        return false;
    }
    let fits =
        |field: &Option<String>, kinds: &[ToolKind]| field.is_none() || kinds.contains(&kind);
    fits(&rule.command, &[ToolKind::Shell])
        && fits(&rule.path, &[ToolKind::Read, ToolKind::Write])
        && fits(&rule.mcp, &[ToolKind::Mcp])
}

fn has_glob(rule: &PolicyRule) -> bool {
    rule.command.is_some() || rule.path.is_some() || rule.mcp.is_some()
}

/// `deny` over `ask` over `allow`.
fn strictest(a: PolicyDecision, b: PolicyDecision) -> PolicyDecision {
    let rank = |decision| match decision {
        PolicyDecision::Allow => 0,
        PolicyDecision::Ask => 1,
        PolicyDecision::Deny => 2,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// A session's native rules: the policy they come from, and the calls the agent
/// decided by them that the host has not yet been told of.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NativeRules {
    policy: Option<ApprovalPolicy>,
    #[serde(skip)]
    decided: Vec<NativeDecision>,
}

impl NativeRules {
    /// The rules of `policy` (none: nothing is handed over).
    pub fn new(policy: Option<ApprovalPolicy>) -> Self {
        Self {
            policy,
            decided: Vec::new(),
        }
    }

    /// The session's policy was replaced.
    pub fn set(&mut self, policy: Option<ApprovalPolicy>) {
        self.policy = policy;
    }

    /// Whether the session has a policy.
    pub fn has_policy(&self) -> bool {
        self.policy.is_some()
    }

    /// The agent's own decision for every call of `kind`: `allow` or `deny` when
    /// the policy fixes it so; `None` when the agent must ask (the policy has
    /// globs for the kind, leaves it to the client, or there is no policy).
    pub fn handed(&self, kind: ToolKind) -> Option<PolicyDecision> {
        let policy = self.policy.as_ref()?;
        fixed(policy, kind).filter(|decision| *decision != PolicyDecision::Ask)
    }

    /// The agent started the tool call `call_id` for `request` without asking:
    /// kept as decided by the native rule of its kind, when one was handed.
    pub fn note_call(&mut self, call_id: &str, request: ToolRequest) {
        if let Some(decision) = self.handed(request.kind) {
            self.decided.push(NativeDecision {
                call_id: call_id.to_owned(),
                request,
                decision,
            });
        }
    }

    /// The decisions kept since the last call, oldest first.
    pub fn take(&mut self) -> Vec<NativeDecision> {
        std::mem::take(&mut self.decided)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PolicyDecision::{Allow, Ask, Deny};

    fn rule(tool: Option<ToolKind>, decision: PolicyDecision) -> PolicyRule {
        PolicyRule {
            tool,
            command: None,
            path: None,
            mcp: None,
            decision,
        }
    }

    fn policy(rules: Vec<PolicyRule>, default: PolicyDecision) -> ApprovalPolicy {
        ApprovalPolicy { rules, default }
    }

    #[test]
    fn a_kind_without_globs_takes_its_strictest_rule_or_the_default() {
        let p = policy(
            vec![
                rule(Some(ToolKind::Read), Allow),
                rule(Some(ToolKind::Fetch), Allow),
                rule(Some(ToolKind::Fetch), Deny),
            ],
            Ask,
        );
        assert_eq!(fixed(&p, ToolKind::Read), Some(Allow));
        assert_eq!(fixed(&p, ToolKind::Fetch), Some(Deny));
        assert_eq!(fixed(&p, ToolKind::Shell), Some(Ask));
        // A rule of any kind applies to every kind.
        let p = policy(
            vec![rule(None, Deny), rule(Some(ToolKind::Read), Allow)],
            Allow,
        );
        assert_eq!(fixed(&p, ToolKind::Read), Some(Deny));
    }

    #[test]
    fn a_glob_that_applies_leaves_the_kind_to_the_daemon() {
        let mut shell = rule(Some(ToolKind::Shell), Deny);
        shell.command = Some("rm *".into());
        let mut any_path = rule(None, Allow);
        any_path.path = Some("src/**".into());
        let p = policy(vec![shell, any_path], Allow);
        assert_eq!(fixed(&p, ToolKind::Shell), None);
        assert_eq!(fixed(&p, ToolKind::Read), None);
        assert_eq!(fixed(&p, ToolKind::Write), None);
        // A path glob of no kind never applies to commands, fetches or MCP tools.
        assert_eq!(fixed(&p, ToolKind::Fetch), Some(Allow));
        assert_eq!(fixed(&p, ToolKind::Mcp), Some(Allow));
    }

    #[test]
    fn only_allow_and_deny_are_handed_and_their_calls_kept() {
        let p = policy(
            vec![
                rule(Some(ToolKind::Read), Allow),
                rule(Some(ToolKind::Fetch), Deny),
            ],
            Ask,
        );
        let mut rules = NativeRules::new(Some(p));
        assert_eq!(rules.handed(ToolKind::Read), Some(Allow));
        assert_eq!(rules.handed(ToolKind::Fetch), Some(Deny));
        assert_eq!(rules.handed(ToolKind::Shell), None);
        rules.note_call("c1", crate::tool_request::read("a.txt"));
        rules.note_call("c2", crate::tool_request::shell("ls"));
        rules.note_call("c3", crate::tool_request::fetch());
        let taken = rules.take();
        let ids: Vec<_> = taken
            .iter()
            .map(|d| (d.call_id.as_str(), d.decision))
            .collect();
        assert_eq!(ids, [("c1", Allow), ("c3", Deny)]);
        assert!(rules.take().is_empty());
        rules.set(None);
        assert_eq!(rules.handed(ToolKind::Read), None);
    }
}
