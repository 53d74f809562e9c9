//! The host's error type.

use std::path::PathBuf;

/// What can go wrong when loading or running an adapter component.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// A component file could not be read, compiled or linked.
    #[error("cannot load adapter {origin}: {reason}")]
    Load { origin: String, reason: String },
    /// The component does not implement a contract version this host accepts.
    #[error("adapter {origin} does not implement a supported contract ({supported}): {reason}")]
    IncompatibleContract {
        origin: String,
        supported: String,
        reason: String,
    },
    /// The adapter's `info()` is unusable (bad id...).
    #[error("adapter {origin} describes itself badly: {reason}")]
    InvalidInfo { origin: String, reason: String },
    /// The guest trapped (a bug in the adapter).
    #[error("adapter {adapter} trapped in {call}: {reason}")]
    Trap {
        adapter: String,
        call: String,
        reason: String,
    },
    /// The guest asked for more memory than allowed.
    #[error("adapter {adapter} exceeded its memory limit of {limit_bytes} bytes in {call}")]
    MemoryLimit {
        adapter: String,
        call: String,
        limit_bytes: usize,
    },
    /// The guest ran past its time budget.
    #[error("adapter {adapter} ran longer than {timeout_ms} ms in {call}")]
    Timeout {
        adapter: String,
        call: String,
        timeout_ms: u128,
    },
    /// The guest returned an action the host refuses.
    #[error("adapter {adapter} returned an invalid action: {reason}")]
    InvalidAction {
        adapter: String,
        reason: crate::convert::InvalidAction,
    },
    /// The adapter rejected a client's request (a reply it cannot accept). Not fatal.
    #[error("{0}")]
    Rejected(String),
    /// The session was already ended by an earlier fatal error.
    #[error("adapter session is no longer usable")]
    Poisoned,
    /// Reading the adapters folder failed.
    #[error("cannot read adapters folder {path}: {source}")]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl HostError {
    /// Whether the session must end: everything but a rejected client request.
    pub fn is_fatal(&self) -> bool {
        !matches!(self, HostError::Rejected(_))
    }
}

/// An error chain on one line (wasmtime's messages can span several).
pub(crate) fn one_line(error: &wasmtime::Error) -> String {
    format!("{error:#}")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
