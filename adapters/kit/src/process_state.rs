//! The state every session that drives one long-lived agent process keeps (see
//! [`crate::process_session`]), and [`Output`], the helper its handlers emit through.
//!
//! An adapter's state embeds a [`ProcessState`] with `#[serde(flatten)]`, so the
//! snapshot keeps the fields where they always were, and implements [`WithProcess`]
//! to name it. Its process and turn types implement [`LiveProcess`] and
//! [`CancellableTurn`]. [`crate::process_session::ProcessSession`]'s bookkeeping and
//! [`Output`]'s `write`, `item_id` and `turn` then work on it.

use serde::{Deserialize, Serialize};

use crate::types::{EmittedEvent, Item};
use crate::{event, text, Actions, IdCounter, Origin};

/// The header of a process session's state: ids, the agent's session id, the live
/// process, the running turn, and whether the session ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "P: Serialize, T: Serialize",
    deserialize = "P: Deserialize<'de>, T: Deserialize<'de>"
))]
pub struct ProcessState<P, T> {
    /// Item, turn, process and request ids.
    pub ids: IdCounter,
    /// The agent's own session id, to resume it after a relaunch.
    pub native_session_id: Option<String>,
    /// The live process, when one runs.
    pub process: Option<P>,
    /// The running turn.
    pub turn: Option<T>,
    /// True once `session.ended` was emitted.
    pub ended: bool,
}

impl<P, T> Default for ProcessState<P, T> {
    fn default() -> Self {
        Self {
            ids: IdCounter::default(),
            native_session_id: None,
            process: None,
            turn: None,
            ended: false,
        }
    }
}

/// The live process of a [`ProcessState`].
pub trait LiveProcess {
    /// Its process id.
    fn id(&self) -> &str;
}

/// The running turn of a [`ProcessState`].
pub trait CancellableTurn {
    /// A turn that starts now, with id `id`.
    fn started(id: String) -> Self;

    /// True once a cancel was asked for.
    fn cancelling(&self) -> bool;

    /// Marks that a cancel was asked for.
    fn set_cancelling(&mut self);
}

impl<P: LiveProcess, T: CancellableTurn> ProcessState<P, T> {
    /// True when `process_id` is the live process.
    pub fn is_current(&self, process_id: &str) -> bool {
        self.process.as_ref().is_some_and(|p| p.id() == process_id)
    }

    /// Forgets the live process; its id, when one ran.
    pub fn take_process(&mut self) -> Option<String> {
        self.process.take().map(|process| process.id().to_owned())
    }

    /// True when the running turn is being cancelled.
    pub fn cancelling(&self) -> bool {
        self.turn.as_ref().is_some_and(T::cancelling)
    }

    /// Marks the running turn as cancelling; false when none runs or it already is.
    pub fn begin_cancel(&mut self) -> bool {
        match self.turn.as_mut() {
            Some(turn) if !turn.cancelling() => {
                turn.set_cancelling();
                true
            }
            _ => false,
        }
    }

    /// The running turn; one is opened (`turn.started`) when none runs, as when the
    /// agent starts a turn by itself.
    pub fn turn_or_start(&mut self, out: &mut Actions) -> &mut T {
        let turn = match self.turn.take() {
            Some(turn) => turn,
            None => T::started(out.start_turn(&mut self.ids)),
        };
        self.turn.insert(turn)
    }
}

/// An adapter's state that embeds a [`ProcessState`].
pub trait WithProcess {
    /// The live process's type.
    type Process: LiveProcess;
    /// The running turn's type.
    type Turn: CancellableTurn;

    /// The embedded header.
    fn header(&self) -> &ProcessState<Self::Process, Self::Turn>;

    /// The embedded header, to change.
    fn header_mut(&mut self) -> &mut ProcessState<Self::Process, Self::Turn>;
}

/// The session's state and the actions of the current input, plus where the events
/// come from: what the handlers of a process session's inputs emit through.
pub struct Output<'a, S> {
    /// The session's state.
    pub state: &'a mut S,
    /// The actions being returned.
    pub out: &'a mut Actions,
    origin: Origin<'a>,
}

impl<'a, S> Output<'a, S> {
    /// For events that come from `origin` (a native line, the adapter answering the
    /// client, or a gap in the agent's output).
    pub fn new(state: &'a mut S, out: &'a mut Actions, origin: Origin<'a>) -> Self {
        Self { state, out, origin }
    }

    /// Where the events come from.
    pub fn origin(&self) -> Origin<'a> {
        self.origin
    }

    /// Emits `event`, marked by where it comes from.
    pub fn emit(&mut self, event: EmittedEvent) {
        self.out.emit(self.origin.mark(event));
    }

    /// Reports the native line (on stdout) as not understood: `agent.unparsed` with
    /// `error`. Nothing when the events do not come from a line.
    pub fn unparsed(&mut self, error: &str) {
        if let Origin::Line(line) = self.origin {
            self.out
                .emit(event::unparsed(error, "stdout", text::raw_json(line)));
        }
    }

    /// `item.started` (in progress) then `item.completed` of `item`.
    pub fn whole(&mut self, item: Item) {
        self.emit(event::item_started(item.clone().in_progress()));
        self.emit(event::item_completed(item));
    }
}

impl<S: WithProcess> Output<'_, S> {
    /// Writes one line to the live process (nothing when none runs).
    pub fn write(&mut self, line: &str) {
        if let Some(process) = &self.state.header().process {
            self.out.write_line(process.id().to_owned(), line);
        }
    }

    /// A fresh item id.
    pub fn item_id(&mut self) -> String {
        self.state.header_mut().ids.next("itm")
    }

    /// The running turn; a synthetic one is opened when the agent started it by
    /// itself.
    pub fn turn(&mut self) -> &mut S::Turn {
        self.state.header_mut().turn_or_start(self.out)
    }
}
