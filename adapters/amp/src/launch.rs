//! The processes a session starts: the `--help` probe and one `amp` per turn.

use sandbox_agent_adapter_kit::mcp::{self, string_map};
use sandbox_agent_adapter_kit::prelude::*;

use crate::flags::{Flags, Resume};

/// The program when the session has no installed binary path.
pub(crate) const PROGRAM: &str = "amp";

/// `amp --help`, whose output says which flags this version has.
pub(crate) fn probe(config: &SessionConfig, process_id: &str) -> SpawnRequest {
    SpawnRequest::command(process_id, [config.program(PROGRAM), "--help"])
}

/// One turn: execute mode with stream-json output, continuing `thread` when given.
/// The prompt goes to stdin (written by the session), never into argv, so a message
/// that starts with `-` is not read as a flag.
pub(crate) fn turn(
    config: &SessionConfig,
    flags: &Flags,
    process_id: &str,
    thread: Option<&str>,
) -> SpawnRequest {
    let mut argv: Vec<String> = vec![config.program(PROGRAM).to_owned()];
    let thread = thread.filter(|id| !id.is_empty());
    if let (Some(id), Resume::ThreadsContinue) = (thread, flags.resume) {
        argv.extend(["threads".to_owned(), "continue".to_owned(), id.to_owned()]);
    }
    argv.push(flags.execute.clone());
    argv.extend(flags.stream.iter().cloned());
    if let (Some(id), Resume::Flag) = (thread, flags.resume) {
        argv.extend(["--continue".to_owned(), id.to_owned()]);
    }
    if bypass(config) {
        argv.push(flags.bypass.clone());
    }
    argv.extend(text::flag(&flags.model, config.chosen_model()));
    if !config.mcp_servers.is_empty() {
        argv.extend([
            "--mcp-config".to_owned(),
            config.scratch_path(mcp::CONFIG_FILE),
        ]);
    }
    SpawnRequest::command(process_id, argv)
}

/// The file `--mcp-config` names ([`mcp::CONFIG_FILE`] in the scratch folder: every
/// listed Amp release takes "JSON configuration or file path" there, and the
/// servers' secrets stay off the command line, where every process could read
/// them), when the session has MCP servers.
pub(crate) fn mcp_config_file(config: &SessionConfig) -> Option<(&'static str, Vec<u8>)> {
    if config.mcp_servers.is_empty() {
        return None;
    }
    let servers = mcp_config(&config.mcp_servers).to_string();
    Some((mcp::CONFIG_FILE, servers.into_bytes()))
}

/// The session's MCP servers as Amp's `--mcp-config` JSON (it merges with the
/// user's settings): Amp's `amp.mcpServers` map, a local `command` with `args` and
/// `env`, or a remote `url` with `headers`.
fn mcp_config(servers: &[McpServer]) -> serde_json::Value {
    let servers: serde_json::Map<String, serde_json::Value> = servers
        .iter()
        .map(|server| {
            let entry = match &server.transport {
                McpTransport::Local(local) => serde_json::json!({
                    "command": local.command.first().cloned().unwrap_or_default(),
                    "args": local.command.iter().skip(1).collect::<Vec<_>>(),
                    "env": string_map(&local.env),
                }),
                McpTransport::Remote(remote) => serde_json::json!({
                    "url": remote.url,
                    "headers": string_map(&remote.headers),
                }),
            };
            (server.name.clone(), entry)
        })
        .collect();
    serde_json::Value::Object(servers)
}

/// True when the session skips permission prompts (permission mode `bypass`).
pub(crate) fn bypass(config: &SessionConfig) -> bool {
    config.permission_mode == "bypass"
}

/// What the turn process reads on stdin: the message's text, then the paths of its
/// attachments (execute mode takes text only), ending with a newline.
pub(crate) fn prompt(parts: &[MessagePart]) -> String {
    let paths = text::attachment_paths(parts);
    let mut prompt = text::with_attached_files(text::message_text(parts), &paths);
    prompt.push('\n');
    prompt
}
