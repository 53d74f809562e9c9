//! The agents' tools, and how to call the right one for a scripted action.
//!
//! Agents name their tools differently (Claude Code `Bash`, Codex `exec_command`,
//! OpenCode `bash`...). Each function here looks for the tools it knows by name
//! among those the request offers and builds that tool's arguments.

use serde_json::{json, Value};

use crate::script::{ToolCall, ToolInput};

/// A tool the agent offers the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The tool's name.
    pub name: String,
    /// The namespace the tool belongs to (the Responses API groups Codex's MCP
    /// tools as `mcp__calc`); a call names both.
    pub namespace: Option<String>,
    /// How the model calls it.
    pub kind: ToolKind,
    /// The JSON schema of its arguments (empty for free-form tools).
    pub schema: Value,
}

/// How the model calls a [`Tool`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// With JSON arguments.
    Function,
    /// With raw text (a custom tool).
    FreeForm,
    /// The agent's built-in tool search (the Responses API's `tool_search` tool,
    /// called with a `tool_search_call` item).
    Search,
}

impl Tool {
    /// A function tool with a JSON schema.
    pub fn function(name: &str, schema: Value) -> Self {
        Self::new(name, ToolKind::Function, schema)
    }

    /// A free-form tool.
    pub fn free_form(name: &str) -> Self {
        Self::new(name, ToolKind::FreeForm, Value::Null)
    }

    /// A built-in tool search (named `tool_search`).
    pub fn search(schema: Value) -> Self {
        Self::new(SEARCH, ToolKind::Search, schema)
    }

    /// The tool in `namespace`.
    pub fn in_namespace(self, namespace: &str) -> Self {
        Self {
            namespace: Some(namespace.to_owned()),
            ..self
        }
    }

    fn new(name: &str, kind: ToolKind, schema: Value) -> Self {
        Self {
            name: name.to_owned(),
            namespace: None,
            kind,
            schema,
        }
    }

    fn has_property(&self, property: &str) -> bool {
        self.schema["properties"].get(property).is_some()
    }

    fn call(&self, id: &str, input: ToolInput) -> ToolCall {
        ToolCall {
            id: id.to_owned(),
            name: self.name.clone(),
            namespace: self.namespace.clone(),
            input,
        }
    }
}

/// The name agents give their tool search (Codex's built-in one, Qwen Code's function).
pub const SEARCH: &str = "tool_search";

fn find<'a>(tools: &'a [Tool], names: &[&str]) -> Option<&'a Tool> {
    names
        .iter()
        .find_map(|name| tools.iter().find(|tool| tool.name == *name))
}

/// A call of the agent's skill tool (Claude Code's `Skill`, OpenCode's `skill`) for the
/// skill `name`, in the argument its schema names (`skill` or `name`).
pub fn skill(tools: &[Tool], id: &str, name: &str) -> Option<ToolCall> {
    let tool = find(tools, &["Skill", "skill"])?;
    let argument = if tool.has_property("name") {
        "name"
    } else {
        "skill"
    };
    Some(tool.call(id, ToolInput::Json(json!({ argument: name }))))
}

/// A call of the MCP tool `name` with JSON `arguments`. Agents offer an MCP server's
/// tools under their own names (`mcp__calc__add`, `calc_add`, `add`...): the tool
/// named `name`, or ending in `name` after a separator, is called.
///
/// A tool that only a tool search `found` is called directly when the agent does
/// not declare it (Codex loads found tools into the conversation), or through the
/// agent's `tool_call` tool when it has one (Qwen Code keeps found tools hidden).
pub fn mcp(
    tools: &[Tool],
    found: &[Tool],
    id: &str,
    name: &str,
    arguments: Value,
) -> Option<ToolCall> {
    if let Some(tool) = named(tools, name) {
        return Some(tool.call(id, ToolInput::Json(arguments)));
    }
    let tool = named(found, name)?;
    Some(match find(tools, &["tool_call"]) {
        Some(bridge) => bridge.call(
            id,
            ToolInput::Json(json!({ "name": tool.name, "arguments": arguments })),
        ),
        None => tool.call(id, ToolInput::Json(arguments)),
    })
}

/// The tool named `name`, or ending in `name` after a separator.
fn named<'a>(tools: &'a [Tool], name: &str) -> Option<&'a Tool> {
    tools.iter().find(|tool| {
        tool.name == name
            || ["__", "_", "-", "."]
                .iter()
                .any(|separator| tool.name.ends_with(&format!("{separator}{name}")))
    })
}

/// A search of the agent's deferred tools for `query` (Codex's built-in
/// `tool_search`, Qwen Code's `tool_search` function).
pub fn search(tools: &[Tool], id: &str, query: &str) -> Option<ToolCall> {
    let tool = find(tools, &[SEARCH])?;
    let arguments = json!({ "query": query });
    Some(tool.call(
        id,
        match tool.kind {
            ToolKind::Search => ToolInput::Search(arguments),
            _ => ToolInput::Json(arguments),
        },
    ))
}

/// A call of the shell tool running `command`.
pub fn shell(tools: &[Tool], id: &str, command: &str) -> Option<ToolCall> {
    let names = [
        "Bash",
        "bash",
        "exec_command",
        "shell_command",
        "shell",
        "run_shell_command",
    ];
    let tool = find(tools, &names)?;
    let arguments = if tool.name == "shell" && !tool.has_property("cmd") {
        // Codex's classic `shell` takes an argv.
        json!({ "command": ["bash", "-lc", command] })
    } else if tool.has_property("cmd") {
        json!({ "cmd": command })
    } else {
        json!({ "command": command, "description": "Run the command" })
    };
    Some(tool.call(id, ToolInput::Json(arguments)))
}

/// A call that writes `content` to `path` (a patch for Codex's `apply_patch`).
///
/// A tool whose path argument must be absolute gets `path` under `working_dir`,
/// as a real model would write it.
pub fn write(
    tools: &[Tool],
    id: &str,
    path: &str,
    content: &str,
    working_dir: Option<&str>,
) -> Option<ToolCall> {
    if let Some(tool) = find(tools, &["apply_patch"]) {
        let added: String = content.lines().map(|line| format!("+{line}\n")).collect();
        let patch = format!("*** Begin Patch\n*** Add File: {path}\n{added}*** End Patch\n");
        let input = if tool.kind == ToolKind::FreeForm {
            ToolInput::Text(patch)
        } else {
            ToolInput::Json(json!({ "input": patch }))
        };
        return Some(tool.call(id, input));
    }
    let tool = find(tools, &["Write", "write", "write_file"])?;
    let path_key = path_property(tool);
    let wants_absolute = tool.schema["properties"][path_key]["description"]
        .as_str()
        .is_some_and(|description| description.to_lowercase().contains("absolute"));
    let absolute;
    let path = match working_dir {
        Some(dir) if wants_absolute && !path.starts_with('/') => {
            absolute = format!("{}/{path}", dir.trim_end_matches('/'));
            absolute.as_str()
        }
        _ => path,
    };
    Some(tool.call(
        id,
        ToolInput::Json(json!({ path_key: path, "content": content })),
    ))
}

/// A call that reads `path` (a `cat` through the shell when there is no read tool).
pub fn read(tools: &[Tool], id: &str, path: &str) -> Option<ToolCall> {
    match find(tools, &["Read", "read", "read_file"]) {
        Some(tool) => Some(tool.call(id, ToolInput::Json(json!({ path_property(tool): path })))),
        None => shell(tools, id, &format!("cat {path}")),
    }
}

/// A question with the options "yes" and "no" (Claude Code's `AskUserQuestion`,
/// Codex's `request_user_input`).
pub fn ask(tools: &[Tool], id: &str, question: &str) -> Option<ToolCall> {
    if let Some(tool) = find(tools, &["request_user_input"]) {
        return Some(tool.call(
            id,
            ToolInput::Json(json!({
                "questions": [{
                    "id": "q1",
                    "header": "Question",
                    "question": question,
                    "options": [
                        { "label": "yes", "description": "Yes" },
                        { "label": "no", "description": "No" },
                    ],
                }]
            })),
        ));
    }
    let tool = find(tools, &["AskUserQuestion"])?;
    Some(tool.call(
        id,
        ToolInput::Json(json!({
            "questions": [{
                "question": question,
                "header": "Question",
                "multiSelect": false,
                "options": [
                    { "label": "yes", "description": "Yes" },
                    { "label": "no", "description": "No" },
                ],
            }]
        })),
    ))
}

/// The end of plan mode with `plan` (Claude Code's `ExitPlanMode`).
pub fn exit_plan(tools: &[Tool], id: &str, plan: &str) -> Option<ToolCall> {
    let tool = find(tools, &["ExitPlanMode"])?;
    Some(tool.call(id, ToolInput::Json(json!({ "plan": plan }))))
}

/// The name the tool gives its path argument.
fn path_property(tool: &Tool) -> &'static str {
    ["file_path", "filePath", "absolute_path", "path"]
        .into_iter()
        .find(|key| tool.has_property(key))
        .unwrap_or("file_path")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_follow_each_agents_schema() {
        let codex = [Tool::function(
            "exec_command",
            json!({"properties": {"cmd": {"type": "string"}}}),
        )];
        let call = shell(&codex, "c1", "ls").unwrap();
        assert_eq!(call.input, ToolInput::Json(json!({"cmd": "ls"})));

        let opencode = [Tool::function(
            "write",
            json!({"properties": {"filePath": {}, "content": {}}}),
        )];
        let call = write(&opencode, "c2", "/tmp/a", "x", Some("/w")).unwrap();
        assert_eq!(
            call.input,
            ToolInput::Json(json!({"filePath": "/tmp/a", "content": "x"}))
        );

        let patcher = [Tool::free_form("apply_patch")];
        let ToolInput::Text(patch) = write(&patcher, "c3", "a.txt", "hi", None).unwrap().input
        else {
            panic!()
        };
        assert_eq!(
            patch,
            "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"
        );

        // A tool that wants an absolute path gets one under the working directory.
        let absolute = [Tool::function(
            "write_file",
            json!({"properties": {"file_path": {"description": "The absolute path"}, "content": {}}}),
        )];
        let call = write(&absolute, "c4", "notes.txt", "x", Some("/w/")).unwrap();
        assert_eq!(
            call.input,
            ToolInput::Json(json!({"file_path": "/w/notes.txt", "content": "x"}))
        );
        let call = write(&absolute, "c5", "notes.txt", "x", None).unwrap();
        assert_eq!(
            call.input,
            ToolInput::Json(json!({"file_path": "notes.txt", "content": "x"}))
        );
    }

    #[test]
    fn read_falls_back_to_cat() {
        let tools = [Tool::function("shell_command", json!({}))];
        let call = read(&tools, "c1", "x.txt").unwrap();
        assert_eq!(call.name, "shell_command");
    }
}
