//! The rules a fuzz case is held to: what the daemon would feed ([`Daemon`]) and
//! what the host accepts, plus the order of items and turns ([`Shape`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::types::{Action, ContentPart, Event};

/// What the daemon knows of a session, to feed it only what it would.
#[derive(Debug, Default)]
pub(super) struct Daemon {
    turn_running: bool,
    permissions: Vec<String>,
    questions: Vec<String>,
    pub(super) ended: bool,
}

impl Daemon {
    /// Whether the daemon would feed `input` now; a reply without an id gets the
    /// oldest pending request's.
    pub(super) fn admits(&mut self, input: &mut Value) -> bool {
        let pending = match input["input"].as_str() {
            Some("sendMessage") => {
                let admitted = !self.turn_running;
                self.turn_running = true;
                return admitted;
            }
            Some("cancelTurn") => return self.turn_running,
            Some("replyPermission") => &self.permissions,
            Some("replyQuestion" | "rejectQuestion") => &self.questions,
            _ => return true,
        };
        match input["id"].as_str() {
            Some("") | None => match pending.first() {
                Some(oldest) => {
                    input["id"] = oldest.clone().into();
                    true
                }
                None => false,
            },
            Some(id) => pending.iter().any(|p| p == id),
        }
    }

    /// Follows the session's events.
    pub(super) fn saw(&mut self, event: &Event) {
        match event {
            Event::TurnEnded(_) => self.turn_running = false,
            Event::SessionEnded(_) => self.ended = true,
            Event::PermissionRequested(p) => self.permissions.push(p.permission_id.clone()),
            Event::PermissionResolved(p) => self.permissions.retain(|id| *id != p.permission_id),
            Event::QuestionRequested(q) => self.questions.push(q.question_id.clone()),
            Event::QuestionResolved(q) => self.questions.retain(|id| *id != q.question_id),
            _ => {}
        }
    }
}

/// Where each item and the turn are, to check their order.
#[derive(Debug, Default)]
pub(super) struct Shape {
    /// Item id → completed.
    items: BTreeMap<String, bool>,
    turn_open: bool,
    /// The rules of order broken so far.
    pub(super) broken: BTreeSet<&'static str>,
}

impl Shape {
    /// `Err` with the broken rule when the host would refuse `action`; a broken
    /// rule of order is only noted ([`Shape::broken`]).
    pub(super) fn check(&mut self, action: &Action) -> Result<(), &'static str> {
        match action {
            Action::Emit(emitted) => self.event(&emitted.event),
            Action::SetNativeSessionId(id) => non_empty(id, "empty native session id"),
            Action::Spawn(spawn) => {
                non_empty(&spawn.process_id, "empty process id")?;
                non_empty(spawn.argv.first().map_or("", |p| p), "no program to spawn")
            }
            Action::WriteFile(write) => {
                let plain = Path::new(&write.path)
                    .components()
                    .all(|part| matches!(part, std::path::Component::Normal(_)));
                ok_if(
                    plain && !write.path.is_empty(),
                    "a file outside the scratch folder",
                )
            }
            _ => Ok(()),
        }
    }

    /// Notes `rule` as broken unless it `holds`.
    fn order(&mut self, holds: bool, rule: &'static str) {
        if !holds {
            self.broken.insert(rule);
        }
    }

    fn event(&mut self, event: &Event) -> Result<(), &'static str> {
        match event {
            Event::SessionStarted(metadata) => json_field(metadata.as_deref()),
            Event::TurnStarted(turn) => {
                self.order(!self.turn_open, "a turn started inside a turn");
                self.turn_open = true;
                json_field(turn.metadata.as_deref())
            }
            Event::TurnEnded(turn) => {
                self.order(self.turn_open, "a turn ended that was not open");
                self.turn_open = false;
                json_field(turn.metadata.as_deref())
            }
            Event::ItemStarted(item) => {
                non_empty(&item.item_id, "empty item id")?;
                let fresh = self.items.insert(item.item_id.clone(), false).is_none();
                self.order(fresh, "an item started twice");
                json_parts(&item.content)
            }
            Event::ItemDelta(delta) => {
                let open = self.items.get(&delta.item_id) == Some(&false);
                self.order(open, "a delta outside its item");
                Ok(())
            }
            Event::ItemCompleted(item) => {
                let open = self.items.insert(item.item_id.clone(), true) == Some(false);
                self.order(open, "an item completed that was not open");
                json_parts(&item.content)
            }
            Event::PermissionRequested(p) | Event::PermissionResolved(p) => {
                non_empty(&p.permission_id, "empty permission id")?;
                json_field(p.metadata.as_deref())
            }
            Event::QuestionRequested(q) | Event::QuestionResolved(q) => {
                non_empty(&q.question_id, "empty question id")
            }
            Event::Error(error) => json_field(error.details.as_deref()),
            Event::SessionEnded(_) | Event::AgentUnparsed(_) => Ok(()),
        }
    }
}

fn ok_if(holds: bool, rule: &'static str) -> Result<(), &'static str> {
    holds.then_some(()).ok_or(rule)
}

fn non_empty(text: &str, rule: &'static str) -> Result<(), &'static str> {
    ok_if(!text.is_empty(), rule)
}

fn json_field(text: Option<&str>) -> Result<(), &'static str> {
    let valid = text.is_none_or(|text| serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok());
    ok_if(valid, "a JSON field that is not JSON")
}

fn json_parts(parts: &[ContentPart]) -> Result<(), &'static str> {
    parts.iter().try_for_each(|part| match part {
        ContentPart::Json(text) => json_field(Some(text)),
        _ => Ok(()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_daemon_feeds_messages_between_turns_and_replies_to_pending_requests() {
        let mut daemon = Daemon::default();
        let mut message = json!({"input": "sendMessage", "text": "x"});
        assert!(daemon.admits(&mut message));
        assert!(!daemon.admits(&mut message), "not during a turn");
        assert!(daemon.admits(&mut json!({"input": "cancelTurn"})));
        let mut reply = json!({"input": "replyPermission", "id": ""});
        assert!(!daemon.admits(&mut reply), "nothing pending");
        daemon.saw(&Event::PermissionRequested(crate::types::Permission {
            permission_id: "p1".into(),
            action: "run".into(),
            status: crate::types::PermissionStatus::Requested,
            metadata: None,
        }));
        assert!(daemon.admits(&mut reply));
        assert_eq!(reply["id"], "p1");
        assert!(!daemon.admits(&mut json!({"input": "rejectQuestion", "id": "q9"})));
    }

    #[test]
    fn the_shape_refuses_what_the_host_would_and_notes_broken_order() {
        let mut shape = Shape::default();
        let item = |id: &str| crate::event::assistant_message(id, ["x"]);
        for event in item("itm_1") {
            assert_eq!(shape.check(&Action::Emit(event)), Ok(()));
        }
        let again = item("itm_1").remove(0);
        assert_eq!(shape.check(&Action::Emit(again)), Ok(()), "only noted");
        assert_eq!(shape.broken, BTreeSet::from(["an item started twice"]));
        let empty = item("").remove(0);
        assert_eq!(shape.check(&Action::Emit(empty)), Err("empty item id"));
        let bad_json = crate::event::error_with_details("boom", None, Some("{not json".into()));
        assert_eq!(
            shape.check(&Action::Emit(bad_json)),
            Err("a JSON field that is not JSON")
        );
    }
}
