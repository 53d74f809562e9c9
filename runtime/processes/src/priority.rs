//! The CPU priority of the agents a daemon starts.
//!
//! An agent, and what it runs (builds, test suites), can keep every core busy; the
//! daemon beside it must still answer the API, stream events and decide permission
//! requests within a millisecond or so. Agents therefore run some steps of `nice`
//! below the daemon (`--agent-nice`): when both want the CPU the daemon gets it
//! first, and when the daemon is idle, which is nearly always, the agent has the
//! machine to itself and loses nothing.

use std::os::unix::process::CommandExt;

/// How many steps below the daemon's CPU priority agents run unless told otherwise.
pub const DEFAULT_AGENT_NICE: u8 = 10;

/// The most steps (Linux clamps a process's nice value to 19).
pub const MAX_AGENT_NICE: u8 = 19;

/// Makes `command`'s process run `steps` of `nice` below the daemon (clamped to
/// the lowest priority); 0 leaves it at the daemon's.
pub fn lower(command: &mut std::process::Command, steps: u8) {
    if steps == 0 {
        return;
    }
    // SAFETY: only async-signal-safe system calls (getpriority, setpriority) run
    // between fork and exec.
    unsafe {
        command.pre_exec(move || {
            rustix::process::nice(i32::from(steps))?;
            Ok(())
        });
    }
}
