//! A change counter over the files behind the agents' status: the folders agent
//! binaries are looked up in, and the agents' credential files.
//!
//! `GET /v1/agents` reports whether each agent is installed, which version, and
//! whether its credentials are there. Finding that out reads files and may run
//! the agent's binary, too slow for every request; it is worked out once and
//! kept until something in one of the watched folders changes. A folder that does
//! not exist yet is watched through its nearest existing ancestor, so creating it
//! counts as a change (and the next status check watches the new folder itself).
//! Watches are added before the status is worked out, so a change made while it
//! is worked out is never missed.
//!
//! Where the platform's file notifications cannot be had (inotify limits...),
//! every check counts as a change: always right, only slower.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use notify::{RecommendedWatcher, RecursiveMode, Watcher};

/// Counts changes in a set of watched folders.
pub struct ChangeCounter {
    generation: Arc<AtomicU64>,
    watcher: Option<Mutex<Watched>>,
}

struct Watched {
    watcher: RecommendedWatcher,
    folders: BTreeSet<PathBuf>,
}

impl ChangeCounter {
    /// A counter with nothing watched yet.
    pub fn new() -> Self {
        let generation = Arc::new(AtomicU64::new(0));
        let counter = generation.clone();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            if event.is_ok_and(|event| !event.kind.is_access()) {
                counter.fetch_add(1, Ordering::AcqRel);
            }
        });
        let watcher = match watcher {
            Ok(watcher) => Some(Mutex::new(Watched {
                watcher,
                folders: BTreeSet::new(),
            })),
            Err(error) => {
                tracing::warn!(
                    "no file notifications ({error}); agent status is worked out on every request"
                );
                None
            }
        };
        Self {
            generation,
            watcher,
        }
    }

    /// The current count; `None` when changes cannot be noticed.
    pub fn generation(&self) -> Option<u64> {
        self.watcher
            .as_ref()
            .map(|_| self.generation.load(Ordering::Acquire))
    }

    /// Counts one change by hand (after the daemon itself installed an agent).
    pub fn bump(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// Watches the folders that hold `paths` (files or folders, existing or not).
    pub fn watch(&self, paths: impl IntoIterator<Item = PathBuf>) {
        let Some(watched) = &self.watcher else { return };
        let mut watched = watched.lock().unwrap();
        for path in paths {
            let Some(folder) = nearest_existing_folder(&path) else {
                continue;
            };
            if watched.folders.contains(&folder) {
                continue;
            }
            match watched.watcher.watch(&folder, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    watched.folders.insert(folder);
                }
                Err(error) => {
                    tracing::debug!(folder = %folder.display(), "cannot watch: {error}");
                    // Unwatched means unknown: count a change so nothing stays stale.
                    self.bump();
                }
            }
        }
    }
}

impl Default for ChangeCounter {
    fn default() -> Self {
        Self::new()
    }
}

/// The folder to watch for changes to `path`: `path` itself when it is a folder,
/// else its nearest existing ancestor.
fn nearest_existing_folder(path: &Path) -> Option<PathBuf> {
    if path.is_dir() {
        return Some(path.to_owned());
    }
    path.ancestors()
        .skip(1)
        .find(|ancestor| ancestor.is_dir())
        .map(Path::to_owned)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    fn wait_for_change(counter: &ChangeCounter, from: u64) -> bool {
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if counter.generation() != Some(from) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    #[test]
    fn a_file_appearing_in_a_missing_folder_is_a_change() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("agent/config/auth.json");
        let counter = ChangeCounter::new();
        counter.watch([file.clone()]);
        let before = counter.generation().expect("file notifications on Linux");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        assert!(
            wait_for_change(&counter, before),
            "creating the folder is seen"
        );

        // The next check watches the new folder; writing the file is seen too.
        counter.watch([file.clone()]);
        let before = counter.generation().unwrap();
        std::fs::write(&file, "{}").unwrap();
        assert!(
            wait_for_change(&counter, before),
            "writing the file is seen"
        );
    }

    #[test]
    fn watched_folders_nearest_existing() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(
            nearest_existing_folder(&root.path().join("a/b/c")),
            Some(root.path().to_owned())
        );
        assert_eq!(
            nearest_existing_folder(root.path()),
            Some(root.path().to_owned())
        );
    }
}
