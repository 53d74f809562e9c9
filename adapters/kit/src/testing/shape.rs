//! The shape every replayed transcript must have, whatever the agent.
//!
//! [`check_shape`] walks the steps of a [`super::replay`] and asserts:
//!
//! - nothing became `agent.unparsed`;
//! - every stdout line left a trace (an event whose `raw` is that line), unless the
//!   adapter's [`Shape::is_silent`] says the line carries nothing for the universal
//!   schema, or the session had already ended;
//! - a `raw` only ever holds the stdout line that was fed;
//! - turns open and close in pairs, and every message opens or joins a turn with its
//!   user item;
//! - every item starts once, before its deltas and its completion, and completes
//!   (when the session ended, open items may stay open if [`Shape::open_items_may_end`]
//!   allows it).

use std::collections::BTreeMap;

use super::replay::Step;
use crate::types::{Action, EmittedEvent, Event, ItemRole};

/// What a given adapter allows in its transcripts.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Native stdout lines that rightly leave no event (acknowledgements, framing...).
    pub is_silent: fn(&str) -> bool,
    /// True when the items open at the end of a session that ended may stay open.
    pub open_items_may_end: bool,
}

/// Asserts the universal shape of the replayed transcript `name` (see the module).
#[track_caller]
pub fn check_shape(name: &str, steps: &[Step], shape: Shape) {
    let mut items: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    let mut turn_open = false;
    let mut ended = false;
    for step in steps {
        let is_stdout = step.input["input"] == "stdout";
        let line = step.input["line"].as_str().unwrap_or_default();
        let emitted: Vec<&EmittedEvent> = step
            .actions
            .iter()
            .filter_map(|a| match a {
                Action::Emit(e) => Some(e),
                _ => None,
            })
            .collect();
        if is_stdout && !(shape.is_silent)(line) && !ended {
            assert!(
                emitted.iter().any(|e| e.raw.as_deref() == Some(line)),
                "{name}: a stdout line left no trace: {line}"
            );
        }
        for event in &emitted {
            if let Some(raw) = &event.raw {
                assert!(
                    is_stdout && raw == line,
                    "{name}: raw of another line: {raw}"
                );
            }
            match &event.event {
                Event::AgentUnparsed(u) => panic!("{name}: unparsed {u:?} in {line}"),
                Event::TurnStarted(_) => {
                    assert!(!turn_open, "{name}: a turn started inside a turn");
                    turn_open = true;
                }
                Event::TurnEnded(_) => {
                    assert!(turn_open, "{name}: a turn ended that was not open");
                    turn_open = false;
                }
                Event::SessionEnded(_) => ended = true,
                Event::ItemStarted(item) => {
                    let entry = items.entry(item.item_id.clone()).or_default();
                    assert_eq!(*entry, (0, 0), "{name}: {} started twice", item.item_id);
                    entry.0 = 1;
                }
                Event::ItemDelta(delta) => {
                    let entry = items.get(&delta.item_id).copied().unwrap_or_default();
                    assert_eq!(entry, (1, 0), "{name}: delta outside {}", delta.item_id);
                }
                Event::ItemCompleted(item) => {
                    let entry = items.entry(item.item_id.clone()).or_default();
                    assert_eq!(
                        *entry,
                        (1, 0),
                        "{name}: {} completed out of order",
                        item.item_id
                    );
                    entry.1 = 1;
                }
                _ => {}
            }
        }
        if step.input["input"] == "sendMessage" {
            assert!(turn_open, "{name}: a message outside a turn");
            assert!(
                emitted.iter().any(|e| matches!(&e.event,
                    Event::ItemCompleted(i) if i.role == Some(ItemRole::User))),
                "{name}: no user item for the message"
            );
        }
    }
    assert!(!turn_open || ended, "{name}: the last turn never ended");
    for (id, (started, completed)) in items {
        let may_stay_open = ended && shape.open_items_may_end;
        assert!(
            started == 1 && (completed == 1 || may_stay_open),
            "{name}: item {id} left open"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event;
    use crate::types::{MessagePart, Turn};
    use serde_json::json;

    const SHAPE: Shape = Shape {
        is_silent: |line| line == "{}",
        open_items_may_end: false,
    };

    fn step(input: serde_json::Value, events: Vec<EmittedEvent>) -> Step {
        let actions = events.into_iter().map(Action::Emit).collect();
        Step { input, actions }
    }

    fn turn() -> Vec<Step> {
        let parts = [MessagePart::Text("hi".into())];
        let mut opening = vec![event::turn_started(Turn::with_id("turn_1"))];
        opening.extend(event::user_message("itm_1", &parts));
        let line = r#"{"text":"hello"}"#;
        vec![
            step(json!({"input":"sendMessage","text":"hi"}), opening),
            step(json!({"input":"stdout","line":"{}"}), Vec::new()),
            step(
                json!({"input":"stdout","line":line}),
                event::assistant_message("itm_2", ["hello"])
                    .into_iter()
                    .map(|e| e.with_raw(line))
                    .chain([event::turn_ended(Turn::with_id("turn_1")).with_raw(line)])
                    .collect(),
            ),
        ]
    }

    #[test]
    fn a_well_formed_transcript_passes() {
        check_shape("hello", &turn(), SHAPE);
    }

    #[test]
    #[should_panic(expected = "left no trace")]
    fn a_line_without_a_trace_fails() {
        let mut steps = turn();
        steps[2].actions.clear();
        check_shape("hello", &steps, SHAPE);
    }
}
