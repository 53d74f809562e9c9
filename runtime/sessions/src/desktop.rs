//! A session's desktop tools: the create request's `desktop` checked, and at each
//! launch a new grant of the daemon's desktop MCP server added to the agent's MCP
//! servers (its token is never stored: a relaunch after a restart gets a new one).

use std::collections::BTreeMap;

use agentplex_api::McpServerConfig;
use agentplex_desktop_mcp::{Grant, Grantee, SERVER_NAME};
use agentplex_host::{
    AdapterInfo, McpAuth, McpRemote, McpRemoteTransport, McpServer, McpTransport,
};
use agentplex_store::SessionRecord;

use crate::{SessionError, SessionManager};

impl SessionManager {
    /// Refuses `desktop` for an agent that cannot take MCP servers, beside a server
    /// of the client's with the tools' name, on a daemon without the tools, and
    /// where the desktop cannot run.
    pub(crate) fn check_desktop(
        &self,
        info: &AdapterInfo,
        mcp: &BTreeMap<String, McpServerConfig>,
    ) -> Result<(), SessionError> {
        if !info.has("mcp-servers") {
            return Err(SessionError::InvalidRequest(format!(
                "agent {:?} cannot take the desktop's tools (`desktop`): they are an MCP server, and its adapter does not declare the \"mcp-servers\" capability (GET /v1/agents shows each agent's capabilities)",
                info.id
            )));
        }
        if mcp.contains_key(SERVER_NAME) {
            return Err(SessionError::InvalidRequest(format!(
                "`mcp.{SERVER_NAME}`: the desktop's tools take that name with `desktop: true`; name the server otherwise"
            )));
        }
        let Some(tools) = &self.desktop_tools else {
            return Err(SessionError::NotConfigured(
                "this daemon serves no desktop tools".into(),
            ));
        };
        tools.available()?;
        Ok(())
    }

    /// A new grant of the desktop's tools for the session of `record`, if it has
    /// them, its server added to `servers`.
    pub(crate) fn desktop_grant(
        &self,
        record: &SessionRecord,
        servers: &mut Vec<McpServer>,
    ) -> Option<Grant> {
        if !record.desktop {
            return None;
        }
        let Some(tools) = &self.desktop_tools else {
            tracing::warn!(session = %record.id, "the session had the desktop's tools; this daemon serves none");
            return None;
        };
        let grant = tools.grant(Grantee {
            session_id: record.id.clone(),
            directory: record.directory.clone().into(),
        });
        servers.push(McpServer {
            name: SERVER_NAME.into(),
            transport: McpTransport::Remote(McpRemote {
                url: grant.url().to_owned(),
                transport: McpRemoteTransport::Http,
                headers: vec![("Authorization".into(), grant.authorization())],
                auth: McpAuth::Disabled,
                timeout_ms: None,
            }),
        });
        Some(grant)
    }
}
