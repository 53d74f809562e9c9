//! What an ACP agent's `session/request_permission` asks for, as an approval
//! policy sees it: the tool call's ACP kind with its command or locations.

use serde_json::Value;

use crate::tool_request;
use crate::types::ToolRequest;

/// The request a permission request's `toolCall` makes: `execute` runs its
/// `rawInput.command` (or, as Gemini CLI and Qwen Code send it, its title);
/// `edit`, `delete` and `move` write, `read` and `search` read their locations
/// (their `rawInput` path when they name none); `fetch` fetches; MCP tools named
/// `mcp__server__tool` (in `_meta.toolName`, as Qwen Code sends it, or the title)
/// or titled `tool (server MCP Server)` (Gemini CLI) are theirs; anything else is
/// `other`.
pub(crate) fn request(tool_call: &Value) -> ToolRequest {
    let kind = tool_call["kind"].as_str().unwrap_or_default();
    let input = &tool_call["rawInput"];
    let paths = || -> Vec<String> {
        let located: Vec<String> = tool_call["locations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|location| location["path"].as_str().map(str::to_owned))
            .collect();
        if !located.is_empty() {
            return located;
        }
        ["file_path", "path", "filePath", "absolute_path"]
            .iter()
            .find_map(|key| input[*key].as_str())
            .map(str::to_owned)
            .into_iter()
            .collect()
    };
    match kind {
        "execute" => match command_line(&input["command"]).or_else(|| title(tool_call)) {
            Some(line) => tool_request::shell(line),
            None => tool_request::other(),
        },
        "edit" | "delete" | "move" => tool_request::writes(paths()),
        "read" | "search" => match paths().as_slice() {
            [path] => tool_request::read(path.clone()),
            _ => tool_request::other(),
        },
        "fetch" => tool_request::fetch(),
        _ => tool_call["_meta"]["toolName"]
            .as_str()
            .and_then(tool_request::mcp_prefixed)
            .or_else(|| {
                let title = title(tool_call)?;
                tool_request::mcp_prefixed(&title).or_else(|| mcp_titled(&title))
            })
            .unwrap_or_else(tool_request::other),
    }
}

/// The MCP tool of a title `tool (server MCP Server)`.
fn mcp_titled(title: &str) -> Option<ToolRequest> {
    let (tool, server) = title.strip_suffix(" MCP Server)")?.rsplit_once(" (")?;
    (!tool.is_empty() && !server.is_empty()).then(|| tool_request::mcp(server, tool))
}

/// A command as a line: a string as it is, a program with its arguments joined
/// (the line a login shell would be given when it is `[shell, "-c"|"-lc", line]`).
fn command_line(command: &Value) -> Option<String> {
    if let Some(line) = command.as_str() {
        return Some(line.to_owned());
    }
    let words: Vec<&str> = command
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    if words.is_empty() {
        return None;
    }
    let line = match tool_request::shell_line(&words) {
        Some(line) => line.to_owned(),
        None => words
            .iter()
            .map(|word| quoted(word))
            .collect::<Vec<_>>()
            .join(" "),
    };
    Some(line)
}

fn title(tool_call: &Value) -> Option<String> {
    tool_call["title"]
        .as_str()
        .filter(|title| !title.is_empty())
        .map(str::to_owned)
}

/// A word as a shell reads it back: single-quoted when it holds anything but
/// plain characters.
fn quoted(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds_map_to_requests() {
        let gemini = json!({"kind": "execute", "title": "touch a.txt", "locations": []});
        assert_eq!(request(&gemini), tool_request::shell("touch a.txt"));
        let argv = json!({"kind": "execute", "title": "x",
            "rawInput": {"command": ["/bin/bash", "-lc", "git status && ls"]}});
        assert_eq!(request(&argv), tool_request::shell("git status && ls"));
        let program = json!({"kind": "execute", "rawInput": {"command": ["rm", "-rf", "my dir"]}});
        assert_eq!(request(&program), tool_request::shell("rm -rf 'my dir'"));
        let edit = json!({"kind": "edit", "locations": [{"path": "/w/a"}, {"path": "/w/b"}]});
        assert_eq!(request(&edit), tool_request::writes(["/w/a", "/w/b"]));
        let raw_edit = json!({"kind": "edit", "rawInput": {"file_path": "/w/c"}});
        assert_eq!(request(&raw_edit), tool_request::write("/w/c"));
        let read = json!({"kind": "read", "locations": [{"path": "/etc/hosts"}]});
        assert_eq!(request(&read), tool_request::read("/etc/hosts"));
        assert_eq!(request(&json!({"kind": "fetch"})), tool_request::fetch());
        let mcp = json!({"kind": "other", "title": "mcp__desktop__click"});
        assert_eq!(request(&mcp), tool_request::mcp("desktop", "click"));
        let titled = json!({"kind": "other", "title": "add (calc MCP Server)"});
        assert_eq!(request(&titled), tool_request::mcp("calc", "add"));
        let named =
            json!({"kind": "other", "title": "{\"a\":2}", "_meta": {"toolName": "mcp__calc__add"}});
        assert_eq!(request(&named), tool_request::mcp("calc", "add"));
        let other = json!({"kind": "other", "title": "Run (soon)"});
        assert_eq!(request(&other), tool_request::other());
        assert_eq!(request(&json!({"kind": "think"})), tool_request::other());
        assert_eq!(request(&json!({"kind": "execute"})), tool_request::other());
    }
}
