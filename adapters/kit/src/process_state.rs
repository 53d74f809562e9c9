//! The state every session that drives one long-lived agent process keeps (see
//! [`crate::process_session`]), and [`Output`], the helper its handlers emit through.
//!
//! An adapter's state embeds a [`ProcessState`] with `#[serde(flatten)]`, so the
//! snapshot keeps the fields where they always were, and implements [`WithProcess`]
//! to name it. The live process is a [`LiveProcess`] and the running turn a [`RunningTurn`], each
//! carrying what the adapter keeps of it beside the id the kit manages.
//! [`crate::process_session::ProcessSession`]'s bookkeeping and [`Output`]'s `write`,
//! `item_id` and `turn` then work on it.

use std::ops::{Deref, DerefMut};

use serde::{Deserialize, Serialize};

use crate::types::{EmittedEvent, Item};
use crate::{event, text, Actions, IdCounter, Origin};

/// The header of a process session's state: ids, the agent's session id, the live
/// process, the running turn, and whether the session ended. `P` is what the
/// adapter keeps of its process, `T` of a turn.
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
    pub process: Option<LiveProcess<P>>,
    /// The running turn.
    pub turn: Option<RunningTurn<T>>,
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

/// The live process of a [`ProcessState`]: its id, and what the adapter keeps of it
/// (`data`, whose fields sit beside the id in the snapshot and are reached through
/// `Deref`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveProcess<P> {
    /// Its process id.
    pub id: String,
    /// What the adapter keeps of it.
    #[serde(flatten)]
    pub data: P,
}

/// The running turn of a [`ProcessState`]: its id, whether a cancel was asked for,
/// and what the adapter keeps of it (`data`, as for [`LiveProcess`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunningTurn<T> {
    /// `turn_<n>`.
    pub id: String,
    /// A cancel was asked for: what ends the turn ends it as cancelled.
    pub cancelling: bool,
    /// What the adapter keeps of it.
    #[serde(flatten)]
    pub data: T,
}

impl<T: Default> RunningTurn<T> {
    /// A turn that starts now, with id `id`.
    pub fn started(id: String) -> Self {
        Self {
            id,
            cancelling: false,
            data: T::default(),
        }
    }
}

impl<P> Deref for LiveProcess<P> {
    type Target = P;

    fn deref(&self) -> &P {
        &self.data
    }
}

impl<P> DerefMut for LiveProcess<P> {
    fn deref_mut(&mut self) -> &mut P {
        &mut self.data
    }
}

impl<T> Deref for RunningTurn<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.data
    }
}

impl<T> DerefMut for RunningTurn<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.data
    }
}

impl<P, T: Default> ProcessState<P, T> {
    /// True when `process_id` is the live process.
    pub fn is_current(&self, process_id: &str) -> bool {
        self.process.as_ref().is_some_and(|p| p.id == process_id)
    }

    /// Forgets the live process; its id, when one ran.
    pub fn take_process(&mut self) -> Option<String> {
        self.process.take().map(|process| process.id)
    }

    /// Tells the live process what `to_tell` says it is to be told (given what
    /// the adapter keeps of it, such as [`crate::types::SessionConfig::model_to_tell`]
    /// does): writes `line(request id, that)` to it. Nothing without a live
    /// process or anything to tell.
    pub fn tell_live<'w>(
        &mut self,
        out: &mut Actions,
        to_tell: impl FnOnce(&mut P) -> Option<&'w str>,
        line: impl FnOnce(&str, &str) -> String,
    ) {
        let Some(process) = self.process.as_mut() else {
            return;
        };
        let Some(told) = to_tell(&mut process.data) else {
            return;
        };
        let request = self.ids.next("req");
        out.write_line(process.id.clone(), &line(&request, told));
    }

    /// True when the running turn is being cancelled.
    pub fn cancelling(&self) -> bool {
        self.turn.as_ref().is_some_and(|turn| turn.cancelling)
    }

    /// Marks the running turn as cancelling; false when none runs or it already is.
    pub fn begin_cancel(&mut self) -> bool {
        match self.turn.as_mut() {
            Some(turn) if !turn.cancelling => {
                turn.cancelling = true;
                true
            }
            _ => false,
        }
    }

    /// The running turn; one is opened (`turn.started`) when none runs, as when the
    /// agent starts a turn by itself.
    pub fn turn_or_start(&mut self, out: &mut Actions) -> &mut RunningTurn<T> {
        let turn = match self.turn.take() {
            Some(turn) => turn,
            None => RunningTurn::started(out.start_turn(&mut self.ids)),
        };
        self.turn.insert(turn)
    }
}

/// An adapter's state that embeds a [`ProcessState`].
pub trait WithProcess {
    /// What the adapter keeps of its live process.
    type Process;
    /// What the adapter keeps of a turn.
    type Turn: Default;

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
            self.out.write_line(process.id.clone(), line);
        }
    }

    /// A fresh item id.
    pub fn item_id(&mut self) -> String {
        self.state.header_mut().ids.next("itm")
    }

    /// The running turn; a synthetic one is opened when the agent started it by
    /// itself.
    pub fn turn(&mut self) -> &mut RunningTurn<S::Turn> {
        self.state.header_mut().turn_or_start(self.out)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// What an adapter keeps of a process, for the test.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    struct Kept {
        cost_usd: f64,
    }

    /// What an adapter keeps of a turn, for the test.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    struct TurnKept {
        errored: bool,
    }

    #[test]
    fn the_process_and_turn_keep_their_fields_beside_the_id_in_the_snapshot() {
        // Laid out as the adapters wrote them when each kept the id and the flag itself.
        let mut snapshot = serde_json::to_value(ProcessState::<Kept, TurnKept>::default()).unwrap();
        snapshot["process"] = json!({"id": "claude_1", "cost_usd": 0.5});
        snapshot["turn"] = json!({"id": "turn_2", "cancelling": true, "errored": true});
        let state: ProcessState<Kept, TurnKept> = serde_json::from_value(snapshot.clone()).unwrap();
        let process = state.process.as_ref().unwrap();
        assert_eq!((process.id.as_str(), process.cost_usd), ("claude_1", 0.5));
        assert!(state.is_current("claude_1"));
        assert!(state.cancelling());
        assert!(state.turn.as_ref().unwrap().errored);
        assert_eq!(serde_json::to_value(&state).unwrap(), snapshot);
    }

    #[test]
    fn a_cancel_is_begun_once_per_turn() {
        let mut state = ProcessState::<Kept, TurnKept>::default();
        assert!(!state.begin_cancel(), "no turn runs");
        state.turn = Some(RunningTurn::started("turn_1".into()));
        assert!(state.begin_cancel());
        assert!(!state.begin_cancel(), "already cancelling");
        assert!(state.cancelling());
    }
}
