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
//! is worked out is never missed. Only what touches a watched path counts: the
//! path itself, what is in a watched folder, or a folder on the way to a path
//! that does not exist yet. A log file written beside a missing credentials
//! folder (its nearest existing ancestor is often `$HOME`) is not a change: it
//! counted once, and every log line of a busy daemon made the next
//! `GET /v1/agents` work every status out again (p99 of 145 ms under load
//! instead of 6).
//!
//! Where the platform's file notifications cannot be had (inotify limits...),
//! every check counts as a change: always right, only slower.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use notify::{RecommendedWatcher, RecursiveMode, Watcher};

/// Counts changes in a set of watched folders.
pub struct ChangeCounter {
    generation: Arc<AtomicU64>,
    /// The paths whose changes count.
    targets: Arc<RwLock<Targets>>,
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
        let targets = Arc::new(RwLock::new(Targets::default()));
        let (counter, wanted) = (generation.clone(), targets.clone());
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let counts = match event {
                Ok(event) if event.kind.is_access() => false,
                // No path (the kernel's queue overflowed...): anything may have changed.
                Ok(event) if event.paths.is_empty() => true,
                Ok(event) => {
                    let wanted = wanted.read().unwrap();
                    event.paths.iter().any(|path| wanted.touched_by(path))
                }
                Err(_) => true,
            };
            if counts {
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
            targets,
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
            if !self.targets.read().unwrap().paths.contains(&path) {
                self.targets.write().unwrap().insert(&path);
            }
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

/// The paths whose changes count, indexed for the watcher's thread: it asks
/// about every file any program writes in a watched folder (a busy agent writes
/// thousands), so an answer takes a lookup per component of the changed path,
/// not a comparison per target.
#[derive(Default)]
struct Targets {
    paths: HashSet<PathBuf>,
    /// Every target and every folder on the way to one.
    on_the_way: HashSet<PathBuf>,
}

impl Targets {
    fn insert(&mut self, path: &Path) {
        self.paths.insert(path.to_owned());
        for ancestor in path.ancestors() {
            if !self.on_the_way.insert(ancestor.to_owned()) {
                break;
            }
        }
    }

    /// Whether a change at `changed` may change a target: it is one, is in one
    /// (a folder), or is a folder on the way to one.
    fn touched_by(&self, changed: &Path) -> bool {
        self.on_the_way.contains(changed)
            || changed
                .ancestors()
                .any(|ancestor| self.paths.contains(ancestor))
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
    fn a_file_written_beside_a_missing_folder_is_not_a_change() {
        let root = tempfile::tempdir().unwrap();
        let counter = ChangeCounter::new();
        counter.watch([root.path().join("agent/auth.json")]);
        let before = counter.generation().unwrap();
        // A log beside the missing folder: the watched ancestor sees it.
        std::fs::write(root.path().join("daemon.log"), "a line").unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(
            counter.generation(),
            Some(before),
            "a log line is no change"
        );
        std::fs::create_dir(root.path().join("agent")).unwrap();
        assert!(
            wait_for_change(&counter, before),
            "the folder on the way is"
        );
    }

    #[test]
    fn what_counts_is_on_the_way_to_a_target_or_in_it() {
        let mut targets = Targets::default();
        for target in ["/h/.agent/auth.json", "/bin", "/h/.other/key"] {
            targets.insert(Path::new(target));
        }
        for changed in [
            "/h/.agent",
            "/h/.agent/auth.json",
            "/bin/agent",
            "/h",
            "/h/.other/",
        ] {
            assert!(targets.touched_by(Path::new(changed)), "{changed}");
        }
        for changed in [
            "/h/daemon.log",
            "/h/.agent/history",
            "/binaries",
            "/h/.other/log",
        ] {
            assert!(!targets.touched_by(Path::new(changed)), "{changed}");
        }
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
