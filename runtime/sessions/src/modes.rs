//! Changing a running session's agent mode, permission mode, model and variant.

use agentplex_api::{CreateSessionRequest, SessionChoices, SessionModes};
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

/// The capability of an adapter that applies a session's changed model
/// variant (reasoning effort...) the same way.
pub const VARIANT_CAPABILITY: &str = "variant-change";

/// The longest model or variant name taken, in characters.
const NAME_MAX: usize = 200;

/// The model and variant names [`check_model`] and [`check_variant`] take, as
/// a regular expression (for the OpenAPI document): no control characters, no
/// surrounding spaces, no `-` first (a name may become a flag's value), 1 to
/// [`NAME_MAX`] characters.
pub const NAME_PATTERN: &str = "^[^\\x00-\\x1f\\x7f-\\x9f\\s-]\
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

    /// Runs session `id` with the modes, model and variant `change` names (one
    /// left out keeps its value) from its next message on; answers both modes,
    /// the model and the variant. Refused for an agent whose adapter cannot
    /// change what is asked in a session, for a mode the agent does not have,
    /// for a model or variant name that cannot be one, and for an ended session.
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
        let nothing_else = change.model.is_none() && change.variant.is_none();
        if (modes_asked || nothing_else) && !info.has(CAPABILITY) {
            return Err(not_supported(info, "modes", CAPABILITY));
        }
        if change.model.is_some() && !info.has(MODEL_CAPABILITY) {
            return Err(not_supported(info, "model", MODEL_CAPABILITY));
        }
        if change.variant.is_some() && !info.has(VARIANT_CAPABILITY) {
            return Err(not_supported(info, "model's variant", VARIANT_CAPABILITY));
        }
        let agent_mode = change.agent_mode.unwrap_or(current.agent_mode);
        check_agent_mode(info, session.agent_offer().as_deref(), &agent_mode)?;
        let permission_mode = change.permission_mode.unwrap_or(current.permission_mode);
        check_permission_mode(&permission_mode)?;
        if let Some(model) = &change.model {
            check_model(model)?;
        }
        if let Some(variant) = &change.variant {
            check_variant(variant)?;
        }
        let modes = Modes {
            agent_mode,
            permission_mode,
            model: change.model.or(current.model),
            variant: change.variant.or(current.variant),
        };
        session.command(Command::SetModes(modes.clone())).await?;
        Ok(SessionModes {
            agent_mode: Some(modes.agent_mode),
            permission_mode: Some(modes.permission_mode),
            model: modes.model,
            variant: modes.variant,
        })
    }
}

/// The agent mode and permission mode a session of `info`'s agent created
/// with `request` runs with (the adapter's default mode and `default` when it
/// names none), once they, its model and its variant are checked.
pub(crate) fn checked_at_create(
    info: &AdapterInfo,
    request: &CreateSessionRequest,
) -> Result<(String, String), SessionError> {
    let agent_mode = request.agent_mode.clone();
    let agent_mode = agent_mode.unwrap_or_else(|| info.default_mode.clone());
    check_agent_mode(info, None, &agent_mode)?;
    let permission_mode = request.permission_mode.clone();
    let permission_mode = permission_mode.unwrap_or_else(|| "default".into());
    check_permission_mode(&permission_mode)?;
    // An empty model or variant is none, as 0.1.x took it.
    let named = |name: &Option<String>| name.clone().filter(|name| !name.is_empty());
    if let Some(model) = named(&request.model) {
        check_model(&model)?;
    }
    if let Some(variant) = named(&request.variant) {
        check_variant(&variant)?;
    }
    Ok((agent_mode, permission_mode))
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
fn check_model(model: &str) -> Result<(), SessionError> {
    check_name("model", model)
}

/// Refuses a variant name as [`check_model`] refuses a model's (any other
/// goes to the agent, which says whether it takes it).
fn check_variant(variant: &str) -> Result<(), SessionError> {
    check_name("variant", variant)
}

/// Refuses a name of a `what` (a model, a variant) that [`NAME_PATTERN`]
/// does not match.
fn check_name(what: &str, name: &str) -> Result<(), SessionError> {
    let fine = !name.is_empty()
        && !name.starts_with('-')
        && name.chars().count() <= NAME_MAX
        && name.trim() == name
        && !name.chars().any(char::is_control);
    if fine {
        return Ok(());
    }
    Err(SessionError::InvalidRequest(format!(
        "invalid {what} {name:?}: name one without control characters, surrounding spaces \
         or a leading `-`, of 1 to {NAME_MAX} characters"
    )))
}

/// Refuses an agent mode the agent does not have: one of its adapter's, or
/// of the modes the running agent offered (`offer`, for a running session).
fn check_agent_mode(
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
fn check_permission_mode(permission_mode: &str) -> Result<(), SessionError> {
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
    fn model_and_variant_names_are_checked_as_the_pattern_says() {
        assert!(NAME_PATTERN.contains(&format!("{{0,{}}}", NAME_MAX - 2)));
        for fine in ["opus", "scripted/scripted-b", "m", &"é".repeat(NAME_MAX)] {
            assert!(check_model(fine).is_ok(), "{fine:?}");
            assert!(check_variant(fine).is_ok(), "{fine:?}");
        }
        let long = "m".repeat(NAME_MAX + 1);
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
            assert!(check_variant(bad).is_err(), "{bad:?}");
        }
    }
}
