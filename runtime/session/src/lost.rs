//! Closing the turn that was running when the previous daemon stopped (or when
//! the session moved or was taken over): what it asked is rejected and it ends,
//! all with daemon-made events.

use agentplex_universal::{
    PermissionEventData, PermissionStatus, QuestionEventData, QuestionStatus, UniversalEventData,
    UniversalEventType,
};

use crate::{events, CarriedOn, SessionCore};

/// What closing a turn lost with the previous daemon needs from the transcript
/// (the driver looks it up in its log; see [`SessionCore::pending_permissions`]).
#[derive(Debug, Default)]
pub struct LostTurn {
    /// The newest event of each pending permission.
    pub permissions: Vec<PermissionEventData>,
    /// The newest event of each pending question.
    pub questions: Vec<QuestionEventData>,
    /// The id of the running turn (its `turn.started`).
    pub turn_id: Option<String>,
}

impl SessionCore {
    /// Rejects what the lost turn asked and ends it, all daemon-made.
    pub(crate) fn close_lost_turn(&mut self, lost: LostTurn, why: CarriedOn) {
        let mut closing = Vec::new();
        for id in &self.pending_permissions {
            if let Some(permission) = lost.permissions.iter().find(|p| &p.permission_id == id) {
                let permission = PermissionEventData {
                    status: PermissionStatus::Reject,
                    ..permission.clone()
                };
                closing.push(events::synthetic(
                    UniversalEventType::PermissionResolved,
                    UniversalEventData::Permission(permission),
                ));
            }
        }
        for id in &self.pending_questions {
            if let Some(question) = lost.questions.iter().find(|q| &q.question_id == id) {
                let question = QuestionEventData {
                    status: QuestionStatus::Rejected,
                    ..question.clone()
                };
                closing.push(events::synthetic(
                    UniversalEventType::QuestionResolved,
                    UniversalEventData::Question(question),
                ));
            }
        }
        if self.turn_running {
            closing.push(events::lost_turn_ended(lost.turn_id, why));
        }
        for event in closing {
            self.append(event);
        }
    }
}
