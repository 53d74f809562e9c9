//! Package folders in use. An agent installed with the files it reads next to it
//! lives in a package folder, `<install-dir>/.<name>.pkg-<id>/`, which
//! `<install-dir>/<name>` links into; a reinstall makes a new folder and swaps the
//! link. The old folder is removed only once no process the daemon started runs
//! from it: a process started from a package folder holds it ([`hold`]) until it
//! is gone, and is started from the folder's real path, so the folder it holds is
//! the one it runs from even if the link is swapped meanwhile.
//!
//! Holding, and checking before a removal, take one lock, so a folder is either
//! held (and kept) or removed before anything could start from it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex, MutexGuard};

/// How many live holds each package folder has, by its real path.
static HELD: LazyLock<Mutex<HashMap<PathBuf, usize>>> = LazyLock::new(Mutex::default);

/// A process's claim on the package folder it runs from; dropped once the
/// process is gone.
#[derive(Debug)]
pub struct Hold {
    folder: PathBuf,
}

impl Drop for Hold {
    fn drop(&mut self) {
        let mut held = held();
        if let Some(count) = held.get_mut(&self.folder) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.folder);
            }
        }
    }
}

/// The program to start for `program` (as located: a path, maybe through the
/// install dir's link): its real path and a hold on its package folder when it
/// lives in one; itself and no hold otherwise.
pub fn hold(program: &Path) -> (PathBuf, Option<Hold>) {
    let mut held = held();
    let resolved = std::fs::canonicalize(program).ok().and_then(|real| {
        let folder = package_folder(&real)?.to_owned();
        Some((real, folder))
    });
    let Some((real, folder)) = resolved else {
        return (program.to_owned(), None);
    };
    *held.entry(folder.clone()).or_default() += 1;
    (real, Some(Hold { folder }))
}

/// Removes `folder` unless a process holds it; whether it was removed.
pub fn remove_unless_held(folder: &Path) -> bool {
    let held = held();
    let real = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_owned());
    if held.contains_key(&real) {
        return false;
    }
    std::fs::remove_dir_all(folder).is_ok()
}

/// The package folder (`.<name>.pkg-<id>`) a real path lies in, if any.
fn package_folder(real: &Path) -> Option<&Path> {
    real.ancestors().find(|ancestor| {
        ancestor
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with('.') && name.contains(".pkg-"))
    })
}

fn held() -> MutexGuard<'static, HashMap<PathBuf, usize>> {
    HELD.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_folder_is_kept_until_its_last_hold_goes() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join(".tool.pkg-1-a");
        std::fs::create_dir_all(folder.join("bin")).unwrap();
        std::fs::write(folder.join("bin/tool"), "v1").unwrap();
        let link = dir.path().join("tool");
        std::os::unix::fs::symlink(".tool.pkg-1-a/bin/tool", &link).unwrap();

        let (real, first) = hold(&link);
        assert_eq!(
            real,
            std::fs::canonicalize(folder.join("bin/tool")).unwrap()
        );
        let (_, second) = hold(&link);
        assert!(!remove_unless_held(&folder));
        drop(first);
        assert!(!remove_unless_held(&folder));
        drop(second);
        assert!(remove_unless_held(&folder));
        assert!(!folder.exists());
    }

    #[test]
    fn a_program_outside_package_folders_is_started_as_located() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tool");
        std::fs::write(&file, "v1").unwrap();
        let (program, hold) = hold(&file);
        assert_eq!((program, hold.is_none()), (file, true));
        let missing = dir.path().join("missing");
        assert_eq!(super::hold(&missing).0, missing);
    }
}
