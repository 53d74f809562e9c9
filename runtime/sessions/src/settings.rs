//! How the daemon runs every session: the settings it is started with.

/// How the daemon runs every session.
#[derive(Debug, Clone, Copy)]
pub struct SessionSettings {
    /// Longest output line of an agent process handed to an adapter, in bytes.
    pub max_line_bytes: usize,
    /// How many steps of `nice` below the daemon agents run (`--agent-nice`).
    pub agent_nice: u8,
    /// How long a session sits without input before its adapter instance is
    /// parked (see [`agentplex_host::AdapterSession::park`]); `None`: never.
    pub park_after: Option<std::time::Duration>,
    /// Most sessions holding an adapter instance at once (the least recently
    /// used park past it, see [`crate::parking`]); `None`: no cap.
    pub max_live_instances: Option<usize>,
    /// How long an agent's process group has between SIGTERM and SIGKILL when
    /// the daemon stops.
    pub stop_grace: std::time::Duration,
    /// How git skill sources are fetched.
    pub git: crate::skills::GitSettings,
}
