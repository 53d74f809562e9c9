//! What OpenCode's permission requests ask for, as an approval policy sees them:
//! its permission names (`bash`, `edit`, `read`...) with their patterns and
//! metadata mapped to the policy's tool kinds.

use sandbox_agent_adapter_kit::tool_request;
use sandbox_agent_adapter_kit::types::{ToolKind, ToolRequest};
use serde_json::Value;

/// What OpenCode asks permission for with the permission rules the adapter gives
/// a session with a policy: commands, reads and searches, edits, fetches and paths
/// outside the project (`other`). It runs MCP tools unasked.
pub(crate) fn asks_for() -> Vec<ToolKind> {
    vec![
        ToolKind::Shell,
        ToolKind::Read,
        ToolKind::Write,
        ToolKind::Fetch,
        ToolKind::Other,
    ]
}

/// The request a `permission.asked` event's properties make, with the tool call
/// that asks (its tool and input) when it is known: a read's patterns are relative
/// to the project's worktree (`/` outside a git repository), its input's path to
/// the session's directory, as a policy's paths are; a path outside the project
/// (`external_directory`) is the read or write its call makes.
pub(crate) fn request(properties: &Value, call: Option<(&str, &Value)>) -> ToolRequest {
    let text = |key: &str| properties.get(key).and_then(Value::as_str);
    let input_path = ["filePath", "path"]
        .iter()
        .find_map(|key| call?.1.get(key)?.as_str());
    let tool = call.map(|(tool, _)| tool);
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
        "read" | "list" | "glob" | "grep" => match meta("filepath").or(input_path) {
            Some(path) => tool_request::read(path),
            None if patterns.len() == 1 => tool_request::read(patterns[0]),
            None => tool_request::other(),
        },
        "webfetch" | "websearch" | "codesearch" => tool_request::fetch(),
        "external_directory" => match (tool, input_path) {
            (Some("read" | "list" | "glob" | "grep"), Some(path)) => tool_request::read(path),
            (Some("edit" | "write" | "patch" | "multiedit"), Some(path)) => {
                tool_request::write(path)
            }
            _ => tool_request::other(),
        },
        _ => tool_request::other(),
    }
}

/// OpenCode's permissions an approval policy decides, with the kind of tool each
/// is about: a session with a policy has a rule for each (see
/// [`crate::api::create_session`]).
pub(crate) const PERMISSIONS: [(&str, ToolKind); 9] = [
    ("bash", ToolKind::Shell),
    ("edit", ToolKind::Write),
    ("webfetch", ToolKind::Fetch),
    ("read", ToolKind::Read),
    ("list", ToolKind::Read),
    ("glob", ToolKind::Read),
    ("grep", ToolKind::Read),
    ("websearch", ToolKind::Fetch),
    ("codesearch", ToolKind::Fetch),
];

/// What a call of `tool` with `input` asks for, when the tool is one whose
/// permission [`PERMISSIONS`] has (edits, writes and patches share `edit`);
/// `None` for the others (MCP tools, todos, tasks...), which no rule decides.
pub(crate) fn call_request(tool: &str, input: &Value) -> Option<ToolRequest> {
    let text = |key: &str| input.get(key).and_then(Value::as_str);
    let path = || text("filePath").or_else(|| text("path"));
    Some(match tool {
        "bash" => tool_request::shell(text("command")?),
        "read" | "list" | "glob" | "grep" => tool_request::read(path().unwrap_or(".")),
        "edit" | "write" | "multiedit" => tool_request::write(path()?),
        "webfetch" | "websearch" | "codesearch" => tool_request::fetch(),
        _ => return None,
    })
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
            request(&bash, None),
            tool_request::shell("echo hello > hello.txt")
        );
        let parsed = json!({"permission": "bash", "patterns": ["ls", "rm x"], "metadata": {}});
        assert_eq!(request(&parsed, None), tool_request::shell("ls\nrm x"));
        let edit = json!({"permission": "edit", "patterns": ["a.txt"],
            "metadata": {"filepath": "/w/a.txt", "diff": "..."}});
        assert_eq!(request(&edit, None), tool_request::write("/w/a.txt"));
        let bare_edit = json!({"permission": "edit", "patterns": ["a.txt", "b.txt"]});
        assert_eq!(
            request(&bare_edit, None),
            tool_request::writes(["a.txt", "b.txt"])
        );
        let fetch = json!({"permission": "webfetch", "patterns": ["https://x"]});
        assert_eq!(request(&fetch, None), tool_request::fetch());
        let outside = json!({"permission": "external_directory", "patterns": ["/tmp/*"]});
        assert_eq!(request(&outside, None), tool_request::other());
        assert_eq!(request(&json!({}), None), tool_request::other());
    }

    #[test]
    fn calls_of_the_decided_tools_are_described_by_their_input() {
        let call = |tool, input| call_request(tool, &input);
        assert_eq!(
            call("bash", json!({"command": "ls"})),
            Some(tool_request::shell("ls"))
        );
        assert_eq!(
            call("read", json!({"filePath": "a.txt"})),
            Some(tool_request::read("a.txt"))
        );
        assert_eq!(
            call("glob", json!({"pattern": "*"})),
            Some(tool_request::read("."))
        );
        assert_eq!(
            call("write", json!({"filePath": "b.txt", "content": "x"})),
            Some(tool_request::write("b.txt"))
        );
        assert_eq!(call("webfetch", json!({})), Some(tool_request::fetch()));
        assert_eq!(call("todowrite", json!({})), None);
        assert_eq!(call("calc_add", json!({})), None);
        assert_eq!(call("bash", json!({})), None);
    }

    #[test]
    fn a_read_is_described_by_its_calls_path_not_its_worktree_relative_pattern() {
        let read = json!({"permission": "read", "patterns": ["tmp/ws/session/x"]});
        let input = json!({"filePath": "x"});
        assert_eq!(
            request(&read, Some(("read", &input))),
            tool_request::read("x")
        );
        assert_eq!(request(&read, None), tool_request::read("tmp/ws/session/x"));
        let outside = json!({"permission": "external_directory", "patterns": ["/etc/*"]});
        let hosts = json!({"filePath": "/etc/hosts"});
        assert_eq!(
            request(&outside, Some(("write", &hosts))),
            tool_request::write("/etc/hosts")
        );
        assert_eq!(
            request(&outside, Some(("read", &hosts))),
            tool_request::read("/etc/hosts")
        );
        assert_eq!(
            request(&outside, Some(("bash", &hosts))),
            tool_request::other()
        );
    }
}
