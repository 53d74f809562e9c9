//! Where the file API may reach: unconfined by default (every path the daemon's user
//! can reach, as in 0.1.x), or beneath the `--fs-root` folder, with symbolic links
//! followed only while they stay beneath it.

use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use super::beneath::{self, DiskTree};
use super::FsError;

/// The caps an upload is held to.
#[derive(Debug, Clone, Copy)]
pub struct UploadLimits {
    /// Most bytes unpacked: the whole decompressed archive, headers included.
    pub max_bytes: u64,
    /// Most members (files, directories, links).
    pub max_entries: u64,
}

/// The `--fs-root` folder, held open.
pub struct FsRoot {
    path: PathBuf,
    dir: OwnedFd,
}

impl FsRoot {
    /// Opens the folder at `path` (its real path: links in it are resolved once, here).
    pub fn open(path: &Path) -> io::Result<Self> {
        let path = std::fs::canonicalize(path)?;
        let dir = beneath::open_root(&path)?;
        Ok(FsRoot { path, dir })
    }

    /// The folder's real absolute path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The real path `absolute` (already folded lexically) names beneath the root,
    /// every link followed (the last one only when `follow_last`); refused with
    /// [`FsError::PermissionDenied`] when it, or a link on the way, leads outside.
    pub fn confine(&self, absolute: &Path, follow_last: bool) -> Result<PathBuf, FsError> {
        let outside = || {
            FsError::PermissionDenied(format!(
                "{} is outside the folder the daemon confines files to (--fs-root {})",
                absolute.display(),
                self.path.display()
            ))
        };
        let relative = absolute.strip_prefix(&self.path).map_err(|_| outside())?;
        let tree = DiskTree(&self.dir);
        match beneath::resolve(&tree, &self.path, Path::new(""), relative, follow_last) {
            Ok(Some(inside)) if inside.as_os_str().is_empty() => Ok(self.path.clone()),
            Ok(Some(inside)) => Ok(self.path.join(inside)),
            Ok(None) => Err(outside()),
            Err(error) => Err(FsError::io(absolute, error)),
        }
    }
}

/// How the `/v1/fs/*` routes are bounded, and confined.
pub struct FsPolicy {
    /// `--fs-max-bytes`: the largest file written, or archive sent or unpacked.
    pub max_bytes: u64,
    /// `--fs-max-entries`: the most members of one uploaded archive.
    pub max_entries: u64,
    /// `--fs-root`, when the daemon was given one.
    pub root: Option<FsRoot>,
}

impl FsPolicy {
    /// The caps of an archive upload.
    pub fn upload_limits(&self) -> UploadLimits {
        UploadLimits {
            max_bytes: self.max_bytes,
            max_entries: self.max_entries,
        }
    }

    /// Where relative paths start without a session: the root, else the home directory.
    pub fn default_base(&self) -> PathBuf {
        self.root
            .as_ref()
            .map_or_else(super::home_dir, |root| root.path.clone())
    }

    /// The path a client names: relative ones start at `base` (or [`Self::default_base`]),
    /// `.` and `..` are folded, and under `--fs-root` it is resolved beneath the root
    /// (the last link followed only when `follow_last`).
    pub fn locate(
        &self,
        base: Option<&Path>,
        path: &str,
        follow_last: bool,
    ) -> Result<PathBuf, FsError> {
        let base = base.map_or_else(|| self.default_base(), Path::to_owned);
        let lexical = super::resolve(&base, path)?;
        match &self.root {
            Some(root) => root.confine(&lexical, follow_last),
            None => Ok(lexical),
        }
    }

    /// The working directory of a session or a process: as given when unconfined;
    /// under `--fs-root`, resolved from the root (the root itself when none is given)
    /// and refused outside it. An empty one is none.
    pub fn working_directory(&self, directory: Option<&str>) -> Result<Option<String>, FsError> {
        let directory = directory.filter(|directory| !directory.is_empty());
        let Some(root) = &self.root else {
            return Ok(directory.map(str::to_owned));
        };
        let resolved = self.locate(Some(&root.path), directory.unwrap_or("."), true)?;
        Ok(Some(resolved.display().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_keeps_paths_and_links_beneath_it() {
        let dir = tempfile::tempdir().unwrap();
        let root_path = dir.path().join("root");
        std::fs::create_dir_all(root_path.join("in")).unwrap();
        std::os::unix::fs::symlink("/etc", root_path.join("out")).unwrap();
        std::os::unix::fs::symlink("in", root_path.join("ok")).unwrap();
        let policy = FsPolicy {
            max_bytes: 1,
            max_entries: 1,
            root: Some(FsRoot::open(&root_path).unwrap()),
        };
        let real = std::fs::canonicalize(&root_path).unwrap();
        assert_eq!(
            policy.locate(None, "ok/f", true).unwrap(),
            real.join("in/f")
        );
        assert_eq!(policy.locate(None, "ok", false).unwrap(), real.join("ok"));
        let refused = |path: &str, follow| {
            matches!(
                policy.locate(None, path, follow),
                Err(FsError::PermissionDenied(_))
            )
        };
        assert!(refused("out/passwd", true));
        assert!(refused("out", true));
        assert!(!refused("out", false));
        assert!(refused("/etc/passwd", true));
        assert!(refused("../x", true));
        assert_eq!(
            policy.working_directory(None).unwrap().unwrap(),
            real.display().to_string()
        );
        assert!(policy.working_directory(Some("/tmp")).is_err());
    }
}
