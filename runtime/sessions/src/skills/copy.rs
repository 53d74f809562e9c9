//! A session's own copy of a skill from the shared cache.

use std::path::Path;

/// Copies the folder `from` to `to`, which must not exist: folders, files with
/// their permissions, symbolic links as links (never followed), and no `.git`.
/// The copy is made in a temporary folder beside `to` and renamed, so `to` is
/// either whole or absent.
pub fn copy_folder(from: &Path, to: &Path) -> std::io::Result<()> {
    let parent = to.parent().unwrap_or(Path::new("."));
    let staging = tempfile::Builder::new()
        .prefix(".copy-")
        .tempdir_in(parent)?;
    let entries = walkdir::WalkDir::new(from)
        .min_depth(1)
        .follow_links(false)
        .into_iter()
        .filter_entry(|entry| entry.file_name() != ".git");
    for entry in entries {
        let entry = entry?;
        let relative = entry
            .path()
            .strip_prefix(from)
            .map_err(std::io::Error::other)?;
        let target = staging.path().join(relative);
        let kind = entry.file_type();
        if kind.is_dir() {
            std::fs::create_dir(&target)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    std::fs::rename(staging.keep(), to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn files_links_and_modes_are_copied_without_git() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from");
        std::fs::create_dir_all(from.join("scripts")).unwrap();
        std::fs::create_dir_all(from.join(".git/objects")).unwrap();
        std::fs::write(from.join("SKILL.md"), "# s").unwrap();
        std::fs::write(from.join("scripts/run.sh"), "#!/bin/sh").unwrap();
        let mode = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(from.join("scripts/run.sh"), mode).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", from.join("link")).unwrap();

        let to = dir.path().join("to");
        copy_folder(&from, &to).unwrap();
        assert_eq!(std::fs::read_to_string(to.join("SKILL.md")).unwrap(), "# s");
        let copied = std::fs::metadata(to.join("scripts/run.sh")).unwrap();
        assert_eq!(copied.permissions().mode() & 0o777, 0o755);
        assert_eq!(
            std::fs::read_link(to.join("link")).unwrap(),
            Path::new("/etc/hostname")
        );
        assert!(!to.join(".git").exists());
        // Nothing left beside it.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }
}
