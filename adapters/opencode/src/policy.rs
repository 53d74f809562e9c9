//! What OpenCode's permission requests ask for, as an approval policy sees them:
//! its permission names (`bash`, `edit`, `read`...) with their patterns and
//! metadata mapped to the policy's tool kinds.

use sandbox_agent_adapter_kit::tool_request;
use sandbox_agent_adapter_kit::types::{ToolKind, ToolRequest};
use serde_json::Value;

/// What OpenCode asks permission for with the permission config the adapter
/// writes: commands, edits, fetches and paths outside the project (`other`). It
/// reads and searches the project unasked, and runs MCP tools unasked.
pub(crate) fn asks_for() -> Vec<ToolKind> {
    vec![
        ToolKind::Shell,
        ToolKind::Write,
        ToolKind::Fetch,
        ToolKind::Other,
    ]
}

/// The request a `permission.asked` event's properties make.
pub(crate) fn request(properties: &Value) -> ToolRequest {
    let text = |key: &str| properties.get(key).and_then(Value::as_str);
    let meta = |key: &str| properties["metadata"].get(key).and_then(Value::as_str);
    let patterns: Vec<&str> = properties["patterns"]
        .as_array()
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    match text("permission").unwrap_or_default() {
        // The whole line when OpenCode gives it, else the commands it parsed out.
        "bash" => match meta("command") {
            Some(line) => tool_request::shell(line),
            None if !patterns.is_empty() => tool_request::shell(patterns.join("\n")),
            None => tool_request::other(),
        },
        "edit" | "write" | "patch" | "multiedit" => match meta("filepath") {
            Some(path) => tool_request::write(path),
            None => tool_request::writes(patterns),
        },
        "read" | "list" | "glob" | "grep" => match meta("filepath") {
            Some(path) => tool_request::read(path),
            None if patterns.len() == 1 => tool_request::read(patterns[0]),
            None => tool_request::other(),
        },
        "webfetch" | "websearch" | "codesearch" => tool_request::fetch(),
        _ => tool_request::other(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn permissions_map_to_their_kinds() {
        let bash = json!({"permission": "bash", "patterns": ["echo hello > hello.txt"],
            "metadata": {"command": "echo hello > hello.txt"}});
        assert_eq!(
            request(&bash),
            tool_request::shell("echo hello > hello.txt")
        );
        let parsed = json!({"permission": "bash", "patterns": ["ls", "rm x"], "metadata": {}});
        assert_eq!(request(&parsed), tool_request::shell("ls\nrm x"));
        let edit = json!({"permission": "edit", "patterns": ["a.txt"],
            "metadata": {"filepath": "/w/a.txt", "diff": "..."}});
        assert_eq!(request(&edit), tool_request::write("/w/a.txt"));
        let bare_edit = json!({"permission": "edit", "patterns": ["a.txt", "b.txt"]});
        assert_eq!(
            request(&bare_edit),
            tool_request::writes(["a.txt", "b.txt"])
        );
        let fetch = json!({"permission": "webfetch", "patterns": ["https://x"]});
        assert_eq!(request(&fetch), tool_request::fetch());
        let outside = json!({"permission": "external_directory", "patterns": ["/tmp/*"]});
        assert_eq!(request(&outside), tool_request::other());
        assert_eq!(request(&json!({})), tool_request::other());
    }
}
