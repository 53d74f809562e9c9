//! A session's approval policy as the adapter contract carries it
//! (`session-config.policy`, `set-policy`), read from the policy's checked
//! document (the daemon's policy crate checks it; this only reads it).

use serde_json::Value;

use crate::{ApprovalPolicy, PolicyDecision, PolicyRule, ToolKind};

/// The contract's policy for the checked policy `document`.
pub fn approval_policy(document: &Value) -> ApprovalPolicy {
    let text = |value: &Value| value.as_str().map(str::to_owned);
    let rules = document["rules"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    ApprovalPolicy {
        rules: rules
            .iter()
            .map(|rule| PolicyRule {
                tool: rule["tool"].as_str().and_then(tool_kind),
                command: text(&rule["command"]),
                path: text(&rule["path"]),
                mcp: text(&rule["mcp"]),
                decision: decision(&rule["decision"]),
            })
            .collect(),
        default: decision(&document["default"]),
    }
}

/// A decision by its name; `ask` for any other (as the policy's default).
fn decision(value: &Value) -> PolicyDecision {
    match value.as_str() {
        Some("allow") => PolicyDecision::Allow,
        Some("deny") => PolicyDecision::Deny,
        _ => PolicyDecision::Ask,
    }
}

/// The contract's kind for a policy's name of it.
fn tool_kind(name: &str) -> Option<ToolKind> {
    Some(match name {
        "shell" => ToolKind::Shell,
        "read" => ToolKind::Read,
        "write" => ToolKind::Write,
        "fetch" => ToolKind::Fetch,
        "mcp" => ToolKind::Mcp,
        "other" => ToolKind::Other,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_document_reads_rule_by_rule() {
        let policy = approval_policy(&json!({
            "rules": [
                {"tool": "shell", "command": "rm *", "decision": "deny"},
                {"path": "src/**", "decision": "allow"}
            ],
            "default": "allow"
        }));
        assert_eq!(policy.default, PolicyDecision::Allow);
        assert_eq!(policy.rules.len(), 2);
        assert_eq!(policy.rules[0].tool, Some(ToolKind::Shell));
        assert_eq!(policy.rules[0].command.as_deref(), Some("rm *"));
        assert_eq!(policy.rules[0].decision, PolicyDecision::Deny);
        assert_eq!(policy.rules[1].tool, None);
        assert_eq!(policy.rules[1].path.as_deref(), Some("src/**"));
        assert_eq!(approval_policy(&json!({})).default, PolicyDecision::Ask);
    }
}
