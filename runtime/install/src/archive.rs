//! Unpacking a download into a staging folder (entries that would land outside it
//! are refused) and finding the binary the recipe names in it.

use std::fs::File;
use std::path::{Path, PathBuf};

use agentplex_host::ArchiveKind;

/// What an archive held.
#[derive(Debug)]
pub struct Unpacked {
    /// The binary, inside the staging folder.
    pub binary: PathBuf,
    /// The binary is the archive's only file: install it alone rather than the
    /// whole folder (release archives that ship assets next to the binary need the folder).
    pub alone: bool,
}

/// Why a download cannot be unpacked, or holds no usable binary.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// The recipe's binary path climbs out of the archive.
    #[error("binary path {0:?} leaves the archive")]
    PathLeaves(String),
    /// The archive has no file at the binary path.
    #[error("the archive has no {0}")]
    Missing(String),
    /// The binary path names a directory, link or device.
    #[error("{0} in the archive is not a regular file")]
    NotAFile(String),
    /// The download cannot be read.
    #[error("{0}")]
    Read(#[from] std::io::Error),
    /// The download is not an archive of the recipe's kind, or is broken.
    #[error("{what}: {reason}")]
    Broken { what: &'static str, reason: String },
    /// An entry would be written outside the staging folder.
    #[error("archive entry {0:?} leaves the archive")]
    EntryLeaves(String),
}

/// Unpacks `download` (of `kind`) into `staging` and finds `binary_path` in it.
pub fn unpack(
    download: &Path,
    kind: ArchiveKind,
    binary_path: &str,
    staging: &Path,
) -> Result<Unpacked, ArchiveError> {
    match kind {
        ArchiveKind::None => {
            return Ok(Unpacked {
                binary: download.to_owned(),
                alone: true,
            })
        }
        ArchiveKind::TarGz => unpack_tar_gz(download, staging)?,
        ArchiveKind::Zip => unpack_zip(download, staging)?,
    }
    find_binary(staging, binary_path)
}

/// Unpacks the download of `url` (of `kind`) into the new folder `root`, off the
/// async threads, and finds `binary_path` in it.
pub async fn unpack_into(
    download: std::path::PathBuf,
    kind: ArchiveKind,
    binary_path: String,
    root: std::path::PathBuf,
    url: &str,
) -> Result<Unpacked, crate::InstallError> {
    tokio::task::spawn_blocking(move || {
        std::fs::create_dir(&root)?;
        unpack(&download, kind, &binary_path, &root)
    })
    .await
    .map_err(|error| crate::InstallError::Task(std::sync::Arc::new(error)))?
    .map_err(|reason| crate::InstallError::BadArchive {
        url: url.to_owned(),
        reason: reason.to_string(),
    })
}

/// `binary_path` inside an unpacked folder, checked to be a regular file in it.
pub fn find_binary(root: &Path, binary_path: &str) -> Result<Unpacked, ArchiveError> {
    let relative = Path::new(binary_path.trim_start_matches("./"));
    if relative.is_absolute() || relative.components().any(|c| c.as_os_str() == "..") {
        return Err(ArchiveError::PathLeaves(binary_path.to_owned()));
    }
    let binary = root.join(relative);
    let metadata = std::fs::symlink_metadata(&binary)
        .map_err(|_| ArchiveError::Missing(binary_path.to_owned()))?;
    if !metadata.is_file() {
        return Err(ArchiveError::NotAFile(binary_path.to_owned()));
    }
    Ok(Unpacked {
        alone: count_files(root) == 1,
        binary,
    })
}

fn unpack_tar_gz(download: &Path, staging: &Path) -> Result<(), ArchiveError> {
    let broken = |what| {
        move |error: std::io::Error| ArchiveError::Broken {
            what,
            reason: error.to_string(),
        }
    };
    let file = File::open(download)?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    archive.set_preserve_mtime(false);
    archive.set_preserve_permissions(true);
    let entries = archive.entries().map_err(broken("not a tar.gz archive"))?;
    for entry in entries {
        let mut entry = entry.map_err(broken("broken tar.gz archive"))?;
        let unpacked = entry
            .unpack_in(staging)
            .map_err(broken("broken tar.gz archive"))?;
        if !unpacked {
            let path = entry
                .path()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            return Err(ArchiveError::EntryLeaves(path));
        }
    }
    Ok(())
}

fn unpack_zip(download: &Path, staging: &Path) -> Result<(), ArchiveError> {
    let broken = |what| {
        move |error: zip::result::ZipError| ArchiveError::Broken {
            what,
            reason: error.to_string(),
        }
    };
    let file = File::open(download)?;
    let mut archive = zip::ZipArchive::new(file).map_err(broken("not a zip archive"))?;
    archive
        .extract(staging)
        .map_err(broken("broken zip archive"))
}

/// Regular files under `dir`, recursively.
fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| match entry.file_type() {
                    Ok(kind) if kind.is_dir() => count_files(&entry.path()),
                    Ok(_) => 1,
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn tar_gz(path: &Path, files: &[(&str, &[u8])]) {
        let gz = flate2::write::GzEncoder::new(File::create(path).unwrap(), Default::default());
        let mut builder = tar::Builder::new(gz);
        for (name, data) in files {
            let mut header = tar::Header::new_gnu();
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            builder.append_data(&mut header, name, *data).unwrap();
        }
        builder.into_inner().unwrap().finish().unwrap();
    }

    #[test]
    fn a_tar_gz_with_the_binary_alone() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("a.tar.gz");
        tar_gz(&archive, &[("tool-x86_64", b"#!/bin/sh\n")]);
        let staging = dir.path().join("staging");
        std::fs::create_dir(&staging).unwrap();
        let unpacked = unpack(&archive, ArchiveKind::TarGz, "tool-x86_64", &staging).unwrap();
        assert!(unpacked.alone);
        assert_eq!(std::fs::read(&unpacked.binary).unwrap(), b"#!/bin/sh\n");
    }

    #[test]
    fn a_tar_gz_with_assets_and_a_missing_binary() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("a.tar.gz");
        tar_gz(
            &archive,
            &[("pi/pi", b"bin"), ("pi/theme/dark.json", b"{}")],
        );
        let staging = dir.path().join("staging");
        std::fs::create_dir(&staging).unwrap();
        let unpacked = unpack(&archive, ArchiveKind::TarGz, "pi/pi", &staging).unwrap();
        assert!(!unpacked.alone);
        assert!(matches!(
            find_binary(&staging, "pi/missing"),
            Err(ArchiveError::Missing(path)) if path == "pi/missing"
        ));
        assert!(matches!(
            find_binary(&staging, "../a.tar.gz"),
            Err(ArchiveError::PathLeaves(_))
        ));
        assert!(matches!(
            find_binary(&staging, "pi"),
            Err(ArchiveError::NotAFile(_))
        ));
    }

    #[test]
    fn a_zip_and_garbage() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("a.zip");
        let mut zip = zip::ZipWriter::new(File::create(&archive).unwrap());
        zip.start_file(
            "opencode",
            zip::write::SimpleFileOptions::default().unix_permissions(0o755),
        )
        .unwrap();
        zip.write_all(b"#!/bin/sh\n").unwrap();
        zip.finish().unwrap();
        let staging = dir.path().join("staging");
        std::fs::create_dir(&staging).unwrap();
        let unpacked = unpack(&archive, ArchiveKind::Zip, "opencode", &staging).unwrap();
        assert!(unpacked.alone);
        let garbage = dir.path().join("garbage");
        std::fs::write(&garbage, b"<html>not found</html>").unwrap();
        assert!(unpack(&garbage, ArchiveKind::Zip, "opencode", &staging).is_err());
        assert!(unpack(&garbage, ArchiveKind::TarGz, "opencode", &staging).is_err());
    }
}
