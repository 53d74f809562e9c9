//! Where Codex keeps a thread, and how it moves to another sandbox (WIT
//! `native-session-files`, `move-native-file`; measured on Codex 0.169.0).
//!
//! A thread lives in one rollout file,
//! `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl`
//! (`CODEX_HOME` defaults to `~/.codex`). `thread/resume` finds it by id alone: any
//! file beneath `sessions/` whose name ends `-<thread id>.jsonl` will do, and the
//! `cwd` the adapter sends overrides the stored one.
//!
//! The SQLite files next to it (`state_5.sqlite`, `thread_history_1.sqlite`) are
//! indexes Codex rebuilds from the rollouts, so they stay behind: a copied
//! `threads` row would name the old home's rollout, and Codex would then fail to
//! resume (or, when both homes are on one machine, append to the old file).
//!
//! The file moves to the same path relative to `CODEX_HOME` (or the home when it is
//! not set), and every path of the old place in it (the `cwd` of `session_meta`,
//! `turn_context` and the `<environment_context>` text, the skills folder under
//! `CODEX_HOME`, tool calls' paths) is rewritten for the new one, so Codex sees no
//! change of world state to tell the model about.

use sandbox_agent_adapter_kit::native_session::{folder, join, same_place, NativeSessions};
use sandbox_agent_adapter_kit::prelude::*;

use crate::credentials::LOCATION_ENV;

/// Codex's rollout files, moved under the new `CODEX_HOME`.
pub(crate) const SESSIONS: NativeSessions = NativeSessions {
    files,
    relocate,
    import: None,
    before_resume: false,
};

/// Codex's folder at `place`: `$CODEX_HOME`, else `~/.codex`.
fn codex_home(place: &Place) -> String {
    folder(place, LOCATION_ENV, ".codex")
}

/// The rollout of thread `id`: a file ending `-<id>.jsonl` in a date folder
/// (`YYYY/MM/DD`, three folders down) of `$CODEX_HOME/sessions`.
fn files(id: &str, at: &Place) -> Vec<NativeSource> {
    vec![NativeSource::Search(FileSearch {
        folder: join(&codex_home(at), "sessions"),
        depth: 3,
        suffix: format!("-{id}.jsonl"),
    })]
}

/// The rollout at the same path relative to the new place's Codex folder, with the
/// old place's paths rewritten. Both places name their Codex folder in `CODEX_HOME`
/// for the kit's [`same_place`], so a folder set at one place and defaulted at the
/// other (`~/.codex`) still maps onto each other.
fn relocate(path: &str, contents: Vec<u8>, from: &Place, to: &Place) -> Result<MovedFile, String> {
    same_place(path, contents, &with_codex_home(from), &with_codex_home(to))
}

/// `place` with `CODEX_HOME` naming Codex's folder there, set or not.
fn with_codex_home(place: &Place) -> Place {
    let dir = codex_home(place);
    let mut place = place.clone();
    place.env.retain(|(name, _)| name != LOCATION_ENV);
    place.env.push((LOCATION_ENV.to_owned(), dir));
    place
}
