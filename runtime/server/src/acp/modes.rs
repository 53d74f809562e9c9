//! A session's modes, model and variant over ACP: the `modes`, `models` and
//! `configOptions` of the answers about a session, `session/set_mode`,
//! `session/set_model` and `session/set_config_option`, and the updates that
//! tell a change to the client.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use agentplex_acp::calls;
use agentplex_acp::modes;
use agentplex_acp::rpc::{self, RpcError};
use agentplex_api::SessionModes;
use agentplex_host::AdapterInfo;
use agentplex_sessions::Session;
use agentplex_universal::AgentOffer;
use serde_json::{json, Value};

use super::connection::{Connection, Followed};
use super::errors::session_error;

impl Connection {
    /// The modes, model and variant of `session` as ACP shows them, as far as
    /// its agent can change them in a running session (none: the client
    /// offers no choice). The agent's own modes and models, when the running
    /// agent said which it offers (a registry agent's), are among the choices.
    fn session_modes(&self, session: &Session) -> Option<modes::SessionModes> {
        let info = session.info();
        let adapter = self.state.catalog.adapter(&info.agent).ok()?;
        let agent = adapter.info();
        let offer = session.agent_offer();
        let choices = agent
            .has(agentplex_sessions::modes::CAPABILITY)
            .then(|| modes::Modes {
                available: session_agent_modes(agent, offer.as_deref()),
                agent_mode: info.agent_mode.clone(),
                permission_mode: info.permission_mode.clone(),
            });
        let models = agent
            .has(agentplex_sessions::modes::MODEL_CAPABILITY)
            .then(|| session_models(agent, offer.as_deref(), info.model.clone()));
        let variants = agent
            .has(agentplex_sessions::modes::VARIANT_CAPABILITY)
            .then(|| session_variants(agent, offer.as_deref(), info.model, info.variant))
            .flatten();
        let any = choices.is_some() || models.is_some() || variants.is_some();
        any.then_some(modes::SessionModes {
            modes: choices,
            models,
            variants,
        })
    }

    /// The fields about modes of an answer about `session` (`modes` and
    /// `configOptions`), as an object.
    pub(super) fn modes_fields(&self, session: &Session) -> Value {
        self.session_modes(session)
            .map_or_else(|| json!({}), |modes| modes.answer_fields())
    }

    /// `session/set_mode`: the agent mode from the next message on.
    pub(super) async fn set_mode(&self, params: calls::SetMode) -> Result<Value, RpcError> {
        let change = SessionModes {
            agent_mode: Some(params.mode_id),
            ..SessionModes::default()
        };
        self.change_modes(&params.session_id, change).await?;
        Ok(json!({}))
    }

    /// `session/set_model`: the model from the next message on.
    pub(super) async fn set_model(&self, params: calls::SetModel) -> Result<Value, RpcError> {
        let Some(change) = self.model_change(&params.session_id, params.model_id)? else {
            let followed = self.followed(&params.session_id)?;
            return Err(RpcError::new(
                rpc::code::METHOD_NOT_FOUND,
                format!(
                    "agent {:?} cannot change its model in a running session",
                    followed.session.record().agent
                ),
            ));
        };
        self.change_modes(&params.session_id, change).await?;
        Ok(json!({}))
    }

    /// The change that makes `model` the model of session `session_id`
    /// (none for [`modes::DEFAULT`] while the session names no model: it has
    /// the agent's), or `None` when its agent cannot change its model.
    fn model_change(
        &self,
        session_id: &str,
        model: String,
    ) -> Result<Option<SessionModes>, RpcError> {
        let Some(models) = self.choices(session_id, |modes| modes.models)? else {
            return Ok(None);
        };
        let model = models
            .change_to(model, "model")
            .map_err(RpcError::invalid_params)?;
        let change = SessionModes {
            model,
            ..SessionModes::default()
        };
        Ok(Some(change))
    }

    /// The change that makes `variant` the model's variant in session
    /// `session_id` (none for [`modes::DEFAULT`] while the session names
    /// none), or `None` when its agent cannot change it or its model has none.
    fn variant_change(
        &self,
        session_id: &str,
        variant: String,
    ) -> Result<Option<SessionModes>, RpcError> {
        let Some(variants) = self.choices(session_id, |modes| modes.variants)? else {
            return Ok(None);
        };
        let variant = variants
            .change_to(variant, "variant")
            .map_err(RpcError::invalid_params)?;
        let change = SessionModes {
            variant,
            ..SessionModes::default()
        };
        Ok(Some(change))
    }

    /// The choices `pick` takes of the modes of session `session_id`, a
    /// session the connection follows.
    fn choices(
        &self,
        session_id: &str,
        pick: fn(modes::SessionModes) -> Option<modes::Choices>,
    ) -> Result<Option<modes::Choices>, RpcError> {
        let followed = self.followed(session_id)?;
        Ok(self.session_modes(&followed.session).and_then(pick))
    }

    /// `session/set_config_option`: the agent mode, the permission mode, the
    /// model or its thought level from the next message on; answers every
    /// option as it is then.
    pub(super) async fn set_config_option(
        &self,
        params: calls::SetConfigOption,
    ) -> Result<Value, RpcError> {
        let Some(value) = params.value.as_str().map(str::to_owned) else {
            return Err(RpcError::invalid_params(format!(
                "session/set_config_option: option {:?} takes one of its values' ids, not {}",
                params.config_id, params.value
            )));
        };
        let followed = self.followed(&params.session_id)?;
        let has_modes = self
            .session_modes(&followed.session)
            .is_some_and(|choices| choices.modes.is_some());
        let change = match params.config_id.as_str() {
            modes::MODE_OPTION if has_modes => Some(SessionModes {
                agent_mode: Some(value),
                ..SessionModes::default()
            }),
            modes::PERMISSION_OPTION if has_modes => Some(SessionModes {
                permission_mode: Some(value),
                ..SessionModes::default()
            }),
            modes::MODEL_OPTION => self.model_change(&params.session_id, value)?,
            modes::THOUGHT_LEVEL_OPTION => self.variant_change(&params.session_id, value)?,
            _ => None,
        };
        // An option the session does not have, whether its agent has no such
        // choice or there is no such option at all.
        let Some(change) = change else {
            return Err(RpcError::invalid_params(format!(
                "session/set_config_option: this session has no option {:?}",
                params.config_id
            )));
        };
        let followed = self.change_modes(&params.session_id, change).await?;
        let fields = self.modes_fields(&followed.session);
        Ok(json!({"configOptions": fields["configOptions"]}))
    }

    /// Changes the modes, model or variant of a session the connection
    /// follows (a model or variant change was checked by [`Self::model_change`]
    /// or [`Self::variant_change`]; none asked: no change).
    async fn change_modes(
        &self,
        session_id: &str,
        change: SessionModes,
    ) -> Result<Arc<Followed>, RpcError> {
        let followed = self.followed(session_id)?;
        if change == SessionModes::default() {
            return Ok(followed);
        }
        let modes_asked = change.agent_mode.is_some() || change.permission_mode.is_some();
        let choices = self.session_modes(&followed.session);
        if modes_asked && choices.is_none_or(|choices| choices.modes.is_none()) {
            return Err(RpcError::new(
                rpc::code::METHOD_NOT_FOUND,
                format!(
                    "agent {:?} cannot change modes in a running session",
                    followed.session.record().agent
                ),
            ));
        }
        // Counted before the change, so its event is known as this client's.
        followed.own_changes.fetch_add(1, Ordering::SeqCst);
        let changed = self.state.sessions.set_modes(session_id, change).await;
        if let Err(error) = changed {
            followed.take_own_change();
            return Err(session_error(error));
        }
        Ok(followed)
    }

    /// Tells the client that `followed`'s modes, model or variant changed
    /// (`current_mode_update`, `config_option_update`) to `changed`'s, unless
    /// the client changed them itself: it has them from the answer, and an
    /// update could reach it after the answer to a later change and undo that
    /// one in the client (over HTTP, answers and updates come by different
    /// ways). Clients following the session on other connections are told.
    pub(super) fn tell_modes(&self, followed: &Followed, changed: SessionModes) {
        if followed.take_own_change() {
            return;
        }
        let Some(mut choices) = self.session_modes(&followed.session) else {
            return;
        };
        let mut updates = Vec::new();
        if let (Some(modes), Some(agent_mode), Some(permission_mode)) = (
            choices.modes.as_mut(),
            changed.agent_mode,
            changed.permission_mode,
        ) {
            (modes.agent_mode, modes.permission_mode) = (agent_mode, permission_mode);
            updates.push(
                json!({"sessionUpdate": "current_mode_update", "currentModeId": modes.agent_mode}),
            );
        }
        if let (Some(models), Some(model)) = (choices.models.as_mut(), changed.model) {
            models.current = Some(model);
        }
        if let (Some(variants), Some(variant)) = (choices.variants.as_mut(), changed.variant) {
            variants.current = Some(variant);
        }
        updates.push(config_update(&choices));
        self.send_updates(followed, updates);
    }

    /// Tells the client the session's options as they are now that its agent
    /// offers other models (`config_option_update`).
    pub(super) fn tell_offer(&self, followed: &Followed) {
        if let Some(choices) = self.session_modes(&followed.session) {
            self.send_updates(followed, vec![config_update(&choices)]);
        }
    }

    /// Sends the client `updates` of `followed`'s session, in order.
    fn send_updates(&self, followed: &Followed, updates: Vec<Value>) {
        let session_id = &followed.session.record().id;
        for update in updates {
            self.outbox.push(
                Some(session_id),
                &rpc::notification(
                    "session/update",
                    json!({"sessionId": session_id, "update": update}),
                ),
            );
        }
    }
}

impl Followed {
    /// Whether a change of modes the connection asked for was still to be
    /// seen, counting it seen.
    fn take_own_change(&self) -> bool {
        let taken = |count: usize| count.checked_sub(1);
        let changes = &self.own_changes;
        changes
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, taken)
            .is_ok()
    }
}

/// The `config_option_update` of a session's options `choices`.
fn config_update(choices: &modes::SessionModes) -> Value {
    json!({
        "sessionUpdate": "config_option_update",
        "configOptions": choices.config_options(),
    })
}

/// The agent modes of a session of `agent`: its adapter's, then those the
/// running agent offers (`offer`) that its adapter does not name.
fn session_agent_modes(agent: &AdapterInfo, offer: Option<&AgentOffer>) -> Vec<modes::Mode> {
    let mut available: Vec<modes::Mode> = agent
        .modes
        .iter()
        .map(|mode| modes::Mode {
            id: mode.id.clone(),
            name: mode.name.clone(),
            description: mode.description.clone(),
        })
        .collect();
    for mode in offer.into_iter().flat_map(|offer| &offer.modes) {
        if available.iter().all(|known| known.id != mode.id) {
            available.push(modes::Mode {
                id: mode.id.clone(),
                name: mode.name.clone().unwrap_or_else(|| mode.id.clone()),
                description: mode.description.clone().unwrap_or_default(),
            });
        }
    }
    available
}

/// The models of a session of `agent` whose model is `named` (`None`: the
/// agent's own choice): those the agent offers when it listed some in
/// `offer`, else those its adapter knows; the agent's own choice named as it
/// said.
fn session_models(
    agent: &AdapterInfo,
    offer: Option<&AgentOffer>,
    named: Option<String>,
) -> modes::Choices {
    let model = |id: &str, name: Option<&str>| modes::Choice {
        id: id.to_owned(),
        name: name.unwrap_or(id).to_owned(),
    };
    let available = match offer.filter(|offer| !offer.models.is_empty()) {
        Some(offer) => offer
            .models
            .iter()
            .map(|offered| model(&offered.id, offered.name.as_deref()))
            .collect(),
        None => agent
            .models
            .iter()
            .map(|known| model(&known.id, known.name.as_deref()))
            .collect(),
    };
    let agents_choice = offer.and_then(|offer| {
        let id = offer.current_model.as_deref()?;
        Some(offer.model_name(id).unwrap_or(id).to_owned())
    });
    modes::Choices {
        available,
        current: named.or_else(|| agent.default_model.clone()),
        agents_choice,
    }
}

/// The variants of the model a session of `agent` runs (`model`, else the
/// adapter's default, else the one the running agent said in `offer`), whose
/// variant is `named` (`None`: the agent's own choice): those the agent
/// offers for it when it listed the model in `offer`, else those its adapter
/// knows; while nothing says which model runs (the agent's own choice),
/// every variant of the adapter's models. `None` when there are none and the
/// session names none.
fn session_variants(
    agent: &AdapterInfo,
    offer: Option<&AgentOffer>,
    model: Option<String>,
    named: Option<String>,
) -> Option<modes::Choices> {
    let model = model
        .or_else(|| agent.default_model.clone())
        .or_else(|| offer.and_then(|offer| offer.current_model.clone()));
    let (variants, default) = match &model {
        Some(model) => {
            let offered = offer
                .into_iter()
                .flat_map(|offer| &offer.models)
                .find(|offered| offered.id == *model)
                .map(|offered| (offered.variants.clone(), offered.default_variant.clone()));
            let known = || {
                let known = agent.models.iter().find(|known| known.id == *model)?;
                Some((known.variants.clone(), known.default_variant.clone()))
            };
            offered.or_else(known).unwrap_or_default()
        }
        None => {
            let mut every: Vec<String> = Vec::new();
            for variant in agent.models.iter().flat_map(|known| &known.variants) {
                if !every.contains(variant) {
                    every.push(variant.clone());
                }
            }
            (every, None)
        }
    };
    if variants.is_empty() && named.is_none() {
        return None;
    }
    let available = variants
        .into_iter()
        .map(|variant| modes::Choice {
            name: variant.clone(),
            id: variant,
        })
        .collect();
    Some(modes::Choices {
        available,
        current: named,
        agents_choice: default,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentplex_host::Model;
    use agentplex_universal::OfferedChoice;

    /// An adapter whose models are of a kind some agents have: two with levels, one
    /// without, none its default.
    fn adapter() -> AdapterInfo {
        let model = |id: &str, variants: &[&str]| Model {
            id: id.into(),
            name: None,
            variants: variants.iter().map(|v| (*v).to_owned()).collect(),
            default_variant: None,
        };
        AdapterInfo {
            id: "agent".into(),
            name: "Agent".into(),
            version: "1.0.0".into(),
            agent_versions: "*".into(),
            capabilities: Vec::new(),
            modes: Vec::new(),
            default_mode: "build".into(),
            models: vec![
                model("sonnet", &["low", "high"]),
                model("opus", &["low", "max"]),
                model("haiku", &[]),
            ],
            default_model: None,
            credential_env: Vec::new(),
            location_env: Vec::new(),
            builtin: true,
        }
    }

    fn ids(choices: Option<modes::Choices>) -> Option<Vec<String>> {
        choices.map(|choices| choices.available.into_iter().map(|c| c.id).collect())
    }

    #[test]
    fn the_variants_are_the_running_models() {
        let agent = adapter();
        let variants = |model: Option<&str>, named: Option<&str>| {
            let (model, named) = (model.map(str::to_owned), named.map(str::to_owned));
            ids(session_variants(&agent, None, model, named))
        };
        // Nothing says which model runs: every level of the adapter's models.
        assert_eq!(variants(None, None).unwrap(), ["low", "high", "max"]);
        assert_eq!(variants(Some("opus"), None).unwrap(), ["low", "max"]);
        // A model without levels has no option, unless the session names one.
        assert_eq!(variants(Some("haiku"), None), None);
        assert_eq!(variants(Some("haiku"), Some("high")).unwrap(), [""; 0]);
        // What the running agent offers wins, its default the agent's choice.
        let offer = AgentOffer {
            models: vec![OfferedChoice {
                id: "sonnet".into(),
                variants: vec!["minimal".into()],
                default_variant: Some("minimal".into()),
                ..OfferedChoice::default()
            }],
            current_model: Some("sonnet".into()),
            ..AgentOffer::default()
        };
        let offered = session_variants(&agent, Some(&offer), None, None).unwrap();
        assert_eq!(offered.agents_choice.as_deref(), Some("minimal"));
        assert_eq!(ids(Some(offered)).unwrap(), ["minimal"]);
    }
}
