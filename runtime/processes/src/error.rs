//! What the process API fails with.

use std::io;

use agentplex_files::FsError;

/// Why a process could not be started, found or driven.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The request asks for something the process API cannot do as written.
    #[error("{0}")]
    InvalidRequest(String),
    /// No managed process has this id.
    #[error("process {0:?} not found")]
    NotFound(String),
    /// The process is not in a state that allows it (running, exited, without
    /// stdin or a terminal), or the daemon is shutting down.
    #[error("{0}")]
    Conflict(String),
    /// Writing to the process's stdin or terminal failed.
    #[error("writing to process {id:?}: {source}")]
    InputFailed {
        /// The process.
        id: String,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// Resizing the process's terminal failed.
    #[error("resizing the terminal of {id:?}: {source}")]
    ResizeFailed {
        /// The process.
        id: String,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// An input larger than `--process-input-bytes`.
    #[error("the input is {bytes} bytes, more than the daemon's limit of {limit} (--process-input-bytes)")]
    InputTooLarge {
        /// Its decoded size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// The daemon holds as many processes as `--max-processes` allows.
    #[error("{0}")]
    LimitReached(String),
    /// The program could not be started.
    #[error("cannot start {command:?}: {source}")]
    SpawnFailed {
        /// The command as the client named it.
        command: String,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The working directory is missing or not a directory.
    #[error(transparent)]
    WorkingDirectory(#[from] FsError),
    /// The daemon's side of a process failed: a terminal, a pipe, a wait.
    #[error("{what}: {source}")]
    Io {
        /// What the daemon was doing.
        what: &'static str,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
}

impl ProcessError {
    /// The daemon's side of a process failed while doing `what`.
    pub fn io(what: &'static str) -> impl FnOnce(io::Error) -> Self {
        move |source| ProcessError::Io { what, source }
    }
}
