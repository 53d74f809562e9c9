//! Unpacking a download into a staging folder (entries that would land outside it
//! are refused) and finding the binary the recipe names in it.

use std::fs::File;
use std::path::{Path, PathBuf};

use sandbox_agent_host::ArchiveKind;

/// What an archive held.
#[derive(Debug)]
pub struct Unpacked {
    /// The binary, inside the staging folder.
    pub binary: PathBuf,
    /// The binary is the archive's only file: install it alone rather than the
    /// whole folder (release archives that ship assets next to the binary need the folder).
    pub alone: bool,
}

/// Unpacks `download` (of `kind`) into `staging` and finds `binary_path` in it.
pub fn unpack(
    download: &Path,
    kind: ArchiveKind,
    binary_path: &str,
    staging: &Path,
) -> Result<Unpacked, String> {
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

/// `binary_path` inside an unpacked folder, checked to be a regular file in it.
pub fn find_binary(root: &Path, binary_path: &str) -> Result<Unpacked, String> {
    let relative = Path::new(binary_path.trim_start_matches("./"));
    if relative.is_absolute() || relative.components().any(|c| c.as_os_str() == "..") {
        return Err(format!("binary path {binary_path:?} leaves the archive"));
    }
    let binary = root.join(relative);
    let metadata = std::fs::symlink_metadata(&binary)
        .map_err(|_| format!("the archive has no {binary_path}"))?;
    if !metadata.is_file() {
        return Err(format!(
            "{binary_path} in the archive is not a regular file"
        ));
    }
    Ok(Unpacked {
        alone: count_files(root) == 1,
        binary,
    })
}

fn unpack_tar_gz(download: &Path, staging: &Path) -> Result<(), String> {
    let file = File::open(download).map_err(|e| e.to_string())?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    archive.set_preserve_mtime(false);
    archive.set_preserve_permissions(true);
    let entries = archive
        .entries()
        .map_err(|e| format!("not a tar.gz archive: {e}"))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| format!("broken tar.gz archive: {e}"))?;
        let unpacked = entry
            .unpack_in(staging)
            .map_err(|e| format!("broken tar.gz archive: {e}"))?;
        if !unpacked {
            let path = entry
                .path()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            return Err(format!("archive entry {path:?} leaves the archive"));
        }
    }
    Ok(())
}

fn unpack_zip(download: &Path, staging: &Path) -> Result<(), String> {
    let file = File::open(download).map_err(|e| e.to_string())?;
    let mut archive = zip::ZipArchive::new(file).map_err(|e| format!("not a zip archive: {e}"))?;
    archive
        .extract(staging)
        .map_err(|e| format!("broken zip archive: {e}"))
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
        assert!(find_binary(&staging, "pi/missing")
            .unwrap_err()
            .contains("no pi/missing"));
        assert!(find_binary(&staging, "../a.tar.gz").is_err());
        assert!(find_binary(&staging, "pi").is_err());
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
