//! The commands' error types: [`CliError`] for the client commands (a failed
//! request keeps the daemon's problem document: `agentplex` prints it on
//! stderr, then the one-line error), [`LocalError`] for the commands that work
//! without a daemon.

use std::path::PathBuf;

use agentplex_client::{ClientError, ProblemDetails};
use agentplex_host::HostError;

use crate::transcripts::Summary;
use agentplex_install::platform::InvalidPlatform;

/// Everything a client command can fail with.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The daemon answered with a problem document.
    #[error("{} {} ({}): {}{}", .0.status, .0.title, .0.code(), .0.detail.as_deref().unwrap_or(""), problem_hint(.0.code()))]
    Problem(Box<ProblemDetails>),
    /// The daemon could not be reached, or its answer could not be read.
    #[error("{} (daemon at {endpoint}){}", causes(.error), unreachable_hint(.error))]
    Unreachable {
        endpoint: String,
        error: ClientError,
    },
    /// What the command was given, or what it has to write, cannot be used.
    #[error("{0}")]
    Invalid(String),
}

impl CliError {
    /// A failed request to the daemon at `endpoint`.
    pub fn request(endpoint: &str, error: ClientError) -> Self {
        match error {
            ClientError::Problem(problem) => CliError::Problem(problem),
            error => CliError::Unreachable {
                endpoint: endpoint.to_owned(),
                error,
            },
        }
    }

    /// A failure described by `message`.
    pub fn invalid(message: impl ToString) -> Self {
        CliError::Invalid(message.to_string())
    }

    /// The daemon's problem document, when it sent one.
    pub fn problem(&self) -> Option<&ProblemDetails> {
        match self {
            CliError::Problem(problem) => Some(problem),
            _ => None,
        }
    }
}

/// What to do next about a problem, where the problem itself does not say.
fn problem_hint(code: &str) -> &'static str {
    match code {
        "token_invalid" => "; pass the daemon's token with --token or AGENTPLEX_TOKEN",
        "session_not_found" => "; `agentplex sessions list` shows the sessions",
        "unsupported_agent" => "; `agentplex agents list` shows the agents",
        _ => "",
    }
}

/// What to do next when nothing answered.
fn unreachable_hint(error: &ClientError) -> &'static str {
    let refused = causes(error).contains("Connection refused");
    if refused {
        "; is a daemon running there? Start one with `agentplex server`, or point --endpoint (AGENTPLEX_ENDPOINT) at it"
    } else {
        ""
    }
}

/// An error and its causes on one line.
fn causes(error: &ClientError) -> String {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    message
}

/// Everything a command that works without a daemon can fail with: the server's
/// flags, the `adapters` tools and `credentials list`.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    /// `server` has neither a token nor `--no-token`.
    #[error("a token is required: pass --token-file <FILE> (or set AGENTPLEX_TOKEN), or --no-token to serve without authentication on loopback")]
    TokenRequired,
    /// `--token ""`.
    #[error("--token must not be empty")]
    EmptyToken,
    /// `--token-file` cannot be used.
    #[error("{0}")]
    TokenFile(#[from] agentplex_processes::secrets::TokenFileError),
    /// `--no-token` with `--cors-allow-origin '*'`: any web page could drive the daemon.
    #[error("--no-token cannot be combined with --cors-allow-origin '*': any web page could then drive the daemon; name the origins, or use a token")]
    AnyOriginWithoutToken,
    /// Logging could not be set up.
    #[error("{0}")]
    Logging(#[from] super::logging::LoggingError),
    /// `--adapters-dir` names no folder.
    #[error("adapters folder {} does not exist", .0.display())]
    NoAdaptersFolder(PathBuf),
    /// `--fs-root` names no folder.
    #[error("--fs-root {} is not a directory", .0.display())]
    NoFsRoot(PathBuf),
    /// `--releases-mirror` is not an http(s) URL.
    #[error("--releases-mirror {0:?} is not an http(s) URL")]
    ReleasesMirror(String),
    /// `--install-platform` names no platform.
    #[error("--install-platform: {0}")]
    InstallPlatform(InvalidPlatform),
    /// `--broker` is no URL a broker can be reached at, or the token is unusable.
    #[error("--broker: {0}")]
    Broker(agentplex_gateway::Error),
    /// The model gateway cannot be set up (`--prices`).
    #[error("{0}")]
    Gateway(#[from] agentplex_gateway::Error),
    /// `--policy FILE` is no approval policy.
    #[error("--policy {}: {error}", path.display())]
    Policy {
        path: PathBuf,
        error: agentplex_policy::PolicyError,
    },
    /// The daemon stopped with an error.
    #[error("{0:#}")]
    Server(anyhow::Error),
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The adapters could not be loaded or compiled.
    #[error("{0}")]
    Host(#[from] HostError),
    /// What a command prints could not be serialized.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// `adapters test` names neither a component file nor a loaded agent.
    #[error("no adapter {component:?}: give a component file (.wasm) or a loaded agent id ({})", .loaded.join(", "))]
    NoAdapter {
        component: String,
        loaded: Vec<String>,
    },
    /// `adapters test` replayed cases whose output differs from the expected files.
    #[error("{summary} in {}; review the differences above, and accept the new output with --update", dir.display())]
    CasesFailed { summary: Summary, dir: PathBuf },
    /// `adapters validate` found problems (listed above the error line).
    #[error("{} is not a valid adapter: {problems} problem{} (see above)", file.display(), if *problems == 1 { "" } else { "s" })]
    NotValid { file: PathBuf, problems: usize },
    /// `adapters new`: the name is no agent id.
    #[error("invalid adapter name {0:?}: use 1-64 characters of [a-z0-9_-], starting with a letter (it becomes the agent id)")]
    InvalidName(String),
    /// `adapters new`: `--acp` has an unclosed quote.
    #[error("--acp {0:?}: a quote is not closed")]
    UnclosedQuote(String),
    /// `adapters new`: `--acp` names no program.
    #[error("--acp needs the agent's command, e.g. --acp \"my-agent --acp\"")]
    NoAcpCommand,
    /// `adapters new`: the project folder has files in it.
    #[error("{} is not empty: give a new folder (or an empty one)", .0.display())]
    NotEmpty(PathBuf),
    /// `adapters new`: the project folder cannot be looked into.
    #[error("cannot use {}: {source}", path.display())]
    Unusable {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `adapters new`: a folder of the project could not be made.
    #[error("cannot make {}: {source}", path.display())]
    MakeDir {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `adapters new`: a file of the project could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The project files built into the binary do not unpack (a broken build).
    #[error("the embedded project files are damaged: {0}")]
    Damaged(String),
    /// The adapters workspace manifest is not among the embedded files (a broken build).
    #[error("the adapters workspace manifest is not embedded")]
    NoWorkspaceManifest,
    /// The kit inherits a value the adapters workspace does not set (a broken build).
    #[error("the adapters workspace does not set {0}")]
    WorkspaceLacks(String),
    /// `adapters test DIR`: cargo could not be started.
    #[error("cannot run cargo ({0}): install Rust, with `rustup target add wasm32-wasip2`")]
    NoCargo(std::io::Error),
    /// `adapters test DIR`: the project did not build.
    #[error("building {} failed (see cargo's output above)", .0.display())]
    BuildFailed(PathBuf),
    /// `adapters test DIR`: the build left no component where one was expected.
    #[error("the build made no component at {}: is the crate a `cdylib` (`[lib] crate-type = [\"cdylib\", \"rlib\"]`)?", .0.display())]
    NoComponent(PathBuf),
    /// `adapters test DIR`: the project's manifest has no `[package]` name.
    #[error("{} has no [package] name", .0.display())]
    NoPackageName(PathBuf),
}
