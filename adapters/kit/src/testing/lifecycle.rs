//! What replays of a session whose agent runs as a long-lived process must show
//! when the process goes away: terminated by the daemon ([`check_terminated`]) or
//! crashed during a turn ([`check_crash_mid_turn`]); and the universal shape of
//! every transcript of a crate ([`check_every_shape`]).

use super::check;
use super::replay::{only, Step, Transcripts};
use super::shape::{check_shape, Shape};
use crate::SessionMachine;

/// Asserts the universal shape of every transcript of the crate at `manifest_dir`
/// replayed through `S`, and that there are at least `at_least` of them.
#[track_caller]
pub fn check_every_shape<S: SessionMachine>(manifest_dir: &str, at_least: usize, shape: Shape) {
    let transcripts = Transcripts::of_crate(manifest_dir);
    let names = transcripts.names();
    assert!(names.len() >= at_least, "transcripts: {names:?}");
    for name in names {
        check_shape(&name, &transcripts.replay::<S>(&name), shape);
    }
}

/// Asserts that the replay closed the stdin of `process` and ended the session as
/// terminated by the daemon.
#[track_caller]
pub fn check_terminated(steps: &[Step], process: &str) {
    check(
        only(steps, &["close-stdin", "session.ended"]),
        &[
            &format!("close-stdin {process}"),
            "session.ended terminated by daemon (synthetic)",
        ],
    );
}

/// Asserts that the replay's process, killed (signal 9) while it streamed the
/// assistant message `itm_2` of the first turn, failed that item (`failed_item`:
/// its rendered `item.completed` line), the turn and the session, naming `agent`.
#[track_caller]
pub fn check_crash_mid_turn(steps: &[Step], agent: &str, failed_item: &str) {
    let message = format!("{agent} exited during a turn with signal 9");
    let prefixes = [
        "error",
        "item.completed itm_2",
        "turn.ended",
        "session.ended",
    ];
    check(
        only(steps, &prefixes),
        &[
            &format!("error {message:?} code=agent_exited (synthetic)"),
            failed_item,
            "turn.ended turn_1 (synthetic)",
            &format!("session.ended error by agent {message:?} (synthetic)"),
        ],
    );
}
