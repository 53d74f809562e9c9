//! Listing, metadata, directory creation, moves and deletes. Each is a blocking call
//! on a resolved absolute path (see [`super::resolve`]).

use std::fs::{self, Metadata};
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::time::SystemTime;

use agentplex_api::{FsEntry, FsEntryKind, FsEntryType, FsStat};
use time::format_description::well_known::Rfc3339;

use super::confine::FsRoot;
use super::FsError;

/// The entries of a directory, sorted by name. A symbolic link is listed as what it
/// points to (under `--fs-root`, only when that stays beneath the root); a dangling
/// one, or one leading out of the root, as a file of its own size. `kind` says what
/// each entry itself is.
pub fn entries(dir: &Path, root: Option<&FsRoot>) -> Result<Vec<FsEntry>, FsError> {
    let metadata = fs::metadata(dir).map_err(|e| FsError::io(dir, e))?;
    if !metadata.is_dir() {
        return Err(FsError::Conflict(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| FsError::io(dir, e))? {
        let entry = entry.map_err(|e| FsError::io(dir, e))?;
        let path = entry.path();
        // An entry removed while listing is simply not listed.
        let Ok(own) = entry.metadata() else {
            continue;
        };
        let followed = own.is_symlink().then(|| match root {
            Some(root) => root
                .confine(&path, true)
                .ok()
                .and_then(|real| fs::metadata(real).ok()),
            None => fs::metadata(&path).ok(),
        });
        let shown = followed.flatten().unwrap_or_else(|| own.clone());
        entries.push(FsEntry {
            name: entry.file_name().to_string_lossy().into_owned(),
            path: path.display().to_string(),
            entry_type: entry_type(&shown),
            kind: Some(kind(&own)),
            size: shown.len(),
            modified: modified(&shown),
        });
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(entries)
}

/// Metadata of one path (following a symbolic link); `kind` is what the path itself is.
pub fn stat(path: &Path) -> Result<FsStat, FsError> {
    let own = fs::symlink_metadata(path).map_err(|e| FsError::io(path, e))?;
    let metadata = fs::metadata(path).map_err(|e| FsError::io(path, e))?;
    Ok(FsStat {
        path: path.display().to_string(),
        entry_type: entry_type(&metadata),
        kind: Some(kind(&own)),
        size: metadata.len(),
        modified: modified(&metadata),
    })
}

/// What an entry is, from its own (not followed) metadata.
pub fn kind(metadata: &Metadata) -> FsEntryKind {
    let kind = metadata.file_type();
    if kind.is_dir() {
        FsEntryKind::Directory
    } else if kind.is_symlink() {
        FsEntryKind::Symlink
    } else if kind.is_fifo() {
        FsEntryKind::Fifo
    } else if kind.is_socket() {
        FsEntryKind::Socket
    } else if kind.is_char_device() {
        FsEntryKind::CharDevice
    } else if kind.is_block_device() {
        FsEntryKind::BlockDevice
    } else {
        FsEntryKind::File
    }
}

/// Creates a directory and its missing parents; an existing directory is fine.
pub fn mkdir(path: &Path) -> Result<(), FsError> {
    if path.is_file() {
        return Err(FsError::Conflict(format!(
            "{} exists and is a file",
            path.display()
        )));
    }
    fs::create_dir_all(path).map_err(|e| FsError::io(path, e))
}

/// Moves (renames) a file or directory, creating `to`'s parents. An existing `to`
/// is replaced only with `overwrite` (a file, or an empty directory). Across
/// filesystems the entry is copied, then removed.
pub fn rename(from: &Path, to: &Path, overwrite: bool) -> Result<(), FsError> {
    let source = fs::symlink_metadata(from).map_err(|e| FsError::io(from, e))?;
    if from == to {
        return Ok(());
    }
    if to.starts_with(from) {
        return Err(FsError::BadPath(format!(
            "cannot move {} into itself",
            from.display()
        )));
    }
    if fs::symlink_metadata(to).is_ok() && !overwrite {
        return Err(FsError::Conflict(format!(
            "{} already exists (pass overwrite: true to replace it)",
            to.display()
        )));
    }
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(|e| FsError::io(parent, e))?;
    }
    match fs::rename(from, to) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::CrossesDevices => {
            copy_tree(from, to, &source).map_err(|e| FsError::io(to, e))?;
            remove(from, true)
        }
        Err(error) => Err(FsError::io(to, error)),
    }
}

/// Removes a file, a symbolic link (not what it points to) or a directory; a
/// non-empty directory only when `recursive`. The root directory is refused.
pub fn remove(path: &Path, recursive: bool) -> Result<(), FsError> {
    if path.parent().is_none() {
        return Err(FsError::BadPath(
            "refusing to delete the root directory".into(),
        ));
    }
    let metadata = fs::symlink_metadata(path).map_err(|e| FsError::io(path, e))?;
    let removed = if !metadata.is_dir() {
        fs::remove_file(path)
    } else if recursive {
        fs::remove_dir_all(path)
    } else {
        fs::remove_dir(path)
    };
    removed.map_err(|e| FsError::io(path, e))
}

/// Copies a file, a symbolic link or a whole directory (for moves across filesystems).
fn copy_tree(from: &Path, to: &Path, metadata: &Metadata) -> io::Result<()> {
    if metadata.is_symlink() {
        return std::os::unix::fs::symlink(fs::read_link(from)?, to);
    }
    if !metadata.is_dir() {
        return fs::copy(from, to).map(drop);
    }
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        copy_tree(
            &entry.path(),
            &to.join(entry.file_name()),
            &entry.metadata()?,
        )?;
    }
    fs::set_permissions(to, metadata.permissions())
}

fn entry_type(metadata: &Metadata) -> FsEntryType {
    if metadata.is_dir() {
        FsEntryType::Directory
    } else {
        FsEntryType::File
    }
}

/// Modification time in RFC 3339 (nanoseconds, UTC).
fn modified(metadata: &Metadata) -> Option<String> {
    let time: SystemTime = metadata.modified().ok()?;
    time::OffsetDateTime::from(time).format(&Rfc3339).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_sorts_by_name_and_types_entries() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("b.txt"), "hello").unwrap();
        fs::create_dir(dir.path().join("a")).unwrap();
        std::os::unix::fs::symlink("missing", dir.path().join("c")).unwrap();
        let listed = entries(dir.path(), None).unwrap();
        let names: Vec<_> = listed.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["a", "b.txt", "c"]);
        assert_eq!(listed[0].entry_type, FsEntryType::Directory);
        assert_eq!(listed[1].entry_type, FsEntryType::File);
        assert_eq!(listed[1].size, 5);
        assert_eq!(listed[2].kind, Some(FsEntryKind::Symlink));
        assert!(listed[1].modified.as_deref().unwrap().ends_with('Z'));
        assert!(matches!(
            entries(&dir.path().join("b.txt"), None),
            Err(FsError::Conflict(_))
        ));
    }

    #[test]
    fn move_refuses_an_existing_target_without_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("deep/b"));
        fs::write(&a, "1").unwrap();
        rename(&a, &b, false).unwrap();
        fs::write(&a, "2").unwrap();
        assert!(matches!(rename(&a, &b, false), Err(FsError::Conflict(_))));
        rename(&a, &b, true).unwrap();
        assert_eq!(fs::read_to_string(&b).unwrap(), "2");
        assert!(matches!(
            rename(&dir.path().join("deep"), &dir.path().join("deep/x"), false),
            Err(FsError::BadPath(_))
        ));
    }

    #[test]
    fn copy_tree_keeps_files_and_links() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from");
        fs::create_dir_all(from.join("sub")).unwrap();
        fs::write(from.join("sub/f"), "x").unwrap();
        std::os::unix::fs::symlink("sub/f", from.join("link")).unwrap();
        let to = dir.path().join("to");
        copy_tree(&from, &to, &fs::symlink_metadata(&from).unwrap()).unwrap();
        assert_eq!(fs::read_to_string(to.join("link")).unwrap(), "x");
        assert!(fs::symlink_metadata(to.join("link")).unwrap().is_symlink());
    }

    #[test]
    fn delete_needs_recursive_for_a_full_directory() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        fs::create_dir(&sub).unwrap();
        fs::write(sub.join("f"), "x").unwrap();
        assert!(matches!(remove(&sub, false), Err(FsError::Conflict(_))));
        remove(&sub, true).unwrap();
        assert!(matches!(remove(&sub, true), Err(FsError::NotFound(_))));
        assert!(matches!(
            remove(Path::new("/"), true),
            Err(FsError::BadPath(_))
        ));
    }
}
