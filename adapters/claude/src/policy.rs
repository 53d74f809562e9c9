//! What Claude Code's permission requests ask for, as an approval policy sees
//! them: its tool names and inputs mapped to the policy's tool kinds.

use sandbox_agent_adapter_kit::tool_request;
use sandbox_agent_adapter_kit::types::{ToolKind, ToolRequest};
use serde_json::Value;

/// What Claude Code asks permission for in its default mode when the session has
/// a policy: commands, reads and searches, edits, fetches and MCP tools (the
/// settings [`crate::launch::policy_settings`] gives it have it ask about the
/// reads and read-only commands it otherwise runs unasked).
pub(crate) fn asks_for() -> Vec<ToolKind> {
    vec![
        ToolKind::Shell,
        ToolKind::Read,
        ToolKind::Write,
        ToolKind::Fetch,
        ToolKind::Mcp,
    ]
}

/// The request a `can_use_tool` control request for `tool` with `input` makes.
pub(crate) fn request(tool: &str, input: &Value) -> ToolRequest {
    let text = |key: &str| input.get(key).and_then(Value::as_str);
    let file = || text("file_path").or_else(|| text("notebook_path"));
    let described = match tool {
        "Bash" => text("command").map(tool_request::shell),
        "Read" | "NotebookRead" => file().map(tool_request::read),
        // A search without a path searches the session's directory.
        "Glob" | "Grep" | "LS" => Some(tool_request::read(text("path").unwrap_or("."))),
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => file().map(tool_request::write),
        "WebFetch" | "WebSearch" => Some(tool_request::fetch()),
        name => tool_request::mcp_prefixed(name),
    };
    described.unwrap_or_else(tool_request::other)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_map_to_their_kinds() {
        let bash = request("Bash", &json!({"command": "rm -rf build"}));
        assert_eq!(bash, tool_request::shell("rm -rf build"));
        let edit = request("Edit", &json!({"file_path": "/w/a.rs", "old_string": "x"}));
        assert_eq!(edit, tool_request::write("/w/a.rs"));
        let notebook = request("NotebookEdit", &json!({"notebook_path": "n.ipynb"}));
        assert_eq!(notebook, tool_request::write("n.ipynb"));
        assert_eq!(
            request("Read", &json!({"file_path": "/etc/passwd"})),
            tool_request::read("/etc/passwd")
        );
        assert_eq!(
            request("Grep", &json!({"pattern": "x"})),
            tool_request::read(".")
        );
        assert_eq!(
            request("WebFetch", &json!({"url": "https://x"})),
            tool_request::fetch()
        );
        assert_eq!(
            request("mcp__desktop__click", &json!({"x": 1})),
            tool_request::mcp("desktop", "click")
        );
        assert_eq!(request("Task", &json!({})), tool_request::other());
        // A command without its command line cannot be matched on: other.
        assert_eq!(request("Bash", &json!({})), tool_request::other());
    }
}
