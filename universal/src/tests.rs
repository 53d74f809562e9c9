//! The wire shape of the universal events: serde round trips of every event type.

use super::*;
use serde_json::json;

#[test]
fn event_serializes_in_the_0_1_wire_shape() {
    let event = UniversalEvent {
        event_id: "evt_1".into(),
        sequence: 1,
        time: "2026-01-01T00:00:00Z".into(),
        session_id: "s".into(),
        native_session_id: None,
        source: EventSource::Agent,
        synthetic: false,
        event_type: UniversalEventType::ItemDelta,
        data: UniversalEventData::ItemDelta(ItemDeltaData {
            item_id: "i1".into(),
            native_item_id: None,
            delta: "hi".into(),
        }),
        raw: None,
    };
    let value = serde_json::to_value(&event).unwrap();
    assert_eq!(
        value,
        json!({"event_id":"evt_1","sequence":1,"time":"2026-01-01T00:00:00Z","session_id":"s",
               "source":"agent","synthetic":false,"type":"item.delta",
               "data":{"item_id":"i1","delta":"hi"}})
    );
    let back: UniversalEvent = serde_json::from_value(value).unwrap();
    assert_eq!(back, event);
}

#[test]
fn data_variants_round_trip_through_untagged_json() {
    let samples = vec![
        UniversalEventData::SessionStarted(SessionStartedData {
            metadata: Some(json!({"a":1})),
        }),
        UniversalEventData::Turn(TurnEventData {
            phase: TurnPhase::Ended,
            turn_id: None,
            metadata: None,
            usage: Some(Usage {
                input_tokens: Some(3),
                ..Default::default()
            }),
        }),
        UniversalEventData::Error(ErrorData {
            message: "x".into(),
            code: None,
            details: None,
        }),
        UniversalEventData::AgentUnparsed(AgentUnparsedData {
            error: "bad".into(),
            location: "stdout".into(),
            raw_hash: None,
        }),
        UniversalEventData::Question(QuestionEventData {
            question_id: "q".into(),
            prompt: "?".into(),
            options: vec![],
            status: QuestionStatus::Requested,
            response: None,
        }),
    ];
    for data in samples {
        let text = serde_json::to_string(&data).unwrap();
        let back: UniversalEventData = serde_json::from_str(&text).unwrap();
        assert_eq!(back, data, "{text}");
    }
}

/// A `model.usage` payload as the daemon makes it.
fn model_usage() -> ModelUsageData {
    ModelUsageData {
        model: "claude-sonnet-4-5".into(),
        input_tokens: 1200,
        output_tokens: 80,
        cache_read_tokens: 1000,
        cache_write_tokens: 100,
        reasoning_tokens: 20,
        cost_usd: Some(0.0042),
        format: "anthropic-messages".into(),
        status: 200,
        duration_ms: 950,
        complete: true,
        error: None,
    }
}

/// A payload of each event type, in its event.
fn one_of_each_type() -> Vec<(UniversalEventType, UniversalEventData)> {
    use UniversalEventType as T;
    let item = || UniversalItem {
        item_id: "i1".into(),
        native_item_id: None,
        parent_id: None,
        kind: ItemKind::Message,
        role: Some(ItemRole::Assistant),
        status: ItemStatus::Completed,
        content: vec![ContentPart::Text { text: "hi".into() }],
    };
    let turn = |phase| TurnEventData {
        phase,
        turn_id: Some("t1".into()),
        metadata: None,
        usage: (phase == TurnPhase::Ended).then(|| Usage {
            input_tokens: Some(5),
            cache_write_tokens: Some(2),
            ..Default::default()
        }),
    };
    let permission = |status| PermissionEventData {
        permission_id: "p1".into(),
        action: "write".into(),
        status,
        metadata: None,
    };
    let question = |status| QuestionEventData {
        question_id: "q1".into(),
        prompt: "?".into(),
        options: vec!["a".into()],
        status,
        response: None,
    };
    vec![
        (
            T::SessionStarted,
            UniversalEventData::SessionStarted(SessionStartedData { metadata: None }),
        ),
        (
            T::SessionEnded,
            UniversalEventData::SessionEnded(SessionEndedData {
                reason: SessionEndReason::Completed,
                terminated_by: TerminatedBy::Agent,
                message: None,
                exit_code: None,
                stderr: None,
            }),
        ),
        (
            T::TurnStarted,
            UniversalEventData::Turn(turn(TurnPhase::Started)),
        ),
        (
            T::TurnEnded,
            UniversalEventData::Turn(turn(TurnPhase::Ended)),
        ),
        (
            T::ItemStarted,
            UniversalEventData::Item(ItemEventData { item: item() }),
        ),
        (
            T::ItemDelta,
            UniversalEventData::ItemDelta(ItemDeltaData {
                item_id: "i1".into(),
                native_item_id: None,
                delta: "h".into(),
            }),
        ),
        (
            T::ItemCompleted,
            UniversalEventData::Item(ItemEventData { item: item() }),
        ),
        (
            T::Error,
            UniversalEventData::Error(ErrorData {
                message: "x".into(),
                code: None,
                details: None,
            }),
        ),
        (
            T::PermissionRequested,
            UniversalEventData::Permission(permission(PermissionStatus::Requested)),
        ),
        (
            T::PermissionResolved,
            UniversalEventData::Permission(permission(PermissionStatus::Accept)),
        ),
        (
            T::QuestionRequested,
            UniversalEventData::Question(question(QuestionStatus::Requested)),
        ),
        (
            T::QuestionResolved,
            UniversalEventData::Question(question(QuestionStatus::Rejected)),
        ),
        (
            T::AgentUnparsed,
            UniversalEventData::AgentUnparsed(AgentUnparsedData {
                error: "bad".into(),
                location: "stdout:agent".into(),
                raw_hash: None,
            }),
        ),
        (T::ModelUsage, UniversalEventData::ModelUsage(model_usage())),
        (
            T::BudgetReached,
            UniversalEventData::BudgetReached(BudgetReachedData {
                scope: BudgetScope::Session,
                limit: BudgetLimit::Tokens,
                max_cost_usd: None,
                max_tokens: Some(1000),
                spent_cost_usd: 0.01,
                spent_tokens: 1024,
                action: BudgetAction::Refused,
            }),
        ),
        (
            T::PermissionDecided,
            UniversalEventData::PermissionDecided(PermissionDecidedData {
                permission_id: "p1".into(),
                decision: PermissionDecision::Deny,
                by: DecidedBy::Rule,
                rule: Some(0),
                tool: "shell".into(),
                input: DecidedInput {
                    command: Some("rm -rf /".into()),
                    ..DecidedInput::default()
                },
                subject: Some("rm -rf /".into()),
                reason: "denied by rules[0]".into(),
                native: true,
            }),
        ),
    ]
}

/// Which payload variant an event type carries (a new type fails to compile here).
fn variant_of(event_type: UniversalEventType) -> &'static str {
    use UniversalEventType as T;
    match event_type {
        T::SessionStarted => "SessionStarted",
        T::SessionEnded => "SessionEnded",
        T::TurnStarted | T::TurnEnded => "Turn",
        T::ItemStarted | T::ItemCompleted => "Item",
        T::ItemDelta => "ItemDelta",
        T::Error => "Error",
        T::PermissionRequested | T::PermissionResolved => "Permission",
        T::QuestionRequested | T::QuestionResolved => "Question",
        T::AgentUnparsed => "AgentUnparsed",
        T::ModelUsage => "ModelUsage",
        T::BudgetReached => "BudgetReached",
        T::PermissionDecided => "PermissionDecided",
    }
}

fn variant_name(data: &UniversalEventData) -> &'static str {
    match data {
        UniversalEventData::Turn(_) => "Turn",
        UniversalEventData::ModelUsage(_) => "ModelUsage",
        UniversalEventData::BudgetReached(_) => "BudgetReached",
        UniversalEventData::PermissionDecided(_) => "PermissionDecided",
        UniversalEventData::SessionEnded(_) => "SessionEnded",
        UniversalEventData::Item(_) => "Item",
        UniversalEventData::ItemDelta(_) => "ItemDelta",
        UniversalEventData::Permission(_) => "Permission",
        UniversalEventData::Question(_) => "Question",
        UniversalEventData::AgentUnparsed(_) => "AgentUnparsed",
        UniversalEventData::Error(_) => "Error",
        UniversalEventData::SessionStarted(_) => "SessionStarted",
    }
}

#[test]
fn every_event_type_decodes_to_its_own_payload_variant() {
    let samples = one_of_each_type();
    let types: std::collections::HashSet<_> = samples.iter().map(|(t, _)| *t).collect();
    assert_eq!(types.len(), samples.len());
    for (sequence, (event_type, data)) in samples.into_iter().enumerate() {
        assert_eq!(variant_name(&data), variant_of(event_type));
        let event = UniversalEvent {
            event_id: format!("evt_{sequence}"),
            sequence: sequence as u64 + 1,
            time: "2026-01-01T00:00:00Z".into(),
            session_id: "s".into(),
            native_session_id: None,
            source: EventSource::Daemon,
            synthetic: true,
            event_type,
            data,
            raw: None,
        };
        let text = serde_json::to_string(&event).unwrap();
        assert!(text.contains(&format!("\"type\":\"{}\"", event_type.as_str())));
        let back: UniversalEvent = serde_json::from_str(&text).unwrap();
        assert_eq!(variant_name(&back.data), variant_of(event_type), "{text}");
        assert_eq!(back, event, "{text}");
    }
    // Every variant of the enum is covered (`variant_of` is exhaustive, and
    // this many types are listed above).
    assert_eq!(types.len(), 16);
}

#[test]
fn model_usage_is_snake_case_and_leaves_out_an_unknown_cost() {
    let priced = serde_json::to_value(UniversalEventData::ModelUsage(model_usage())).unwrap();
    assert_eq!(
        priced,
        json!({"model":"claude-sonnet-4-5","input_tokens":1200,"output_tokens":80,
               "cache_read_tokens":1000,"cache_write_tokens":100,"reasoning_tokens":20,
               "cost_usd":0.0042,"format":"anthropic-messages","status":200,
               "duration_ms":950,"complete":true})
    );
    let unpriced = ModelUsageData {
        cost_usd: None,
        ..model_usage()
    };
    let value = serde_json::to_value(UniversalEventData::ModelUsage(unpriced.clone())).unwrap();
    assert!(value.get("cost_usd").is_none());
    let back: UniversalEventData = serde_json::from_value(value).unwrap();
    assert_eq!(back, UniversalEventData::ModelUsage(unpriced));
    let failed = ModelUsageData {
        complete: false,
        error: Some("the provider's answer broke off".into()),
        ..model_usage()
    };
    let value = serde_json::to_value(UniversalEventData::ModelUsage(failed)).unwrap();
    assert_eq!(value["error"], json!("the provider's answer broke off"));
    assert_eq!(
        serde_json::to_value(UniversalEventType::ModelUsage).unwrap(),
        json!("model.usage")
    );
}

#[test]
fn content_parts_are_tagged_by_type() {
    let part = ContentPart::FileRef {
        path: "a.rs".into(),
        action: FileAction::Patch,
        diff: None,
    };
    assert_eq!(
        serde_json::to_value(&part).unwrap(),
        json!({"type":"file_ref","path":"a.rs","action":"patch"})
    );
}

#[test]
fn a_budget_needs_a_cost_of_zero_or_more() {
    let limits = |cost| BudgetLimits {
        max_cost_usd: Some(cost),
        max_tokens: None,
    };
    assert_eq!(limits(0.0).invalid(), None);
    assert_eq!(limits(2.5).invalid(), None);
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        assert!(limits(bad).invalid().is_some(), "{bad}");
    }
    let read: BudgetLimits = serde_json::from_str(r#"{"maxTokens": 10}"#).unwrap();
    assert_eq!(read.max_tokens, Some(10));
    assert!(serde_json::from_str::<BudgetLimits>(r#"{"maxCost": 1}"#).is_err());
}
