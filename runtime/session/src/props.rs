//! Property tests of the session core: random sequences of commands, agent
//! output, adapter outcomes, process events and restarts, with the invariants
//! checked after every step against a model kept from the effects alone.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use agentplex_adapter_types::{ExitStatus, PermissionReply};
use agentplex_universal::TurnPhase;
use proptest::prelude::*;

use super::tests::{identity, message_text, permission, question, stdout, turn, Outcome};
use super::*;

/// What the agent does when its next line is read.
#[derive(Debug, Clone)]
enum AgentSays {
    Nothing,
    TurnEnded,
    Permission(u8),
    Question(u8),
    SessionEnded,
    Rejected,
    Fails,
}

/// One step of a random run.
#[derive(Debug, Clone)]
enum Op {
    Send,
    ReplyPermission(u8),
    ReplyQuestion(u8),
    RejectQuestion(u8),
    Cancel,
    Terminate,
    Agent(AgentSays),
    ProcessStarted(u8),
    ProcessGone(u8),
    Exit(u8),
    /// The daemon restarts on the last checkpoint.
    Restart {
        fresh_adapter: bool,
    },
}

fn agent_says() -> impl Strategy<Value = AgentSays> {
    prop_oneof![
        1 => Just(AgentSays::Nothing),
        4 => Just(AgentSays::TurnEnded),
        2 => (0..3u8).prop_map(AgentSays::Permission),
        2 => (0..3u8).prop_map(AgentSays::Question),
        1 => Just(AgentSays::SessionEnded),
        1 => Just(AgentSays::Rejected),
        1 => Just(AgentSays::Fails),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => Just(Op::Send),
        2 => (0..4u8).prop_map(Op::ReplyPermission),
        1 => (0..4u8).prop_map(Op::ReplyQuestion),
        1 => (0..4u8).prop_map(Op::RejectQuestion),
        1 => Just(Op::Cancel),
        1 => Just(Op::Terminate),
        8 => agent_says().prop_map(Op::Agent),
        1 => (0..2u8).prop_map(Op::ProcessStarted),
        1 => (0..2u8).prop_map(Op::ProcessGone),
        1 => (0..2u8).prop_map(Op::Exit),
        1 => any::<bool>().prop_map(|fresh_adapter| Op::Restart { fresh_adapter }),
    ]
}

/// The agent: starts a turn on each message, resolves what it is answered,
/// ends the turn on cancel, and does what its output line says.
fn adapter(input: &Input) -> Outcome {
    Ok(match input {
        Input::SendMessage(_) => vec![turn(TurnPhase::Started, "t")],
        Input::ReplyPermission { permission_id, .. } => vec![permission(
            UniversalEventType::PermissionResolved,
            permission_id,
        )],
        Input::ReplyQuestion { question_id, .. } | Input::RejectQuestion { question_id } => {
            vec![question(UniversalEventType::QuestionResolved, question_id)]
        }
        Input::CancelTurn => vec![turn(TurnPhase::Ended, "t")],
        Input::Stdout { line, .. } => match line.split_once(':') {
            Some(("turn_ended", _)) => vec![turn(TurnPhase::Ended, "t")],
            Some(("permission", id)) => {
                vec![permission(UniversalEventType::PermissionRequested, id)]
            }
            Some(("question", id)) => vec![question(UniversalEventType::QuestionRequested, id)],
            Some(("session_ended", _)) => vec![super::tests::agent_ended()],
            Some(("rejected", _)) => return Err(AdapterFailure::Rejected("no".into())),
            Some(("fails", _)) => {
                return Err(AdapterFailure::Failed(
                    "the adapter instance is poisoned".into(),
                ))
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    })
}

fn line(says: &AgentSays) -> String {
    match says {
        AgentSays::Nothing => "nothing:".into(),
        AgentSays::TurnEnded => "turn_ended:".into(),
        AgentSays::Permission(id) => format!("permission:p{id}"),
        AgentSays::Question(id) => format!("question:q{id}"),
        AgentSays::SessionEnded => "session_ended:".into(),
        AgentSays::Rejected => "rejected:".into(),
        AgentSays::Fails => "fails:".into(),
    }
}

/// What the effects said so far.
#[derive(Default)]
struct Model {
    /// Accepted messages not started yet, oldest first, with their tickets.
    waiting: VecDeque<(String, Option<Ticket>)>,
    started: Vec<String>,
    running: bool,
    ended: bool,
    permissions: BTreeSet<String>,
    questions: BTreeSet<String>,
    /// Processes by id: gone or not.
    processes: BTreeMap<String, bool>,
    last_sequence: u64,
    sent: u64,
}

impl Model {
    /// Checks the effects of one step; the answers they gave.
    fn observe(&mut self, effects: Vec<Effect>) -> Vec<Result<(), CoreError>> {
        let mut answers = Vec::new();
        let mut announced: Option<Ticket> = None;
        for effect in effects {
            if self.ended {
                assert!(
                    matches!(effect, Effect::Answer(_) | Effect::Shutdown),
                    "after the end: {effect:?}"
                );
            }
            match effect {
                Effect::Feed(Input::SendMessage(parts)) => {
                    let text = message_text(&Input::SendMessage(parts)).unwrap();
                    assert!(!self.running, "a second turn started");
                    assert!(
                        !self.processes.values().any(|gone| *gone),
                        "a turn started while an exit was awaited"
                    );
                    let (next, ticket) = self.waiting.pop_front().expect("a message was waiting");
                    assert_eq!(text, next, "messages start in the order sent");
                    assert_eq!(announced.take(), ticket, "its sender is told first");
                    self.started.push(text);
                    self.running = true;
                }
                Effect::Feed(_) => {}
                Effect::Decide(id) => unreachable!("no policy, yet {id} was to be decided"),
                Effect::Modes(modes) => unreachable!("no modes were set, yet {modes:?}"),
                Effect::TurnStarted { ticket, after } => {
                    assert_eq!(after, self.last_sequence);
                    announced = Some(ticket);
                }
                Effect::Emit(event) => {
                    assert_eq!(
                        event.sequence,
                        self.last_sequence + 1,
                        "numbered without gaps"
                    );
                    self.last_sequence = event.sequence;
                    self.event(&event.decode().expect("an event decodes"));
                }
                Effect::Answer(result) => answers.push(result),
                Effect::Shutdown => {
                    assert!(self.ended);
                    self.waiting.clear();
                    self.processes.clear();
                }
                Effect::NativeSessionId(_) | Effect::Io(_) | Effect::Release(_) => {}
            }
        }
        answers
    }

    fn event(&mut self, event: &UniversalEvent) {
        match (&event.event_type, &event.data) {
            (UniversalEventType::TurnEnded, _) => self.running = false,
            (UniversalEventType::PermissionRequested, UniversalEventData::Permission(p)) => {
                self.permissions.insert(p.permission_id.clone());
            }
            (_, UniversalEventData::Permission(p)) => {
                self.permissions.remove(&p.permission_id);
            }
            (UniversalEventType::QuestionRequested, UniversalEventData::Question(q)) => {
                self.questions.insert(q.question_id.clone());
            }
            (_, UniversalEventData::Question(q)) => {
                self.questions.remove(&q.question_id);
            }
            (UniversalEventType::SessionEnded, _) => {
                self.ended = true;
                self.running = false;
                self.permissions.clear();
                self.questions.clear();
            }
            _ => {}
        }
    }

    /// The invariants between steps.
    fn check(&self, core: &SessionCore) {
        let checkpoint = core.checkpoint();
        let queued: Vec<String> = self.waiting.iter().map(|(text, _)| text.clone()).collect();
        let stored: Vec<String> = checkpoint
            .queued
            .iter()
            .map(|parts| match parts.as_slice() {
                [StoredPart::Text { text }] => text.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(stored, queued);
        assert_eq!(core.queued_messages(), queued.len());
        assert_eq!(checkpoint.turn_running, self.running);
        assert_eq!(core.turn_running(), self.running);
        assert_eq!(checkpoint.ended, self.ended);
        let permissions: Vec<String> = self.permissions.iter().cloned().collect();
        let questions: Vec<String> = self.questions.iter().cloned().collect();
        assert_eq!(checkpoint.pending_permissions, permissions);
        assert_eq!(checkpoint.pending_questions, questions);
        assert_eq!(core.last_sequence(), self.last_sequence);
        let marks: Vec<&str> = checkpoint.processes.iter().map(|p| p.id.as_str()).collect();
        let known: Vec<&str> = self.processes.keys().map(String::as_str).collect();
        assert_eq!(marks, known);
        // Nothing waits that could start.
        let exit_awaited = self.processes.values().any(|gone| *gone);
        if !self.ended && !self.running && !exit_awaited {
            assert!(self.waiting.is_empty(), "a message waits for nothing");
        }
        // What a restarted daemon would build from the checkpoint is the same.
        let restored = SessionCore::restore(identity(), &checkpoint, core.last_sequence());
        assert_eq!(restored.checkpoint(), checkpoint);
    }
}

/// Polls the core until idle, answering the adapter calls with [`adapter`].
fn drive(core: &mut SessionCore) -> Vec<Effect> {
    super::tests::drive(core, &mut adapter)
}

/// Runs one step on `core` and the model; checks what the step answered.
fn step(core: &mut SessionCore, model: &mut Model, op: &Op) {
    let ended = model.ended;
    let not_found = |answers: &[Result<(), CoreError>]| {
        if ended {
            assert!(matches!(answers, [Err(CoreError::SessionEnded { .. })]));
        } else {
            assert!(matches!(answers, [Err(CoreError::RequestNotFound { .. })]));
        }
    };
    match op {
        Op::Send => {
            model.sent += 1;
            let text = model.sent.to_string();
            let ticket = model.sent.is_multiple_of(2).then_some(model.sent);
            core.command(send_text(&text, ticket), 0);
            if !ended {
                model.waiting.push_back((text, ticket));
            }
            let answers = model.observe(drive(core));
            assert_eq!(answers.len(), 1, "one answer per command");
            assert_eq!(answers[0].is_ok(), !ended, "{answers:?}");
        }
        Op::ReplyPermission(id) | Op::ReplyQuestion(id) | Op::RejectQuestion(id) => {
            let (command, pending) = match op {
                Op::ReplyPermission(_) => {
                    let id = format!("p{id}");
                    let pending = model.permissions.contains(&id);
                    let command = Command::ReplyPermission {
                        permission_id: id,
                        reply: PermissionReply::Once,
                    };
                    (command, pending)
                }
                Op::ReplyQuestion(_) => {
                    let id = format!("q{id}");
                    let pending = model.questions.contains(&id);
                    let command = Command::ReplyQuestion {
                        question_id: id,
                        answers: Vec::new(),
                    };
                    (command, pending)
                }
                _ => {
                    let id = format!("q{id}");
                    let pending = model.questions.contains(&id);
                    (Command::RejectQuestion { question_id: id }, pending)
                }
            };
            core.command(command, 0);
            let answers = model.observe(drive(core));
            if pending {
                assert!(matches!(answers[..], [Ok(())]), "{answers:?}");
            } else {
                not_found(&answers);
            }
        }
        Op::Cancel | Op::Terminate => {
            let command = match op {
                Op::Cancel => Command::Cancel,
                _ => Command::Terminate,
            };
            core.command(command, 0);
            let answers = model.observe(drive(core));
            assert_eq!(answers.len(), 1);
            assert_eq!(answers[0].is_ok(), !ended);
            if matches!(op, Op::Terminate) {
                assert!(model.ended && core.ended());
            }
        }
        Op::Agent(says) => {
            core.incoming(stdout(&line(says)), 0);
            let answers = model.observe(drive(core));
            assert!(answers.is_empty());
        }
        Op::ProcessStarted(id) => {
            let id = format!("proc{id}");
            // A new process (the driver reports a replacement amid the batch
            // that asked for it, before the next message may start).
            if model.processes.contains_key(&id) {
                return model.check(core);
            }
            let started = Incoming::ProcessStarted {
                process_id: id.clone(),
                pid: 1,
                started: None,
            };
            core.incoming(started, 0);
            if !ended {
                model.processes.insert(id, false);
            }
        }
        Op::ProcessGone(id) => {
            let id = format!("proc{id}");
            core.incoming(
                Incoming::ProcessGone {
                    process_id: id.clone(),
                },
                0,
            );
            if let Some(gone) = model.processes.get_mut(&id) {
                *gone = true;
            }
        }
        Op::Exit(id) => {
            let process_id = format!("proc{id}");
            model.processes.remove(&process_id);
            let status = ExitStatus {
                code: Some(0),
                signal: None,
            };
            core.incoming(Incoming::Adapter(Input::Exit { process_id, status }), 0);
            model.observe(drive(core));
        }
        Op::Restart { fresh_adapter } => {
            if ended {
                return;
            }
            let checkpoint = core.checkpoint();
            *core = SessionCore::restore(identity(), &checkpoint, core.last_sequence());
            // The tickets' channels died with the previous daemon.
            for (_, ticket) in &mut model.waiting {
                *ticket = None;
            }
            model.processes.clear();
            core.resume(*fresh_adapter, LostTurn::default(), CarriedOn::Restart, 0);
            model.observe(drive(core));
        }
    }
    model.check(core);
}

fn send_text(text: &str, ticket: Option<Ticket>) -> Command {
    super::tests::send(text, ticket)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_session_rules_hold_in_any_order(ops in proptest::collection::vec(op(), 1..60)) {
        let mut core = SessionCore::new(identity(), 0);
        let mut model = Model::default();
        for op in &ops {
            step(&mut core, &mut model, op);
        }
        // Every message accepted started once, in order, or was dropped at the end.
        let mut started = model.started.clone();
        started.dedup();
        prop_assert_eq!(started.len(), model.started.len());
        if !model.ended {
            let mut all = model.started.clone();
            all.extend(model.waiting.iter().map(|(text, _)| text.clone()));
            let numbers: Vec<u64> = all.iter().map(|t| t.parse().unwrap()).collect();
            prop_assert!(numbers.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
