//! `POST /v1/fs/upload-batch`: a tar archive (plain or gzip) streamed from the request
//! body and unpacked under a target directory.
//!
//! Nothing partial is left behind: the archive is unpacked into a hidden staging
//! directory inside the target ([`stage`]), every member checked on the way
//! ([`members`]: no absolute paths, no `..`, only files, directories and links, each
//! extension header at most 64 KiB, at most `--fs-max-entries` members, at most
//! `--fs-max-bytes` unpacked). Only when the whole archive is good, and no link of it
//! resolves outside the target, are its entries moved into place ([`place`]).
//! No write ever follows a symbolic link: every folder is opened through a handle,
//! one component at a time.

mod members;
mod place;
mod stage;

use std::fs;
use std::io::{self, BufRead, BufReader, Read};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use agentplex_api::{FsUploadBatchResponse, FS_UPLOAD_LISTED_PATHS};
use axum::body::Body;
use futures::TryStreamExt;
use tokio_util::io::{StreamReader, SyncIoBridge};

pub use members::MAX_EXTENSION_BYTES;

use super::confine::UploadLimits;
use super::transfer::too_large;
use super::{beneath, FsError};

/// Unpacks the archive in `body` under `target` (created when missing).
pub async fn unpack(
    target: PathBuf,
    body: Body,
    limits: UploadLimits,
) -> Result<FsUploadBatchResponse, FsError> {
    let stream = body.into_data_stream().map_err(io::Error::other);
    let reader = SyncIoBridge::new(StreamReader::new(stream));
    super::blocking(move || unpack_from(&target, reader, limits)).await
}

/// The blocking part of [`unpack`], for any reader.
pub fn unpack_from(
    target: &Path,
    reader: impl Read,
    limits: UploadLimits,
) -> Result<FsUploadBatchResponse, FsError> {
    fs::create_dir_all(target).map_err(|e| FsError::io(target, e))?;
    let root = fs::canonicalize(target).map_err(|e| FsError::io(target, e))?;
    let root_dir = beneath::open_root(&root).map_err(|e| match e.raw_os_error() {
        Some(libc::ENOTDIR) => {
            FsError::Conflict(format!("{} is not a directory", target.display()))
        }
        _ => FsError::io(target, e),
    })?;
    let staging = tempfile::Builder::new()
        .prefix(".sandbox-agent-upload-")
        .tempdir_in(&root)
        .map_err(|e| FsError::io(target, e))?;
    let staging_name = staging.path().file_name().unwrap_or_default();
    let staged = beneath::open_dir(&root_dir, Path::new(staging_name))
        .map_err(|e| FsError::io(staging.path(), e))?;
    let mut body = BufReader::new(reader);
    let gzip = body
        .fill_buf()
        .map(|start| start.starts_with(&[0x1f, 0x8b]))
        .unwrap_or(false);
    let source: Box<dyn Read + '_> = if gzip {
        Box::new(flate2::read::GzDecoder::new(body))
    } else {
        Box::new(body)
    };
    let mut unpacked = Limited {
        inner: source,
        remaining: limits.max_bytes,
        exceeded: false,
    };
    let extracted = extract(&mut unpacked, &staged, limits.max_entries);
    if unpacked.exceeded {
        return Err(too_large(limits.max_bytes));
    }
    let listed = extracted?;
    place::Placement {
        staged: &staged,
        target: &root_dir,
        target_path: &root,
    }
    .run()?;
    Ok(FsUploadBatchResponse {
        paths: listed
            .paths
            .iter()
            .map(|relative| target.join(relative).display().to_string())
            .collect(),
        truncated: listed.count > FS_UPLOAD_LISTED_PATHS,
    })
}

/// The first members written, and how many there were.
struct Listed {
    paths: Vec<PathBuf>,
    count: usize,
}

/// Unpacks every member into the staging folder `staged`.
fn extract(source: impl Read, staged: &OwnedFd, max_entries: u64) -> Result<Listed, FsError> {
    let mut archive = tar::Archive::new(source);
    let mut members = members::Members::new(&mut archive, max_entries)?;
    let staging = stage::Staging { dir: staged };
    let mut listed = Listed {
        paths: Vec::new(),
        count: 0,
    };
    while let Some((member, mut data)) = members.next_member()? {
        if member.path.as_os_str().is_empty() {
            continue;
        }
        staging.write(&member, &mut data)?;
        listed.count += 1;
        if listed.paths.len() < FS_UPLOAD_LISTED_PATHS {
            listed.paths.push(member.path);
        }
    }
    Ok(listed)
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

/// A reader that fails once more than `remaining` bytes came through (the unpacked
/// archive: headers, extension records and data alike).
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
            return Err(io::Error::other("the archive is over the limit"));
        }
        self.remaining -= read as u64;
        Ok(read)
    }
}

#[cfg(test)]
mod tests;
