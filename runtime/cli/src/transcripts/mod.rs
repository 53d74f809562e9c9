//! Replaying recorded transcripts through an adapter component: the engine of
//! `agentplex adapters test` (user documentation: `docs/adapters/testing.md`).
//!
//! A transcript folder holds cases: `NAME.jsonl` lists the inputs of one session, one
//! JSON object per line (the format is in [`input`]'s documentation), and
//! `NAME.expected.jsonl` is what the component returned for them, rendered one JSON
//! line per action ([`render`]). [`test_dir`] replays every case through a fresh
//! session of the component, with the host's own session code (the daemon's path,
//! including its action checks), and compares the rendering with the expected file,
//! or rewrites the expected files.

mod check;
mod input;
mod render;
mod replay;

use std::path::PathBuf;

pub use check::{test_dir, Mode, Summary};

/// Why a transcript folder cannot be tested at all (as opposed to a case whose
/// output differs, which [`test_dir`] counts in its [`Summary`]).
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    /// The folder, a case or an expected file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// An expected file could not be written (`--update`).
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A line of a case is not a valid input.
    #[error("{}:{line}: {reason}", path.display())]
    Input {
        path: PathBuf,
        line: usize,
        reason: InputError,
    },
    /// The folder holds no case.
    #[error("no transcript cases (NAME.jsonl) in {}", dir.display())]
    NoCases { dir: PathBuf },
    /// The report could not be printed.
    #[error("cannot print the report: {0}")]
    Report(std::io::Error),
}

/// Why a line of a case is not a valid input.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The line is not JSON.
    #[error("bad JSON: {0}")]
    Json(serde_json::Error),
    /// The line has no string field `input`.
    #[error("not an input: expected an object with a string field `input`")]
    NotAnInput,
    /// `input` names no kind of input; `expected` is serde's list of the kinds
    /// (`, expected one of ...`).
    #[error("unknown input kind `{kind}`{expected}")]
    UnknownKind { kind: String, expected: String },
    /// The fields do not fit the kind.
    #[error("bad `{kind}` input: {source}")]
    BadFields {
        kind: String,
        source: serde_json::Error,
    },
    /// A `create` input after the first input.
    #[error("`create` may only be the first input")]
    LateCreate,
}
