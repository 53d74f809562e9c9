//! The daemon's settings, resolved from the command line and the environment.

use std::net::SocketAddr;
use std::path::PathBuf;

use agentplex_host::HostConfig;

/// Which cross-origin requests the server answers; none by default.
#[derive(Debug, Clone, Default)]
pub struct CorsConfig {
    pub allow_origins: Vec<String>,
    pub allow_headers: Vec<String>,
    pub allow_methods: Vec<String>,
    pub allow_credentials: bool,
}

/// Everything `agentplex server` runs with.
#[derive(Debug, Clone)]
pub struct DaemonConfig {
    pub listen: SocketAddr,
    /// Required token; `None` only with an explicit `--no-token`.
    pub token: Option<String>,
    pub cors: CorsConfig,
    /// `--allowed-host`: `Host` names answered besides the loopback ones (without a
    /// token), or the only ones answered (with a token; any name when empty).
    pub allowed_hosts: Vec<String>,
    /// Root of the daemon's files (session database, compile cache, installed agents).
    pub data_dir: PathBuf,
    /// Extra adapter components; override builtins by agent id.
    pub adapters_dir: Option<PathBuf>,
    /// Where and how agent binaries are installed (looked up there before PATH).
    pub install: agentplex_install::InstallSettings,
    /// How long a client may take to send a request head (from connecting, or from
    /// the previous response) before the connection is closed; also how long a JSON
    /// request body may stall before the request is refused.
    pub header_read_timeout: std::time::Duration,
    /// How long a new connection has to send its first request head.
    pub unauthenticated_timeout: std::time::Duration,
    /// How long an ACP connection over HTTP may go without a message or an open
    /// stream before it is closed (its sessions go on).
    pub acp_idle_timeout: std::time::Duration,
    /// Most connections one client address holds before they authenticate.
    pub max_unauthenticated_per_peer: usize,
    /// Most client connections served at once; `None`: three quarters of the
    /// open-files limit (see `server::conn`).
    pub max_connections: Option<usize>,
    /// Largest request body accepted, in bytes (JSON bodies).
    pub body_limit: usize,
    /// Largest file written or archive unpacked by the `/v1/fs/*` routes, in bytes.
    pub fs_max_bytes: u64,
    /// Most members (files, directories, links) of one archive unpacked by `upload-batch`.
    pub fs_max_entries: u64,
    /// The folder the file API and the working directories of sessions and processes
    /// are confined to (`--fs-root`); `None`: unconfined, as in 0.1.x.
    pub fs_root: Option<PathBuf>,
    /// Longest output line of an agent process handed to an adapter, in bytes.
    pub max_line_bytes: usize,
    /// How many steps of `nice` below the daemon agents run (`--agent-nice`).
    pub agent_nice: u8,
    /// How long a session may sit without input before its adapter instance is
    /// dropped for its snapshot (rebuilt at its next input); `None`: never.
    pub park_after: Option<std::time::Duration>,
    /// Most sessions holding an adapter instance at once (the least recently used
    /// park past it); `None`: no cap.
    pub max_live_instances: Option<usize>,
    /// How long an agent's process group has between SIGTERM and SIGKILL when the
    /// daemon stops.
    pub agent_stop_grace: std::time::Duration,
    /// Whether the listening line is written as a JSON object, like the log lines.
    pub json_announcement: bool,
    /// Keep sessions in memory only (`--ephemeral`), not in the data dir's database.
    pub ephemeral: bool,
    /// `--store postgres://...`: the PostgreSQL database sessions are kept in,
    /// instead of SQLite in the data dir.
    pub store: Option<String>,
    /// `--daemon-id`: this daemon's name among those sharing the `store`
    /// database; by default the one kept in the data dir's `daemon-id` file
    /// (made at first start).
    pub daemon_id: Option<String>,
    /// `--lease-ms`: how long this daemon's lease on a session of a shared
    /// database runs without renewal.
    pub lease: std::time::Duration,
    /// Which ended sessions are removed on their own.
    pub retention: Option<agentplex_sessions::retention::Retention>,
    /// `--gateway`: the model gateway's settings; `None`: agents call their
    /// providers directly, unmetered.
    pub gateway: Option<agentplex_gateway::GatewayConfig>,
    /// `--budget-usd`: the most all sessions may spend on model calls, what the
    /// stored ones spent included.
    pub budget_usd: Option<f64>,
    /// `--policy`: the approval policy of sessions created without one.
    pub policy: Option<agentplex_policy::Policy>,
    pub host: HostConfig,
    /// Limits of the process API (`/v1/processes`).
    pub processes: agentplex_processes::ProcessSettings,
    /// How git skill sources are fetched (`--allow-local-skill-repos`,
    /// `--skill-fetch-timeout-ms`).
    pub skill_sources: agentplex_sessions::skills::GitSettings,
}

/// The default data dir: `$XDG_DATA_HOME/agentplex` or `~/.local/share/agentplex`; the
/// folder of 0.2 and earlier (`.../sandbox-agent`) while it exists and the new one does not,
/// so an upgraded daemon keeps its sessions.
pub fn default_data_dir() -> PathBuf {
    let share = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(xdg) => PathBuf::from(xdg),
        None => std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir)
            .join(".local/share"),
    };
    let current = share.join("agentplex");
    let earlier = share.join("sandbox-agent");
    if !current.exists() && earlier.is_dir() {
        return earlier;
    }
    current
}
