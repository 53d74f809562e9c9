//! Staying beneath a directory: opening a folder under a directory handle without
//! following any symbolic link, and resolving a path component by component (links
//! followed, at most [`MAX_HOPS`] of them) to tell whether it stays beneath its root.
//!
//! Archive uploads use both (their writes never follow a link; their new links must
//! resolve inside the target), and so does `--fs-root` for every path a client names.

use std::ffi::OsString;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, ResolveFlags};

/// The longest chain of symbolic links one resolution follows (the kernel's own limit).
pub const MAX_HOPS: usize = 40;

/// Opens the folder at the absolute `path` (following links) as an `O_PATH` handle,
/// usable as the directory of `*at` calls.
pub fn open_root(path: &Path) -> io::Result<OwnedFd> {
    Ok(rustix::fs::open(path, dir_flags(), Mode::empty())?)
}

/// Opens the folder at `relative` under `dir` (an `O_PATH` handle). A symbolic link
/// anywhere on the way is refused, and so is a `..` that climbs out (callers pass
/// paths without `..`): `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` where
/// the kernel has it (Linux 5.6), else one `O_NOFOLLOW` open per component, which
/// holds the same.
pub fn open_dir(dir: impl AsFd, relative: &Path) -> io::Result<OwnedFd> {
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
    let path = dot_if_empty(relative);
    match rustix::fs::openat2(&dir, path, dir_flags(), Mode::empty(), resolve) {
        Err(rustix::io::Errno::NOSYS) => open_dir_by_components(dir, relative),
        opened => Ok(opened?),
    }
}

/// [`open_dir`] for kernels without `openat2`: every component opened on its own with
/// `O_NOFOLLOW`, so a link anywhere fails (`ENOTDIR`).
fn open_dir_by_components(dir: impl AsFd, relative: &Path) -> io::Result<OwnedFd> {
    let mut current = rustix::fs::openat(&dir, ".", dir_flags(), Mode::empty())?;
    for component in relative.components() {
        match component {
            Component::Normal(name) => {
                current = rustix::fs::openat(
                    &current,
                    name,
                    dir_flags() | OFlags::NOFOLLOW,
                    Mode::empty(),
                )?;
            }
            Component::CurDir => {}
            _ => return Err(io::Error::from_raw_os_error(libc::EXDEV)),
        }
    }
    Ok(current)
}

fn dir_flags() -> OFlags {
    OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC
}

/// `.` for the empty path (the `*at` calls refuse an empty name).
pub fn dot_if_empty(path: &Path) -> &Path {
    if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    }
}

/// What one name is, seen without following it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// A directory.
    Directory,
    /// A symbolic link, with its target.
    Link(PathBuf),
    /// Anything else: a file, a FIFO, a device.
    Other,
}

/// Where a resolution looks names up: `path` is relative to the root and none of its
/// components is a link. `None` when nothing is there.
pub trait Lookup {
    /// What `path` names, without following it.
    fn lookup(&self, path: &Path) -> io::Result<Option<Node>>;
}

/// A directory on disk, looked up through its handle.
pub struct DiskTree<'a>(pub &'a OwnedFd);

impl Lookup for DiskTree<'_> {
    fn lookup(&self, path: &Path) -> io::Result<Option<Node>> {
        let path = dot_if_empty(path);
        let stat = match rustix::fs::statat(self.0, path, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => stat,
            Err(rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR) => return Ok(None),
            Err(error) => return Err(error.into()),
        };
        Ok(Some(match FileType::from_raw_mode(stat.st_mode) {
            FileType::Directory => Node::Directory,
            FileType::Symlink => {
                let target = rustix::fs::readlinkat(self.0, path, Vec::new())?;
                Node::Link(PathBuf::from(std::ffi::OsStr::from_bytes(
                    target.as_bytes(),
                )))
            }
            _ => Node::Other,
        }))
    }
}

/// Resolves `path` from `start` (both relative to the root), following every link
/// (the last one too when `follow_last`): `Some(path)` relative to the root with no
/// link left in it, or `None` when a step leaves the root. An absolute link target
/// counts as inside only when it names a place under `root_path` (the root's own
/// absolute path). A missing name is taken as a folder that may appear later, so the
/// rest of the path is still checked (a dangling path is fine as long as it stays
/// beneath). More than [`MAX_HOPS`] links fail with `ELOOP`.
pub fn resolve(
    tree: &impl Lookup,
    root_path: &Path,
    start: &Path,
    path: &Path,
    follow_last: bool,
) -> io::Result<Option<PathBuf>> {
    let mut resolved = start.to_owned();
    let mut pending = Vec::new();
    if !push_parts(&mut pending, &mut resolved, root_path, path) {
        return Ok(None);
    }
    let mut hops = 0;
    while let Some(part) = pending.pop() {
        let Some(name) = part else {
            if !resolved.pop() {
                return Ok(None);
            }
            continue;
        };
        resolved.push(name);
        if pending.is_empty() && !follow_last {
            break;
        }
        if let Some(Node::Link(target)) = tree.lookup(&resolved)? {
            hops += 1;
            if hops > MAX_HOPS {
                return Err(io::Error::from_raw_os_error(libc::ELOOP));
            }
            resolved.pop();
            if !push_parts(&mut pending, &mut resolved, root_path, &target) {
                return Ok(None);
            }
        }
    }
    Ok(Some(resolved))
}

/// Puts `path`'s components on the stack of what is left to resolve (a name, or
/// `None` for `..`), last first. An absolute path restarts from the root when it
/// lies under `root_path`; answers false when it does not.
fn push_parts(
    pending: &mut Vec<Option<OsString>>,
    resolved: &mut PathBuf,
    root_path: &Path,
    path: &Path,
) -> bool {
    let path = if path.is_absolute() {
        let Ok(rest) = path.strip_prefix(root_path) else {
            return false;
        };
        resolved.clear();
        rest
    } else {
        path
    };
    let start = pending.len();
    for component in path.components() {
        match component {
            Component::Normal(name) => pending.push(Some(name.to_owned())),
            Component::ParentDir => pending.push(None),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    pending[start..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    fn open(path: &Path) -> OwnedFd {
        open_root(path).unwrap()
    }

    #[test]
    fn folders_open_beneath_and_never_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        symlink("a", dir.path().join("l")).unwrap();
        let root = open(dir.path());
        for opener in [open_dir, open_dir_by_components] {
            opener(&root, Path::new("a/b")).unwrap();
            opener(&root, Path::new("")).unwrap();
            assert!(opener(&root, Path::new("l/b")).is_err());
            assert!(opener(&root, Path::new("l")).is_err());
            assert!(opener(&root, Path::new("a/../..")).is_err());
        }
    }

    #[test]
    fn chains_of_links_that_climb_out_are_caught() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().join("t");
        std::fs::create_dir_all(top.join("d")).unwrap();
        symlink(".", top.join("l")).unwrap();
        symlink("d/..", top.join("up")).unwrap();
        symlink("/etc", top.join("abs")).unwrap();
        symlink(top.join("d"), top.join("abs_in")).unwrap();
        symlink("loop", top.join("loop")).unwrap();
        let fd = open(&top);
        let tree = DiskTree(&fd);
        let at = |path: &str| resolve(&tree, &top, Path::new(""), Path::new(path), true);
        assert_eq!(at("l/l/l/d").unwrap(), Some(PathBuf::from("d")));
        assert_eq!(at("l/l/l/../x").unwrap(), None);
        assert_eq!(at("up/l/..").unwrap(), None);
        assert_eq!(at("abs").unwrap(), None);
        assert_eq!(at("abs_in/x").unwrap(), Some(PathBuf::from("d/x")));
        // Dangling is fine beneath; a missing name still counts for what follows.
        assert_eq!(at("missing/../d").unwrap(), Some(PathBuf::from("d")));
        assert_eq!(at("missing/../l/..").unwrap(), None);
        assert_eq!(at("loop").unwrap_err().raw_os_error(), Some(libc::ELOOP));
        let last = resolve(&tree, &top, Path::new(""), Path::new("abs"), false);
        assert_eq!(last.unwrap(), Some(PathBuf::from("abs")));
    }
}
