//! What a running agent offers its session to choose from: its own modes and
//! models as it listed them (an ACP agent's answer to `session/new`), recorded
//! in the transcript as a status item labelled [`AGENT_OFFERED`] whose detail
//! is an [`AgentOffer`] as JSON.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The [`crate::ContentPart::Status`] label of the system item that records
/// what the agent offers; its detail is an [`AgentOffer`] as JSON. Reserved to
/// the daemon: an adapter's status item with this label is relabelled.
pub const AGENT_OFFERED: &str = "agent offered";

/// The modes and models a running agent offers, as it said.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentOffer {
    /// The agent's own modes, in its order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub modes: Vec<OfferedChoice>,
    /// The id of the mode it said the session runs in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_mode: Option<String>,
    /// The models it offers, in its order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<OfferedChoice>,
    /// The id of the model it said the session runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_model: Option<String>,
}

/// One mode or model an agent offers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct OfferedChoice {
    /// Its id, as the agent takes it.
    pub id: String,
    /// Its name, when the agent gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What it is, when the agent said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A model's variants (its thought levels), as the session's `variant`
    /// takes them, when the agent said.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<String>,
    /// The variant the model runs, when the agent said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_variant: Option<String>,
}

impl AgentOffer {
    /// The name of the offered model `id`, when the agent named it.
    pub fn model_name(&self, id: &str) -> Option<&str> {
        let model = self.models.iter().find(|model| model.id == id)?;
        model.name.as_deref()
    }
}
