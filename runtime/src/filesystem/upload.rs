//! `POST /v1/fs/upload-batch`: a tar archive (plain or gzip) streamed from the request
//! body and unpacked under a target directory.
//!
//! Nothing partial is left behind: the archive is unpacked into a hidden staging
//! directory inside the target, every entry checked on the way (no absolute paths,
//! no `..`, no symbolic or hard links that point out, only files, directories and
//! links, the unpacked size within the limit). Only when the whole archive is good
//! are its entries moved into place, after checking that none would be written
//! through a symbolic link leading out of the target or replace a directory.

use std::fs;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Component, Path, PathBuf};

use axum::body::Body;
use futures::TryStreamExt;
use sandbox_agent_api::{FsUploadBatchResponse, FS_UPLOAD_LISTED_PATHS};
use tar::EntryType;
use tokio_util::io::{StreamReader, SyncIoBridge};

use super::transfer::too_large;
use super::FsError;

/// Unpacks the archive in `body` under `target` (created when missing), reading
/// and unpacking at most `limit` bytes.
pub async fn unpack(
    target: PathBuf,
    body: Body,
    limit: u64,
) -> Result<FsUploadBatchResponse, FsError> {
    let stream = body.into_data_stream().map_err(io::Error::other);
    let reader = SyncIoBridge::new(StreamReader::new(stream));
    super::blocking(move || unpack_from(&target, reader, limit)).await
}

/// The blocking part of [`unpack`], for any reader.
pub fn unpack_from(
    target: &Path,
    reader: impl Read,
    limit: u64,
) -> Result<FsUploadBatchResponse, FsError> {
    fs::create_dir_all(target).map_err(|e| FsError::io(target, e))?;
    let root = fs::canonicalize(target).map_err(|e| FsError::io(target, e))?;
    if !root.is_dir() {
        return Err(FsError::BadPath(format!(
            "{} is not a directory",
            target.display()
        )));
    }
    let staging = tempfile::Builder::new()
        .prefix(".sandbox-agent-upload-")
        .tempdir_in(&root)
        .map_err(|e| FsError::io(target, e))?;
    let mut body = BufReader::new(Limited {
        inner: reader,
        remaining: limit,
        exceeded: false,
    });
    let gzip = body
        .fill_buf()
        .map(|start| start.starts_with(&[0x1f, 0x8b]))
        .unwrap_or(false);
    let unpacked = {
        let source: Box<dyn Read + '_> = if gzip {
            Box::new(flate2::read::GzDecoder::new(&mut body))
        } else {
            Box::new(&mut body)
        };
        extract(tar::Archive::new(source), staging.path(), limit)
    };
    if body.get_ref().exceeded {
        return Err(too_large(limit));
    }
    let entries = unpacked?;
    let mut moves = Vec::new();
    plan(staging.path(), &root, &root, &mut moves)?;
    for (from, to) in moves {
        fs::rename(&from, &to).map_err(|e| FsError::io(&to, e))?;
    }
    let truncated = entries.len() > FS_UPLOAD_LISTED_PATHS;
    Ok(FsUploadBatchResponse {
        paths: entries
            .iter()
            .take(FS_UPLOAD_LISTED_PATHS)
            .map(|relative| target.join(relative).display().to_string())
            .collect(),
        truncated,
    })
}

/// Unpacks every entry into `staging`, answering their relative paths in order.
fn extract(
    mut archive: tar::Archive<impl Read>,
    staging: &Path,
    limit: u64,
) -> Result<Vec<PathBuf>, FsError> {
    let mut listed = Vec::new();
    let mut unpacked = 0u64;
    for entry in archive.entries().map_err(not_an_archive)? {
        let mut entry = entry.map_err(not_an_archive)?;
        let named = entry.path().map_err(not_an_archive)?.into_owned();
        let relative = inside(&named)?;
        if relative.as_os_str().is_empty() {
            continue;
        }
        match entry.header().entry_type() {
            EntryType::Regular | EntryType::Continuous | EntryType::Directory => {}
            EntryType::Symlink => check_symlink(&relative, &link_name(&entry)?)?,
            EntryType::Link => {
                inside(&link_name(&entry)?)?;
            }
            other => {
                return Err(FsError::BadPath(format!(
                    "archive entry {} is of type {other:?}: uploads hold files, directories and links only; nothing was written",
                    named.display()
                )))
            }
        }
        unpacked += entry.size();
        if unpacked > limit {
            return Err(too_large(limit));
        }
        if !entry.unpack_in(staging).map_err(not_an_archive)? {
            return Err(outside(&named));
        }
        listed.push(relative);
    }
    Ok(listed)
}

/// Decides which staged entries move where, refusing the archive if one would
/// replace a directory with a file (or the reverse) or be written through a
/// symbolic link that leads out of `root`. Directories that exist are merged.
fn plan(
    staged: &Path,
    dest: &Path,
    root: &Path,
    moves: &mut Vec<(PathBuf, PathBuf)>,
) -> Result<(), FsError> {
    for child in fs::read_dir(staged).map_err(|e| FsError::io(staged, e))? {
        let child = child.map_err(|e| FsError::io(staged, e))?;
        let from = child.path();
        let to = dest.join(child.file_name());
        let is_dir = child
            .file_type()
            .map_err(|e| FsError::io(&from, e))?
            .is_dir();
        let existing = fs::symlink_metadata(&to).ok();
        match existing {
            Some(meta) if is_dir && meta.is_dir() => plan(&from, &to, root, moves)?,
            Some(meta) if is_dir && meta.is_symlink() => {
                let resolved = fs::canonicalize(&to)
                    .ok()
                    .filter(|r| r.starts_with(root) && r.is_dir());
                let Some(resolved) = resolved else {
                    return Err(FsError::Conflict(format!(
                        "{} is a symbolic link that does not lead to a directory inside the target; nothing was written",
                        to.display()
                    )));
                };
                plan(&from, &resolved, root, moves)?;
            }
            Some(meta) if is_dir != meta.is_dir() => {
                let (has, wants) = if is_dir {
                    ("a file", "a directory")
                } else {
                    ("a directory", "a file")
                };
                return Err(FsError::Conflict(format!(
                    "{} is {has} and the archive has {wants} there; nothing was written",
                    to.display()
                )));
            }
            _ => moves.push((from, to)),
        }
    }
    Ok(())
}

/// The entry's path with `.` dropped, refusing absolute paths and `..`.
fn inside(path: &Path) -> Result<PathBuf, FsError> {
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

/// Refuses a symbolic link at `relative` whose target is absolute or climbs out.
fn check_symlink(relative: &Path, target: &Path) -> Result<(), FsError> {
    let mut depth = relative.components().count() as i64 - 1;
    for component in target.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return Err(outside(relative));
                }
            }
            Component::RootDir | Component::Prefix(_) => return Err(outside(relative)),
        }
    }
    Ok(())
}

fn link_name<R: Read>(entry: &tar::Entry<R>) -> Result<PathBuf, FsError> {
    entry
        .link_name()
        .map_err(not_an_archive)?
        .map(|name| name.into_owned())
        .ok_or_else(|| FsError::BadPath("an archive link entry has no target".into()))
}

fn outside(path: &Path) -> FsError {
    FsError::BadPath(format!(
        "archive entry {} would land outside the target directory; nothing was written",
        path.display()
    ))
}

fn not_an_archive(error: io::Error) -> FsError {
    FsError::BadPath(format!(
        "the body is not a valid tar archive (plain or gzip): {error}; nothing was written"
    ))
}

/// A reader that fails once more than `remaining` bytes came through.
struct Limited<R> {
    inner: R,
    remaining: u64,
    exceeded: bool,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        if read as u64 > self.remaining {
            self.exceeded = true;
            return Err(io::Error::other("the body is over the limit"));
        }
        self.remaining -= read as u64;
        Ok(read)
    }
}

#[cfg(test)]
mod tests;
