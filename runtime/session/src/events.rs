//! The events the daemon makes itself (`synthetic`), as the session core emits
//! them: the end of a session, errors, lines too long, the restart marker, the
//! closing of a turn lost with the previous daemon, and metered model calls.

use crate::CarriedOn;
use agentplex_adapter_types::EmittedEvent;
use agentplex_universal::{
    AgentUnparsedData, BudgetReachedData, ContentPart, ErrorData, ItemEventData, ItemKind,
    ItemRole, ItemStatus, ModelUsageData, SessionEndedData, TurnEventData, TurnPhase,
    UniversalEventData, UniversalEventType, UniversalItem,
};

/// A daemon-made event of `event_type` with `data`.
pub fn synthetic(event_type: UniversalEventType, data: UniversalEventData) -> EmittedEvent {
    EmittedEvent {
        event_type,
        data,
        synthetic: true,
        raw: None,
    }
}

/// `session.ended` with `data`.
pub fn session_ended(data: SessionEndedData) -> EmittedEvent {
    synthetic(
        UniversalEventType::SessionEnded,
        UniversalEventData::SessionEnded(data),
    )
}

/// An `error` event with `code`.
pub fn error(code: &str, message: String) -> EmittedEvent {
    synthetic(
        UniversalEventType::Error,
        UniversalEventData::Error(ErrorData {
            message,
            code: Some(code.into()),
            details: None,
        }),
    )
}

/// `budget.reached`: a budget over the session's model calls was reached.
pub fn budget_reached(reached: BudgetReachedData) -> EmittedEvent {
    synthetic(
        UniversalEventType::BudgetReached,
        UniversalEventData::BudgetReached(reached),
    )
}

/// `model.usage` of one metered model call.
pub fn model_usage(call: ModelUsageData) -> EmittedEvent {
    synthetic(
        UniversalEventType::ModelUsage,
        UniversalEventData::ModelUsage(call),
    )
}

/// `agent.unparsed` for a line longer than `limit` bytes, with its head as `raw`.
pub fn line_too_long(location: String, length: usize, limit: usize, head: String) -> EmittedEvent {
    EmittedEvent {
        raw: Some(serde_json::value::to_raw_value(&head).expect("a string always serializes")),
        ..synthetic(
            UniversalEventType::AgentUnparsed,
            UniversalEventData::AgentUnparsed(AgentUnparsedData {
                error: format!("line of {length} bytes is longer than the {limit}-byte limit"),
                location,
                raw_hash: None,
            }),
        )
    }
}

/// The transcript's note that the agent's process ended with the previous daemon,
/// or stayed in the sandbox the session moved from or with the daemon it was
/// taken over from (`now`: Unix milliseconds,
/// which names the item).
pub fn restart_marker(native_session_id: Option<&str>, why: CarriedOn, now: i64) -> EmittedEvent {
    let detail = match native_session_id {
        Some(id) => format!("The next message resumes the agent's session {id}."),
        None => "The next message starts the agent again.".to_owned(),
    };
    let (item_id, label) = match why {
        CarriedOn::Restart => ("daemon_restart", "agent process ended with the daemon"),
        CarriedOn::Move => (
            "session_moved",
            "agent process stayed in the sandbox the session moved from",
        ),
        CarriedOn::Takeover => (
            "session_taken_over",
            "agent process stayed with the daemon that drove the session before",
        ),
    };
    system_status(format!("{item_id}_{now}"), label, detail)
}

/// The transcript's note that a client changed the session's modes, from the
/// next message on: a status item labelled
/// [`agentplex_universal::MODES_CHANGED`] (`now`: Unix milliseconds, which
/// names the item).
pub fn modes_changed(modes: &crate::Modes, now: i64) -> EmittedEvent {
    let detail = serde_json::to_string(modes).expect("strings always serialize");
    system_status(
        format!("modes_changed_{now}"),
        agentplex_universal::MODES_CHANGED,
        detail,
    )
}

/// The transcript's record of what the agent offers from now on: a status
/// item labelled [`agentplex_universal::AGENT_OFFERED`] whose detail is the
/// offer as JSON (`now`: Unix milliseconds, which names the item).
pub fn agent_offered(offer: &agentplex_universal::AgentOffer, now: i64) -> EmittedEvent {
    let detail = serde_json::to_string(offer).expect("strings always serialize");
    system_status(
        format!("agent_offered_{now}"),
        agentplex_universal::AGENT_OFFERED,
        detail,
    )
}

/// The label an adapter's status item gets in place of the daemon's
/// [`agentplex_universal::MODES_CHANGED`], which clients read as the daemon's
/// record of a change (an agent's text could otherwise pass for one).
pub const AGENT_MODES_LABEL: &str = "modes changed (said by the agent)";

/// The label an adapter's status item gets in place of the daemon's
/// [`agentplex_universal::AGENT_OFFERED`], for the same reason.
pub const AGENT_OFFERED_LABEL: &str = "agent offered (said by the agent)";

/// Gives an adapter's status item labelled as one of the daemon's records
/// ([`agentplex_universal::MODES_CHANGED`], [`agentplex_universal::AGENT_OFFERED`])
/// [`AGENT_MODES_LABEL`] or [`AGENT_OFFERED_LABEL`] instead.
pub fn unreserve_labels(event: &mut EmittedEvent) {
    let UniversalEventData::Item(data) = &mut event.data else {
        return;
    };
    for part in &mut data.item.content {
        if let ContentPart::Status { label, .. } = part {
            let instead = match label.as_str() {
                agentplex_universal::MODES_CHANGED => AGENT_MODES_LABEL,
                agentplex_universal::AGENT_OFFERED => AGENT_OFFERED_LABEL,
                _ => continue,
            };
            *label = instead.to_owned();
        }
    }
}

/// `item.completed` of a daemon-made status item `item_id`.
fn system_status(item_id: String, label: &str, detail: String) -> EmittedEvent {
    synthetic(
        UniversalEventType::ItemCompleted,
        UniversalEventData::Item(ItemEventData {
            item: UniversalItem {
                item_id,
                native_item_id: None,
                parent_id: None,
                kind: ItemKind::Status,
                role: Some(ItemRole::System),
                status: ItemStatus::Completed,
                content: vec![ContentPart::Status {
                    label: label.into(),
                    detail: Some(detail),
                }],
            },
        }),
    )
}

/// `turn.ended` of a turn that died with the previous daemon, or stayed behind
/// when the session moved or was taken over.
pub fn lost_turn_ended(turn_id: Option<String>, why: CarriedOn) -> EmittedEvent {
    let reason = match why {
        CarriedOn::Restart => "daemon_restart",
        CarriedOn::Move => "session_moved",
        CarriedOn::Takeover => "session_taken_over",
    };
    synthetic(
        UniversalEventType::TurnEnded,
        UniversalEventData::Turn(TurnEventData {
            phase: TurnPhase::Ended,
            turn_id,
            metadata: Some(serde_json::json!({ "reason": reason })),
            usage: None,
        }),
    )
}
