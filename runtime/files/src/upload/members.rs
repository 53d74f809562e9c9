//! The members of an uploaded tar archive, read raw: GNU long names and links
//! (`L`/`K`) and PAX records (`x`, `g`) are applied here, each read only when it is at
//! most [`MAX_EXTENSION_BYTES`], so no header makes the daemon hold more than that.

use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use tar::EntryType;

use super::{not_an_archive, outside};
use crate::FsError;

/// The largest GNU long name or link, or PAX header, an archive may carry.
pub const MAX_EXTENSION_BYTES: u64 = 64 << 10;

/// The longest entry path or link target (the system's `PATH_MAX`).
const MAX_PATH_BYTES: usize = 4096;

/// What a member is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A regular file: its data follows.
    File,
    /// A directory.
    Directory,
    /// A symbolic link to this target, as written in the archive.
    Symlink(PathBuf),
    /// A hard link to this earlier member of the archive.
    HardLink(PathBuf),
}

/// One member: where it goes under the target, what it is, its permission bits.
#[derive(Debug, Clone)]
pub struct Member {
    /// Relative to the target, without `.`; never absolute, never with `..`.
    pub path: PathBuf,
    /// What it is.
    pub kind: Kind,
    /// The archive's permission bits, without setuid, setgid or sticky.
    pub mode: u32,
}

/// The members of an archive, one at a time, at most `max_entries` of them.
pub struct Members<'a, R: Read> {
    entries: tar::Entries<'a, R>,
    max_entries: u64,
    count: u64,
}

/// Extension records waiting for the member they describe.
#[derive(Default)]
struct Pending {
    long_name: Option<Vec<u8>>,
    long_link: Option<Vec<u8>>,
    pax: Option<Vec<u8>>,
}

impl<'a, R: Read> Members<'a, R> {
    /// Starts reading `archive`.
    pub fn new(archive: &'a mut tar::Archive<R>, max_entries: u64) -> Result<Self, FsError> {
        Ok(Members {
            entries: archive.entries().map_err(not_an_archive)?.raw(true),
            max_entries,
            count: 0,
        })
    }

    /// The next member, with its entry to read a file's data from; `None` at the end.
    pub fn next_member(&mut self) -> Result<Option<(Member, tar::Entry<'a, R>)>, FsError> {
        let mut pending = Pending::default();
        loop {
            let Some(entry) = self.entries.next() else {
                if pending.long_name.is_some()
                    || pending.long_link.is_some()
                    || pending.pax.is_some()
                {
                    return Err(malformed("extension headers describe no member"));
                }
                return Ok(None);
            };
            let mut entry = entry.map_err(not_an_archive)?;
            let kind = entry.header().entry_type();
            match kind {
                EntryType::GNULongName => once(&mut pending.long_name, &mut entry)?,
                EntryType::GNULongLink => once(&mut pending.long_link, &mut entry)?,
                EntryType::XHeader => once(&mut pending.pax, &mut entry)?,
                EntryType::XGlobalHeader => check_global(&extension(&mut entry)?)?,
                _ => {
                    self.count += 1;
                    if self.count > self.max_entries {
                        return Err(FsError::TooLarge(format!(
                            "the archive has more than {} entries (--fs-max-entries); nothing was written",
                            self.max_entries
                        )));
                    }
                    let member = member(&entry, kind, pending)?;
                    return Ok(Some((member, entry)));
                }
            }
        }
    }
}

/// Builds the member an entry describes, with the extensions read before it.
fn member<R: Read>(
    entry: &tar::Entry<R>,
    kind: EntryType,
    pending: Pending,
) -> Result<Member, FsError> {
    let pax = pending.pax.as_deref().map(PaxFields::parse).transpose()?;
    let pax = pax.unwrap_or_default();
    if pax.size.is_some_and(|size| size != entry.size()) {
        return Err(malformed("a PAX size disagrees with its entry's header"));
    }
    let path_bytes = pax
        .path
        .or(pending.long_name)
        .unwrap_or_else(|| entry.path_bytes().into_owned());
    let named = to_path(&path_bytes)?;
    let link = || -> Result<PathBuf, FsError> {
        let bytes = pax
            .linkpath
            .clone()
            .or(pending.long_link.clone())
            .or_else(|| entry.link_name_bytes().map(|name| name.into_owned()))
            .ok_or_else(|| malformed("a link entry has no target"))?;
        to_path(&bytes)
    };
    let kind = match kind {
        EntryType::Regular | EntryType::Continuous => Kind::File,
        EntryType::Directory => Kind::Directory,
        EntryType::Symlink => Kind::Symlink(link()?),
        EntryType::Link => Kind::HardLink(relative(&link()?)?),
        other => {
            return Err(FsError::BadPath(format!(
                "archive entry {} is of type {other:?}: uploads hold files, directories and links only; nothing was written",
                named.display()
            )))
        }
    };
    let mode = entry.header().mode().map_err(not_an_archive)? & 0o777;
    Ok(Member {
        path: relative(&named)?,
        kind,
        mode,
    })
}

/// Reads an extension header's data, refusing one over [`MAX_EXTENSION_BYTES`]
/// before reading it.
fn extension<R: Read>(entry: &mut tar::Entry<R>) -> Result<Vec<u8>, FsError> {
    if entry.size() > MAX_EXTENSION_BYTES {
        return Err(FsError::TooLarge(format!(
            "an extension header of the archive holds {} bytes, more than {MAX_EXTENSION_BYTES}; nothing was written",
            entry.size()
        )));
    }
    let mut data = Vec::with_capacity(entry.size() as usize);
    entry.read_to_end(&mut data).map_err(not_an_archive)?;
    Ok(data)
}

/// Keeps a long name, link or PAX header for the next member, refusing a second one.
fn once<R: Read>(slot: &mut Option<Vec<u8>>, entry: &mut tar::Entry<R>) -> Result<(), FsError> {
    if slot.is_some() {
        return Err(malformed(
            "two extension headers of one kind describe the same member",
        ));
    }
    let mut data = extension(entry)?;
    if entry.header().entry_type() != EntryType::XHeader {
        while data.last() == Some(&0) {
            data.pop();
        }
    }
    *slot = Some(data);
    Ok(())
}

/// A global PAX header may carry comments and times; one that would name paths or
/// sizes for every member is refused rather than read differently from other tools.
fn check_global(data: &[u8]) -> Result<(), FsError> {
    let fields = PaxFields::parse(data)?;
    if fields.path.is_some() || fields.linkpath.is_some() || fields.size.is_some() {
        return Err(malformed(
            "a global PAX header sets a path, a link or a size",
        ));
    }
    Ok(())
}

/// The PAX records the daemon acts on.
#[derive(Default)]
struct PaxFields {
    path: Option<Vec<u8>>,
    linkpath: Option<Vec<u8>>,
    size: Option<u64>,
}

impl PaxFields {
    fn parse(data: &[u8]) -> Result<Self, FsError> {
        let mut fields = PaxFields::default();
        for record in tar::PaxExtensions::new(data) {
            let record = record.map_err(|_| malformed("a PAX header is malformed"))?;
            match record.key_bytes() {
                b"path" => fields.path = Some(record.value_bytes().to_vec()),
                b"linkpath" => fields.linkpath = Some(record.value_bytes().to_vec()),
                b"size" => {
                    let size = record.value().ok().and_then(|v| v.parse().ok());
                    fields.size =
                        Some(size.ok_or_else(|| malformed("a PAX size is not a number"))?);
                }
                _ => {}
            }
        }
        Ok(fields)
    }
}

/// A path from the archive's bytes, refusing NUL bytes and paths over `PATH_MAX`.
fn to_path(bytes: &[u8]) -> Result<PathBuf, FsError> {
    if bytes.is_empty() || bytes.len() > MAX_PATH_BYTES || bytes.contains(&0) {
        return Err(malformed(&format!(
            "an entry path or link target is empty, longer than {MAX_PATH_BYTES} bytes or holds a NUL byte"
        )));
    }
    Ok(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
}

/// The entry's path with `.` dropped, refusing absolute paths and `..`.
pub fn relative(path: &Path) -> Result<PathBuf, FsError> {
    let mut relative = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(name) => relative.push(name),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(outside(path))
            }
        }
    }
    Ok(relative)
}

fn malformed(what: &str) -> FsError {
    FsError::BadPath(format!(
        "the body is not a valid tar archive: {what}; nothing was written"
    ))
}
