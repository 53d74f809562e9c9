//! The desktop's one error type.

/// What can go wrong with the desktop or a request to it.
#[derive(Debug, thiserror::Error)]
pub enum DesktopError {
    /// Programs the desktop cannot run without are not installed (or this is not a
    /// system with an X server to run).
    #[error("the desktop needs programs that are not installed ({}): install them with `{install_command}` or `agentplex desktop install-deps`", missing.join(", "))]
    Unavailable {
        /// The Debian packages missing.
        missing: Vec<String>,
        /// The command that installs them.
        install_command: String,
    },
    /// The desktop is not started.
    #[error("the desktop is not running: start it with POST /v1/desktop/start")]
    NotRunning,
    /// The desktop's X server died; the next start starts it again.
    #[error("the desktop's X server died ({0}); POST /v1/desktop/start starts it again")]
    Died(String),
    /// A start or a stop is under way.
    #[error("the desktop is starting or stopping: try again when it is done")]
    Busy,
    /// A field of the request is out of range or names nothing.
    #[error("`{field}`: {reason}")]
    Invalid {
        /// The field, as the API spells it.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// No window has that id (or none has the focus).
    #[error("no window {0} on the desktop; GET /v1/desktop/windows lists them")]
    WindowNotFound(String),
    /// The request does not fit what the desktop is doing (a recording runs, or none).
    #[error("{0}")]
    Conflict(String),
    /// No recording has that id.
    #[error("no recording {0:?}; GET /v1/desktop/recordings lists them")]
    RecordingNotFound(String),
    /// A file of the desktop could not be written or removed.
    #[error("{0}")]
    Io(String),
    /// The desktop's programs did not come up.
    #[error("the desktop could not be started: {0}")]
    StartFailed(String),
    /// The X server refused or failed a request.
    #[error("the X server failed: {0}")]
    X11(String),
}
