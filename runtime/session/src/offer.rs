//! What the session's agent offers to choose from (its own modes and models,
//! reported by adapters with the capability `agent-offer`): recorded in the
//! transcript when it changes, and kept for the answers about the session
//! (ACP's model picker), across a daemon restart.

use std::sync::Arc;

use agentplex_universal::AgentOffer;

use crate::{events, SessionCore};

impl SessionCore {
    /// What the agent offered last, if it said.
    pub fn agent_offer(&self) -> Option<&Arc<AgentOffer>> {
        self.offer.as_ref()
    }

    /// The agent offers `offer` from now on: the transcript says so (a status
    /// item labelled [`agentplex_universal::AGENT_OFFERED`]), unless it is
    /// what the session already knew (a restarted agent offering the same).
    pub fn agent_offered(&mut self, offer: AgentOffer, now: i64) {
        if self.offer.as_deref() == Some(&offer) {
            return;
        }
        self.now = self.now.max(now);
        self.append(events::agent_offered(&offer, self.now));
        self.offer = Some(Arc::new(offer));
    }
}
