//! Why an install failed; the HTTP layer turns every case into `install_failed`.

/// Everything that can go wrong installing an agent.
#[derive(Debug, Clone, thiserror::Error)]
pub enum InstallError {
    /// The adapter has no recipe for this platform.
    #[error("no build of this agent for {platform}")]
    NoBuild { platform: String },
    /// The adapter failed to answer.
    #[error("the adapter failed: {0}")]
    Adapter(String),
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
    Npm { spec: String, reason: String },
    /// Every source was tried; each one's failure, in order.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    AllSourcesFailed(Vec<InstallError>),
    /// The recipe has nothing to install from with the configured sources.
    #[error("no source to install from ({0})")]
    NoSource(String),
    /// Writing into the install dir failed.
    #[error("cannot write {path}: {reason}")]
    Io { path: String, reason: String },
}

impl InstallError {
    /// An I/O failure on a path.
    pub fn io(path: &std::path::Path, error: impl std::fmt::Display) -> Self {
        Self::Io {
            path: path.display().to_string(),
            reason: error.to_string(),
        }
    }
}
