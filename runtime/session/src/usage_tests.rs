//! The metering rules (`usage.rs`): a metered model call becomes a `model.usage`
//! event and adds to the turn's and the session's totals, a turn that had such
//! calls ends with their totals, and the totals outlive a restart.

use agentplex_universal::{ModelUsageData, TurnEventData, TurnPhase, Usage};

use super::tests::{core, drive, emit, emitted, fed, identity, send, stdout, Outcome};
use super::*;

/// A call of `input` and `output` tokens that cost `cost` dollars.
fn call(input: u64, output: u64, cost: Option<f64>) -> Incoming {
    Incoming::ModelUsage(ModelUsageData {
        model: "claude-sonnet-4-5".into(),
        input_tokens: input,
        output_tokens: output,
        cache_read_tokens: input / 2,
        cache_write_tokens: 1,
        reasoning_tokens: 2,
        cost_usd: cost,
        format: "anthropic-messages".into(),
        status: 200,
        duration_ms: 30,
        complete: true,
        error: None,
    })
}

/// The usage the tests' agent reports on `turn.ended`.
fn reported() -> Usage {
    Usage {
        input_tokens: Some(7),
        output_tokens: Some(3),
        ..Usage::default()
    }
}

/// An agent that starts a turn on every message and ends it, with its own usage,
/// on the line `end`.
fn agent(input: &Input) -> Outcome {
    let turn = |phase, usage| {
        UniversalEventData::Turn(TurnEventData {
            phase,
            turn_id: Some("t".into()),
            metadata: None,
            usage,
        })
    };
    match input {
        Input::SendMessage(_) => Ok(vec![emit(
            UniversalEventType::TurnStarted,
            turn(TurnPhase::Started, None),
        )]),
        Input::Stdout { line, .. } if line == "end" => Ok(vec![emit(
            UniversalEventType::TurnEnded,
            turn(TurnPhase::Ended, Some(reported())),
        )]),
        _ => Ok(Vec::new()),
    }
}

/// The totals of calls of (100, 10, $0.5) and (50, 5, unknown price).
fn two_calls() -> UsageTotals {
    UsageTotals {
        input_tokens: 150,
        output_tokens: 15,
        cache_read_tokens: 75,
        cache_write_tokens: 2,
        reasoning_tokens: 4,
        cost_usd: Some(0.5),
        model_calls: 2,
    }
}

/// A core whose turn runs and has had the two calls of [`two_calls`].
fn metered_turn() -> (SessionCore, Vec<Effect>) {
    let mut core = core();
    core.command(send("go", None), 0);
    drive(&mut core, &mut agent);
    core.incoming(call(100, 10, Some(0.5)), 0);
    core.incoming(call(50, 5, None), 0);
    let effects = drive(&mut core, &mut agent);
    (core, effects)
}

#[test]
fn each_metered_call_is_a_daemon_made_model_usage_event() {
    let (core, effects) = metered_turn();
    let events = emitted(&effects);
    // The second call's model has no price: a warning follows its event.
    assert_eq!(events.len(), 3);
    assert_eq!(events[2].event_type, UniversalEventType::Error);
    for event in &events[..2] {
        assert_eq!(event.event_type, UniversalEventType::ModelUsage);
        assert_eq!(event.source, EventSource::Daemon);
        assert!(event.synthetic);
    }
    let UniversalEventData::ModelUsage(first) = &events[0].data else {
        panic!("{:?}", events[0]);
    };
    assert_eq!((first.input_tokens, first.cost_usd), (100, Some(0.5)));
    assert_eq!(core.usage().total, two_calls());
    assert_eq!(core.usage().current_turn, Some(two_calls()));
    assert_eq!(core.usage().last_turn, None);
}

#[test]
fn a_metered_turn_ends_with_the_metered_totals_and_keeps_the_adapters_in_raw() {
    let (mut core, _) = metered_turn();
    core.incoming(stdout("end"), 0);
    let events = emitted(&drive(&mut core, &mut agent));
    let UniversalEventData::Turn(ended) = &events[0].data else {
        panic!("{events:?}");
    };
    assert_eq!(ended.usage, Some(two_calls().as_usage()));
    assert_eq!(
        events[0].raw,
        Some(serde_json::json!({"adapter_usage": {"input_tokens": 7, "output_tokens": 3}}))
    );
    assert_eq!(core.usage().current_turn, None);
    assert_eq!(core.usage().last_turn, Some(two_calls()));

    // The next turn had no metered call: the adapter's usage stands, untouched.
    core.command(send("again", None), 0);
    drive(&mut core, &mut agent);
    core.incoming(stdout("end"), 0);
    let events = emitted(&drive(&mut core, &mut agent));
    let UniversalEventData::Turn(ended) = &events[0].data else {
        panic!("{events:?}");
    };
    assert_eq!(ended.usage, Some(reported()));
    assert_eq!(events[0].raw, None);
    assert_eq!(core.usage().last_turn, None);
    assert_eq!(core.usage().total, two_calls());
}

#[test]
fn the_agents_own_raw_payload_is_kept_as_it_is() {
    let (mut core, _) = metered_turn();
    let mut native = |input: &Input| -> Outcome {
        let mut actions = agent(input)?;
        for action in &mut actions {
            if let Action::Emit(event) = action {
                event.raw = Some(serde_json::value::RawValue::from_string("[1]".into()).unwrap());
            }
        }
        Ok(actions)
    };
    core.incoming(stdout("end"), 0);
    let events = emitted(&drive(&mut core, &mut native));
    assert_eq!(events[0].raw, Some(serde_json::json!([1])));
    let UniversalEventData::Turn(ended) = &events[0].data else {
        panic!("{events:?}");
    };
    assert_eq!(ended.usage, Some(two_calls().as_usage()));
}

#[test]
fn a_call_between_turns_counts_for_the_session_only() {
    let mut core = core();
    core.incoming(call(100, 10, Some(0.5)), 0);
    let events = emitted(&drive(&mut core, &mut agent));
    assert_eq!(events[0].event_type, UniversalEventType::ModelUsage);
    assert_eq!(core.usage().total.model_calls, 1);
    assert_eq!(core.usage().current_turn, None);
}

#[test]
fn nothing_is_metered_once_the_session_ended() {
    let mut core = core();
    core.command(Command::Terminate, 0);
    drive(&mut core, &mut agent);
    assert!(core.ended());
    core.incoming(call(1, 1, None), 0);
    assert!(emitted(&drive(&mut core, &mut agent)).is_empty());
    assert!(core.usage().is_empty());
}

#[test]
fn a_session_that_ends_keeps_its_last_turns_totals_and_closes_the_running_ones() {
    let (mut core, _) = metered_turn();
    core.incoming(stdout("end"), 0);
    drive(&mut core, &mut agent);
    core.command(Command::Terminate, 0);
    drive(&mut core, &mut agent);
    assert!(core.ended());
    assert_eq!(core.usage().last_turn, Some(two_calls()));

    // Ended in the middle of a metered turn: that turn becomes the last.
    let (mut core, _) = metered_turn();
    core.command(Command::Terminate, 0);
    drive(&mut core, &mut agent);
    assert_eq!(core.usage().current_turn, None);
    assert_eq!(core.usage().last_turn, Some(two_calls()));
}

#[test]
fn the_totals_outlive_a_restart_in_the_checkpoint() {
    let (core, _) = metered_turn();
    let stored = serde_json::to_string(&core.checkpoint()).unwrap();
    let checkpoint: Checkpoint = serde_json::from_str(&stored).unwrap();
    assert_eq!(checkpoint.usage, *core.usage());
    let restored = SessionCore::restore(identity(), &checkpoint, 2);
    assert_eq!(restored.usage(), core.usage());

    // Unmetered sessions store no usage; checkpoints of older daemons load.
    let unmetered = serde_json::to_value(SessionCore::new(identity(), 0).checkpoint()).unwrap();
    assert!(unmetered.get("usage").is_none(), "{unmetered}");
    let old: Checkpoint = serde_json::from_str(r#"{"ended":false,"updatedAt":5}"#).unwrap();
    assert!(old.usage.is_empty());
}

#[test]
fn a_turn_lost_with_the_daemon_ends_with_its_metered_totals() {
    let (core, _) = metered_turn();
    let checkpoint = Checkpoint {
        processes: vec![ProcessMark {
            id: "agent".into(),
            pid: 9,
            started: None,
        }],
        ..core.checkpoint()
    };
    let mut core = SessionCore::restore(identity(), &checkpoint, 2);
    core.resume(true, LostTurn::default(), CarriedOn::Restart, 0);
    let events = emitted(&drive(&mut core, &mut agent));
    let ended = events
        .iter()
        .find(|e| e.event_type == UniversalEventType::TurnEnded)
        .expect("the lost turn ends");
    let UniversalEventData::Turn(ended) = &ended.data else {
        panic!("{ended:?}");
    };
    assert_eq!(ended.usage, Some(two_calls().as_usage()));
    assert_eq!(core.usage().last_turn, Some(two_calls()));
}

/// The `error` events of `events`: their codes.
fn error_codes(events: &[agentplex_universal::UniversalEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match &event.data {
            UniversalEventData::Error(error) => error.code.clone(),
            _ => None,
        })
        .collect()
}

#[test]
fn a_model_without_a_price_is_said_once_per_model() {
    let mut core = core();
    for _ in 0..3 {
        core.incoming(call(10, 1, None), 0);
    }
    let events = emitted(&drive(&mut core, &mut agent));
    assert_eq!(events.len(), 4, "{events:?}");
    assert_eq!(error_codes(&events), ["model_unpriced"]);
    let UniversalEventData::Error(warning) = &events[1].data else {
        panic!("{events:?}");
    };
    assert!(warning.message.contains("claude-sonnet-4-5"), "{warning:?}");
    assert_eq!(core.usage().total.model_calls, 3);
    // A priced call, or a call that used nothing (refused before the model), says nothing.
    core.incoming(call(10, 1, Some(0.1)), 0);
    core.incoming(call(0, 0, None), 0);
    assert!(error_codes(&emitted(&drive(&mut core, &mut agent))).is_empty());
}

#[test]
fn a_provider_that_fails_is_an_error_after_the_calls_usage() {
    let mut core = core();
    for status in [502, 529, 429, 200] {
        let Incoming::ModelUsage(mut failed) = call(0, 0, Some(0.0)) else {
            unreachable!()
        };
        failed.status = status;
        failed.complete = status == 200;
        core.incoming(Incoming::ModelUsage(failed), 0);
    }
    // A success whose answer broke off (the gateway says why); one the agent
    // hung up on says nothing.
    for error in [Some("the provider's answer broke off"), None] {
        let Incoming::ModelUsage(mut broke) = call(0, 0, Some(0.0)) else {
            unreachable!()
        };
        broke.complete = false;
        broke.error = error.map(str::to_owned);
        core.incoming(Incoming::ModelUsage(broke), 0);
    }
    let events = emitted(&drive(&mut core, &mut agent));
    assert_eq!(
        error_codes(&events),
        [
            "model_call_failed",
            "model_call_failed",
            "model_call_failed"
        ]
    );
    assert_eq!(events[0].event_type, UniversalEventType::ModelUsage);
    let UniversalEventData::Error(error) = &events[1].data else {
        panic!("{events:?}");
    };
    assert!(error.message.contains("HTTP 502"), "{error:?}");
    let UniversalEventData::Error(error) = &events[7].data else {
        panic!("{events:?}");
    };
    assert!(
        error
            .message
            .ends_with("failed: the provider's answer broke off"),
        "{error:?}"
    );
    assert_eq!(events.len(), 9, "{events:?}");
    assert_eq!(core.usage().total.model_calls, 6);
}

fn reached() -> Incoming {
    Incoming::BudgetReached(agentplex_universal::BudgetReachedData {
        scope: agentplex_universal::BudgetScope::Session,
        limit: agentplex_universal::BudgetLimit::CostUsd,
        max_cost_usd: Some(1.0),
        max_tokens: None,
        spent_cost_usd: 1.02,
        spent_tokens: 4000,
        action: agentplex_universal::BudgetAction::Cut,
    })
}

#[test]
fn a_reached_budget_is_an_event_and_cancels_the_running_turn() {
    let (mut running, _) = metered_turn();
    running.incoming(reached(), 0);
    let effects = drive(&mut running, &mut agent);
    let events = emitted(&effects);
    assert_eq!(events[0].event_type, UniversalEventType::BudgetReached);
    assert_eq!(events[0].source, EventSource::Daemon);
    assert!(
        matches!(fed(&effects)[..], [Input::CancelTurn]),
        "{effects:?}"
    );

    // Between turns there is nothing to cancel.
    let mut idle = core();
    idle.incoming(reached(), 0);
    let effects = drive(&mut idle, &mut agent);
    assert_eq!(emitted(&effects).len(), 1);
    assert!(fed(&effects).is_empty(), "{effects:?}");
}

#[test]
fn the_budget_is_set_by_command_and_kept_in_the_checkpoint() {
    let mut core = core();
    let limits = agentplex_universal::BudgetLimits {
        max_cost_usd: Some(2.5),
        max_tokens: None,
    };
    core.command(Command::SetBudget(limits), 0);
    let effects = drive(&mut core, &mut agent);
    assert!(effects
        .iter()
        .any(|effect| matches!(effect, Effect::Answer(Ok(())))));
    assert_eq!(core.budget(), Some(limits));
    let stored = serde_json::to_string(&core.checkpoint()).unwrap();
    let checkpoint: Checkpoint = serde_json::from_str(&stored).unwrap();
    let restored = SessionCore::restore(identity(), &checkpoint, 0);
    assert_eq!(restored.budget(), Some(limits));
    // A checkpoint without one (of an older daemon) reads as none.
    let older: Checkpoint = serde_json::from_str("{}").unwrap();
    assert_eq!(SessionCore::restore(identity(), &older, 0).budget(), None);
}
