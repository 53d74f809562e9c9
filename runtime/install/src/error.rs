//! Why an install failed; the HTTP layer turns every case into `install_failed`.

use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use agentplex_host::HostError;

use super::archive::ArchiveError;

/// Everything that can go wrong installing an agent.
#[derive(Debug, Clone, thiserror::Error)]
pub enum InstallError {
    /// The adapter has no recipe for this platform.
    #[error("no build of this agent for {platform}")]
    NoBuild { platform: String },
    /// The adapter failed to answer.
    #[error("the adapter failed: {0}")]
    Adapter(#[source] Arc<HostError>),
    /// The adapter's recipe names a binary that cannot be installed.
    #[error("the adapter's recipe names an invalid binary {0:?}")]
    InvalidBinaryName(String),
    /// The task installing (or unpacking) stopped before it finished: it
    /// panicked, or the daemon is stopping.
    #[error("the install task failed: {0}")]
    Task(#[source] Arc<tokio::task::JoinError>),
    /// The latest version could not be learned.
    #[error("cannot learn the latest version from {url}: {reason}")]
    LatestVersion { url: String, reason: String },
    /// A request got no usable answer.
    #[error("{url}: HTTP {status}")]
    Status { url: String, status: u16 },
    /// A request failed on the way.
    #[error("{url}: {reason}")]
    Transfer { url: String, reason: String },
    /// The download does not match the published checksum.
    #[error("{url}: checksum mismatch (expected sha256 {expected}, got {actual})")]
    ChecksumMismatch {
        url: String,
        expected: String,
        actual: String,
    },
    /// The download is not what the recipe says.
    #[error("{url}: {reason}")]
    BadArchive { url: String, reason: String },
    /// The npm source failed.
    #[error("npm {spec}: {reason}")]
    Npm { spec: String, reason: NpmError },
    /// Every source was tried; each one's failure, in order.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    AllSourcesFailed(Vec<InstallError>),
    /// A registry entry that cannot be installed as it says.
    #[error("{0}")]
    BadEntry(String),
    /// The PyPI source failed.
    #[error("PyPI {requirement}: {reason}")]
    Pypi { requirement: String, reason: String },
    /// The recipe has nothing to install from with the configured sources.
    #[error("no source to install from ({0})")]
    NoSource(String),
    /// Writing into the install dir failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The path written.
        path: String,
        /// What the operating system said.
        #[source]
        source: Arc<std::io::Error>,
    },
}

/// Why the npm source failed (shared, like [`InstallError`], by everyone waiting
/// for the same install).
#[derive(Debug, Clone, thiserror::Error)]
pub enum NpmError {
    /// `npm` is not on `PATH`.
    #[error("npm is not on PATH")]
    NotOnPath,
    /// npm could not be started.
    #[error("cannot run npm: {0}")]
    Spawn(Arc<std::io::Error>),
    /// An npm command ran past its time budget.
    #[error("npm {command} took longer than {timeout:?}")]
    TimedOut { command: String, timeout: Duration },
    /// An npm command failed; `tail` is the end of what it printed.
    #[error("npm {command} failed ({status}): {tail}")]
    Failed {
        command: String,
        status: ExitStatus,
        tail: String,
    },
    /// `npm pack` left no tarball.
    #[error("npm pack wrote no tarball")]
    NoTarball,
    /// The staging folder could not be read or written.
    #[error("{0}")]
    Staging(Arc<std::io::Error>),
    /// The tarball does not unpack, or has no binary at the recipe's path.
    #[error("{0}")]
    Package(Arc<ArchiveError>),
    /// Unpacking stopped before it finished (it panicked, or the daemon is stopping).
    #[error("{0}")]
    Unpacking(Arc<tokio::task::JoinError>),
}

impl InstallError {
    /// An I/O failure on a path.
    pub fn io(path: &std::path::Path, error: std::io::Error) -> Self {
        Self::Io {
            path: path.display().to_string(),
            source: Arc::new(error),
        }
    }

    /// The adapter failed to answer.
    pub fn adapter(error: HostError) -> Self {
        Self::Adapter(Arc::new(error))
    }
}
