use super::*;
use agentplex_universal::{
    EventSource, ItemDeltaData, ItemEventData, PermissionEventData, QuestionEventData,
    ReasoningVisibility, TurnEventData, TurnPhase,
};

fn event(event_type: UniversalEventType, data: UniversalEventData) -> UniversalEvent {
    UniversalEvent {
        event_id: "e".into(),
        sequence: 1,
        time: "t".into(),
        session_id: "s".into(),
        native_session_id: None,
        source: EventSource::Agent,
        synthetic: false,
        event_type,
        data,
        raw: None,
    }
}

fn item(
    id: &str,
    kind: ItemKind,
    role: Option<ItemRole>,
    status: ItemStatus,
    content: Vec<ContentPart>,
) -> UniversalItem {
    UniversalItem {
        item_id: id.into(),
        native_item_id: None,
        parent_id: None,
        kind,
        role,
        status,
        content,
    }
}

fn started(item: UniversalItem) -> UniversalEvent {
    event(
        UniversalEventType::ItemStarted,
        UniversalEventData::Item(ItemEventData { item }),
    )
}

fn completed(item: UniversalItem) -> UniversalEvent {
    event(
        UniversalEventType::ItemCompleted,
        UniversalEventData::Item(ItemEventData { item }),
    )
}

fn delta(item_id: &str, delta: &str) -> UniversalEvent {
    event(
        UniversalEventType::ItemDelta,
        UniversalEventData::ItemDelta(ItemDeltaData {
            item_id: item_id.into(),
            native_item_id: None,
            delta: delta.into(),
        }),
    )
}

fn updates(steps: Vec<Step>) -> Vec<Value> {
    steps
        .into_iter()
        .map(|step| match step {
            Step::Update(update) => update,
            other => panic!("not an update: {other:?}"),
        })
        .collect()
}

fn turn(phase: TurnPhase) -> UniversalEvent {
    let event_type = match phase {
        TurnPhase::Started => UniversalEventType::TurnStarted,
        TurnPhase::Ended => UniversalEventType::TurnEnded,
    };
    event(
        event_type,
        UniversalEventData::Turn(TurnEventData {
            phase,
            turn_id: None,
            metadata: None,
            usage: None,
        }),
    )
}

#[test]
fn streamed_text_and_thoughts_become_chunks_once() {
    let mut state = Updates::new();
    let assistant = |content| {
        item(
            "i1",
            ItemKind::Message,
            Some(ItemRole::Assistant),
            ItemStatus::InProgress,
            content,
        )
    };
    assert!(state.apply(&started(assistant(vec![]))).is_empty());
    assert_eq!(
        updates(state.apply(&delta("i1", "Hel"))),
        vec![
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hel"}})
        ]
    );
    // The completed item repeats streamed text: not sent again.
    let done = item(
        "i1",
        ItemKind::Message,
        Some(ItemRole::Assistant),
        ItemStatus::Completed,
        vec![ContentPart::Text {
            text: "Hello".into(),
        }],
    );
    assert!(state.apply(&completed(done)).is_empty());
    // A reasoning item that says so at its start streams thoughts.
    let thinking = item(
        "i2",
        ItemKind::Message,
        Some(ItemRole::Assistant),
        ItemStatus::InProgress,
        vec![ContentPart::Reasoning {
            text: String::new(),
            visibility: ReasoningVisibility::Public,
        }],
    );
    state.apply(&started(thinking));
    assert_eq!(
        updates(state.apply(&delta("i2", "hmm")))[0]["sessionUpdate"],
        "agent_thought_chunk"
    );
    // A message that was not streamed is sent whole at its end.
    let whole = item(
        "i3",
        ItemKind::Message,
        Some(ItemRole::Assistant),
        ItemStatus::Completed,
        vec![
            ContentPart::Reasoning {
                text: "why".into(),
                visibility: ReasoningVisibility::Public,
            },
            ContentPart::Text {
                text: "because".into(),
            },
        ],
    );
    let sent = updates(state.apply(&completed(whole)));
    assert_eq!(sent[0]["sessionUpdate"], "agent_thought_chunk");
    assert_eq!(sent[1]["content"]["text"], "because");
}

#[test]
fn a_tool_call_and_its_result_become_one_call_and_its_update() {
    let mut state = Updates::new();
    let call = |status| {
        item(
            "c",
            ItemKind::ToolCall,
            Some(ItemRole::Assistant),
            status,
            vec![ContentPart::ToolCall {
                name: "Bash".into(),
                arguments: r#"{"command":"ls -la"}"#.into(),
                call_id: "call-1".into(),
            }],
        )
    };
    let sent = updates(state.apply(&started(call(ItemStatus::InProgress))));
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["sessionUpdate"], "tool_call");
    assert_eq!(sent[0]["toolCallId"], "call-1");
    assert_eq!(sent[0]["kind"], "execute");
    assert_eq!(sent[0]["title"], "Bash: ls -la");
    assert_eq!(sent[0]["rawInput"]["command"], "ls -la");
    // Its completion with the same input is an update of the call it knows.
    let sent = updates(state.apply(&completed(call(ItemStatus::Completed))));
    assert_eq!(sent[0]["sessionUpdate"], "tool_call_update");
    let result = item(
        "r",
        ItemKind::ToolResult,
        Some(ItemRole::Tool),
        ItemStatus::Failed,
        vec![ContentPart::ToolResult {
            call_id: "call-1".into(),
            output: "denied".into(),
        }],
    );
    let sent = updates(state.apply(&completed(result)));
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["sessionUpdate"], "tool_call_update");
    assert_eq!(sent[0]["status"], "failed");
    assert_eq!(sent[0]["content"][0]["content"]["text"], "denied");
}

#[test]
fn a_result_of_an_unknown_call_announces_the_call_first() {
    let mut state = Updates::new();
    let result = item(
        "r",
        ItemKind::ToolResult,
        Some(ItemRole::Tool),
        ItemStatus::Completed,
        vec![ContentPart::ToolResult {
            call_id: "x".into(),
            output: "ok".into(),
        }],
    );
    let sent = updates(state.apply(&completed(result)));
    assert_eq!(sent[0]["sessionUpdate"], "tool_call");
    assert_eq!(sent[1]["status"], "completed");
}

#[test]
fn user_messages_are_sent_back_only_in_a_replay() {
    let mut state = Updates::new();
    let user = || {
        item(
            "u",
            ItemKind::Message,
            Some(ItemRole::User),
            ItemStatus::Completed,
            vec![ContentPart::Text { text: "hi".into() }],
        )
    };
    assert!(state.apply(&completed(user())).is_empty());
    state.set_replay(true);
    assert_eq!(
        updates(state.apply(&completed(user())))[0]["sessionUpdate"],
        "user_message_chunk"
    );
}

#[test]
fn permissions_and_questions_ask_the_client_live_only() {
    let mut state = Updates::new();
    let asked = event(
        UniversalEventType::PermissionRequested,
        UniversalEventData::Permission(PermissionEventData {
            permission_id: "p1".into(),
            action: "Bash".into(),
            status: PermissionStatus::Requested,
            metadata: Some(json!({"callId": "call-9", "command": "rm -rf /tmp/x"})),
        }),
    );
    match state.apply(&asked).as_slice() {
        [Step::AskPermission {
            permission_id,
            params,
        }] => {
            assert_eq!(permission_id, "p1");
            assert_eq!(params["toolCall"]["toolCallId"], "call-9");
            let kinds: Vec<&str> = params["options"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["kind"].as_str().unwrap())
                .collect();
            assert_eq!(kinds, ["allow_once", "allow_always", "reject_once"]);
        }
        other => panic!("{other:?}"),
    }
    let question = event(
        UniversalEventType::QuestionRequested,
        UniversalEventData::Question(QuestionEventData {
            question_id: "q1".into(),
            prompt: "Which colour?".into(),
            options: vec!["red".into(), "blue".into()],
            status: QuestionStatus::Requested,
            response: None,
        }),
    );
    match state.apply(&question).as_slice() {
        [Step::AskQuestion {
            question_id,
            params,
            ..
        }] => {
            assert_eq!(question_id, "q1");
            assert_eq!(
                params["requestedSchema"]["properties"]["answer"]["enum"],
                json!(["red", "blue"])
            );
        }
        other => panic!("{other:?}"),
    }
    state.set_replay(true);
    assert!(state.apply(&asked).is_empty(), "a replay asks nothing");
}

#[test]
fn a_budget_stops_the_turn_with_max_tokens() {
    let mut state = Updates::new();
    state.apply(&turn(TurnPhase::Started));
    assert_eq!(
        state.apply(&turn(TurnPhase::Ended)),
        vec![Step::TurnEnded(StopReason::EndTurn)]
    );
    state.apply(&turn(TurnPhase::Started));
    state.apply(&event(
        UniversalEventType::BudgetReached,
        UniversalEventData::Turn(TurnEventData {
            phase: TurnPhase::Ended,
            turn_id: None,
            metadata: None,
            usage: None,
        }),
    ));
    assert_eq!(
        state.apply(&turn(TurnPhase::Ended)),
        vec![Step::TurnEnded(StopReason::MaxTokens)]
    );
}

#[test]
fn a_plan_status_becomes_a_plan() {
    let mut state = Updates::new();
    let plan = item(
        "p",
        ItemKind::Status,
        None,
        ItemStatus::Completed,
        vec![ContentPart::Status {
            label: "plan".into(),
            detail: Some(
                r#"[{"content":"write tests","priority":"high","status":"in_progress"}]"#.into(),
            ),
        }],
    );
    let sent = updates(state.apply(&completed(plan)));
    assert_eq!(
        sent[0],
        json!({"sessionUpdate": "plan", "entries": [
        {"content": "write tests", "priority": "high", "status": "in_progress"}]})
    );
}

#[test]
fn a_change_of_modes_is_told_but_not_in_a_replay() {
    let changed = completed(item(
        "modes_changed_1",
        ItemKind::Status,
        Some(ItemRole::System),
        ItemStatus::Completed,
        vec![ContentPart::Status {
            label: agentplex_universal::MODES_CHANGED.into(),
            detail: Some(
                r#"{"agentMode":"plan","permissionMode":"bypass","model":"opus","variant":"max"}"#
                    .into(),
            ),
        }],
    ));
    let mut state = Updates::new();
    assert_eq!(
        state.apply(&changed),
        vec![Step::ModesChanged {
            agent_mode: "plan".into(),
            permission_mode: "bypass".into(),
            model: Some("opus".into()),
            variant: Some("max".into()),
        }]
    );
    state.set_replay(true);
    assert_eq!(state.apply(&changed), vec![]);
}

#[test]
fn what_the_agent_offers_is_told_but_not_in_a_replay() {
    let offered = completed(item(
        "agent_offered_1",
        ItemKind::Status,
        Some(ItemRole::System),
        ItemStatus::Completed,
        vec![ContentPart::Status {
            label: agentplex_universal::AGENT_OFFERED.into(),
            detail: Some(r#"{"models":[{"id":"opus"}]}"#.into()),
        }],
    ));
    let mut state = Updates::new();
    assert_eq!(state.apply(&offered), vec![Step::OfferChanged]);
    state.set_replay(true);
    assert_eq!(state.apply(&offered), vec![]);
}
