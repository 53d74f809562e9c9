//! The recorded transcripts of `transcripts/` replayed through [`PiSession`] with the
//! kit's harness (`sandbox_agent_adapter_kit::testing`), which snapshots and restores
//! the session after every input.

pub(super) use sandbox_agent_adapter_kit::testing::replay::{config_of, only};
use sandbox_agent_adapter_kit::testing::replay::{Step, Transcripts};

use crate::PiSession;

/// The crate's `transcripts/` folder.
fn transcripts() -> Transcripts {
    Transcripts::of_crate(env!("CARGO_MANIFEST_DIR"))
}

/// The names of every transcript in `transcripts/`.
pub(super) fn names() -> Vec<String> {
    transcripts().names()
}

/// Replays transcript `name`.
pub(super) fn replay(name: &str) -> Vec<Step> {
    transcripts().replay::<PiSession>(name)
}
