//! What a session adds to OpenCode's configuration: its MCP servers (`mcp`), its
//! skills (`skills.paths`, OpenCode finds the `SKILL.md` in each folder) and the
//! providers pointed at the daemon's endpoints (`provider`, [`crate::gateway`]).
//!
//! They go in `OPENCODE_CONFIG_CONTENT`, the place OpenCode reads last, so they
//! win over a project's `opencode.json` and `.opencode/` folders as over the
//! global configuration (a config file named in `OPENCODE_CONFIG` would lose to
//! the project's, and would replace the user's own `OPENCODE_CONFIG`). When the
//! variable is already set (in the session's `env`, else the daemon's, which the
//! adapter is given as a credential setting), the session's additions are merged
//! into it key by key, its skill folders after the ones it lists: everything else
//! it says stays. Text that is not a JSON(C) object is left as it is, for
//! OpenCode to refuse with its own error.
//!
//! OpenCode merges arrays by replacing them, so a project's own `skills.paths`
//! gives way to the session's (its `.opencode/skills/` folders still count).

use sandbox_agent_adapter_kit::jsonc;
use sandbox_agent_adapter_kit::mcp::string_map;
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::{json, Map, Value};

use crate::credentials::CONFIG_CONTENT;
use crate::providers::merge;

/// The value of `OPENCODE_CONFIG_CONTENT` for the session: the one set with the
/// session's additions; `None` when it adds nothing (or the one set is not an
/// object), and the variable is left as it is.
pub(crate) fn content(config: &SessionConfig) -> Option<String> {
    let additions = additions(config)?;
    let mut merged = match config.variable(CONFIG_CONTENT) {
        None => Map::new(),
        Some(text) => match serde_json::from_str(&jsonc::to_json(text)) {
            Ok(Value::Object(set)) => set,
            _ => return None,
        },
    };
    let listed = skill_paths(&merged);
    merge(&mut merged, additions);
    if let Some(Value::Array(paths)) = merged.get_mut("skills").and_then(|s| s.get_mut("paths")) {
        let added = std::mem::replace(paths, listed);
        for path in added {
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    Some(Value::Object(merged).to_string())
}

/// The session's additions, `None` when it has none.
fn additions(config: &SessionConfig) -> Option<Map<String, Value>> {
    let mut additions = Map::new();
    if let Some(providers) = crate::gateway::providers(config) {
        additions.insert("provider".to_owned(), Value::Object(providers));
    }
    if !config.mcp_servers.is_empty() {
        let servers = mcp_config(&config.mcp_servers);
        additions.insert("mcp".to_owned(), Value::Object(servers));
    }
    if !config.skills.is_empty() {
        let paths: Vec<&str> = config
            .skills
            .iter()
            .map(|skill| skill.path.as_str())
            .collect();
        additions.insert("skills".to_owned(), json!({ "paths": paths }));
    }
    (!additions.is_empty()).then_some(additions)
}

/// The skill folders a configuration lists.
fn skill_paths(config: &Map<String, Value>) -> Vec<Value> {
    config
        .get("skills")
        .and_then(|skills| skills.get("paths"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// The session's MCP servers in OpenCode's `mcp` config: `local` servers with a
/// `command` list and an `environment`, `remote` ones with a `url` and `headers`.
fn mcp_config(servers: &[McpServer]) -> Map<String, Value> {
    servers
        .iter()
        .map(|server| {
            let mut entry = match &server.transport {
                McpTransport::Local(local) => json!({
                    "type": "local",
                    "command": local.command,
                    "environment": string_map(&local.env),
                    "enabled": true,
                }),
                McpTransport::Remote(remote) => json!({
                    "type": "remote",
                    "url": remote.url,
                    "headers": string_map(&remote.headers),
                    "enabled": true,
                }),
            };
            let timeout = match &server.transport {
                McpTransport::Local(local) => local.timeout_ms,
                McpTransport::Remote(remote) => remote.timeout_ms,
            };
            if let Some(timeout) = timeout {
                entry["timeout"] = timeout.into();
            }
            (server.name.clone(), entry)
        })
        .collect()
}

#[cfg(test)]
mod tests;
