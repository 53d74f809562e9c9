//! The session core's rules one by one, with a scripted adapter: no process, no
//! task, no database.

use agentplex_adapter_types::{ExitStatus, MessagePart, PermissionReply, TimerRequest};
use agentplex_universal::{
    PermissionEventData, PermissionStatus, QuestionEventData, QuestionStatus, StderrOutput,
    TurnEventData, TurnPhase,
};

use super::*;

/// What the tests' adapter answers to one input.
pub type Outcome = Result<Vec<Action>, AdapterFailure>;

/// A core for session `s` of agent `mock`.
pub fn core() -> SessionCore {
    SessionCore::new(identity(), 0)
}

/// The identity the tests' cores have.
pub fn identity() -> Identity {
    Identity {
        session_id: "s".into(),
        agent: "mock".into(),
        max_line_bytes: 100,
    }
}

/// Polls `core` until it is idle, answering every `Feed` with `adapter`; every
/// effect in order (the `Feed`s included).
pub fn drive(core: &mut SessionCore, adapter: &mut dyn FnMut(&Input) -> Outcome) -> Vec<Effect> {
    let mut effects = Vec::new();
    while let Some(effect) = core.poll(7) {
        if let Effect::Feed(input) = &effect {
            let outcome = adapter(input);
            effects.push(effect);
            core.adapter_outcome(outcome);
        } else {
            effects.push(effect);
        }
    }
    effects
}

/// An adapter that does nothing.
pub fn quiet(_: &Input) -> Outcome {
    Ok(Vec::new())
}

/// An agent-made event.
pub fn emit(event_type: UniversalEventType, data: UniversalEventData) -> Action {
    Action::Emit(EmittedEvent {
        event_type,
        data,
        synthetic: false,
        raw: None,
    })
}

/// The agent's own `session.ended` (completed).
pub fn agent_ended() -> Action {
    emit(
        UniversalEventType::SessionEnded,
        UniversalEventData::SessionEnded(SessionEndedData {
            reason: SessionEndReason::Completed,
            terminated_by: TerminatedBy::Agent,
            message: None,
            exit_code: None,
            stderr: None,
        }),
    )
}

/// `turn.started` or `turn.ended` of turn `id`.
pub fn turn(phase: TurnPhase, id: &str) -> Action {
    let event_type = match phase {
        TurnPhase::Started => UniversalEventType::TurnStarted,
        _ => UniversalEventType::TurnEnded,
    };
    emit(
        event_type,
        UniversalEventData::Turn(TurnEventData {
            phase,
            turn_id: Some(id.into()),
            metadata: None,
            usage: None,
        }),
    )
}

/// A permission request or its resolution.
pub fn permission(event_type: UniversalEventType, id: &str) -> Action {
    emit(
        event_type,
        UniversalEventData::Permission(PermissionEventData {
            permission_id: id.into(),
            action: "write".into(),
            status: PermissionStatus::Requested,
            metadata: None,
        }),
    )
}

/// A question or its resolution.
pub fn question(event_type: UniversalEventType, id: &str) -> Action {
    emit(
        event_type,
        UniversalEventData::Question(QuestionEventData {
            question_id: id.into(),
            prompt: "which?".into(),
            options: vec!["a".into()],
            status: QuestionStatus::Requested,
            response: None,
        }),
    )
}

/// A user message of one text part.
pub fn send(text: &str, ticket: Option<Ticket>) -> Command {
    Command::Send {
        parts: vec![MessagePart::Text(text.into())],
        ticket,
    }
}

/// The text of a `SendMessage` input.
pub fn message_text(input: &Input) -> Option<String> {
    match input {
        Input::SendMessage(parts) => match parts.as_slice() {
            [MessagePart::Text(text)] => Some(text.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// A line of agent output.
pub fn stdout(line: &str) -> Incoming {
    Incoming::Adapter(Input::Stdout {
        process_id: "agent".into(),
        line: line.into(),
    })
}

fn answers(effects: &[Effect]) -> Vec<&Result<(), CoreError>> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Answer(result) => Some(result),
            _ => None,
        })
        .collect()
}

pub fn fed(effects: &[Effect]) -> Vec<&Input> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Feed(input) => Some(input),
            _ => None,
        })
        .collect()
}

/// The events staged, as a reader will get them.
pub(super) fn emitted(effects: &[Effect]) -> Vec<UniversalEvent> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Emit(event) => Some(event.decode().expect("an event decodes")),
            _ => None,
        })
        .collect()
}

/// An adapter that starts a turn on every message and ends it on the line `end`.
fn agent(input: &Input) -> Outcome {
    match input {
        Input::SendMessage(_) => Ok(vec![turn(TurnPhase::Started, "t")]),
        Input::Stdout { line, .. } if line == "end" => Ok(vec![turn(TurnPhase::Ended, "t")]),
        _ => Ok(Vec::new()),
    }
}

#[test]
fn a_message_starts_a_turn_and_the_next_waits_for_its_end() {
    let mut core = core();
    core.command(send("one", Some(1)), 0);
    let effects = drive(&mut core, &mut agent);
    assert!(matches!(
        effects[0],
        Effect::TurnStarted {
            ticket: 1,
            after: 0
        }
    ));
    assert_eq!(message_text(fed(&effects)[0]).as_deref(), Some("one"));
    assert!(matches!(answers(&effects)[..], [Ok(())]));
    assert!(core.turn_running());

    core.command(send("two", Some(2)), 0);
    let effects = drive(&mut core, &mut agent);
    assert!(fed(&effects).is_empty(), "{effects:?}");
    assert!(matches!(answers(&effects)[..], [Ok(())]));
    assert_eq!(core.queued_messages(), 1);
    assert_eq!(core.checkpoint().queued.len(), 1);

    core.incoming(stdout("end"), 0);
    let effects = drive(&mut core, &mut agent);
    // turn.ended (2), then the waiting message: its turn follows event 2.
    assert!(matches!(
        effects[..],
        [
            Effect::Feed(Input::Stdout { .. }),
            Effect::Emit(_),
            Effect::TurnStarted {
                ticket: 2,
                after: 2
            },
            Effect::Feed(Input::SendMessage(_)),
            Effect::Emit(_),
        ]
    ));
    let sequences: Vec<_> = emitted(&effects).iter().map(|e| e.sequence).collect();
    assert_eq!(sequences, [2, 3]);
    assert!(core.turn_running());
    assert_eq!(core.queued_messages(), 0);
}

#[test]
fn replies_need_a_pending_request_and_are_taken_once() {
    let mut core = core();
    core.incoming(stdout("ask"), 0);
    let asked = |_: &Input| {
        Ok(vec![
            permission(UniversalEventType::PermissionRequested, "p1"),
            question(UniversalEventType::QuestionRequested, "q1"),
        ])
    };
    drive(&mut core, &mut { asked });
    assert!(core.awaiting_input());
    assert_eq!(core.checkpoint().pending_permissions, ["p1"]);
    assert_eq!(core.checkpoint().pending_questions, ["q1"]);

    let reply = |id: &str| Command::ReplyPermission {
        permission_id: id.into(),
        reply: PermissionReply::Once,
    };
    core.command(reply("nope"), 0);
    let effects = drive(&mut core, &mut quiet);
    assert!(matches!(
        answers(&effects)[..],
        [Err(CoreError::RequestNotFound { what: "permission", id, .. })] if id == "nope"
    ));
    assert!(fed(&effects).is_empty());

    let resolve = |input: &Input| match input {
        Input::ReplyPermission { permission_id, .. } => Ok(vec![permission(
            UniversalEventType::PermissionResolved,
            permission_id,
        )]),
        Input::RejectQuestion { question_id } => Ok(vec![question(
            UniversalEventType::QuestionResolved,
            question_id,
        )]),
        _ => Ok(Vec::new()),
    };
    core.command(reply("p1"), 0);
    let effects = drive(&mut core, &mut { resolve });
    assert!(matches!(answers(&effects)[..], [Ok(())]));
    core.command(reply("p1"), 0);
    let effects = drive(&mut core, &mut { resolve });
    assert!(matches!(
        answers(&effects)[..],
        [Err(CoreError::RequestNotFound { .. })]
    ));

    core.command(
        Command::ReplyQuestion {
            question_id: "q2".into(),
            answers: vec![],
        },
        0,
    );
    let effects = drive(&mut core, &mut { resolve });
    assert!(matches!(
        answers(&effects)[..],
        [Err(CoreError::RequestNotFound {
            what: "question",
            ..
        })]
    ));
    core.command(
        Command::RejectQuestion {
            question_id: "q1".into(),
        },
        0,
    );
    drive(&mut core, &mut { resolve });
    assert!(!core.awaiting_input());
}

#[test]
fn cancel_reaches_the_adapter_only_while_a_turn_runs() {
    let mut core = core();
    core.command(Command::Cancel, 0);
    let effects = drive(&mut core, &mut agent);
    assert!(fed(&effects).is_empty());
    assert!(matches!(answers(&effects)[..], [Ok(())]));

    core.command(send("one", None), 0);
    drive(&mut core, &mut agent);
    core.command(Command::Cancel, 0);
    let effects = drive(&mut core, &mut agent);
    assert!(matches!(fed(&effects)[..], [Input::CancelTurn]));
}

#[test]
fn terminate_ends_the_session_with_a_daemon_made_event_once() {
    let mut core = core();
    core.command(Command::Terminate, 0);
    let effects = drive(&mut core, &mut quiet);
    let events = emitted(&effects);
    assert_eq!(events.len(), 1);
    let event = &events[0];
    assert!(event.synthetic);
    assert!(matches!(
        &event.data,
        UniversalEventData::SessionEnded(SessionEndedData {
            reason: SessionEndReason::Terminated,
            terminated_by: TerminatedBy::Daemon,
            ..
        })
    ));
    assert!(effects.iter().any(|e| matches!(e, Effect::Shutdown)));
    assert!(matches!(answers(&effects)[..], [Ok(())]));
    assert!(core.ended() && core.checkpoint().ended);

    // An adapter that ends the session itself: no second session.ended; a
    // rejection still answers Ok.
    let mut core = self::core();
    core.command(Command::Terminate, 0);
    let mut ends = |_: &Input| Ok(vec![agent_ended()]);
    let effects = drive(&mut core, &mut ends);
    assert_eq!(emitted(&effects).len(), 1);
    assert!(!emitted(&effects)[0].synthetic);
    let mut core = self::core();
    core.command(Command::Terminate, 0);
    let effects = drive(&mut core, &mut |_| {
        Err(AdapterFailure::Rejected("no".into()))
    });
    assert!(matches!(answers(&effects)[..], [Ok(())]));
    assert!(core.ended());
}

#[test]
fn an_ended_session_takes_nothing() {
    let mut core = core();
    core.command(send("one", None), 0);
    drive(&mut core, &mut agent);
    core.command(send("two", Some(2)), 0);
    core.command(Command::Terminate, 0);
    drive(&mut core, &mut agent);
    assert_eq!(core.queued_messages(), 0);
    assert!(!core.turn_running());
    for command in [
        Command::Start,
        send("three", Some(3)),
        Command::Cancel,
        Command::Terminate,
        Command::Suspend,
    ] {
        core.command(command, 0);
        let effects = drive(&mut core, &mut agent);
        assert!(
            matches!(
                effects[..],
                [Effect::Answer(Err(CoreError::SessionEnded { .. }))]
            ),
            "{effects:?}"
        );
    }
    core.incoming(stdout("end"), 0);
    assert!(drive(&mut core, &mut agent).is_empty());
}

#[test]
fn a_rejection_answers_the_caller_and_a_failure_ends_the_session_with_stderr() {
    let mut core = core();
    core.command(Command::Start, 0);
    let effects = drive(&mut core, &mut |_| {
        Err(AdapterFailure::Rejected("bad".into()))
    });
    assert!(matches!(answers(&effects)[..], [Err(CoreError::AdapterRejected(r))] if r == "bad"));
    assert!(emitted(&effects).is_empty());
    assert!(!core.ended());

    core.incoming(
        Incoming::Adapter(Input::Stderr {
            process_id: "agent".into(),
            line: "boom".into(),
        }),
        0,
    );
    drive(&mut core, &mut quiet);
    core.command(Command::Start, 0);
    let effects = drive(&mut core, &mut |_| {
        Err(AdapterFailure::Failed(
            "the adapter instance is poisoned".into(),
        ))
    });
    assert!(matches!(
        answers(&effects)[..],
        [Err(CoreError::AdapterFailed { agent, .. })] if agent == "mock"
    ));
    let events = emitted(&effects);
    assert_eq!(events[0].event_type, UniversalEventType::Error);
    let UniversalEventData::SessionEnded(ended) = &events[1].data else {
        panic!("{events:?}");
    };
    assert_eq!(ended.reason, SessionEndReason::Error);
    assert!(matches!(
        &ended.stderr,
        Some(StderrOutput { head: Some(head), .. }) if head == "boom"
    ));
    assert!(core.ended());
}

#[test]
fn a_gone_process_holds_the_next_message_until_its_exit_is_reported() {
    let mut core = core();
    core.incoming(
        Incoming::ProcessStarted {
            process_id: "agent".into(),
            pid: 42,
            started: Some(7),
        },
        0,
    );
    assert_eq!(core.checkpoint().processes[0].pid, 42);
    core.incoming(
        Incoming::ProcessGone {
            process_id: "agent".into(),
        },
        0,
    );
    core.command(send("one", None), 0);
    let effects = drive(&mut core, &mut agent);
    assert!(fed(&effects).is_empty());
    assert!(matches!(answers(&effects)[..], [Ok(())]));
    assert_eq!(core.queued_messages(), 1);

    let status = ExitStatus {
        code: Some(0),
        signal: None,
    };
    core.incoming(
        Incoming::Adapter(Input::Exit {
            process_id: "agent".into(),
            status,
        }),
        0,
    );
    let effects = drive(&mut core, &mut agent);
    assert!(matches!(
        fed(&effects)[..],
        [Input::Exit { .. }, Input::SendMessage(_)]
    ));
    assert!(matches!(&effects[0], Effect::Release(Resource::Process(id)) if id == "agent"));
    assert!(core.checkpoint().processes.is_empty());
}

#[test]
fn timers_and_streams_that_are_no_longer_wanted_are_not_reported() {
    let mut core = core();
    core.incoming(stdout("set"), 0);
    let set = |_: &Input| {
        Ok(vec![
            Action::SetTimer(TimerRequest {
                timer_id: "a".into(),
                delay_ms: 1,
            }),
            Action::SetTimer(TimerRequest {
                timer_id: "b".into(),
                delay_ms: 1,
            }),
            Action::CancelTimer("b".into()),
        ])
    };
    let effects = drive(&mut core, &mut { set });
    assert_eq!(
        effects
            .iter()
            .filter(|e| matches!(e, Effect::Io(_)))
            .count(),
        3
    );
    assert_eq!(core.checkpoint().timers, ["a"]);
    for timer in ["b", "a", "a"] {
        core.incoming(
            Incoming::Adapter(Input::Timer {
                timer_id: timer.into(),
            }),
            0,
        );
    }
    let effects = drive(&mut core, &mut quiet);
    assert!(matches!(fed(&effects)[..], [Input::Timer { timer_id }] if timer_id == "a"));
    // The fired timer's handle is let go of once, before the adapter hears of it.
    assert!(matches!(
        &effects[..],
        [Effect::Release(Resource::Timer(id)), Effect::Feed(_)] if id == "a"
    ));
    core.incoming(
        Incoming::Adapter(Input::SseClosed {
            stream_id: "x".into(),
            error: None,
        }),
        0,
    );
    assert!(drive(&mut core, &mut quiet).is_empty());
}

#[test]
fn events_are_numbered_on_from_the_transcript_and_time_comes_from_the_caller() {
    let mut core = SessionCore::restore(identity(), &Checkpoint::default(), 41);
    core.incoming(
        Incoming::LineTooLong {
            process_id: "agent".into(),
            stream: Stream::Stdout,
            length: 500,
            head: "{\"a\"".into(),
        },
        1234,
    );
    let effects = drive(&mut core, &mut quiet);
    let events = emitted(&effects);
    assert_eq!(events[0].sequence, 42);
    assert_eq!(events[0].event_id, "evt_42");
    assert_eq!(events[0].time, "1970-01-01T00:00:01.234Z");
    assert_eq!(events[0].session_id, "s");
    assert_eq!(events[0].source, EventSource::Daemon);
    assert!(events[0].synthetic);
    assert_eq!(events[0].raw, Some(serde_json::json!("{\"a\"")));
    let UniversalEventData::AgentUnparsed(unparsed) = &events[0].data else {
        panic!("{events:?}");
    };
    assert_eq!(unparsed.location, "stdout:agent");
    assert!(unparsed.error.contains("100-byte limit"));
    assert_eq!(core.last_sequence(), 42);
    assert_eq!(core.updated_at(), 1234);
}

#[test]
fn the_native_session_id_goes_with_the_events_after_it() {
    let mut core = core();
    core.incoming(stdout("hello"), 0);
    let mut named = |_: &Input| {
        Ok(vec![
            Action::SetNativeSessionId("n1".into()),
            turn(TurnPhase::Started, "t"),
        ])
    };
    let effects = drive(&mut core, &mut named);
    let events = emitted(&effects);
    assert_eq!(events[0].native_session_id.as_deref(), Some("n1"));
    assert_eq!(events[0].source, EventSource::Agent);
    assert_eq!(core.checkpoint().native_session_id.as_deref(), Some("n1"));
}

/// A checkpoint of a turn that died with its process, a permission and a
/// question pending, a timer set and a message waiting.
fn lost_turn_checkpoint() -> Checkpoint {
    Checkpoint {
        native_session_id: Some("n1".into()),
        turn_running: true,
        pending_permissions: vec!["p1".into()],
        pending_questions: vec!["q1".into()],
        processes: vec![ProcessMark {
            id: "agent".into(),
            pid: 9,
            started: None,
        }],
        timers: vec!["tick".into()],
        updated_at: 5,
        queued: vec![vec![StoredPart::Text {
            text: "later".into(),
        }]],
        ..Checkpoint::default()
    }
}

#[test]
fn a_restored_core_gives_back_its_checkpoint() {
    let checkpoint = lost_turn_checkpoint();
    let core = SessionCore::restore(identity(), &checkpoint, 3);
    assert_eq!(core.checkpoint(), checkpoint);
}

#[test]
fn resuming_with_a_fresh_adapter_closes_the_lost_turn_then_runs_the_queue() {
    let mut core = SessionCore::restore(identity(), &lost_turn_checkpoint(), 3);
    let UniversalEventData::Permission(p1) =
        permission_data(UniversalEventType::PermissionRequested, "p1")
    else {
        unreachable!()
    };
    let lost = LostTurn {
        permissions: vec![p1],
        questions: Vec::new(),
        turn_id: Some("t1".into()),
    };
    core.resume(true, lost, CarriedOn::Restart, 99);
    let effects = drive(&mut core, &mut agent);
    let events = emitted(&effects);
    let types: Vec<_> = events.iter().map(|e| e.event_type).collect();
    assert_eq!(
        types,
        [
            UniversalEventType::ItemCompleted,
            UniversalEventType::PermissionResolved,
            UniversalEventType::TurnEnded,
            UniversalEventType::TurnStarted,
        ]
    );
    assert!(events[..3].iter().all(|e| e.synthetic));
    assert_eq!(events[0].sequence, 4);
    let UniversalEventData::Turn(ended) = &events[2].data else {
        unreachable!()
    };
    assert_eq!(ended.turn_id.as_deref(), Some("t1"));
    assert_eq!(
        ended.metadata,
        Some(serde_json::json!({"reason": "daemon_restart"}))
    );
    // The question had no event to close it with: it stays pending.
    assert_eq!(core.checkpoint().pending_questions, ["q1"]);
    assert!(core.checkpoint().pending_permissions.is_empty());
    assert!(matches!(
        fed(&effects)[..],
        [Input::Start, Input::SendMessage(_)]
    ));
    let checkpoint = core.checkpoint();
    assert!(checkpoint.processes.is_empty() && checkpoint.timers.is_empty());
    assert!(checkpoint.turn_running && checkpoint.queued.is_empty());
}

#[test]
fn resuming_the_same_adapter_reports_lost_processes_and_timers() {
    let checkpoint = Checkpoint {
        turn_running: false,
        ..lost_turn_checkpoint()
    };
    let mut core = SessionCore::restore(identity(), &checkpoint, 0);
    core.resume(false, LostTurn::default(), CarriedOn::Restart, 0);
    let effects = drive(&mut core, &mut agent);
    assert!(
        matches!(
            fed(&effects)[..],
            [
                Input::Exit {
                    status: ExitStatus {
                        signal: Some(libc::SIGKILL),
                        ..
                    },
                    ..
                },
                // Each adapter call is followed by the queue's turn, as it
                // always is: the exit lets the waiting message start.
                Input::SendMessage(_),
                Input::Timer { .. },
            ]
        ),
        "{effects:?}"
    );
    // Nothing of the lost turn is closed: the adapter still has it.
    assert_eq!(core.checkpoint().pending_permissions, ["p1"]);
}

#[test]
fn suspending_keeps_the_state_for_the_next_daemon() {
    let mut core = core();
    core.command(send("one", None), 0);
    drive(&mut core, &mut agent);
    core.command(Command::Suspend, 0);
    let effects = drive(&mut core, &mut agent);
    assert!(matches!(effects[..], [Effect::Answer(Ok(()))]));
    assert!(core.suspended() && !core.ended());
    assert!(core.checkpoint().turn_running);
}

fn permission_data(event_type: UniversalEventType, id: &str) -> UniversalEventData {
    match permission(event_type, id) {
        Action::Emit(event) => event.data,
        _ => unreachable!(),
    }
}

#[test]
fn an_idle_core_keeps_no_room_for_the_last_calls_actions() {
    let mut core = core();
    core.command(send("one", Some(1)), 0);
    let mut talkative = |_: &Input| -> Outcome {
        Ok((0..32)
            .map(|i| turn(TurnPhase::Started, &format!("t{i}")))
            .collect())
    };
    let effects = drive(&mut core, &mut talkative);
    assert_eq!(emitted(&effects).len(), 32);
    // A session at rest holds its core for its whole life: what a call left
    // behind would stay with it (a few KiB each, times thousands of sessions).
    assert_eq!(core.actions.capacity(), 0);
    assert_eq!(core.effects.capacity(), 0);
    assert_eq!(core.steps.capacity(), 0);
}
