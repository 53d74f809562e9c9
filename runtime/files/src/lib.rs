//! The sandbox's files as the `/v1/fs/*` routes see them: path resolution, listing,
//! metadata, moves and deletes ([`ops`]), streamed reads and writes ([`transfer`]) and
//! tar uploads unpacked safely ([`upload`]). Blocking filesystem calls run on tokio's
//! blocking pool; the HTTP handlers live in the server's `fs_routes`.

pub mod beneath;
pub mod confine;
pub mod ops;
pub mod transfer;
pub mod upload;

use std::io;
use std::path::{Component, Path, PathBuf};

/// Everything a filesystem route can fail with.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    /// The path is empty, holds a NUL byte, or is not a valid name.
    #[error("{0}")]
    BadPath(String),
    /// Nothing exists at the path.
    #[error("{0} does not exist")]
    NotFound(String),
    /// The target exists (and `overwrite` was not asked), a directory is not empty, or
    /// the path names an entry of another kind than the route acts on (a directory
    /// where a file is needed, a file on the way to a directory, a FIFO...).
    #[error("{0}")]
    Conflict(String),
    /// The operating system refused access.
    #[error("permission denied: {0}")]
    PermissionDenied(String),
    /// The body (or an archive's unpacked contents) is larger than the daemon accepts.
    #[error("{0}")]
    TooLarge(String),
    /// Any other I/O failure.
    #[error("{path}: {source}")]
    Io {
        /// The path acted on.
        path: String,
        /// What the operating system said.
        source: io::Error,
    },
}

impl FsError {
    /// Classifies an I/O error on `path` by what a client can do about it.
    pub fn io(path: &Path, error: io::Error) -> Self {
        let shown = path.display().to_string();
        match error.kind() {
            io::ErrorKind::NotFound => FsError::NotFound(shown),
            io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
                FsError::PermissionDenied(shown)
            }
            io::ErrorKind::AlreadyExists => FsError::Conflict(format!("{shown} already exists")),
            io::ErrorKind::DirectoryNotEmpty => FsError::Conflict(format!(
                "{shown} is a directory that is not empty (pass recursive=true)"
            )),
            io::ErrorKind::NotADirectory => FsError::Conflict(format!(
                "{shown}: a component of the path is not a directory"
            )),
            io::ErrorKind::IsADirectory => FsError::Conflict(format!("{shown} is a directory")),
            io::ErrorKind::InvalidInput | io::ErrorKind::InvalidFilename => {
                FsError::BadPath(format!("{shown}: {error}"))
            }
            _ => FsError::Io {
                path: shown,
                source: error,
            },
        }
    }
}

/// Resolves a client's path: absolute paths stand as they are, relative ones start
/// at `base` (a session's directory, or the home directory). `.` and `..` are
/// folded lexically so the answer names the path the client meant.
pub fn resolve(base: &Path, path: &str) -> Result<PathBuf, FsError> {
    if path.is_empty() {
        return Err(FsError::BadPath("the path is empty".into()));
    }
    if path.contains('\0') {
        return Err(FsError::BadPath("the path contains a NUL byte".into()));
    }
    Ok(normalize(&base.join(path)))
}

/// Checks the working directory of a session or a process as the file routes check
/// their paths: a missing one is [`FsError::NotFound`], anything but a directory
/// [`FsError::Conflict`].
pub fn check_working_directory(dir: &Path) -> Result<(), FsError> {
    let shown = || format!("working directory {}", dir.display());
    match std::fs::metadata(dir) {
        Ok(metadata) if metadata.is_dir() => Ok(()),
        Ok(_) => Err(FsError::Conflict(format!("{} is not a directory", shown()))),
        Err(error) => Err(match FsError::io(dir, error) {
            FsError::NotFound(_) => FsError::NotFound(shown()),
            other => other,
        }),
    }
}

/// Folds `.` and `..` components without touching the filesystem (`/..` stays `/`).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The home directory relative paths start from when no session is named (0.1.x).
pub fn home_dir() -> PathBuf {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// Runs a blocking filesystem call on tokio's blocking pool.
pub async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> Result<T, FsError> + Send + 'static,
) -> Result<T, FsError> {
    tokio::task::spawn_blocking(call)
        .await
        .unwrap_or_else(|join| {
            Err(FsError::Io {
                path: String::new(),
                source: io::Error::other(join.to_string()),
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_start_at_the_base_and_fold_dots() {
        let base = Path::new("/work/repo");
        assert_eq!(
            resolve(base, "src/../a.txt").unwrap(),
            Path::new("/work/repo/a.txt")
        );
        assert_eq!(
            resolve(base, "/etc/./hosts").unwrap(),
            Path::new("/etc/hosts")
        );
        assert_eq!(resolve(base, ".").unwrap(), Path::new("/work/repo"));
        assert_eq!(resolve(base, "/../..").unwrap(), Path::new("/"));
    }

    #[test]
    fn empty_and_nul_paths_are_refused() {
        assert!(matches!(
            resolve(Path::new("/"), ""),
            Err(FsError::BadPath(_))
        ));
        assert!(matches!(
            resolve(Path::new("/"), "a\0b"),
            Err(FsError::BadPath(_))
        ));
    }

    #[test]
    fn io_errors_map_to_what_a_client_can_act_on() {
        let path = Path::new("/x");
        let kind = |kind| FsError::io(path, io::Error::from(kind));
        assert!(matches!(
            kind(io::ErrorKind::NotFound),
            FsError::NotFound(_)
        ));
        assert!(matches!(
            kind(io::ErrorKind::PermissionDenied),
            FsError::PermissionDenied(_)
        ));
        assert!(matches!(
            kind(io::ErrorKind::DirectoryNotEmpty),
            FsError::Conflict(_)
        ));
        assert!(matches!(
            kind(io::ErrorKind::IsADirectory),
            FsError::Conflict(_)
        ));
        assert!(matches!(
            kind(io::ErrorKind::NotADirectory),
            FsError::Conflict(_)
        ));
        assert!(matches!(
            kind(io::ErrorKind::StorageFull),
            FsError::Io { .. }
        ));
    }
}
