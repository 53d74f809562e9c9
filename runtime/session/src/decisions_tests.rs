//! The core's part of approval policies: requests handed to the driver to
//! decide, decisions recorded and answered, asks left to the client or timed out.

use agentplex_adapter_types::PermissionReply;
use agentplex_universal::{DecidedBy, DecidedInput, PermissionDecidedData, PermissionDecision};
use serde_json::json;

use super::tests::{core, emitted, fed, permission, stdout};
use super::*;

/// Polls `core` until idle: adapter calls answered by `adapter`, decisions by
/// `decide`; every effect in order.
fn drive(
    core: &mut SessionCore,
    adapter: &mut dyn FnMut(&Input) -> Vec<Action>,
    decide: &mut dyn FnMut(&str) -> PermissionDecision,
) -> Vec<Effect> {
    let mut effects = Vec::new();
    while let Some(effect) = core.poll(7) {
        match &effect {
            Effect::Feed(input) => {
                let actions = adapter(input);
                effects.push(effect);
                core.adapter_outcome(Ok(actions));
            }
            Effect::Decide(id) => {
                let decision = decide(id);
                let id = id.clone();
                effects.push(effect);
                core.permission_decided(decided(&id, decision));
            }
            _ => effects.push(effect),
        }
    }
    effects
}

fn decided(id: &str, decision: PermissionDecision) -> PermissionDecidedData {
    PermissionDecidedData {
        permission_id: id.into(),
        decision,
        by: DecidedBy::Rule,
        rule: Some(0),
        tool: "shell".into(),
        input: DecidedInput {
            command: Some("rm -rf /".into()),
            ..DecidedInput::default()
        },
        subject: None,
        reason: "by rules[0]".into(),
        native: false,
    }
}

/// An adapter that asks for `p1` on any output and resolves what it is answered.
fn asking(input: &Input) -> Vec<Action> {
    match input {
        Input::Stdout { .. } => vec![permission(UniversalEventType::PermissionRequested, "p1")],
        Input::ReplyPermission { permission_id, .. } => {
            vec![permission(
                UniversalEventType::PermissionResolved,
                permission_id,
            )]
        }
        _ => Vec::new(),
    }
}

fn decisions(effects: &[Effect]) -> Vec<PermissionDecidedData> {
    emitted(effects)
        .into_iter()
        .filter_map(|event| match event.data {
            UniversalEventData::PermissionDecided(data) => Some(data),
            _ => None,
        })
        .collect()
}

fn replies(effects: &[Effect]) -> Vec<PermissionReply> {
    fed(effects)
        .into_iter()
        .filter_map(|input| match input {
            Input::ReplyPermission { reply, .. } => Some(*reply),
            _ => None,
        })
        .collect()
}

fn with_policy() -> SessionCore {
    let mut core = core();
    core.set_policy(Some(json!({"rules": [], "default": "ask"})));
    core
}

#[test]
fn allowed_and_denied_requests_are_answered_at_once_and_recorded() {
    for (decision, reply) in [
        (PermissionDecision::Allow, PermissionReply::Once),
        (PermissionDecision::Deny, PermissionReply::Reject),
    ] {
        let mut core = with_policy();
        core.incoming(stdout("ask"), 0);
        let effects = drive(&mut core, &mut asking, &mut |_| decision);
        assert_eq!(replies(&effects), [reply]);
        let recorded = decisions(&effects);
        assert_eq!(recorded.len(), 1, "{recorded:?}");
        assert_eq!(recorded[0].decision, decision);
        assert!(!core.awaiting_input(), "answered without the client");
        assert_eq!(core.asked().count(), 0);
    }
}

#[test]
fn an_ask_waits_for_the_client_whose_decision_is_recorded_with_what_was_asked() {
    let mut core = with_policy();
    core.incoming(stdout("ask"), 0);
    let effects = drive(&mut core, &mut asking, &mut |_| PermissionDecision::Ask);
    assert!(replies(&effects).is_empty());
    assert!(core.awaiting_input());
    assert_eq!(core.asked().collect::<Vec<_>>(), ["p1"]);
    // It survives a restart.
    let restored = SessionCore::restore(super::tests::identity(), &core.checkpoint(), 3);
    assert_eq!(restored.asked().collect::<Vec<_>>(), ["p1"]);
    assert_eq!(restored.policy(), core.policy());

    core.command(
        Command::ReplyPermission {
            permission_id: "p1".into(),
            reply: PermissionReply::Always,
        },
        0,
    );
    let effects = drive(&mut core, &mut asking, &mut |_| unreachable!());
    let recorded = decisions(&effects);
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].by, DecidedBy::Client);
    assert_eq!(recorded[0].decision, PermissionDecision::Allow);
    assert_eq!(recorded[0].input.command.as_deref(), Some("rm -rf /"));
    assert_eq!(core.asked().count(), 0);
}

#[test]
fn an_ask_past_its_time_is_denied_unless_answered() {
    let mut core = with_policy();
    core.incoming(stdout("ask"), 0);
    drive(&mut core, &mut asking, &mut |_| PermissionDecision::Ask);
    core.incoming(
        Incoming::AskExpired {
            permission_id: "p1".into(),
        },
        0,
    );
    let effects = drive(&mut core, &mut asking, &mut |_| unreachable!());
    assert_eq!(replies(&effects), [PermissionReply::Reject]);
    let recorded = decisions(&effects);
    assert_eq!(recorded[0].by, DecidedBy::Timeout);
    assert_eq!(recorded[0].decision, PermissionDecision::Deny);
    // A second expiry, or one after the answer, does nothing.
    core.incoming(
        Incoming::AskExpired {
            permission_id: "p1".into(),
        },
        0,
    );
    assert!(drive(&mut core, &mut asking, &mut |_| unreachable!()).is_empty());
}

#[test]
fn requests_are_decided_after_the_adapters_actions_and_only_while_pending() {
    let mut core = with_policy();
    core.incoming(stdout("ask"), 0);
    // The adapter resolves p1 itself in the same call (an agent's "always"),
    // and asks p2.
    let mut adapter = |input: &Input| match input {
        Input::Stdout { .. } => vec![
            permission(UniversalEventType::PermissionRequested, "p1"),
            permission(UniversalEventType::PermissionResolved, "p1"),
            permission(UniversalEventType::PermissionRequested, "p2"),
        ],
        _ => Vec::new(),
    };
    let mut asked = Vec::new();
    drive(&mut core, &mut adapter, &mut |id| {
        asked.push(id.to_owned());
        PermissionDecision::Ask
    });
    assert_eq!(asked, ["p2"]);
}

#[test]
fn without_a_policy_nothing_is_decided() {
    let mut core = core();
    core.incoming(stdout("ask"), 0);
    let effects = drive(&mut core, &mut asking, &mut |_| unreachable!());
    assert!(decisions(&effects).is_empty());
    core.command(
        Command::ReplyPermission {
            permission_id: "p1".into(),
            reply: PermissionReply::Reject,
        },
        0,
    );
    let effects = drive(&mut core, &mut asking, &mut |_| unreachable!());
    assert!(decisions(&effects).is_empty());
}

#[test]
fn a_replaced_policy_is_handed_to_the_adapter_and_the_commands_answer_waits_for_it() {
    let mut core = with_policy();
    let policy = json!({"rules": [{"tool": "read", "decision": "allow"}], "default": "ask"});
    core.command(Command::SetPolicy(Some(policy.clone())), 0);
    let effects = drive(&mut core, &mut |_| Vec::new(), &mut |_| {
        PermissionDecision::Ask
    });
    let fed: Vec<_> = fed(&effects).into_iter().cloned().collect();
    assert!(
        matches!(fed.as_slice(), [Input::SetPolicy(Some(given))] if *given == policy),
        "{fed:?}"
    );
    assert_eq!(core.policy(), Some(&policy));
    assert!(
        matches!(effects.last(), Some(Effect::Answer(Ok(())))),
        "{effects:?}"
    );
}

#[test]
fn a_native_decision_is_recorded_after_the_events_of_the_call_that_reported_it() {
    let mut core = with_policy();
    let mut native = decided("toolu_1", PermissionDecision::Allow);
    native.native = true;
    let mut adapter = |input: &Input| match input {
        Input::Stdout { .. } => vec![
            permission(UniversalEventType::PermissionResolved, "earlier"),
            native_decision(native.clone()),
        ],
        _ => Vec::new(),
    };
    core.incoming(stdout("ran"), 0);
    let effects = drive(&mut core, &mut adapter, &mut |_| PermissionDecision::Ask);
    let types: Vec<_> = emitted(&effects).iter().map(|e| e.event_type).collect();
    assert_eq!(
        types,
        [
            UniversalEventType::PermissionResolved,
            UniversalEventType::PermissionDecided
        ]
    );
    let recorded = decisions(&effects);
    assert!(recorded[0].native && recorded[0].permission_id == "toolu_1");
    assert!(
        replies(&effects).is_empty(),
        "nothing is answered: the agent decided"
    );
}
