//! Atomic placement in the install dir. Everything is prepared under hidden names
//! next to the final path and moved there with one `rename`, so the final path is
//! the old binary or the new one, never a partial file:
//! - a lone binary becomes `<install-dir>/<name>`;
//! - a binary that needs the files shipped with it (release folders, npm packages)
//!   stays in its folder, `<install-dir>/.<name>.pkg-<id>/` (one per install), and
//!   `<install-dir>/<name>` is a symlink to it.
//!
//! A running program keeps what it started from: a replaced lone binary lives on
//! as long as a process has it open, and a package folder the link no longer
//! points to is removed only when no process the daemon started runs from it
//! ([`in_use`](agentplex_processes::in_use)): at the agent's next install, or at the daemon's
//! next start. Staging folders (`.<name>.tmp-<pid>-<id>`) of a daemon that died
//! mid-install are removed by the next install of the same agent.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use agentplex_processes::in_use;

use super::InstallError;

/// Makes the hidden names unique within this process.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A staging folder in the install dir, removed on drop.
#[derive(Debug)]
pub struct Staging {
    path: PathBuf,
}

impl Staging {
    /// A fresh staging folder for `name` in `install_dir` (created with it), after
    /// removing the leftovers of dead processes.
    pub fn new(install_dir: &Path, name: &str) -> Result<Self, InstallError> {
        std::fs::create_dir_all(install_dir).map_err(|e| InstallError::io(install_dir, e))?;
        remove_leftovers(install_dir, name);
        let path = install_dir.join(format!(".{name}.tmp-{}-{}", std::process::id(), unique()));
        std::fs::create_dir(&path).map_err(|e| InstallError::io(&path, e))?;
        Ok(Self { path })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Moves `binary` (a file on the install dir's filesystem) to `<install_dir>/<name>`.
pub fn place_file(binary: &Path, install_dir: &Path, name: &str) -> Result<PathBuf, InstallError> {
    make_executable(binary)?;
    let target = install_dir.join(name);
    std::fs::rename(binary, &target).map_err(|e| InstallError::io(&target, e))?;
    remove_unused_packages(install_dir, name);
    Ok(target)
}

/// Keeps `root` (holding `binary`) as the agent's package folder and points
/// `<install_dir>/<name>` at the binary in it.
pub fn place_package(
    root: &Path,
    binary: &Path,
    install_dir: &Path,
    name: &str,
) -> Result<PathBuf, InstallError> {
    make_executable(binary)?;
    let relative = binary
        .strip_prefix(root)
        .map_err(|_| InstallError::io(binary, std::io::Error::other("outside its package")))?;
    let package_name = format!(".{name}.pkg-{}-{}", std::process::id(), unique());
    let package = install_dir.join(&package_name);
    std::fs::rename(root, &package).map_err(|e| InstallError::io(&package, e))?;
    let link = install_dir.join(format!(".{name}.link-{}-{}", std::process::id(), unique()));
    let target = install_dir.join(name);
    let placed = std::os::unix::fs::symlink(Path::new(&package_name).join(relative), &link)
        .and_then(|()| std::fs::rename(&link, &target));
    if let Err(error) = placed {
        let _ = std::fs::remove_file(&link);
        let _ = std::fs::remove_dir_all(&package);
        return Err(InstallError::io(&target, error));
    }
    remove_unused_packages(install_dir, name);
    Ok(target)
}

/// Sets the file's mode to 0755.
pub fn make_executable(path: &Path) -> Result<(), InstallError> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| InstallError::io(path, e))
}

fn unique() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    format!("{nanos:x}{:x}", NEXT_ID.fetch_add(1, Ordering::Relaxed))
}

/// Removes `name`'s package folders that `<install_dir>/<name>` does not point
/// into and no process runs from.
fn remove_unused_packages(install_dir: &Path, name: &str) {
    let current = std::fs::read_link(install_dir.join(name))
        .ok()
        .and_then(|target| target.components().next().map(|c| c.as_os_str().to_owned()));
    let prefix = format!(".{name}.pkg-");
    for entry in hidden_entries(install_dir, &prefix) {
        if current.as_deref() != Some(std::ffi::OsStr::new(&entry)) {
            in_use::remove_unless_held(&install_dir.join(entry));
        }
    }
}

/// Removes every agent's package folders that its link does not point into and
/// no process runs from (at the daemon's start: the previous daemon's).
pub fn remove_unused(install_dir: &Path) {
    let mut names: Vec<String> = hidden_entries(install_dir, ".")
        .into_iter()
        .filter_map(|entry| {
            let end = entry.rfind(".pkg-").filter(|&end| end > 1)?;
            Some(entry[1..end].to_owned())
        })
        .collect();
    names.sort();
    names.dedup();
    for name in names {
        remove_unused_packages(install_dir, &name);
    }
}

/// Removes staging folders and links of `name` left by processes that are gone.
fn remove_leftovers(install_dir: &Path, name: &str) {
    for kind in ["tmp", "link"] {
        let prefix = format!(".{name}.{kind}-");
        for entry in hidden_entries(install_dir, &prefix) {
            let pid = entry[prefix.len()..]
                .split('-')
                .next()
                .and_then(|pid| pid.parse::<i32>().ok());
            if pid.is_some_and(|pid| !process_alive(pid)) {
                let path = install_dir.join(&entry);
                let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
            }
        }
    }
}

fn hidden_entries(install_dir: &Path, prefix: &str) -> Vec<String> {
    std::fs::read_dir(install_dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .filter(|entry| entry.starts_with(prefix))
                .collect()
        })
        .unwrap_or_default()
}

fn process_alive(pid: i32) -> bool {
    if pid as u32 == std::process::id() {
        return true;
    }
    // SAFETY: signal 0 only checks that the process exists.
    let signalled = unsafe { libc::kill(pid, 0) };
    signalled == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_replaces_a_package_and_a_package_replaces_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let staging = Staging::new(dir.path(), "tool").unwrap();
        let root = staging.path().join("pkg");
        std::fs::create_dir_all(root.join("bin")).unwrap();
        std::fs::write(root.join("bin/tool"), "v1").unwrap();
        let placed = place_package(&root, &root.join("bin/tool"), dir.path(), "tool").unwrap();
        assert_eq!(std::fs::read_to_string(&placed).unwrap(), "v1");
        assert!(std::fs::symlink_metadata(&placed)
            .unwrap()
            .file_type()
            .is_symlink());
        drop(staging);

        let staging = Staging::new(dir.path(), "tool").unwrap();
        let file = staging.path().join("tool");
        std::fs::write(&file, "v2").unwrap();
        let placed = place_file(&file, dir.path(), "tool").unwrap();
        assert_eq!(std::fs::read_to_string(&placed).unwrap(), "v2");
        assert_eq!(
            std::fs::metadata(&placed).unwrap().permissions().mode() & 0o777,
            0o755
        );
        drop(staging);
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("tool")]);
    }

    #[test]
    fn leftovers_of_dead_processes_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        // Pid 0x7fffffff does not exist.
        let dead = dir.path().join(".tool.tmp-2147483647-1");
        std::fs::create_dir(&dead).unwrap();
        let live = dir
            .path()
            .join(format!(".tool.tmp-{}-x", std::process::id()));
        std::fs::create_dir(&live).unwrap();
        let _staging = Staging::new(dir.path(), "tool").unwrap();
        assert!(!dead.exists());
        assert!(live.exists());
    }
}
