//! The agent's own session files: read where the adapter says at export, written
//! where it says at import. The host reads and writes only beneath the agent's home
//! and the folders its location variables name, never through a symbolic link,
//! and within size caps, whatever the adapter or the archive says.

use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentplex_host::{LoadedAdapter, NativeSource, Place};

use super::command::CommandRunner;
use agentplex_store::SessionRecord;

/// Most bytes of native session files one session may carry.
pub const MAX_NATIVE_BYTES: u64 = 1 << 30;
/// Most native session files one session may carry.
pub const MAX_NATIVE_FILES: usize = 10_000;

/// Where the session's agent runs on this daemon: the home and location variables
/// its processes get (the session's own variables over the daemon's) and its
/// working directory.
pub fn place_of(adapter: &LoadedAdapter, record: &SessionRecord, directory: &Path) -> Place {
    let own = |name: &str| crate::variable(record, name).filter(|value| !value.is_empty());
    let home = own("HOME").unwrap_or_else(|| agentplex_files::home_dir().display().to_string());
    let env = adapter
        .info()
        .location_env
        .iter()
        .filter_map(|name| own(name).map(|value| (name.clone(), value)))
        .collect();
    // As the adapter's session configuration names it (see `resolve_directory`).
    Place {
        home,
        directory: directory.display().to_string(),
        env,
    }
}

/// The folders of `place` that native files may be in: its home and the absolute
/// folders its location variables name.
pub(super) fn allowed_roots(place: &Place) -> Vec<PathBuf> {
    std::iter::once(place.home.as_str())
        .chain(place.env.iter().map(|(_, value)| value.as_str()))
        .filter(|folder| folder.starts_with('/') && *folder != "/")
        .map(|folder| agentplex_files::normalize(Path::new(folder)))
        .collect()
}

/// `path` folded lexically, when it is absolute and beneath one of the place's
/// folders; else why not.
pub fn confined(path: &str, place: &Place) -> Result<PathBuf, String> {
    let folded = agentplex_files::normalize(Path::new(path));
    if !Path::new(path).is_absolute() {
        return Err(format!("{path} is not an absolute path"));
    }
    if allowed_roots(place)
        .iter()
        .any(|root| folded.starts_with(root) && folded != *root)
    {
        Ok(folded)
    } else {
        Err(format!(
            "{path} is neither beneath the agent's home folder {} nor beneath a folder of its \
             location variables",
            place.home
        ))
    }
}

/// The native session files of the adapter's session `native_id` at `place`,
/// with their contents: the files the adapter names, found and read, and what its
/// export commands print (by the name of their output). An error says why the
/// agent's session cannot come along.
pub async fn read_native_files(
    adapter: &Arc<LoadedAdapter>,
    native_id: &str,
    place: &Place,
    runner: &CommandRunner,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let sources = {
        let (adapter, native_id, place) = (adapter.clone(), native_id.to_owned(), place.clone());
        tokio::task::spawn_blocking(move || adapter.native_session_files(&native_id, &place))
            .await
            .map_err(|error| error.to_string())?
            .map_err(|error| error.to_string())??
    };
    let mut outputs = Vec::new();
    let mut lookups = Vec::new();
    for source in sources {
        match source {
            NativeSource::Output(output) => {
                check_output_name(&output.name)?;
                outputs.push(output);
            }
            other => lookups.push(other),
        }
    }
    let place_owned = place.clone();
    let mut files = tokio::task::spawn_blocking(move || read_files(lookups, &place_owned))
        .await
        .map_err(|error| error.to_string())??;
    for output in outputs {
        let contents = runner.run(&output.command.argv, None).await?;
        files.push((output.name, contents));
    }
    Ok(files)
}

/// The name of a command's output: 1-64 characters of `[a-z0-9._-]`, not a path.
fn check_output_name(name: &str) -> Result<(), String> {
    let plain = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-')
        });
    if plain {
        Ok(())
    } else {
        Err(format!(
            "the adapter named a command output {name:?}, not a plain name"
        ))
    }
}

/// The files the sources name, read.
pub(super) fn read_files(
    sources: Vec<NativeSource>,
    place: &Place,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut paths = Vec::new();
    for source in sources {
        match source {
            NativeSource::File(path) => paths.push(path),
            NativeSource::Search(search) => {
                let folder = confined(&search.folder, place)?;
                let found = walkdir::WalkDir::new(&folder)
                    .max_depth(search.depth as usize + 1)
                    .follow_links(false)
                    .into_iter()
                    .filter_map(Result::ok)
                    .filter(|entry| entry.file_type().is_file())
                    .filter(|entry| {
                        entry
                            .file_name()
                            .to_string_lossy()
                            .ends_with(&search.suffix)
                    })
                    .map(|entry| entry.path().display().to_string());
                paths.extend(found);
            }
            NativeSource::Output(_) => {}
        }
    }
    paths.sort();
    paths.dedup();
    if paths.len() > MAX_NATIVE_FILES {
        return Err(format!(
            "the agent's session has more than {MAX_NATIVE_FILES} files"
        ));
    }
    let mut files = Vec::new();
    let mut total = 0u64;
    for path in paths {
        let confined = confined(&path, place)?;
        let Some(contents) = read_regular(&confined, MAX_NATIVE_BYTES - total)? else {
            continue;
        };
        total += contents.len() as u64;
        files.push((path, contents));
    }
    Ok(files)
}

/// The contents of the regular file at `path` (`None` when there is none), read
/// without following a symbolic link in its last component; at most `limit` bytes.
fn read_regular(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, String> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc_flags())
        .open(path);
    let mut file = match file {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("cannot read {}: {error}", path.display())),
    };
    let metadata = file
        .metadata()
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    if !metadata.is_file() {
        return Ok(None);
    }
    if metadata.len() > limit {
        return Err(format!(
            "the agent's session files are larger than {MAX_NATIVE_BYTES} bytes in all"
        ));
    }
    let mut contents = Vec::with_capacity(metadata.len() as usize);
    file.by_ref()
        .take(limit)
        .read_to_end(&mut contents)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    Ok(Some(contents))
}

/// `O_NOFOLLOW`: opening a symbolic link fails instead of reading its target.
fn libc_flags() -> i32 {
    rustix::fs::OFlags::NOFOLLOW.bits() as i32
}

/// A native file to write at import: where, and what.
#[derive(Debug)]
pub struct Placed {
    pub path: PathBuf,
    pub contents: Vec<u8>,
}

/// Writes the moved files: each beneath the place's folders (checked again, with
/// links: no folder on the way may be a symbolic link out of them), through a
/// temporary file renamed into place. A file that exists with other contents is a
/// conflict, and nothing is written then. Returns the files written, for undoing.
pub fn write_native_files(
    files: &[Placed],
    place: &Place,
    existing: Existing,
) -> Result<Vec<PathBuf>, WriteError> {
    let mut targets: Vec<&Path> = files.iter().map(|file| file.path.as_path()).collect();
    targets.sort();
    if let Some(pair) = targets.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(WriteError::Conflict(format!(
            "two of the agent's files would be written to {}",
            pair[0].display()
        )));
    }
    let replace = existing;
    for file in files {
        if let Ok(existing) = std::fs::symlink_metadata(&file.path) {
            let same = existing.is_file()
                && std::fs::read(&file.path).is_ok_and(|contents| contents == file.contents);
            let replaced = existing.is_file() && replace == Existing::Replace;
            if !same && !replaced {
                return Err(WriteError::Conflict(format!(
                    "{} exists here with other contents: the agent already has a session \
                     of that id in this home",
                    file.path.display()
                )));
            }
        }
    }
    let roots = allowed_roots(place);
    let mut written = Vec::new();
    for file in files {
        let result = write_one(file, &roots, replace);
        match result {
            Ok(true) => written.push(file.path.clone()),
            Ok(false) => {}
            Err(error) => {
                undo(&written);
                return Err(error);
            }
        }
    }
    Ok(written)
}

/// What writing an agent's file does where a file of that name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// Refuse, unless it holds the same (an import: the file belongs to a
    /// session of that id the agent has here already).
    Refuse,
    /// Replace it (a takeover: what the fleet's store kept is the session's
    /// latest state; an older copy is from an earlier stay of the session here).
    Replace,
}

/// Why native files could not be written.
#[derive(Debug)]
pub enum WriteError {
    /// A file is in the way, or a folder leads out of the place.
    Conflict(String),
    /// The filesystem refused.
    Io(String),
}

/// Writes one file; false when it was there already, the same (or replaced).
fn write_one(file: &Placed, roots: &[PathBuf], existing: Existing) -> Result<bool, WriteError> {
    let there = file.path.exists();
    if there && existing == Existing::Refuse {
        return Ok(false);
    }
    let real = real_parent(&file.path, roots)?;
    let mut temporary = tempfile::Builder::new()
        .prefix(".agentplex-import-")
        .tempfile_in(&real)
        .map_err(|error| WriteError::Io(format!("cannot write in {}: {error}", real.display())))?;
    std::io::Write::write_all(&mut temporary, &file.contents).map_err(|error| {
        WriteError::Io(format!("cannot write {}: {error}", file.path.display()))
    })?;
    let target = real.join(file.path.file_name().unwrap_or_default());
    let persisted = match existing {
        Existing::Refuse => temporary.persist_noclobber(&target),
        Existing::Replace => temporary.persist(&target),
    };
    persisted.map_err(|error| {
        WriteError::Conflict(format!(
            "cannot write {}: {}",
            target.display(),
            error.error
        ))
    })?;
    Ok(!there)
}

/// The folder `path` goes in, made when missing, with its links resolved:
/// refused when it leads out of `roots` through a symbolic link.
pub(super) fn real_parent(path: &Path, roots: &[PathBuf]) -> Result<PathBuf, WriteError> {
    let parent = path.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(parent)
        .map_err(|error| WriteError::Io(format!("cannot make {}: {error}", parent.display())))?;
    let real = std::fs::canonicalize(parent)
        .map_err(|error| WriteError::Io(format!("cannot resolve {}: {error}", parent.display())))?;
    let inside = roots.iter().any(|root| {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
        real.starts_with(&root)
    });
    if !inside {
        return Err(WriteError::Conflict(format!(
            "{} leads out of the agent's folders through a symbolic link",
            parent.display()
        )));
    }
    Ok(real)
}

/// Removes files written by an import that did not complete.
pub fn undo(written: &[PathBuf]) {
    for path in written {
        if let Err(error) = std::fs::remove_file(path) {
            tracing::warn!(%error, "cannot remove {} after a failed import", path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(home: &Path) -> Place {
        Place {
            home: home.display().to_string(),
            directory: "/work".into(),
            env: vec![("XDG_DATA_HOME".into(), "/data/a".into())],
        }
    }

    #[test]
    fn only_paths_beneath_the_home_or_a_location_folder_are_let_through() {
        let at = place(Path::new("/home/a"));
        assert_eq!(
            confined("/home/a/.claude/x", &at).unwrap(),
            Path::new("/home/a/.claude/x")
        );
        assert_eq!(
            confined("/data/a/pi/s", &at).unwrap(),
            Path::new("/data/a/pi/s")
        );
        for outside in [
            "/etc/passwd",
            "/home/a/../b/x",
            "/home/ab/x",
            "/home/a",
            "relative/x",
            "/",
        ] {
            assert!(confined(outside, &at).is_err(), "{outside} was let through");
        }
    }

    #[test]
    fn files_are_written_whole_or_not_at_all() {
        let home = tempfile::tempdir().unwrap();
        let at = place(home.path());
        let file = |name: &str, contents: &str| Placed {
            path: home.path().join(name),
            contents: contents.as_bytes().to_vec(),
        };
        let written = write_native_files(
            &[file("a/one", "1"), file("b/two", "2")],
            &at,
            Existing::Refuse,
        )
        .unwrap();
        assert_eq!(written.len(), 2);
        assert_eq!(
            std::fs::read_to_string(home.path().join("b/two")).unwrap(),
            "2"
        );
        // The same files again: nothing to write.
        assert!(
            write_native_files(&[file("a/one", "1")], &at, Existing::Refuse)
                .unwrap()
                .is_empty()
        );
        // Another session's file of that name is not overwritten, and nothing else is written.
        let refused = write_native_files(
            &[file("c/three", "3"), file("a/one", "other")],
            &at,
            Existing::Refuse,
        );
        assert!(
            matches!(refused, Err(WriteError::Conflict(_))),
            "{refused:?}"
        );
        assert!(!home.path().join("c/three").exists());
        // Two files for one place.
        let twice = write_native_files(&[file("d", "1"), file("d", "2")], &at, Existing::Refuse);
        assert!(matches!(twice, Err(WriteError::Conflict(_))), "{twice:?}");
        // A takeover replaces an older copy of the session's file.
        let replaced = write_native_files(&[file("a/one", "newer")], &at, Existing::Replace);
        assert!(replaced.unwrap().is_empty(), "replaced, not new");
        assert_eq!(
            std::fs::read_to_string(home.path().join("a/one")).unwrap(),
            "newer"
        );
    }

    #[test]
    fn a_folder_linked_out_of_the_home_is_not_written_through() {
        let home = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), home.path().join("link")).unwrap();
        let at = place(home.path());
        let through = Placed {
            path: home.path().join("link/planted"),
            contents: b"x".to_vec(),
        };
        let refused = write_native_files(&[through], &at, Existing::Refuse);
        assert!(
            matches!(refused, Err(WriteError::Conflict(_))),
            "{refused:?}"
        );
        assert!(!elsewhere.path().join("planted").exists());
    }
}
