//! `sandbox-agent processes ...` and `sandbox-agent terminal ID`: the process API
//! from the command line; and the daemon's flags for it.

use std::time::Duration;

use clap::Args;

use crate::processes::ProcessSettings;

/// `sandbox-agent server` flags of the process API (`/v1/processes`).
#[derive(Debug, Args)]
pub struct ProcessFlags {
    /// Most processes held at once: managed ones not deleted (running or exited)
    /// plus runs in progress.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..), env = "SANDBOX_AGENT_MAX_PROCESSES")]
    max_processes: u64,
    /// Log ring buffer of each process without a terminal, in bytes (older output
    /// is dropped; readers see what they missed).
    #[arg(long, default_value_t = 1 << 20, value_parser = clap::value_parser!(u64).range(1..), env = "SANDBOX_AGENT_PROCESS_LOG_BYTES")]
    process_log_bytes: u64,
    /// Scrollback ring buffer of each terminal, in bytes (replayed to a viewer
    /// that connects).
    #[arg(long, default_value_t = 256 << 10, value_parser = clap::value_parser!(u64).range(1..), env = "SANDBOX_AGENT_TERMINAL_SCROLLBACK_BYTES")]
    terminal_scrollback_bytes: u64,
    /// Most bytes a one-shot run keeps of its stdout, and of its stderr.
    #[arg(long, default_value_t = 1 << 20, env = "SANDBOX_AGENT_PROCESS_OUTPUT_BYTES")]
    process_output_bytes: u64,
    /// Largest decoded input of one `POST /v1/processes/{id}/input` or terminal
    /// input frame, in bytes.
    #[arg(long, default_value_t = 1 << 20, env = "SANDBOX_AGENT_PROCESS_INPUT_BYTES")]
    process_input_bytes: u64,
    /// Milliseconds between SIGTERM and SIGKILL when a process is stopped (and
    /// when the daemon stops its processes on shutdown).
    #[arg(
        long,
        default_value_t = 5000,
        env = "SANDBOX_AGENT_PROCESS_STOP_GRACE_MS"
    )]
    process_stop_grace_ms: u64,
}

impl ProcessFlags {
    /// The settings the flags give.
    pub fn into_settings(self) -> ProcessSettings {
        let size = |bytes: u64| usize::try_from(bytes).unwrap_or(usize::MAX);
        ProcessSettings {
            max_processes: size(self.max_processes),
            log_bytes: size(self.process_log_bytes),
            scrollback_bytes: size(self.terminal_scrollback_bytes),
            output_bytes: size(self.process_output_bytes),
            input_bytes: size(self.process_input_bytes),
            stop_grace: Duration::from_millis(self.process_stop_grace_ms),
        }
    }
}
