//! What reaches a session's task from its own I/O (process output, loopback HTTP
//! answers, timers), shared by the task and the I/O that feeds it.

use sandbox_agent_host::Input;

/// What reaches a session task from its own I/O.
pub enum Incoming {
    /// Something for the adapter.
    Adapter(Input),
    /// A process printed a line longer than the limit; it is not given to the adapter.
    LineTooLong {
        process_id: String,
        stream: Stream,
        length: usize,
        head: String,
    },
}

/// Which output stream a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    /// `stdout` or `stderr`.
    pub fn name(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}
