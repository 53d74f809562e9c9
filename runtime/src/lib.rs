//! The agentplex daemon: one HTTP API over every coding agent.
//!
//! This crate drives; it knows no agent by name. Adapter components (loaded by
//! `sandbox-agent-host`) decide what to launch and how to translate; this crate
//! owns everything with side effects: the HTTP server ([`server`]), sessions and
//! their transcripts ([`sessions`]), the processes clients start ([`processes`]), child processes, loopback HTTP and timers the
//! adapters ask for, the command line ([`cli`]), and the replay of recorded
//! transcripts through an adapter ([`transcripts`], `agentplex adapters test`).

pub mod agents;
#[cfg(target_env = "musl")]
pub mod allocator;
pub mod cli;
pub mod config;
pub mod error;
pub mod metrics;
pub mod server;
pub mod sessions;
pub mod transcripts;

/// The daemon's version, reported by `GET /v1/health`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The version, the commit it was built from and the target it was built for,
/// as `agentplex --version` prints them: `0.3.0 (3f1c2a9e0b7d x86_64-unknown-linux-musl)`.
pub const BUILD: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("AGENTPLEX_BUILD_COMMIT"),
    " ",
    env!("AGENTPLEX_BUILD_TARGET"),
    ")"
);
