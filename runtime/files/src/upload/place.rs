//! Moving a staged archive into its target, in two passes over the staged tree. The
//! first changes nothing: it refuses a member that would replace a folder with a file
//! (or the reverse) or go through a symbolic link of the target, and every symbolic
//! link of the archive that, followed through the archive's own links and the target's,
//! resolves outside the target. The second renames each new entry into place through
//! folder handles opened without following links, merging existing folders.

use std::ffi::OsString;
use std::io;
use std::os::fd::OwnedFd;
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use crate::beneath::{self, DiskTree, Lookup, Node};
use crate::FsError;

/// The staged tree and the target it goes to.
pub struct Placement<'a> {
    /// The staging folder's handle.
    pub staged: &'a OwnedFd,
    /// The target folder's handle.
    pub target: &'a OwnedFd,
    /// The target's absolute path, for messages and absolute link targets.
    pub target_path: &'a Path,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Check,
    Move,
}

impl Placement<'_> {
    /// Checks everything, then moves everything: a refused archive writes nothing.
    pub fn run(&self) -> Result<(), FsError> {
        self.walk(Path::new(""), true, Pass::Check)?;
        self.walk(Path::new(""), true, Pass::Move)
    }

    /// One pass over the staged folder `relative`; `merging` when the target has a
    /// folder there too.
    fn walk(&self, relative: &Path, merging: bool, pass: Pass) -> Result<(), FsError> {
        for name in self.names(relative)? {
            let path = relative.join(&name);
            let staged = kind_at(self.staged, &path).map_err(|e| self.error(&path, e))?;
            let existing = if merging {
                kind_at(self.target, &path).map_err(|e| self.error(&path, e))?
            } else {
                None
            };
            let staged_dir = staged == Some(FileType::Directory);
            match existing {
                Some(FileType::Directory) if staged_dir => self.walk(&path, true, pass)?,
                Some(FileType::Symlink) if staged_dir => {
                    return Err(FsError::Conflict(format!(
                        "{} is a symbolic link: an archive's directory is not written through one; nothing was written",
                        self.shown(&path)
                    )))
                }
                Some(kind) if staged_dir != (kind == FileType::Directory) => {
                    let (has, wants) = if staged_dir {
                        ("a file", "a directory")
                    } else {
                        ("a directory", "a file")
                    };
                    return Err(FsError::Conflict(format!(
                        "{} is {has} and the archive has {wants} there; nothing was written",
                        self.shown(&path)
                    )));
                }
                _ => match pass {
                    Pass::Check if staged_dir => self.walk(&path, false, pass)?,
                    Pass::Check if staged == Some(FileType::Symlink) => self.check_link(&path)?,
                    Pass::Check => {}
                    Pass::Move => self.rename(&path)?,
                },
            }
        }
        Ok(())
    }

    /// Refuses the archive's link at `path` if it resolves outside the target.
    fn check_link(&self, path: &Path) -> Result<(), FsError> {
        let overlay = Overlay {
            staged: DiskTree(self.staged),
            target: DiskTree(self.target),
        };
        let parent = path.parent().unwrap_or(Path::new(""));
        let resolved = match overlay.lookup(path) {
            Ok(Some(Node::Link(target))) => {
                beneath::resolve(&overlay, self.target_path, parent, &target, true)
            }
            Ok(_) => return Ok(()),
            Err(error) => Err(error),
        };
        match resolved {
            Ok(Some(_)) => Ok(()),
            Ok(None) => Err(FsError::BadPath(format!(
                "archive entry {} is a symbolic link that resolves outside the target directory; nothing was written",
                path.display()
            ))),
            Err(error) if error.raw_os_error() == Some(libc::ELOOP) => Err(FsError::BadPath(format!(
                "archive entry {} is a symbolic link through too many links; nothing was written",
                path.display()
            ))),
            Err(error) => Err(self.error(path, error)),
        }
    }

    /// Moves the staged entry at `path` to the same place under the target.
    fn rename(&self, path: &Path) -> Result<(), FsError> {
        let parent = path.parent().unwrap_or(Path::new(""));
        let name = path.file_name().unwrap_or_default();
        let moved = beneath::open_dir(self.staged, parent).and_then(|from| {
            let to = beneath::open_dir(self.target, parent)?;
            Ok(rustix::fs::renameat(&from, name, &to, name)?)
        });
        moved.map_err(|e| self.error(path, e))
    }

    /// The names in the staged folder `relative` (read whole, so no folder stays open
    /// while the walk goes deeper).
    fn names(&self, relative: &Path) -> Result<Vec<OsString>, FsError> {
        let listed = beneath::open_dir(self.staged, relative).and_then(|dir| {
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            let readable = rustix::fs::openat(&dir, ".", flags, Mode::empty())?;
            let mut names = Vec::new();
            for entry in rustix::fs::Dir::new(readable)? {
                let name = entry?.file_name().to_bytes().to_vec();
                if name != b"." && name != b".." {
                    names.push(std::os::unix::ffi::OsStringExt::from_vec(name));
                }
            }
            Ok(names)
        });
        listed.map_err(|e| self.error(relative, e))
    }

    fn shown(&self, path: &Path) -> String {
        self.target_path.join(path).display().to_string()
    }

    fn error(&self, path: &Path, error: io::Error) -> FsError {
        FsError::io(&self.target_path.join(path), error)
    }
}

/// What `path` under `dir` is, without following it; `None` when nothing is there.
fn kind_at(dir: &OwnedFd, path: &Path) -> io::Result<Option<FileType>> {
    match rustix::fs::statat(dir, path, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => Ok(Some(FileType::from_raw_mode(stat.st_mode))),
        Err(rustix::io::Errno::NOENT) => Ok(None),
        Err(error) => Err(error.into()),
    }
}

/// The target as it will be once the archive is in place: the staged entries over
/// the existing ones.
struct Overlay<'a> {
    staged: DiskTree<'a>,
    target: DiskTree<'a>,
}

impl Lookup for Overlay<'_> {
    fn lookup(&self, path: &Path) -> io::Result<Option<Node>> {
        match self.staged.lookup(path)? {
            Some(node) => Ok(Some(node)),
            None => self.target.lookup(path),
        }
    }
}
