//! Whole-file reads and writes, streamed: a read answers with the file as its body, a
//! write copies the request body chunk by chunk into a temporary file next to the
//! target and renames it into place, so a failed or oversized upload leaves the old
//! file untouched and nothing is ever held whole in memory.

use std::fs::Metadata;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use agentplex_api::FsEntryKind;
use axum::body::Body;
use futures::StreamExt;
use tokio::io::AsyncWriteExt;

use super::FsError;

/// An open file to stream, with its length when that can be trusted.
pub struct OpenFile {
    /// The file, positioned at its start.
    pub file: tokio::fs::File,
    /// Its length when opened, for `Content-Length`: only for a regular file of nonzero
    /// size on a filesystem whose sizes are real (`/proc`, sysfs and their kin report 0
    /// or 4096 whatever a file holds: those are read to their end).
    pub len: Option<u64>,
}

/// Opens a regular file for reading. FIFOs, sockets and devices are refused without
/// being opened in a way that could block: the type is checked first, the file opened
/// with `O_NONBLOCK`, and the type checked again on the open file.
pub async fn open(path: &Path) -> Result<OpenFile, FsError> {
    let path = path.to_owned();
    super::blocking(move || {
        let before = std::fs::metadata(&path).map_err(|e| FsError::io(&path, e))?;
        check_contents(&path, &before)?;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(&path)
            .map_err(|e| FsError::io(&path, e))?;
        let metadata = file.metadata().map_err(|e| FsError::io(&path, e))?;
        check_contents(&path, &metadata)?;
        let len = (metadata.len() > 0 && sizes_are_real(&file)).then_some(metadata.len());
        Ok(OpenFile {
            file: tokio::fs::File::from_std(file),
            len,
        })
    })
    .await
}

/// Refuses what a file route cannot read or write the contents of: a directory, a
/// FIFO, a socket, a device.
pub fn check_contents(path: &Path, metadata: &Metadata) -> Result<(), FsError> {
    let kind = metadata.file_type();
    if kind.is_dir() {
        return Err(FsError::Conflict(format!(
            "{} is a directory (list it with GET /v1/fs/entries)",
            path.display()
        )));
    }
    if !kind.is_file() {
        let what = match super::ops::kind(metadata) {
            FsEntryKind::Fifo => "a FIFO",
            FsEntryKind::Socket => "a socket",
            _ => "a device",
        };
        return Err(FsError::Conflict(format!(
            "{} is {what}: the file routes read and write regular files only",
            path.display()
        )));
    }
    Ok(())
}

/// Whether the file's filesystem reports real sizes (not a kernel pseudo-filesystem).
// The magic numbers and `f_type` are `c_long` on most targets, `c_uint` on some.
#[allow(clippy::unnecessary_cast)]
fn sizes_are_real(file: &std::fs::File) -> bool {
    const PSEUDO: [i64; 7] = [
        libc::PROC_SUPER_MAGIC as i64,
        libc::SYSFS_MAGIC as i64,
        libc::DEBUGFS_MAGIC as i64,
        libc::TRACEFS_MAGIC as i64,
        libc::SECURITYFS_MAGIC as i64,
        libc::CGROUP_SUPER_MAGIC as i64,
        libc::CGROUP2_SUPER_MAGIC as i64,
    ];
    rustix::fs::fstatfs(file).is_ok_and(|fs| !PSEUDO.contains(&(fs.f_type as i64)))
}

/// Writes `body` to `path` (creating its parents), at most `limit` bytes, and
/// answers how many bytes were written. A symbolic link is written through; an
/// existing file keeps its permissions.
pub async fn write(path: &Path, body: Body, limit: u64) -> Result<u64, FsError> {
    let target = write_target(path).await?;
    let parent = target
        .parent()
        .ok_or_else(|| FsError::BadPath("cannot write the root directory".into()))?;
    tokio::fs::create_dir_all(parent)
        .await
        .map_err(|e| FsError::io(parent, e))?;
    let existing = tokio::fs::metadata(&target).await.ok();
    if let Some(metadata) = &existing {
        check_contents(&target, metadata)?;
    }
    let partial = PartialFile::create(&target);
    let mut file = partial.file().await?;
    let mut written = 0u64;
    let mut chunks = body.into_data_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk =
            chunk.map_err(|e| FsError::BadPath(format!("the request body ended early: {e}")))?;
        written += chunk.len() as u64;
        if written > limit {
            return Err(too_large(limit));
        }
        file.write_all(&chunk)
            .await
            .map_err(|e| FsError::io(&target, e))?;
    }
    file.sync_all().await.map_err(|e| FsError::io(&target, e))?;
    if let Some(metadata) = existing {
        tokio::fs::set_permissions(&partial.path, metadata.permissions())
            .await
            .map_err(|e| FsError::io(&target, e))?;
    }
    partial.commit(&target).await?;
    Ok(written)
}

/// The problem of a body over the limit.
pub fn too_large(limit: u64) -> FsError {
    FsError::TooLarge(format!(
        "the body is larger than the daemon's limit of {limit} bytes (--fs-max-bytes)"
    ))
}

/// Where a write lands: the path, or what the symbolic link at it points to.
async fn write_target(path: &Path) -> Result<PathBuf, FsError> {
    match tokio::fs::symlink_metadata(path).await {
        Ok(metadata) if metadata.is_symlink() => match tokio::fs::canonicalize(path).await {
            Ok(resolved) => Ok(resolved),
            // A dangling link: write a file where it points.
            Err(_) => {
                let link = tokio::fs::read_link(path)
                    .await
                    .map_err(|e| FsError::io(path, e))?;
                Ok(super::normalize(&path.parent().unwrap_or(path).join(link)))
            }
        },
        _ => Ok(path.to_owned()),
    }
}

/// A temporary file next to the target, removed unless committed.
struct PartialFile {
    path: PathBuf,
    committed: bool,
}

impl PartialFile {
    fn create(target: &Path) -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let unique = format!(
            ".{name}.{}-{}.partial",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let path = target.with_file_name(unique);
        PartialFile {
            path,
            committed: false,
        }
    }

    async fn file(&self) -> Result<tokio::fs::File, FsError> {
        tokio::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&self.path)
            .await
            .map_err(|e| FsError::io(&self.path, e))
    }

    async fn commit(mut self, target: &Path) -> Result<(), FsError> {
        tokio::fs::rename(&self.path, target)
            .await
            .map_err(|e| FsError::io(target, e))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(chunks: &[&'static [u8]]) -> Body {
        let stream = futures::stream::iter(
            chunks
                .iter()
                .map(|c| Ok::<_, std::io::Error>(axum::body::Bytes::from_static(c)))
                .collect::<Vec<_>>(),
        );
        Body::from_stream(stream)
    }

    #[tokio::test]
    async fn a_write_creates_parents_and_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/run.sh");
        assert_eq!(write(&path, body(&[b"12", b"345"]), 10).await.unwrap(), 5);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o750)).unwrap();
        assert_eq!(write(&path, body(&[b"x"]), 10).await.unwrap(), 1);
        assert_eq!(std::fs::read(&path).unwrap(), b"x");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o750);
    }

    #[tokio::test]
    async fn an_oversized_write_leaves_the_old_file_and_no_partial() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "old").unwrap();
        let error = write(&path, body(&[b"1234", b"5678"]), 6)
            .await
            .unwrap_err();
        assert!(matches!(error, FsError::TooLarge(_)));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[tokio::test]
    async fn a_write_goes_through_a_symbolic_link() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("real"), "old").unwrap();
        std::os::unix::fs::symlink("real", dir.path().join("link")).unwrap();
        write(&dir.path().join("link"), body(&[b"new"]), 10)
            .await
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("real")).unwrap(),
            "new"
        );
        assert!(std::fs::symlink_metadata(dir.path().join("link"))
            .unwrap()
            .is_symlink());
    }
}
