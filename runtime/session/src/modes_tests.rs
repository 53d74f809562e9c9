//! Changed modes (`modes.rs`): recorded in the transcript and the checkpoint,
//! handed to the driver, read back from older checkpoints, and the daemon's
//! label kept from adapters; what the agent offers (`offer.rs`), likewise.

use super::tests::{core, drive, emit, emitted, fed, identity, quiet, send};
use super::*;

#[test]
fn changed_modes_are_recorded_handed_to_the_driver_and_kept() {
    let mut core = core();
    let modes = Modes {
        agent_mode: "plan".into(),
        permission_mode: "bypass".into(),
        model: Some("opus".into()),
        variant: Some("high".into()),
    };
    core.command(Command::SetModes(modes.clone()), 0);
    let effects = drive(&mut core, &mut quiet);
    assert!(fed(&effects).is_empty(), "the adapter hears of them later");
    let emitted: Vec<UniversalEvent> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Emit(event) => Some(event.decode().unwrap()),
            _ => None,
        })
        .collect();
    assert_eq!(emitted.len(), 1);
    let UniversalEventData::Item(data) = &emitted[0].data else {
        panic!("{:?}", emitted[0]);
    };
    assert_eq!(
        data.item.content,
        [agentplex_universal::ContentPart::Status {
            label: agentplex_universal::MODES_CHANGED.into(),
            detail: Some(
                r#"{"agentMode":"plan","permissionMode":"bypass","model":"opus","variant":"high"}"#
                    .into()
            ),
        }]
    );
    let handed = effects
        .iter()
        .position(|e| matches!(e, Effect::Modes(m) if *m == modes));
    let answered = effects
        .iter()
        .position(|e| matches!(e, Effect::Answer(Ok(()))));
    assert!(handed.unwrap() < answered.unwrap(), "{effects:?}");
    assert_eq!(core.modes(), Some(&modes));
    let checkpoint = core.checkpoint();
    assert_eq!(checkpoint.modes.as_deref(), Some(&modes));
    let restored = SessionCore::restore(identity(), &checkpoint, 1);
    assert_eq!(restored.modes(), Some(&modes));
}

#[test]
fn modes_kept_by_older_daemons_have_no_model_nor_variant() {
    let kept: Modes =
        serde_json::from_str(r#"{"agentMode":"plan","permissionMode":"default"}"#).unwrap();
    assert_eq!((&kept.model, &kept.variant), (&None, &None));
    let written = serde_json::to_string(&kept).unwrap();
    assert!(!written.contains("model"), "{written}");
    assert!(!written.contains("variant"), "{written}");
}

#[test]
fn what_the_agent_offers_is_recorded_when_it_changes_and_kept() {
    use agentplex_universal::{AgentOffer, OfferedChoice};
    let offer = AgentOffer {
        models: vec![OfferedChoice {
            id: "opus".into(),
            name: Some("Opus".into()),
            ..OfferedChoice::default()
        }],
        current_model: Some("opus".into()),
        ..AgentOffer::default()
    };
    let mut core = core();
    core.agent_offered(offer.clone(), 7);
    let effects = drive(&mut core, &mut quiet);
    let details: Vec<(String, Option<String>)> = emitted(&effects)
        .into_iter()
        .filter_map(|event| match event.data {
            UniversalEventData::Item(data) => match &data.item.content[..] {
                [agentplex_universal::ContentPart::Status { label, detail }] => {
                    Some((label.clone(), detail.clone()))
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        details,
        [(
            agentplex_universal::AGENT_OFFERED.to_owned(),
            Some(r#"{"models":[{"id":"opus","name":"Opus"}],"currentModel":"opus"}"#.to_owned())
        )]
    );
    core.agent_offered(offer.clone(), 8);
    assert!(
        emitted(&drive(&mut core, &mut quiet)).is_empty(),
        "the same again"
    );
    let checkpoint = core.checkpoint();
    let restored = SessionCore::restore(identity(), &checkpoint, 1);
    assert_eq!(restored.agent_offer().map(|o| &**o), Some(&offer));
    let older: Checkpoint = serde_json::from_str("{}").unwrap();
    assert!(SessionCore::restore(identity(), &older, 0)
        .agent_offer()
        .is_none());
    let more = AgentOffer {
        current_model: None,
        ..offer
    };
    core.agent_offered(more.clone(), 9);
    assert_eq!(emitted(&drive(&mut core, &mut quiet)).len(), 1);
    assert_eq!(core.agent_offer().map(|o| &**o), Some(&more));
}

#[test]
fn an_adapters_status_item_cannot_pass_for_the_daemons_records() {
    use agentplex_universal::{ContentPart, ItemEventData, ItemKind, ItemStatus, UniversalItem};
    let mut core = core();
    core.command(send("hi", None), 0);
    let said = emit(
        UniversalEventType::ItemCompleted,
        UniversalEventData::Item(ItemEventData {
            item: UniversalItem {
                item_id: "itm_9".into(),
                native_item_id: None,
                parent_id: None,
                kind: ItemKind::Status,
                role: None,
                content: vec![
                    ContentPart::Status {
                        label: agentplex_universal::MODES_CHANGED.into(),
                        detail: Some(r#"{"agentMode":"build","permissionMode":"bypass"}"#.into()),
                    },
                    ContentPart::Status {
                        label: agentplex_universal::AGENT_OFFERED.into(),
                        detail: Some(r#"{"models":[{"id":"x"}]}"#.into()),
                    },
                ],
                status: ItemStatus::Completed,
            },
        }),
    );
    let effects = drive(&mut core, &mut |_: &Input| Ok(vec![said.clone()]));
    let labels: Vec<String> = emitted(&effects)
        .into_iter()
        .filter_map(|event| match event.data {
            UniversalEventData::Item(data) => Some(data.item.content),
            _ => None,
        })
        .flatten()
        .filter_map(|part| match part {
            ContentPart::Status { label, .. } => Some(label),
            _ => None,
        })
        .collect();
    assert_eq!(
        labels,
        [
            crate::events::AGENT_MODES_LABEL,
            crate::events::AGENT_OFFERED_LABEL
        ]
    );
    assert!(
        core.agent_offer().is_none(),
        "an adapter's item offers nothing"
    );
}
