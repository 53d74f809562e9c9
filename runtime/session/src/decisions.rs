//! A session's approval policy, as far as the core keeps it: whether one applies,
//! the permission requests still to decide, and the `ask`s waiting for the client
//! (so the client's decision, or the timeout's, is recorded with what was asked).
//! The policy itself is the driver's: it asks the adapter what a request is for,
//! decides, and hands the core the decision ([`SessionCore::permission_decided`]).

use std::collections::{BTreeMap, VecDeque};

use agentplex_adapter_types::{Action, Input, PermissionReply};
use agentplex_universal::{
    DecidedBy, PermissionDecidedData, PermissionDecision, UniversalEventData, UniversalEventType,
};
use serde_json::Value;

use crate::events::synthetic;
use crate::{Effect, SessionCore, Step, Then};

/// What the core keeps of the session's approval policy.
#[derive(Debug, Default)]
pub(crate) struct Decisions {
    /// The policy as given (the driver decides with it); none: every request
    /// goes to the client, undecided.
    pub policy: Option<Value>,
    /// Permission requests emitted and not yet handed to the driver to decide.
    pub undecided: VecDeque<String>,
    /// Requests the policy left to the client, by id: what was decided then.
    pub asked: BTreeMap<String, PermissionDecidedData>,
    /// An [`Effect::Decide`] is out: its decision comes before the next poll.
    pub deciding: bool,
}

impl SessionCore {
    /// Replaces the session's approval policy (`None`: requests go to the
    /// client). Requests already pending stay as they were.
    pub fn set_policy(&mut self, policy: Option<Value>) {
        self.decisions.policy = policy;
    }

    /// The session's approval policy, as given.
    pub fn policy(&self) -> Option<&Value> {
        self.decisions.policy.as_ref()
    }

    /// How the pending permission request `decided.permission_id` was decided,
    /// in answer to [`Effect::Decide`] (an `ask` that waits too long is reported
    /// with [`crate::Incoming::AskExpired`]). It is recorded as `permission.decided`;
    /// `allow` and `deny` are answered to the adapter at once (once, or
    /// rejected), `ask` waits for the client. A request no longer pending is
    /// left alone.
    pub fn permission_decided(&mut self, decided: PermissionDecidedData) {
        self.decisions.deciding = false;
        let id = decided.permission_id.clone();
        if self.ended || !self.pending_permissions.contains(&id) {
            return;
        }
        let reply = match decided.decision {
            PermissionDecision::Allow => Some(PermissionReply::Once),
            PermissionDecision::Deny => Some(PermissionReply::Reject),
            PermissionDecision::Ask => None,
        };
        if reply.is_none() {
            self.decisions.asked.insert(id.clone(), decided.clone());
        }
        self.append(decided_event(decided));
        if let Some(reply) = reply {
            let input = Input::ReplyPermission {
                permission_id: id,
                reply,
            };
            self.steps.push_front(Step::Feed(input, Then::Ignore));
        }
    }

    /// The `ask` for permission request `permission_id` waited past the policy's
    /// limit: denied, unless the client answered meanwhile.
    pub(crate) fn ask_expired(&mut self, permission_id: &str) {
        let Some(asked) = self.decisions.asked.remove(permission_id) else {
            return;
        };
        if self.ended || !self.pending_permissions.contains(permission_id) {
            return;
        }
        let reason = "denied: nobody answered within the policy's askTimeoutSecs".to_owned();
        self.append(decided_event(PermissionDecidedData {
            decision: PermissionDecision::Deny,
            by: DecidedBy::Timeout,
            rule: None,
            subject: None,
            reason,
            ..asked
        }));
        let input = Input::ReplyPermission {
            permission_id: permission_id.to_owned(),
            reply: PermissionReply::Reject,
        };
        self.steps.push_back(Step::Feed(input, Then::Ignore));
    }

    /// Notes a permission request just emitted, for the policy to decide.
    pub(crate) fn note_requested(&mut self, permission_id: &str) {
        if self.decisions.policy.is_some() {
            self.decisions.undecided.push_back(permission_id.to_owned());
        }
    }

    /// The next request to decide, once the adapter's actions are carried out
    /// (a request it resolved itself meanwhile is skipped).
    pub(crate) fn next_to_decide(&mut self) -> Option<Effect> {
        while let Some(id) = self.decisions.undecided.pop_front() {
            if self.pending_permissions.contains(&id) && !self.ended {
                self.decisions.deciding = true;
                return Some(Effect::Decide(id));
            }
        }
        None
    }

    /// Records the client's answer to a request the policy left to it.
    pub(crate) fn client_decided(&mut self, permission_id: &str, reply: PermissionReply) {
        if self.decisions.policy.is_none() {
            return;
        }
        let asked = self.decisions.asked.remove(permission_id);
        let (decision, word) = match reply {
            PermissionReply::Once | PermissionReply::Always => {
                (PermissionDecision::Allow, "allowed")
            }
            PermissionReply::Reject => (PermissionDecision::Deny, "denied"),
        };
        let asked = asked.unwrap_or_else(|| PermissionDecidedData {
            permission_id: permission_id.to_owned(),
            decision,
            by: DecidedBy::Client,
            rule: None,
            tool: "other".to_owned(),
            input: Default::default(),
            subject: None,
            reason: String::new(),
            native: false,
        });
        self.append(decided_event(PermissionDecidedData {
            decision,
            by: DecidedBy::Client,
            rule: None,
            subject: None,
            reason: format!("{word} by the client"),
            ..asked
        }));
    }

    /// The requests the policy left to the client that still wait (their
    /// timeouts are the driver's to arm again after a restart).
    pub fn asked(&self) -> impl Iterator<Item = &str> {
        self.decisions.asked.keys().map(String::as_str)
    }

    /// Forgets what waits on a request that resolved (answered by anyone).
    pub(crate) fn forget_decision(&mut self, permission_id: &str) {
        self.decisions.asked.remove(permission_id);
    }
}

/// What records a call the agent decided by its native rules: an action that
/// emits `permission.decided` with `data`, for the driver to carry out after the
/// adapter's own actions of the same call (so it follows the tool call's item).
pub fn native_decision(data: PermissionDecidedData) -> Action {
    Action::Emit(decided_event(data))
}

/// `permission.decided` with `data`.
fn decided_event(data: PermissionDecidedData) -> agentplex_adapter_types::EmittedEvent {
    synthetic(
        UniversalEventType::PermissionDecided,
        UniversalEventData::PermissionDecided(data),
    )
}
