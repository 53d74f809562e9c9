//! Writing an archive's members into the staging folder through its handle: every
//! parent is opened without following a link (a member under one of the archive's own
//! links is refused), files and folders are created with the archive's permission bits
//! for the kernel to narrow by the umask, and hard links only join members already
//! staged.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::OwnedFd;
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::members::{Kind, Member};
use crate::{beneath, FsError};

/// The staging folder, held open.
pub struct Staging<'a> {
    /// Its handle; every write is relative to it.
    pub dir: &'a OwnedFd,
}

impl Staging<'_> {
    /// Writes `member` (a file's bytes from `data`). A later member replaces an earlier
    /// one of the same path, except that a folder is never replaced.
    pub fn write(&self, member: &Member, data: &mut impl Read) -> Result<(), FsError> {
        let (Some(parent), Some(name)) = (member.path.parent(), member.path.file_name()) else {
            return Ok(());
        };
        let failed = |error: io::Error| staging_error(&member.path, error);
        let parent = self.make_parents(parent).map_err(failed)?;
        let mode = Mode::from_raw_mode(member.mode);
        match &member.kind {
            Kind::Directory => match rustix::fs::mkdirat(&parent, name, mode | Mode::RWXU) {
                Err(Errno::EXIST) if is_dir(&parent, name) => Ok(()),
                done => done.map_err(|e| failed(e.into())),
            },
            Kind::File => {
                let flags = OFlags::WRONLY
                    | OFlags::CREATE
                    | OFlags::EXCL
                    | OFlags::NOFOLLOW
                    | OFlags::CLOEXEC;
                let file = replacing(&parent, name, || {
                    rustix::fs::openat(&parent, name, flags, mode)
                })
                .map_err(|e| failed(e.into()))?;
                io::copy(data, &mut File::from(file))
                    .map(drop)
                    .map_err(super::not_an_archive)
            }
            Kind::Symlink(target) => replacing(&parent, name, || {
                rustix::fs::symlinkat(target, &parent, name)
            })
            .map_err(|e| failed(e.into())),
            Kind::HardLink(source) => self.hard_link(source, &parent, name, &member.path),
        }
    }

    /// Links `name` under `parent` to the staged regular file `source`.
    fn hard_link(
        &self,
        source: &Path,
        parent: &OwnedFd,
        name: &std::ffi::OsStr,
        path: &Path,
    ) -> Result<(), FsError> {
        let (Some(source_parent), Some(source_name)) = (source.parent(), source.file_name()) else {
            return Err(not_a_member(path, source));
        };
        let source_parent =
            beneath::open_dir(self.dir, source_parent).map_err(|_| not_a_member(path, source))?;
        let stat = rustix::fs::statat(&source_parent, source_name, AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|_| not_a_member(path, source))?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return Err(not_a_member(path, source));
        }
        replacing(parent, name, || {
            rustix::fs::linkat(&source_parent, source_name, parent, name, AtFlags::empty())
        })
        .map_err(|e| staging_error(path, e.into()))
    }

    /// Opens (creating what is missing) the folder `relative`, one component at a
    /// time and never through a link.
    fn make_parents(&self, relative: &Path) -> io::Result<OwnedFd> {
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut current = rustix::fs::openat(self.dir, ".", flags, Mode::empty())?;
        for name in relative.iter() {
            let next = match rustix::fs::openat(&current, name, flags, Mode::empty()) {
                Err(Errno::NOENT) => {
                    match rustix::fs::mkdirat(&current, name, Mode::from_raw_mode(0o777)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(error) => return Err(error.into()),
                    }
                    rustix::fs::openat(&current, name, flags, Mode::empty())?
                }
                opened => opened?,
            };
            current = next;
        }
        Ok(current)
    }
}

/// Runs `create`; when the name is taken by anything but a folder, removes it and
/// runs `create` again (a later member replaces an earlier one, as `tar` does).
fn replacing<T>(
    parent: &OwnedFd,
    name: &std::ffi::OsStr,
    create: impl Fn() -> rustix::io::Result<T>,
) -> rustix::io::Result<T> {
    match create() {
        Err(Errno::EXIST) if !is_dir(parent, name) => {
            rustix::fs::unlinkat(parent, name, AtFlags::empty())?;
            create()
        }
        done => done,
    }
}

fn is_dir(parent: &OwnedFd, name: &std::ffi::OsStr) -> bool {
    rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Directory)
}

/// What a failure to write a member in staging means for the client: a parent that
/// is one of the archive's links or files (`ELOOP`, `ENOTDIR`), or a folder in the
/// way (`EEXIST`), is a bad archive; anything else is the system's.
fn staging_error(path: &Path, error: io::Error) -> FsError {
    match error.raw_os_error() {
        Some(libc::ELOOP | libc::ENOTDIR) => FsError::BadPath(format!(
            "archive entry {} lies under one of the archive's symbolic links or files; nothing was written",
            path.display()
        )),
        Some(libc::EEXIST | libc::EISDIR) => FsError::BadPath(format!(
            "archive entry {} would replace a directory of the archive; nothing was written",
            path.display()
        )),
        _ => FsError::io(path, error),
    }
}

fn not_a_member(path: &Path, source: &Path) -> FsError {
    FsError::BadPath(format!(
        "archive entry {} is a hard link to {}, which is not a file earlier in the archive; nothing was written",
        path.display(),
        source.display()
    ))
}
