//! The daemon's log, for adapter code: `log::warn("...")`. A guest's stdout and
//! stderr are not connected (printing traps), so this is the way to say something.
//! Natively (in tests) the lines go to stderr.

use crate::bindings::sandbox_agent::adapter::host::{self, LogLevel};

/// Writes one line at `level`.
pub fn write(level: LogLevel, message: &str) {
    #[cfg(target_arch = "wasm32")]
    host::log(level, message);
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = host::log;
        eprintln!("[{level:?}] {message}");
    }
}

/// A detail for whoever debugs the adapter.
pub fn debug(message: &str) {
    write(LogLevel::Debug, message);
}

/// Something worth knowing in normal operation.
pub fn info(message: &str) {
    write(LogLevel::Info, message);
}

/// Something unexpected the adapter worked around.
pub fn warn(message: &str) {
    write(LogLevel::Warn, message);
}

/// Something that failed.
pub fn error(message: &str) {
    write(LogLevel::Error, message);
}
