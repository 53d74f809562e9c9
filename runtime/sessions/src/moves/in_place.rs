//! Moving an agent's own session to the place it already is, before the agent
//! resumes it (capability `move-before-resume`). Some agents write over or
//! delete their own session's files when they start again (a new file named
//! after the minute that is the old one's name within that minute; a cleanup
//! that takes a session's files with an empty one): their adapter names, for
//! each file, the name it is safe under (`move-native-file` with the same place
//! as old and new), and the host renames it there. Only renames: a file is
//! never rewritten, never written over, and stays where it was when anything
//! is in the way.

use std::path::{Path, PathBuf};

use agentplex_host::{Landing, LoadedAdapter, NativeSource, Place};

use super::native;

/// The capability of an adapter whose agent's session is moved in place before
/// each resume.
pub const CAPABILITY: &str = "move-before-resume";

/// What moving a session in place did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct InPlace {
    /// How many files were renamed.
    pub renamed: usize,
    /// Why each file that stayed where it was could not be renamed.
    pub refused: Vec<String>,
}

/// Renames the files of the agent's session `native_id` at `place` to where the
/// adapter moves them at that same place, each on its own: one that cannot be
/// renamed stays where it is, and the others are renamed all the same. An error
/// says why none could be looked at.
pub fn move_in_place(
    adapter: &LoadedAdapter,
    native_id: &str,
    place: &Place,
) -> Result<InPlace, String> {
    let sources = adapter
        .native_session_files(native_id, place)
        .map_err(|error| error.to_string())??;
    if sources
        .iter()
        .any(|source| matches!(source, NativeSource::Output(_)))
    {
        return Err("the agent's session is kept by a command's output, not moved in place".into());
    }
    let roots = native::allowed_roots(place);
    let mut done = InPlace::default();
    for (path, contents) in native::read_files(sources, place)? {
        match rename_one(adapter, &path, &contents, place, &roots) {
            Ok(true) => done.renamed += 1,
            Ok(false) => {}
            Err(reason) => done.refused.push(reason),
        }
    }
    Ok(done)
}

/// Renames the file at `path`, holding `contents`, where the adapter moves it at
/// `place`; false when that is where it is.
fn rename_one(
    adapter: &LoadedAdapter,
    path: &str,
    contents: &[u8],
    place: &Place,
    roots: &[PathBuf],
) -> Result<bool, String> {
    let landing = adapter
        .move_native_file(path, contents, place, place)
        .map_err(|error| error.to_string())??;
    let Landing::File(moved) = landing else {
        return Err(format!("the adapter would import {path} by a command"));
    };
    let from = native::confined(path, place)?;
    let to = native::confined(&moved.path, place)?;
    if to == from {
        return Ok(false);
    }
    if moved.contents != contents {
        return Err(format!(
            "the adapter would change {path} in moving it to {}",
            moved.path
        ));
    }
    rename(&from, &to, roots)?;
    Ok(true)
}

/// Renames `from` to `to` (a folder on the way made), unless a file is there.
fn rename(from: &Path, to: &Path, roots: &[PathBuf]) -> Result<(), String> {
    let parent = native::real_parent(to, roots).map_err(|error| match error {
        native::WriteError::Conflict(message) | native::WriteError::Io(message) => message,
    })?;
    let target = parent.join(to.file_name().unwrap_or_default());
    let cwd = rustix::fs::CWD;
    rustix::fs::renameat_with(cwd, from, cwd, &target, rustix::fs::RenameFlags::NOREPLACE).map_err(
        |error| {
            format!(
                "cannot rename {} to {}: {error}",
                from.display(),
                target.display()
            )
        },
    )
}
