//! A session's MCP servers in the `mcpServers` JSON shape that many agents read
//! (Claude Code's `--mcp-config`, `.mcp.json` files): a map from server name to
//! `{type: "stdio", command, args, env}` or `{type: "http" | "sse", url, headers}`.
//!
//! The servers' secrets (header values, environments) never go on an agent's
//! command line, which every process can read: an adapter writes the configuration
//! to [`CONFIG_FILE`] in the session's scratch folder (`Actions::write_file`; the
//! host makes it 0600) and names that file (`SessionConfig::scratch_path`).

use serde_json::{json, Map, Value};

use crate::types::{McpRemoteTransport, McpServer, McpTransport};

/// The file in the session's scratch folder that holds its MCP configuration, for
/// agents that read it from a file they are given.
pub const CONFIG_FILE: &str = "mcp-servers.json";

/// `{"mcpServers": {...}}` for `servers`.
pub fn mcp_servers_config(servers: &[McpServer]) -> Value {
    json!({ "mcpServers": mcp_servers_map(servers) })
}

/// Name/value pairs (a server's environment or headers) as a JSON object, the form
/// agents' MCP configurations take them in.
pub fn string_map(pairs: &[(String, String)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(name, value)| (name.clone(), Value::String(value.clone())))
        .collect()
}

/// The server name → server map of [`mcp_servers_config`].
pub fn mcp_servers_map(servers: &[McpServer]) -> Map<String, Value> {
    servers
        .iter()
        .map(|server| {
            let entry = match &server.transport {
                McpTransport::Local(local) => json!({
                    "type": "stdio",
                    "command": local.command.first().cloned().unwrap_or_default(),
                    "args": local.command.iter().skip(1).collect::<Vec<_>>(),
                    "env": string_map(&local.env),
                }),
                McpTransport::Remote(remote) => json!({
                    "type": match remote.transport {
                        McpRemoteTransport::Http => "http",
                        McpRemoteTransport::Sse => "sse",
                    },
                    "url": remote.url,
                    "headers": string_map(&remote.headers),
                }),
            };
            (server.name.clone(), entry)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{McpAuth, McpLocal, McpRemote};

    #[test]
    fn local_and_remote_servers_take_the_mcp_json_shape() {
        let servers = [
            McpServer {
                name: "calc".into(),
                transport: McpTransport::Local(McpLocal {
                    command: vec!["node".into(), "add.mjs".into()],
                    env: vec![("K".into(), "V".into())],
                    cwd: None,
                    timeout_ms: None,
                }),
            },
            McpServer {
                name: "web".into(),
                transport: McpTransport::Remote(McpRemote {
                    url: "https://mcp.example/".into(),
                    transport: McpRemoteTransport::Sse,
                    headers: vec![("Authorization".into(), "Bearer t".into())],
                    auth: McpAuth::AgentDefault,
                    timeout_ms: None,
                }),
            },
        ];
        assert_eq!(
            mcp_servers_config(&servers),
            json!({ "mcpServers": {
                "calc": { "type": "stdio", "command": "node", "args": ["add.mjs"], "env": { "K": "V" } },
                "web": { "type": "sse", "url": "https://mcp.example/", "headers": { "Authorization": "Bearer t" } },
            }})
        );
    }
}
