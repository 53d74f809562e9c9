//! The database file the store must write to, and what a failed write says
//! about where it lives.

use std::path::{Path, PathBuf};

use crate::{cause, cause_while, StoreError};

/// Free bytes below which a failed write is taken for a full disk.
const NEARLY_FULL_BYTES: u64 = 1 << 20;

/// The database's path and the file it named when opened.
pub(super) struct DatabaseFile {
    pub path: PathBuf,
    /// The file's (device, inode) as opened.
    identity: (u64, u64),
}

impl DatabaseFile {
    /// The file now at `path`.
    pub fn at(path: PathBuf) -> std::io::Result<Self> {
        Ok(Self {
            identity: identity(&path)?,
            path,
        })
    }

    /// Makes sure the writes go to the file at the database's path: SQLite
    /// keeps writing to a file removed under it, where a restart would not find
    /// what it wrote, so a removed or replaced database takes no more writes.
    pub fn ensure(&self) -> Result<(), StoreError> {
        let changed = match identity(&self.path) {
            Ok(identity) if identity == self.identity => return Ok(()),
            Ok(_) => "was replaced",
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => "was removed",
            Err(error) => {
                return Err(StoreError::Unwritable(cause_while(
                    self.path.display().to_string(),
                    error,
                )))
            }
        };
        Err(StoreError::Unwritable(cause(format!(
            "{} {changed} under the running daemon; restart the daemon (it opens what is at that path then, or starts an empty database)",
            self.path.display()
        ))))
    }

    /// SQLite reports some writes that found no room as I/O errors: with next to
    /// no free space left where the database lives, they are a full disk too.
    pub fn classify(&self, error: StoreError) -> StoreError {
        match error {
            StoreError::Unwritable(cause) if free_bytes(&self.path) < NEARLY_FULL_BYTES => {
                StoreError::Full(cause)
            }
            other => other,
        }
    }
}

/// The database holds the clients' environment variables: owner only.
pub(super) fn restrict_permissions(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        let _ = std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600));
    }
}

/// Bytes an unprivileged writer may still use on the file system holding the
/// file `path` (`u64::MAX` when that cannot be told).
fn free_bytes(path: &Path) -> u64 {
    let folder = path.parent().unwrap_or(path);
    rustix::fs::statvfs(folder).map_or(u64::MAX, |stats| {
        stats.f_bavail.saturating_mul(stats.f_frsize)
    })
}

/// A file's (device, inode): which file a path names now.
fn identity(path: &Path) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let metadata = std::fs::metadata(path)?;
    Ok((metadata.dev(), metadata.ino()))
}
