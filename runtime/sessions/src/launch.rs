//! A session's MCP servers and skills, from the create request to what the adapter
//! is given: disabled servers dropped, secrets read from the environment at each
//! launch (never stored); skills are found by [`super::skills`]. How an agent takes
//! them is its adapter's business.

use std::collections::BTreeMap;

use agentplex_api::{
    McpCommand, McpOAuthConfigOrDisabled, McpRemoteTransport as ApiTransport, McpServerConfig,
};
use agentplex_host::{
    AdapterInfo, McpAuth, McpLocal, McpOauth, McpRemote, McpRemoteTransport, McpServer,
    McpTransport,
};

use crate::SessionError;

/// The enabled servers of a request, by name.
pub fn enabled_servers(
    mcp: Option<BTreeMap<String, McpServerConfig>>,
) -> BTreeMap<String, McpServerConfig> {
    mcp.unwrap_or_default()
        .into_iter()
        .filter(|(_, server)| {
            let enabled = match server {
                McpServerConfig::Local { enabled, .. }
                | McpServerConfig::Remote { enabled, .. } => enabled,
            };
            enabled.unwrap_or(true)
        })
        .collect()
}

/// Refuses MCP servers or skills for an agent whose adapter cannot pass them on.
pub fn check_capabilities(info: &AdapterInfo, mcp: bool, skills: bool) -> Result<(), SessionError> {
    for (asked, capability, what) in [
        (mcp, "mcp-servers", "MCP servers (`mcp`)"),
        (skills, "skills", "skills (`skills`)"),
    ] {
        if asked && !info.has(capability) {
            return Err(SessionError::InvalidRequest(format!(
                "agent {:?} cannot take {what}: its adapter does not declare the {capability:?} capability (GET /v1/agents shows each agent's capabilities)",
                info.id
            )));
        }
    }
    Ok(())
}

/// The servers as the adapter receives them; header secrets are looked up with
/// `lookup` (the session's variables, then the daemon's environment).
pub fn servers(
    mcp: &BTreeMap<String, McpServerConfig>,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Vec<McpServer>, SessionError> {
    mcp.iter()
        .map(|(name, server)| {
            let transport = match server {
                McpServerConfig::Local {
                    command,
                    args,
                    env,
                    cwd,
                    timeout_ms,
                    ..
                } => McpTransport::Local(McpLocal {
                    command: argv(name, command, args)?,
                    env: env.clone().unwrap_or_default().into_iter().collect(),
                    cwd: cwd.clone(),
                    timeout_ms: *timeout_ms,
                }),
                McpServerConfig::Remote {
                    url,
                    transport,
                    headers,
                    env_headers,
                    bearer_token_env_var,
                    oauth,
                    timeout_ms,
                    ..
                } => {
                    let mut all: Vec<(String, String)> =
                        headers.clone().unwrap_or_default().into_iter().collect();
                    for (header, variable) in env_headers.iter().flatten() {
                        all.push((header.clone(), secret(name, variable, &lookup)?));
                    }
                    if let Some(variable) = bearer_token_env_var {
                        let token = secret(name, variable, &lookup)?;
                        all.push(("Authorization".into(), format!("Bearer {token}")));
                    }
                    McpTransport::Remote(McpRemote {
                        url: url.clone(),
                        transport: match transport {
                            Some(ApiTransport::Sse) => McpRemoteTransport::Sse,
                            _ => McpRemoteTransport::Http,
                        },
                        headers: all,
                        auth: match oauth {
                            None | Some(McpOAuthConfigOrDisabled::Enabled(true)) => {
                                McpAuth::AgentDefault
                            }
                            Some(McpOAuthConfigOrDisabled::Enabled(false)) => McpAuth::Disabled,
                            Some(McpOAuthConfigOrDisabled::Config(config)) => {
                                McpAuth::Oauth(McpOauth {
                                    client_id: config.client_id.clone(),
                                    client_secret: config.client_secret.clone(),
                                    scope: config.scope.clone(),
                                })
                            }
                        },
                        timeout_ms: *timeout_ms,
                    })
                }
            };
            Ok(McpServer {
                name: name.clone(),
                transport,
            })
        })
        .collect()
}

fn argv(name: &str, command: &McpCommand, args: &[String]) -> Result<Vec<String>, SessionError> {
    let mut argv = match command {
        McpCommand::Program(program) => vec![program.clone()],
        McpCommand::Argv(argv) => argv.clone(),
    };
    if argv.first().is_none_or(|program| program.trim().is_empty()) {
        return Err(SessionError::InvalidRequest(format!(
            "MCP server {name:?}: `command` names no program"
        )));
    }
    argv.extend(args.iter().cloned());
    Ok(argv)
}

fn secret(
    server: &str,
    variable: &str,
    lookup: &impl Fn(&str) -> Option<String>,
) -> Result<String, SessionError> {
    lookup(variable).filter(|value| !value.is_empty()).ok_or_else(|| {
        SessionError::InvalidRequest(format!(
            "MCP server {server:?} reads {variable} from the environment, and neither the session's `env` nor the daemon's environment sets it"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: serde_json::Value) -> BTreeMap<String, McpServerConfig> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn local_and_remote_servers_take_the_0_1_shapes() {
        let mcp = enabled_servers(Some(parse(json!({
            "calc": { "type": "local", "command": ["node", "server.js"], "args": ["--x"], "env": { "A": "1" } },
            "off": { "type": "local", "command": "x", "enabled": false },
            "web": { "type": "remote", "url": "https://mcp.example/", "transport": "sse",
                     "headers": { "X-A": "a" }, "envHeaders": { "X-Key": "KEY" },
                     "bearerTokenEnvVar": "TOKEN", "oauth": false },
        }))));
        assert_eq!(mcp.keys().collect::<Vec<_>>(), ["calc", "web"]);
        let lookup = |name: &str| Some(format!("<{name}>"));
        let servers = servers(&mcp, lookup).unwrap();
        let McpTransport::Local(local) = &servers[0].transport else {
            panic!()
        };
        assert_eq!(local.command, ["node", "server.js", "--x"]);
        assert_eq!(local.env, [("A".to_owned(), "1".to_owned())]);
        let McpTransport::Remote(remote) = &servers[1].transport else {
            panic!()
        };
        assert!(matches!(remote.transport, McpRemoteTransport::Sse));
        assert!(matches!(remote.auth, McpAuth::Disabled));
        assert_eq!(
            remote.headers,
            [
                ("X-A".to_owned(), "a".to_owned()),
                ("X-Key".to_owned(), "<KEY>".to_owned()),
                ("Authorization".to_owned(), "Bearer <TOKEN>".to_owned()),
            ]
        );
    }

    #[test]
    fn a_missing_secret_or_program_is_a_clear_400() {
        let mcp =
            parse(json!({ "web": { "type": "remote", "url": "u", "bearerTokenEnvVar": "NOPE" } }));
        let error = servers(&mcp, |_| None).unwrap_err();
        assert!(error.to_string().contains("NOPE"), "{error}");
        let mcp = parse(json!({ "x": { "type": "local", "command": [] } }));
        assert!(matches!(
            servers(&mcp, |_| None),
            Err(SessionError::InvalidRequest(_))
        ));
    }
}
