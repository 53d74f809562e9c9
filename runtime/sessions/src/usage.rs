//! How the usage of a session's model calls reaches it. A model gateway, which
//! sees each of the agent's calls on its way to the provider, takes the
//! session's [`UsageSink`] ([`SessionManager::usage_sink`]) and delivers one
//! record per call: the daemon's metrics count it at once, and the session's
//! task records it, in order with the rest of its input, as a `model.usage`
//! event that adds to the turn's and the session's totals (`SessionInfo.usage`,
//! and `turn.ended`'s `usage`). See `agentplex_session`'s `usage.rs` for the rules.

use agentplex_api::SessionUsage;
use agentplex_session::{Command, Incoming, MeteredUsage};
use agentplex_universal::{BudgetLimits, ModelUsageData};

use crate::incoming::Inbox;
use crate::{Session, SessionError, SessionManager};

/// Where the usage of one session's model calls is delivered. Cheap to clone;
/// it keeps nothing of the session alive: once the session's task has stopped
/// (the session ended, or was deleted), deliveries fail.
#[derive(Clone)]
pub struct UsageSink {
    inbox: Inbox,
    /// The session's agent, for the metrics.
    agent: String,
}

/// The session's task has stopped: it records no more usage.
#[derive(Debug, thiserror::Error)]
#[error("the session takes no more usage: its task has stopped")]
pub struct SessionGone;

impl UsageSink {
    /// The sink of the session whose task reads `inbox`.
    pub(crate) fn new(inbox: Inbox, agent: &str) -> Self {
        Self {
            inbox,
            agent: agent.to_owned(),
        }
    }

    /// Hands the session's task something of its model calls, without waiting.
    pub(crate) fn send(&self, incoming: Incoming) -> Result<(), SessionGone> {
        self.inbox.send(incoming).map_err(|_| SessionGone)
    }

    /// Delivers the usage of one model call of the session, without waiting: the
    /// daemon's metrics count it now, the session records it as it gets to it.
    pub fn deliver(&self, call: ModelUsageData) -> Result<(), SessionGone> {
        crate::metrics::metrics().model_call(&self.agent, &call);
        self.send(Incoming::ModelUsage(call))
    }
}

impl SessionManager {
    /// The sink a model gateway delivers the usage of session `id`'s model calls
    /// to (see [`UsageSink::deliver`]). From then on the session shows as metered
    /// (`usage.metered` in `GET /v1/sessions/{id}`).
    pub fn usage_sink(&self, id: &str) -> Result<UsageSink, SessionError> {
        Ok(self.get(id)?.usage_sink())
    }
}

impl Session {
    /// The sink the usage of this session's model calls is delivered to (see
    /// [`SessionManager::usage_sink`]).
    pub fn usage_sink(&self) -> UsageSink {
        self.shared.state.lock().unwrap().metered = true;
        UsageSink::new(self.inbox.clone(), &self.shared.record.agent)
    }
}

/// `SessionInfo.usage`: `None` for a session neither metered now (`metered`)
/// nor before.
pub(crate) fn session_usage(usage: &MeteredUsage, metered: bool) -> Option<SessionUsage> {
    (metered || !usage.is_empty()).then_some(SessionUsage {
        metered,
        total: usage.total,
        current_turn: usage.current_turn,
        last_turn: usage.last_turn,
    })
}

impl SessionManager {
    /// Replaces the caps on what session `id`'s model calls may spend: stored
    /// with the session, and in force in the model gateway at once (a cap
    /// raised lets refused calls through again). Refused when the gateway does
    /// not meter the session.
    pub async fn set_budget(
        &self,
        id: &str,
        limits: BudgetLimits,
    ) -> Result<BudgetLimits, SessionError> {
        if let Some(why) = limits.invalid() {
            return Err(SessionError::InvalidRequest(why));
        }
        let session = self.get(id)?;
        let Some(budget) = &session.budget else {
            if session.shared.state.lock().unwrap().ended {
                return Err(SessionError::SessionEnded {
                    session_id: id.to_owned(),
                });
            }
            let agent = &session.shared.record.agent;
            return Err(SessionError::NotConfigured(self.unmetered(agent)));
        };
        session.command(Command::SetBudget(limits)).await?;
        budget.set_limits(crate::metering::gateway_limits(limits));
        Ok(limits)
    }

    /// Why a session of `agent` can have no budget.
    pub(crate) fn unmetered(&self, agent: &str) -> String {
        match self.gateway {
            None => "a budget needs the model gateway to meter the session's model calls: \
                     start the daemon with --gateway"
                .to_owned(),
            Some(_) => format!(
                "a budget needs the model gateway to meter the session's model calls, and \
                 agent {agent:?}'s adapter does not say how to send them through it \
                 (docs/gateway.md lists the agents it carries)"
            ),
        }
    }
}
