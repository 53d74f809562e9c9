//! What a permission request asks for, as an approval policy sees it (WIT
//! `tool-request`, returned by [`crate::SessionMachine::describe_permission`]):
//! one constructor per kind of tool, and the MCP tool names agents use.

use crate::types::{ToolKind, ToolRequest};

/// A command line the agent would run in a shell.
pub fn shell(command: impl Into<String>) -> ToolRequest {
    request(ToolKind::Shell, Some(command.into()), Vec::new(), None)
}

/// A file the agent would read (or a folder it would list or search).
pub fn read(path: impl Into<String>) -> ToolRequest {
    request(ToolKind::Read, None, vec![path.into()], None)
}

/// A file the agent would write, create, edit, move or delete.
pub fn write(path: impl Into<String>) -> ToolRequest {
    writes([path])
}

/// Files the agent would change at once (a patch): each is decided, the
/// strictest decision stands.
pub fn writes<P: Into<String>>(paths: impl IntoIterator<Item = P>) -> ToolRequest {
    let paths = paths.into_iter().map(Into::into).collect();
    request(ToolKind::Write, None, paths, None)
}

/// A fetch from the network.
pub fn fetch() -> ToolRequest {
    request(ToolKind::Fetch, None, Vec::new(), None)
}

/// A tool of an MCP server, `server/tool`.
pub fn mcp(server: &str, tool: &str) -> ToolRequest {
    request(
        ToolKind::Mcp,
        None,
        Vec::new(),
        Some(format!("{server}/{tool}")),
    )
}

/// Anything else.
pub fn other() -> ToolRequest {
    request(ToolKind::Other, None, Vec::new(), None)
}

/// The command line a shell is given to run, when `words` are a shell and its
/// `-c` (or login `-lc`) and the line: `["/bin/bash", "-lc", "git status"]` is
/// `git status`, as agents wrap the commands their models write.
pub fn shell_line<W: AsRef<str>>(words: &[W]) -> Option<&str> {
    match words {
        [shell, flag, line] if matches!(flag.as_ref(), "-c" | "-lc") => {
            let shell = shell.as_ref();
            let name = shell.rsplit('/').next().unwrap_or(shell);
            matches!(name, "sh" | "bash" | "zsh" | "dash").then(|| line.as_ref())
        }
        _ => None,
    }
}

/// An MCP tool named the way Claude Code and the agents that copied it name them,
/// `mcp__server__tool`, as a request for `server/tool`; `None` for other names.
pub fn mcp_prefixed(name: &str) -> Option<ToolRequest> {
    let (server, tool) = name.strip_prefix("mcp__")?.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then(|| mcp(server, tool))
}

fn request(
    kind: ToolKind,
    command: Option<String>,
    paths: Vec<String>,
    mcp: Option<String>,
) -> ToolRequest {
    ToolRequest {
        kind,
        command,
        paths,
        mcp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_prefixed_names_split_at_the_server() {
        assert_eq!(
            mcp_prefixed("mcp__desktop__screenshot"),
            Some(mcp("desktop", "screenshot"))
        );
        assert_eq!(
            mcp_prefixed("mcp__files__read__all"),
            Some(mcp("files", "read__all"))
        );
        assert_eq!(mcp_prefixed("mcp__desktop"), None);
        assert_eq!(mcp_prefixed("mcp____tool"), None);
        assert_eq!(mcp_prefixed("Bash"), None);
    }

    #[test]
    fn shell_lines_come_out_of_their_shell() {
        assert_eq!(
            shell_line(&["/bin/bash", "-lc", "git status"]),
            Some("git status")
        );
        assert_eq!(shell_line(&["sh", "-c", "ls"]), Some("ls"));
        assert_eq!(shell_line(&["python3", "-c", "print(1)"]), None);
        assert_eq!(shell_line(&["bash", "-x", "ls"]), None);
        assert_eq!(shell_line(&["bash", "-lc"]), None);
    }

    #[test]
    fn each_kind_fills_its_own_field() {
        assert_eq!(shell("ls").command.as_deref(), Some("ls"));
        assert_eq!(read("a").paths, ["a"]);
        assert_eq!(write("b").kind, ToolKind::Write);
        assert_eq!(writes(["b", "c"]).paths, ["b", "c"]);
        assert_eq!(fetch().kind, ToolKind::Fetch);
        assert_eq!(other(), request(ToolKind::Other, None, Vec::new(), None));
    }
}
