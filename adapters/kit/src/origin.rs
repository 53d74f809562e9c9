//! [`Origin`]: where the events an adapter emits while it handles one input come
//! from, and how that marks them.

use crate::types::EmittedEvent;

/// Where events come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin<'a> {
    /// A native line: events are native and carry it as `raw`.
    Line(&'a str),
    /// The adapter itself (a reply, a cancel): native events without `raw`.
    Adapter,
    /// A gap the adapter fills (a turn ended by a timeout or an exit): synthetic
    /// events.
    Synthetic,
}

impl Origin<'_> {
    /// `event`, marked as coming from here.
    pub fn mark(self, event: EmittedEvent) -> EmittedEvent {
        match self {
            Origin::Line(line) => event.with_raw(line),
            Origin::Adapter => event,
            Origin::Synthetic => event.synthetic(),
        }
    }
}
