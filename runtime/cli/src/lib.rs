//! agentplex's command line: `agentplex server` runs the daemon, `agentplex
//! gateway` the model-key broker outside the sandbox; the other subcommands are
//! thin clients of its HTTP API (one per route) that print JSON, plus local
//! tools for adapter components (`adapters test` replays recorded transcripts
//! through one: [`transcripts`]).

mod acp;
mod broker;
mod credentials;
mod desktop;
mod error;
mod files;
mod human;
mod install;
mod legacy_env;
mod local;
mod logging;
mod matrix;
mod moves;
mod processes;
mod project;
mod remote;
mod scaffold;
mod skill_sources;
mod terminal;
pub mod transcripts;
mod validate;

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

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use agentplex_host::HostConfig;
use clap::builder::BoolishValueParser;
use clap::{Args, Parser, Subcommand};

use agentplex_server::config::{default_data_dir, CorsConfig, DaemonConfig};
use error::LocalError;

/// One HTTP API over every coding agent.
#[derive(Debug, Parser)]
#[command(
    name = "agentplex",
    version = crate::BUILD,
    about = "The agentplex daemon and CLI: one HTTP API over every coding agent"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the daemon.
    Server(Box<ServerArgs>),
    /// Run the model-key broker outside the sandbox (`--keys FILE`), or make a
    /// sandbox's token for it (`--new-token`).
    Gateway(Box<broker::GatewayArgs>),
    /// Check that a daemon answers.
    Health(remote::Connection),
    /// Speak the Agent Client Protocol on stdio as an agent (for editors):
    /// `agentplex acp --agent NAME`.
    Acp(Box<acp::AcpArgs>),
    /// The agents a daemon drives.
    #[command(subcommand)]
    Agents(remote::AgentsCommand),
    /// Sessions, messages and transcripts.
    #[command(subcommand)]
    Sessions(remote::SessionsCommand),
    /// Answer an agent's questions.
    #[command(subcommand)]
    Questions(remote::QuestionsCommand),
    /// Answer an agent's permission requests.
    #[command(subcommand)]
    Permissions(remote::PermissionsCommand),
    /// The sandbox's files: list, read, write, move, delete, upload.
    #[command(subcommand)]
    Fs(files::FsCommand),
    /// Run commands and manage processes in the sandbox.
    #[command(subcommand)]
    Processes(processes::ProcessesCommand),
    /// The desktop: an X display to look at and drive (`install-deps` installs what it
    /// runs).
    #[command(subcommand)]
    Desktop(desktop::DesktopCommand),
    /// Attach this terminal to a process started with a terminal (`processes start
    /// --tty`); Ctrl-] detaches and leaves it running.
    Terminal(terminal::TerminalArgs),
    /// Inspect and test adapter components (no daemon needed).
    #[command(subcommand)]
    Adapters(local::AdaptersCommand),
    /// The agents' credentials found here, redacted (no daemon needed).
    #[command(subcommand)]
    Credentials(credentials::CredentialsCommand),
    /// Print the OpenAPI document of the HTTP API.
    Openapi,
    /// Print a shell completion script (e.g. `agentplex completions bash >
    /// ~/.local/share/bash-completion/completions/agentplex`).
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
}

/// `agentplex server` flags.
#[derive(Debug, Args)]
pub struct ServerArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1", env = "AGENTPLEX_HOST")]
    host: IpAddr,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 2468, env = "AGENTPLEX_PORT")]
    port: u16,
    /// Token clients must send (`Authorization: Bearer` or `x-sandbox-token`). Prefer
    /// `--token-file` or the variable: on the command line, other processes can read it
    /// until the daemon hides it at start.
    #[arg(
        long,
        env = "AGENTPLEX_TOKEN",
        hide_env_values = true,
        conflicts_with_all = ["no_token", "token_file"]
    )]
    token: Option<String>,
    /// A file holding the token clients must send (its first line).
    #[arg(long, env = "AGENTPLEX_TOKEN_FILE", conflicts_with = "no_token")]
    token_file: Option<PathBuf>,
    /// Serve without authentication: then only loopback `Host` names (and those
    /// `--allowed-host` adds) are answered, and no web page but the daemon's own (and
    /// the `--cors-allow-origin` ones) may change state.
    #[arg(long)]
    no_token: bool,
    /// A `Host` name the daemon answers to besides the loopback ones (repeatable, or
    /// comma-separated in the variable): `name`, `name:port`, `.domain` (its
    /// subdomains) or `*`. With a token and no `--allowed-host`, any name is answered.
    #[arg(
        long = "allowed-host",
        env = "AGENTPLEX_ALLOWED_HOSTS",
        value_delimiter = ','
    )]
    allowed_host: Vec<String>,
    /// Let processes of the daemon's user inspect it (debuggers, `/proc/<pid>/mem`
    /// and `environ`); off by default, so agents cannot read the token out of it.
    #[arg(long, env = "AGENTPLEX_DEBUGGABLE", value_parser = BoolishValueParser::new())]
    debuggable: bool,
    /// Allow cross-origin requests from this origin (repeatable; `*` for any).
    #[arg(long = "cors-allow-origin")]
    cors_allow_origin: Vec<String>,
    /// Headers allowed in cross-origin requests (repeatable).
    #[arg(long = "cors-allow-header")]
    cors_allow_header: Vec<String>,
    /// Methods allowed in cross-origin requests (repeatable).
    #[arg(long = "cors-allow-method")]
    cors_allow_method: Vec<String>,
    /// Allow credentials in cross-origin requests.
    #[arg(long)]
    cors_allow_credentials: bool,
    /// Where the daemon keeps its files [default: ~/.local/share/agentplex, or
    /// ~/.local/share/sandbox-agent when only that one exists].
    #[arg(long, env = "AGENTPLEX_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// Folder of extra adapter components (`*.wasm`); they override builtins by agent id
    /// [default: <data-dir>/adapters when it exists].
    #[arg(long, env = "AGENTPLEX_ADAPTERS_DIR")]
    adapters_dir: Option<PathBuf>,
    /// Where agent binaries are installed [default: <data-dir>/bin].
    #[arg(long, env = "AGENTPLEX_INSTALL_DIR")]
    install_dir: Option<PathBuf>,
    #[command(flatten)]
    install: install::InstallArgs,
    /// Where compiled adapter components are cached [default: <data-dir>/cache].
    #[arg(long, env = "AGENTPLEX_CACHE_DIR")]
    cache_dir: Option<PathBuf>,
    /// Largest JSON request body, in bytes.
    #[arg(long, default_value_t = 16 << 20)]
    body_limit: usize,
    /// Milliseconds a client may take to send a request head (from connecting, or from
    /// the previous response) before it is closed; also how long a JSON body may stall.
    #[arg(
        long,
        default_value_t = 30_000,
        value_parser = clap::value_parser!(u64).range(1..),
        env = "AGENTPLEX_HEADER_READ_TIMEOUT_MS"
    )]
    header_read_timeout_ms: u64,
    /// Milliseconds a new connection has to send its first request head; until it
    /// has authenticated it also counts against `--max-unauthenticated-per-peer`.
    #[arg(
        long,
        default_value_t = 5_000,
        value_parser = clap::value_parser!(u64).range(1..),
        env = "AGENTPLEX_UNAUTHENTICATED_TIMEOUT_MS"
    )]
    unauthenticated_timeout_ms: u64,
    /// Seconds an ACP connection over HTTP (`/v1/acp/{id}`, `/acp/{agent}`) may go
    /// without a message or an open stream before it is closed; its sessions go on.
    #[arg(
        long,
        default_value_t = 600,
        value_parser = clap::value_parser!(u64).range(1..),
        env = "AGENTPLEX_ACP_IDLE_TIMEOUT_SECS"
    )]
    acp_idle_timeout_secs: u64,
    /// Most connections one client address (an IPv6 /64) holds before they
    /// authenticate (with `--no-token`: before their first request); one more closes
    /// the oldest of them.
    #[arg(
        long,
        default_value_t = 32,
        value_parser = clap::value_parser!(u64).range(1..),
        env = "AGENTPLEX_MAX_UNAUTHENTICATED_PER_PEER"
    )]
    max_unauthenticated_per_peer: u64,
    /// Most client connections served at once; more wait until one closes
    /// [default: three quarters of the open-files limit, `ulimit -n`].
    #[arg(
        long,
        value_parser = clap::value_parser!(u64).range(1..),
        env = "AGENTPLEX_MAX_CONNECTIONS"
    )]
    max_connections: Option<u64>,
    /// Largest file written, or archive unpacked, through `/v1/fs/*`, in bytes (streamed:
    /// never held in memory).
    #[arg(long, default_value_t = 4 << 30, env = "AGENTPLEX_FS_MAX_BYTES")]
    fs_max_bytes: u64,
    /// Most members (files, directories, links) one archive sent to
    /// `/v1/fs/upload-batch` may hold.
    #[arg(long, default_value_t = 100_000, env = "AGENTPLEX_FS_MAX_ENTRIES")]
    fs_max_entries: u64,
    /// Confine the file API (`/v1/fs/*`, symbolic links included) and the working
    /// directories of sessions and processes to this folder; agents themselves are not
    /// confined by it [default: unconfined].
    #[arg(long, env = "AGENTPLEX_FS_ROOT")]
    fs_root: Option<PathBuf>,
    /// Memory cap of one adapter instance, in MiB.
    #[arg(long, default_value_t = 128)]
    adapter_memory_mib: usize,
    /// Time budget of one call into an adapter, in milliseconds.
    #[arg(long, default_value_t = 2000)]
    adapter_call_timeout_ms: u64,
    /// Longest agent output line, loopback HTTP response body or SSE event
    /// handed to an adapter, in bytes (a larger one is an error for the adapter).
    #[arg(long, default_value_t = 16 << 20)]
    max_line_bytes: usize,
    /// Milliseconds a session sits without input before its adapter instance
    /// is parked (dropped, keeping only its snapshot; rebuilt in about 0.1 ms at
    /// its next input). 0 keeps every instance for its session's life.
    #[arg(
        long,
        default_value_t = 10_000,
        env = "AGENTPLEX_ADAPTER_PARK_AFTER_MS"
    )]
    adapter_park_after_ms: u64,
    /// Most sessions holding an adapter instance at once: past it, the session
    /// whose instance was used least recently parks at once, whatever its idle
    /// time (each live instance costs tens of KiB). 0: no cap.
    #[arg(long, default_value_t = 256, env = "AGENTPLEX_MAX_LIVE_INSTANCES")]
    max_live_instances: usize,
    /// Milliseconds an agent's process group has, when the daemon stops, between
    /// SIGTERM and SIGKILL (the daemon's exit waits for it; 0 kills at once).
    #[arg(
        long,
        default_value_t = agentplex_processes::group::DEFAULT_GRACE.as_millis() as u64,
        env = "AGENTPLEX_AGENT_STOP_GRACE_MS"
    )]
    agent_stop_grace_ms: u64,
    /// How many steps of `nice` below the daemon the agents of sessions run (0 to
    /// 19; 0: at the daemon's priority), with everything they start: under load the
    /// daemon's API, streams and policy decisions go first, and an agent alone on
    /// the machine loses nothing. Processes and terminals of `/v1/processes` keep
    /// the daemon's priority.
    #[arg(
        long,
        default_value_t = agentplex_processes::priority::DEFAULT_AGENT_NICE,
        value_parser = clap::value_parser!(u8).range(0..=i64::from(agentplex_processes::priority::MAX_AGENT_NICE)),
        env = "AGENTPLEX_AGENT_NICE",
        value_name = "STEPS"
    )]
    agent_nice: u8,
    /// Keep sessions in memory only: nothing survives the daemon.
    #[arg(long, env = "AGENTPLEX_EPHEMERAL", value_parser = BoolishValueParser::new())]
    ephemeral: bool,
    /// Keep sessions in this PostgreSQL database instead of SQLite in the data dir:
    /// `postgres://USER:PASSWORD@HOST:PORT/DBNAME`, `?sslmode=require` for TLS (and
    /// `sslrootcert=FILE` for a private authority). Prefer the variable: on the command
    /// line, other processes can read the password.
    #[arg(
        long,
        env = "AGENTPLEX_STORE",
        value_name = "URL",
        hide_env_values = true,
        conflicts_with = "ephemeral"
    )]
    store: Option<String>,
    /// This daemon's name among the daemons sharing `--store`'s database (each
    /// needs its own) [default: one made at first start and kept in the data dir].
    #[arg(
        long,
        env = "AGENTPLEX_DAEMON_ID",
        value_name = "NAME",
        requires = "store"
    )]
    daemon_id: Option<String>,
    /// How long this daemon's lease on a session of `--store`'s database runs
    /// without renewal, in milliseconds: a session whose daemon died is taken
    /// over by another one this long after its last renewal at most.
    #[arg(
        long,
        env = "AGENTPLEX_LEASE_MS",
        value_name = "MS",
        default_value_t = 3000,
        value_parser = clap::value_parser!(u64).range(300..=3_600_000)
    )]
    lease_ms: u64,
    /// Send every model call of the agents that allow it through the daemon's
    /// model gateway: each session gets a loopback endpoint and a token in place
    /// of the provider's address and key, and each call's tokens and cost are
    /// metered (`model.usage` events, `usage` in the session's answer, `/metrics`).
    #[arg(long, env = "AGENTPLEX_GATEWAY", value_parser = BoolishValueParser::new())]
    gateway: bool,
    /// A price table to price model calls with, in place of the one the daemon
    /// ships (JSON, in the shape docs/gateway.md gives).
    #[arg(
        long,
        env = "AGENTPLEX_PRICES",
        value_name = "FILE",
        requires = "gateway"
    )]
    prices: Option<PathBuf>,
    /// Send the gateway's calls to the model-key broker at this URL (`agentplex
    /// gateway` outside the sandbox, e.g. http://10.0.0.5:2469) with this
    /// sandbox's token, in place of the providers and their keys: the daemon then
    /// needs no key.
    #[arg(
        long,
        env = "AGENTPLEX_BROKER",
        value_name = "URL",
        requires_all = ["gateway", "broker_token_file"]
    )]
    broker: Option<String>,
    /// A file holding this sandbox's token for --broker (its first line), read
    /// once at start: no agent needs it, so keep it out of their reach.
    #[arg(
        long,
        env = "AGENTPLEX_BROKER_TOKEN_FILE",
        value_name = "FILE",
        requires = "broker"
    )]
    broker_token_file: Option<PathBuf>,
    /// The most all the daemon's sessions may spend on model calls, in US dollars
    /// at list prices (what its stored sessions spent counts): past it the gateway
    /// refuses their calls and cuts those under way.
    #[arg(
        long,
        env = "AGENTPLEX_BUDGET_USD",
        value_name = "USD",
        requires = "gateway",
        value_parser = parse_budget_usd
    )]
    budget_usd: Option<f64>,
    /// An approval policy (JSON, docs/policies.md) that decides the permission
    /// requests of sessions created without one of their own; a file that does
    /// not read stops the daemon with the line and reason.
    #[arg(long, env = "AGENTPLEX_POLICY", value_name = "FILE")]
    policy: Option<PathBuf>,
    /// Remove ended sessions older than an age (7d, 12h, 30m, 90s) or beyond a
    /// count (100 keeps the newest hundred) [default: keep all].
    #[arg(long, env = "AGENTPLEX_RETENTION")]
    retention: Option<agentplex_sessions::retention::Retention>,
    #[command(flatten)]
    processes: processes::ProcessFlags,
    #[command(flatten)]
    skill_sources: skill_sources::SkillSourceFlags,
    #[command(flatten)]
    log: logging::LogArgs,
}

impl ServerArgs {
    fn into_config(self) -> Result<DaemonConfig, LocalError> {
        let gateway = self.gateway.then(|| self.gateway_config()).transpose()?;
        let token = match &self.token_file {
            Some(path) => Some(agentplex_processes::secrets::read_token_file(
                path,
                "--token-file",
            )?),
            None => self.token.clone(),
        };
        if token.is_none() && !self.no_token {
            return Err(LocalError::TokenRequired);
        }
        if token.as_deref() == Some("") {
            return Err(LocalError::EmptyToken);
        }
        if self.no_token && self.cors_allow_origin.iter().any(|origin| origin == "*") {
            return Err(LocalError::AnyOriginWithoutToken);
        }
        let data_dir = self.data_dir.unwrap_or_else(default_data_dir);
        let adapters_dir = self
            .adapters_dir
            .or_else(|| Some(data_dir.join("adapters")).filter(|dir| dir.is_dir()));
        if let Some(dir) = &adapters_dir {
            if !dir.is_dir() {
                return Err(LocalError::NoAdaptersFolder(dir.clone()));
            }
        }
        if let Some(root) = self.fs_root.as_ref().filter(|root| !root.is_dir()) {
            return Err(LocalError::NoFsRoot(root.clone()));
        }
        let memory_limit_bytes = self.adapter_memory_mib << 20;
        Ok(DaemonConfig {
            listen: SocketAddr::new(self.host, self.port),
            token,
            allowed_hosts: self.allowed_host,
            cors: CorsConfig {
                allow_origins: self.cors_allow_origin,
                allow_headers: self.cors_allow_header,
                allow_methods: self.cors_allow_method,
                allow_credentials: self.cors_allow_credentials,
            },
            install: self
                .install
                .into_settings(self.install_dir.unwrap_or_else(|| data_dir.join("bin")))?,
            adapters_dir,
            body_limit: self.body_limit,
            header_read_timeout: Duration::from_millis(self.header_read_timeout_ms),
            unauthenticated_timeout: Duration::from_millis(self.unauthenticated_timeout_ms),
            acp_idle_timeout: Duration::from_secs(self.acp_idle_timeout_secs),
            max_unauthenticated_per_peer: usize::try_from(self.max_unauthenticated_per_peer)
                .unwrap_or(usize::MAX),
            max_connections: self
                .max_connections
                .map(|max| usize::try_from(max).unwrap_or(usize::MAX)),
            fs_max_bytes: self.fs_max_bytes,
            fs_max_entries: self.fs_max_entries,
            fs_root: self.fs_root,
            max_line_bytes: self.max_line_bytes,
            agent_nice: self.agent_nice,
            park_after: (self.adapter_park_after_ms > 0)
                .then(|| Duration::from_millis(self.adapter_park_after_ms)),
            max_live_instances: (self.max_live_instances > 0).then_some(self.max_live_instances),
            agent_stop_grace: Duration::from_millis(self.agent_stop_grace_ms),
            json_announcement: false,
            ephemeral: self.ephemeral,
            store: self.store,
            daemon_id: self.daemon_id,
            lease: std::time::Duration::from_millis(self.lease_ms),
            retention: self.retention,
            gateway,
            budget_usd: self.budget_usd,
            policy: self.policy.as_deref().map(read_policy).transpose()?,
            host: HostConfig {
                memory_limit_bytes,
                call_timeout: Duration::from_millis(self.adapter_call_timeout_ms),
                recycle_threshold_bytes: (8 << 20).min(memory_limit_bytes / 2),
                cache_dir: Some(self.cache_dir.unwrap_or_else(|| data_dir.join("cache"))),
            },
            processes: self.processes.into_settings(),
            skill_sources: self.skill_sources.into_settings(),
            data_dir,
        })
    }
}

/// `--policy FILE`: an approval policy, checked.
fn read_policy(path: &std::path::Path) -> Result<agentplex_policy::Policy, LocalError> {
    let text = std::fs::read_to_string(path).map_err(|source| LocalError::Read {
        path: path.to_owned(),
        source,
    })?;
    agentplex_policy::Policy::from_json(&text).map_err(|error| LocalError::Policy {
        path: path.to_owned(),
        error,
    })
}

/// `--budget-usd`: a number of US dollars, 0 or more.
fn parse_budget_usd(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(usd) if usd.is_finite() && usd >= 0.0 => Ok(usd),
        _ => Err(format!("{text:?} is not a number of US dollars, 0 or more")),
    }
}

impl ServerArgs {
    /// The model gateway's settings: its prices from `--prices`, or the ones
    /// the daemon ships; its broker from `--broker` and the token in
    /// `--broker-token-file`.
    fn gateway_config(&self) -> Result<agentplex_gateway::GatewayConfig, LocalError> {
        let prices = match &self.prices {
            Some(path) => agentplex_gateway::Prices::from_file(path)?,
            None => agentplex_gateway::Prices::built_in(),
        };
        let broker = match (&self.broker, &self.broker_token_file) {
            (Some(url), Some(file)) => {
                let token =
                    agentplex_processes::secrets::read_token_file(file, "--broker-token-file")?;
                let link = agentplex_gateway::BrokerLink::new(url, &token);
                Some(link.map_err(LocalError::Broker)?)
            }
            _ => None,
        };
        Ok(agentplex_gateway::GatewayConfig {
            prices,
            broker,
            ..Default::default()
        })
    }
}

/// Parses the command line, runs the command, and maps failure to a non-zero exit
/// with a one-line message on stderr.
pub fn main() -> ExitCode {
    let adopted = legacy_env::adopt(&legacy_env::known(&<Cli as clap::CommandFactory>::command()));
    let cli = Cli::parse();
    let deprecation = legacy_env::deprecation(&adopted);
    let result = match cli.command {
        Command::Server(args) => serve(*args, deprecation),
        command => {
            if let Some(line) = deprecation {
                eprintln!("warning: {line}");
            }
            match command {
                // Sets up its logs before its runtime, as `server` does.
                Command::Gateway(args) => broker::gateway(*args),
                command => block_on(run(command)),
            }
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) if failure.message.is_empty() => ExitCode::from(failure.code),
        Err(failure) => fail(&failure.message, failure.code),
    }
}

/// `agentplex server`: the token is hidden and the daemon made non-dumpable
/// while it is still one thread; then the logs (and trace exporter, whose HTTP
/// client has its own runtime) are set up before the async runtime starts, and the
/// last traces are sent after it stopped.
fn serve(args: ServerArgs, deprecation: Option<String>) -> Result<(), Failure> {
    let debuggable = args.debuggable;
    let token_on_command_line = agentplex_processes::secrets::token_on_command_line();
    let log = args.log.clone();
    let mut config = args.into_config()?;
    config.json_announcement = log.json();
    // Read: the agents need not learn where the broker's token is.
    std::env::remove_var("AGENTPLEX_BROKER_TOKEN_FILE");
    if let Some(token) = &config.token {
        if let Err(error) = agentplex_processes::secrets::hide_token(token) {
            eprintln!("warning: cannot hide the token from other processes: {error}");
        }
    }
    if !debuggable {
        if let Err(error) = agentplex_processes::secrets::refuse_inspection() {
            eprintln!("warning: cannot keep other processes from inspecting the daemon: {error}");
        }
    }
    let telemetry = log.init().map_err(LocalError::from)?;
    if let Err(error) = agentplex_processes::secrets::hide_exporter_headers() {
        tracing::warn!(%error, "cannot hide the trace exporter's headers from other processes");
    }
    if let Some(line) = deprecation {
        tracing::warn!("{line}");
    }
    if token_on_command_line {
        tracing::warn!(
            "the token was given with --token: other processes could read it on the command line until now; use --token-file or AGENTPLEX_TOKEN"
        );
    }
    let result = block_on(async {
        agentplex_server::serve(config)
            .await
            .map_err(|error| Failure::from(LocalError::Server(error)))
    });
    drop(telemetry);
    result
}

/// Runs `future` on a multi-threaded runtime; lingering blocking tasks (stdin
/// readers...) are not waited for at the end.
fn block_on(future: impl std::future::Future<Output = Result<(), Failure>>) -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| Failure {
            message: format!("cannot start the async runtime: {error}"),
            code: 1,
        })?;
    let result = runtime.block_on(future);
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}

/// Why a command failed: a message for the `error:` line and the exit code.
#[derive(Debug)]
struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    /// The command did its job and exits with `code`, saying nothing more (a run's
    /// own exit status, a terminal's process's).
    fn silent(code: u8) -> Self {
        Self {
            message: String::new(),
            code,
        }
    }

    /// The command could not do its job at all because of what it was given
    /// (`adapters test`: bad transcript input, missing folder, unusable component).
    fn bad_input(message: impl ToString) -> Self {
        Self {
            message: message.to_string(),
            code: 2,
        }
    }
}

/// A client command's failure exits with 1, after the daemon's problem document (when
/// it sent one) on stderr.
impl From<error::CliError> for Failure {
    fn from(error: error::CliError) -> Self {
        if let Some(json) = error
            .problem()
            .and_then(|problem| serde_json::to_string_pretty(problem).ok())
        {
            eprintln!("{json}");
        }
        Self {
            message: error.to_string(),
            code: 1,
        }
    }
}

/// A local command's failure exits with 1 (unless the command calls it
/// [`Failure::bad_input`]).
impl From<LocalError> for Failure {
    fn from(error: LocalError) -> Self {
        Self {
            message: error.to_string(),
            code: 1,
        }
    }
}

/// Prints the one-line error and returns the failure exit code.
fn fail(message: &str, code: u8) -> ExitCode {
    let line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    eprintln!("error: {line}");
    ExitCode::from(code)
}

async fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Server(args) => serve(*args, None),
        Command::Gateway(args) => broker::gateway(*args),
        Command::Health(connection) => Ok(remote::health(connection).await?),
        Command::Acp(args) => acp::acp(*args).await,
        Command::Agents(command) => Ok(remote::agents(command).await?),
        Command::Sessions(command) => Ok(remote::sessions(command).await?),
        Command::Questions(command) => Ok(remote::questions(command).await?),
        Command::Permissions(command) => Ok(remote::permissions(command).await?),
        Command::Fs(command) => Ok(files::fs(command).await?),
        Command::Processes(command) => processes::processes(command).await,
        Command::Desktop(command) => desktop::desktop(command).await,
        Command::Terminal(args) => terminal::attach(args).await,
        Command::Adapters(command) => local::adapters(command),
        Command::Credentials(command) => credentials::credentials(command),
        Command::Openapi => {
            print!("{}", agentplex_server::openapi::document_json());
            Ok(())
        }
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut command = Cli::command();
            clap_complete::generate(shell, &mut command, "agentplex", &mut std::io::stdout());
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every subcommand and every argument explains itself in `--help`.
    #[test]
    fn every_command_and_flag_has_help() {
        fn check(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
            let path = format!("{path} {}", command.get_name());
            if command.get_about().is_none() && path.contains(' ') && !path.ends_with(" help") {
                missing.push(format!("{path}: no description"));
            }
            for arg in command.get_arguments() {
                let builtin = matches!(arg.get_id().as_str(), "help" | "version");
                if !builtin && arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} {}: no help", arg.get_id()));
                }
            }
            for sub in command.get_subcommands() {
                check(sub, &path, missing);
            }
        }
        let mut missing = Vec::new();
        let mut cli = super::Cli::command();
        cli.build();
        check(&cli, "", &mut missing);
        assert!(missing.is_empty(), "{missing:#?}");
    }
}
