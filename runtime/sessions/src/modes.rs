//! Changing a running session's agent mode, permission mode and model.

use agentplex_api::{SessionChoices, SessionModes};
use agentplex_host::AdapterInfo;
use agentplex_session::{Command, Modes};
use agentplex_universal::AgentOffer;

use crate::{SessionError, SessionManager, PERMISSION_MODES};

/// The capability of an adapter that applies a session's changed modes: the
/// host rebuilds its session from its snapshot with the new modes in its
/// configuration, and it applies them from the next message on.
pub const CAPABILITY: &str = "mode-change";

/// The capability of an adapter that applies a session's changed model the
/// same way.
pub const MODEL_CAPABILITY: &str = "model-change";

/// The longest model name taken, in characters.
const MODEL_MAX: usize = 200;

/// The model names [`check_model`] takes, as a regular expression (for the
/// OpenAPI document): no control characters, no surrounding spaces, no `-`
/// first (a model may become a flag's value), 1 to [`MODEL_MAX`] characters.
pub const MODEL_PATTERN: &str = "^[^\\x00-\\x1f\\x7f-\\x9f\\s-]\
     ([^\\x00-\\x1f\\x7f-\\x9f]{0,198}[^\\x00-\\x1f\\x7f-\\x9f\\s])?$";

impl SessionManager {
    /// Session `id`'s modes and model, and what its running agent offers.
    pub fn choices(&self, id: &str) -> Result<SessionChoices, SessionError> {
        let session = self.get(id)?;
        let info = session.info();
        Ok(SessionChoices {
            agent_mode: info.agent_mode,
            permission_mode: info.permission_mode,
            model: info.model,
            variant: info.variant,
            offered: session.agent_offer().map(|offer| AgentOffer::clone(&offer)),
        })
    }

    /// Runs session `id` with the modes and model `change` names (one left out
    /// keeps its value) from its next message on; answers both modes and the
    /// model. Refused for an agent whose adapter cannot change what is asked
    /// in a session, for a mode the agent does not have, for a model name
    /// that cannot be one, and for an ended session.
    pub async fn set_modes(
        &self,
        id: &str,
        change: SessionModes,
    ) -> Result<SessionModes, SessionError> {
        let session = self.get(id)?;
        let current = session.info();
        let adapter = self.catalog.adapter(&current.agent)?;
        let info = adapter.info();
        let modes_asked = change.agent_mode.is_some() || change.permission_mode.is_some();
        if (modes_asked || change.model.is_none()) && !info.has(CAPABILITY) {
            return Err(not_supported(info, "modes", CAPABILITY));
        }
        if change.model.is_some() && !info.has(MODEL_CAPABILITY) {
            return Err(not_supported(info, "model", MODEL_CAPABILITY));
        }
        let agent_mode = change.agent_mode.unwrap_or(current.agent_mode);
        check_agent_mode(info, session.agent_offer().as_deref(), &agent_mode)?;
        let permission_mode = change.permission_mode.unwrap_or(current.permission_mode);
        check_permission_mode(&permission_mode)?;
        if let Some(model) = &change.model {
            check_model(model)?;
        }
        let modes = Modes {
            agent_mode,
            permission_mode,
            model: change.model.or(current.model),
        };
        session.command(Command::SetModes(modes.clone())).await?;
        Ok(SessionModes {
            agent_mode: Some(modes.agent_mode),
            permission_mode: Some(modes.permission_mode),
            model: modes.model,
        })
    }
}

/// The refusal of a change of `what` for an agent whose adapter does not
/// declare `capability`.
fn not_supported(info: &AdapterInfo, what: &str, capability: &str) -> SessionError {
    SessionError::ModeNotSupported(format!(
        "agent {:?} cannot change its {what} in a running session (its adapter does not \
         declare `{capability}`): create a session with the {what} wanted",
        info.id
    ))
}

/// Refuses a model name that is empty, too long, starts with `-`, or has
/// control characters or surrounding spaces (any other name goes to the
/// agent, which may know models the adapter does not list).
pub(crate) fn check_model(model: &str) -> Result<(), SessionError> {
    let fine = !model.is_empty()
        && !model.starts_with('-')
        && model.chars().count() <= MODEL_MAX
        && model.trim() == model
        && !model.chars().any(char::is_control);
    if fine {
        return Ok(());
    }
    Err(SessionError::InvalidRequest(format!(
        "invalid model {model:?}: name one without control characters, surrounding spaces \
         or a leading `-`, of 1 to {MODEL_MAX} characters"
    )))
}

/// Refuses an agent mode the agent does not have: one of its adapter's, or
/// of the modes the running agent offered (`offer`, for a running session).
pub(crate) fn check_agent_mode(
    info: &AdapterInfo,
    offer: Option<&AgentOffer>,
    agent_mode: &str,
) -> Result<(), SessionError> {
    let adapters = info.modes.iter().map(|mode| mode.id.as_str());
    let offered = offer.into_iter().flat_map(|offer| &offer.modes);
    let modes: Vec<&str> = adapters
        .chain(offered.map(|mode| mode.id.as_str()))
        .collect();
    if modes.contains(&agent_mode) {
        return Ok(());
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names_are_checked_as_the_pattern_says() {
        assert!(MODEL_PATTERN.contains(&format!("{{0,{}}}", MODEL_MAX - 2)));
        for fine in ["opus", "scripted/scripted-b", "m", &"é".repeat(MODEL_MAX)] {
            assert!(check_model(fine).is_ok(), "{fine:?}");
        }
        let long = "m".repeat(MODEL_MAX + 1);
        for bad in [
            "",
            " opus",
            "opus ",
            "op\u{7}us",
            "op\u{85}us",
            "--dangerously-skip-permissions",
            long.as_str(),
        ] {
            assert!(check_model(bad).is_err(), "{bad:?}");
        }
    }
}
