//! The usage the daemon metered of a session's model calls, as `SessionInfo`
//! shows it (`GET /v1/sessions/{id}` and the session list): absent for sessions
//! whose calls were never metered, so a client of 0.1.x sees nothing new.

use agentplex_universal::UsageTotals;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `usage` of a session: the totals of its metered model calls (each one also a
/// `model.usage` event of its transcript).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionUsage {
    /// Whether this daemon meters the session's model calls now (a session keeps
    /// the totals of calls metered before, by a daemon that did).
    pub metered: bool,
    /// Every metered call of the session.
    pub total: UsageTotals,
    /// The calls of the running turn, once it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_turn: Option<UsageTotals>,
    /// The calls of the turn that ended last, when it had any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_turn: Option<UsageTotals>,
}
