//! Where Gemini CLI keeps its own session, for moving it to another sandbox
//! (checked in the 0.61.0 bundle; `/work/notes/native-claude-qwen-gemini.md`).
//!
//! The transcript is `$G/tmp/<project id>/chats/session-<minute>-<id[0:8]>.jsonl`,
//! where `$G` is `${GEMINI_CLI_HOME:-$HOME}/.gemini` and the project id comes from a
//! registry shared by every project of the home (`$G/projects.json`, with
//! `.project_root` markers in `$G/tmp/<id>/` and `$G/history/<id>/`). The registry
//! cannot be read here, so:
//!
//! - At the old place every `session-*-<id[0:8]>.jsonl` (and `…-moved.jsonl`, see
//!   below) in any project's `chats/` is taken (`session/load` matches the session
//!   id inside, not the file name).
//! - At the new place the file goes under the id Gemini CLI claims for a directory
//!   the registry does not know yet: the slug of the directory's last name
//!   (`slugify(basename)`: lower case, runs of other characters as one `-`). That is
//!   the CLI's id for the directory in a home that never ran it, which a sandbox
//!   made for the moved session is. In a home whose registry already has the
//!   directory under another id (`<slug>-1`), or where another project with the
//!   same last name took the slug first, the file is where the CLI does not look:
//!   `session/load` fails, the adapter says so (`resume_failed`) and goes on in a
//!   new session, and the file sits unused in the other project's folder (it never
//!   replaces a file there: the host writes over no file). The registry entry
//!   and the markers are not written: the registry is one file for every project of
//!   the home, which a moved file would replace whole, and a marker written for a
//!   slug another project owns would take that project's folder from it. The CLI
//!   writes both itself when it claims the slug at its first start there.
//! - The file is renamed `<its old name>-moved.jsonl` (`-empty.jsonl` when it has
//!   nothing to resume), names the CLI never writes: its recordings end in
//!   `-<id[0:8]>.jsonl`. Loading first starts a new recording named after the
//!   current minute and the session id, which would append to (and empty) a file
//!   of that name. And the CLI's cleanup at every start deletes each recording with
//!   nothing to resume (as the one each load leaves) together with every file whose
//!   name ends in the same `-<id[0:8]>.jsonl`: at the first start after a load the
//!   session's own recording goes with it (a bug of 0.61.0, for sessions that do
//!   not move too), where a moved one stays. The empty recordings a session's
//!   loads left are deleted alone, at the CLI's first start at the new place.
//!
//! The same renaming keeps a session that stays from both bugs: the host moves it
//! to the place it already is before each resume (`before_resume`), which renames
//! its recording in its own project folder, so a load in the minute the session
//! began neither writes over it nor is it deleted at the start after a load.
//!
//! Nothing in the file is checked on load (its `projectHash` neither, nor the
//! session context, which the CLI builds anew), so only the paths of the old place
//! are rewritten, for the model's sake. The CLI's retention deletes at its start
//! the sessions whose `lastUpdated` is more than 30 days old: a session that old
//! does not survive the move (nor its next start at the old place).

use sandbox_agent_adapter_kit::native_session::{
    as_in_json, as_in_json_text, folder, inside, join, replace_folder, rewrite_paths,
};
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

/// The file name prefix of the CLI's chat recordings.
const PREFIX: &str = "session-";
/// What a moved recording's name ends with: not `-<8 letters or digits>.jsonl`.
const MOVED_SUFFIX: &str = "-moved.jsonl";

/// Gemini CLI's own sessions.
pub(crate) const SESSIONS: NativeSessions = NativeSessions {
    files,
    relocate,
    import: None,
    before_resume: true,
};

/// Every recording of session `id` in the projects' chat folders: the CLI's
/// (`…-<id[0:8]>.jsonl`) and those moved before (`…-<id[0:8]>-moved.jsonl`).
pub(crate) fn files(id: &str, at: &Place) -> Vec<NativeSource> {
    let short = short_id(id);
    if short.is_empty() {
        return Vec::new();
    }
    [format!("-{short}.jsonl"), format!("-{short}{MOVED_SUFFIX}")]
        .map(|suffix| {
            NativeSource::Search(FileSearch {
                folder: temp_dir(at),
                // `<project id>/chats/<file>`.
                depth: 2,
                suffix,
            })
        })
        .into()
}

/// A recording goes to the new directory's project id (see the module), renamed so
/// the CLI neither writes over it nor deletes it with another, its text with the
/// old place's paths replaced by the new one's, the project's temporary folder
/// included. A file found elsewhere keeps its place under the new `$G/tmp`.
pub(crate) fn relocate(
    path: &str,
    contents: Vec<u8>,
    from: &Place,
    to: &Place,
) -> Result<MovedFile, String> {
    let old_temp = temp_dir(from);
    let rest = inside(path, &old_temp, "Gemini CLI's folder")?;
    let new_temp = temp_dir(to);
    let recording = match rest.split('/').collect::<Vec<_>>().as_slice() {
        [old_id, "chats", name] if name.starts_with(PREFIX) && name.ends_with(".jsonl") => {
            Some((join(&old_temp, old_id), *name))
        }
        _ => None,
    };
    // Moved to the place it is (before a resume): the project the CLI gave the
    // directory stays, whatever its registry named it.
    let new_project = match &recording {
        Some((old_project, _)) if from == to => old_project.clone(),
        _ => join(&new_temp, &project_id(&to.directory)),
    };
    // The text (JSON lines) with the old place's paths rewritten; bytes that are
    // not UTF-8 as they are.
    let (from, to) = (as_in_json(from), as_in_json(to));
    let text = String::from_utf8(contents).map(|text| rewrite_paths(&text, &from, &to));
    let Some((old_project, name)) = recording else {
        return Ok(MovedFile {
            path: join(&new_temp, rest),
            contents: text.map_or_else(|error| error.into_bytes(), String::into_bytes),
        });
    };
    let (contents, resumable) = match text {
        Ok(text) => {
            // The old project folder, after the rewrite: `$G` moved, the id did not.
            let moved = rewrite_paths(&old_project, &from, &to);
            let text = replace_folder(&text, &moved, &as_in_json_text(&new_project));
            let resumable = resumable(&text);
            (text.into_bytes(), resumable)
        }
        Err(error) => (error.into_bytes(), true),
    };
    Ok(MovedFile {
        path: join(
            &new_project,
            &format!("chats/{}", moved_name(name, resumable)),
        ),
        contents,
    })
}

/// `$G/tmp`: `${GEMINI_CLI_HOME:-$HOME}/.gemini/tmp`.
fn temp_dir(place: &Place) -> String {
    let home = folder(place, crate::credentials::LOCATION_ENV, "");
    join(&home, ".gemini/tmp")
}

/// The first 8 characters of the id with every UTF-16 unit outside
/// `[a-zA-Z0-9_-]` as `_` (the CLI's `sanitizeFilenamePart(id).slice(0, 8)`).
pub(crate) fn short_id(id: &str) -> String {
    id.chars()
        .flat_map(|c| {
            let (c, units) = if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') {
                (c, 1)
            } else {
                ('_', c.len_utf16())
            };
            std::iter::repeat_n(c, units)
        })
        .take(8)
        .collect()
}

/// The project id Gemini CLI claims for a directory its registry does not have:
/// the last name of the directory in lower case, every run of characters outside
/// `[a-z0-9]` one `-`, none at either end; `project` when nothing is left.
pub(crate) fn project_id(directory: &str) -> String {
    let name = directory
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    let mut id = String::with_capacity(name.len());
    for c in name.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            id.push(c);
        } else if !id.ends_with('-') {
            id.push('-');
        }
    }
    match id.trim_matches('-') {
        "" => "project".to_owned(),
        id => id.to_owned(),
    }
}

/// A recording's name at the new place: `<name>-moved.jsonl` (kept when it moved
/// before), or `<name>-empty.jsonl` when it has nothing to resume. The CLI lists
/// both (it matches the session id inside), writes neither, and deletes an empty
/// one at its next start alone, where `…-<id[0:8]>.jsonl` would take every file of
/// the session with it. The names of a session's recordings stay distinct: the CLI
/// names them after the minute they began, and only one has the conversation.
pub(crate) fn moved_name(name: &str, resumable: bool) -> String {
    let stem = name.strip_suffix(".jsonl").unwrap_or(name);
    if !resumable {
        format!("{stem}-empty.jsonl")
    } else if name.ends_with(MOVED_SUFFIX) {
        name.to_owned()
    } else {
        format!("{stem}{MOVED_SUFFIX}")
    }
}

/// Whether a recording (JSON lines) has a message a load would replay: one of the
/// model's, or one of the user's other than the CLI's own context and commands
/// (`isResumableMessageRecord`); as a record of its own, or in a `$set` or
/// metadata record's `messages`. A file that cannot be read counts as resumable.
pub(crate) fn resumable(text: &str) -> bool {
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            return true;
        };
        let listed = [&record["messages"], &record["$set"]["messages"]]
            .into_iter()
            .filter_map(Value::as_array)
            .flatten();
        if std::iter::once(&record)
            .chain(listed)
            .any(resumable_message)
        {
            return true;
        }
    }
    false
}

/// A message a load replays (see [`resumable`]).
fn resumable_message(message: &Value) -> bool {
    let content = &message["content"];
    match message["type"].as_str() {
        Some("gemini") => {
            let said = match content {
                Value::String(text) => !text.trim().is_empty(),
                Value::Array(parts) => !parts.is_empty(),
                Value::Null => false,
                _ => true,
            };
            let listed = |field: &str| {
                message[field]
                    .as_array()
                    .is_some_and(|list| !list.is_empty())
            };
            said || listed("toolCalls") || listed("thoughts")
        }
        Some("user") => {
            let text = match content {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|part| part.as_str().or_else(|| part["text"].as_str()))
                    .collect(),
                _ => String::new(),
            };
            let text = text.trim();
            !(text.is_empty()
                || text.starts_with('/')
                || text.starts_with('?')
                || text.starts_with("<session_context>")
                || text.starts_with("<hook_context>"))
        }
        _ => false,
    }
}
