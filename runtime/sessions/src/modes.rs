//! Changing a running session's agent mode and permission mode.

use agentplex_api::SessionModes;
use agentplex_host::AdapterInfo;
use agentplex_session::{Command, Modes};

use crate::{SessionError, SessionManager, PERMISSION_MODES};

/// The capability of an adapter that applies a session's changed modes: the
/// host rebuilds its session from its snapshot with the new modes in its
/// configuration, and it applies them from the next message on.
pub const CAPABILITY: &str = "mode-change";

impl SessionManager {
    /// Runs session `id` with the modes `change` names (a mode left out keeps
    /// its value) from its next message on; answers both modes. Refused for an
    /// agent whose adapter cannot change modes in a session, for a mode the
    /// agent does not have, and for an ended session.
    pub async fn set_modes(
        &self,
        id: &str,
        change: SessionModes,
    ) -> Result<SessionModes, SessionError> {
        let session = self.get(id)?;
        let current = session.info();
        let adapter = self.catalog.adapter(&current.agent)?;
        let info = adapter.info();
        if !info.has(CAPABILITY) {
            return Err(SessionError::ModeNotSupported(format!(
                "agent {:?} cannot change modes in a running session (its adapter does not \
                 declare `{CAPABILITY}`): create a session with the modes wanted",
                info.id
            )));
        }
        let agent_mode = change.agent_mode.unwrap_or(current.agent_mode);
        check_agent_mode(info, &agent_mode)?;
        let permission_mode = change.permission_mode.unwrap_or(current.permission_mode);
        check_permission_mode(&permission_mode)?;
        let modes = Modes {
            agent_mode,
            permission_mode,
        };
        session.command(Command::SetModes(modes.clone())).await?;
        Ok(SessionModes {
            agent_mode: Some(modes.agent_mode),
            permission_mode: Some(modes.permission_mode),
        })
    }
}

/// Refuses an agent mode the agent does not have.
pub(crate) fn check_agent_mode(info: &AdapterInfo, agent_mode: &str) -> Result<(), SessionError> {
    if info.modes.iter().any(|mode| mode.id == agent_mode) {
        return Ok(());
    }
    let modes: Vec<&str> = info.modes.iter().map(|mode| mode.id.as_str()).collect();
    Err(SessionError::ModeNotSupported(format!(
        "agent {:?} has no mode {agent_mode:?}; its modes are {modes:?}",
        info.id
    )))
}

/// Refuses a permission mode that is not one of [`PERMISSION_MODES`].
pub(crate) fn check_permission_mode(permission_mode: &str) -> Result<(), SessionError> {
    if PERMISSION_MODES.contains(&permission_mode) {
        return Ok(());
    }
    Err(SessionError::InvalidRequest(format!(
        "invalid permission mode {permission_mode:?}: use one of {PERMISSION_MODES:?}"
    )))
}
