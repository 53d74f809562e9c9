//! Where Qwen Code keeps its own session, for moving it to another sandbox
//! (checked in the 0.24.4 package; `/work/notes/native-claude-qwen-gemini.md`).
//!
//! The transcript is `$RT/projects/<cwd with every UTF-16 unit outside
//! [a-zA-Z0-9] as '-'>/chats/<id>.jsonl` (or `chats/archive/<id>.jsonl`), where
//! `$RT` is `$QWEN_RUNTIME_DIR`, else the settings' `advanced.runtimeOutputDir`, else
//! `$QWEN_HOME`, else `~/.qwen`. The settings file is not read here (the adapter
//! cannot read files): a session kept under a `runtimeOutputDir` is looked for in
//! the wrong folder and does not move. `QWEN_HOME` set in `~/.qwen/.env` or `~/.env`
//! is not seen either; only the variables of the agent's processes are.
//!
//! The cwd is the ACP `cwd` as sent (`SessionConfig::directory`, no realpath); the
//! host's place has the directory with links resolved, the same string unless the
//! session's directory was given through a symbolic link (or with `..` or a
//! trailing `/`).
//!
//! `session/load` refuses a transcript whose first record's `cwd` does not hash as
//! the ACP `cwd`: at a new place the file goes in the new directory's folder, with
//! the first record's `cwd` set to the new directory and every old path rewritten.
//!
//! Large tool outputs spill to `$RT/tmp/<sha256 of cwd>/` (`<tool>_<random>.output`,
//! `tool-results/<call id>.txt`): nothing in their names tells their session, so
//! they do not move; the transcript keeps the preview the model saw, and the full
//! outputs' paths in it name files the new place does not have.

use sandbox_agent_adapter_kit::native_session::{inside, join, rewrite_json_paths, var};
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

/// The variable that moves Qwen Code's runtime output (sessions, temporary files)
/// away from `$QWEN_HOME`.
pub(crate) const RUNTIME_ENV: &str = "QWEN_RUNTIME_DIR";

/// Qwen Code's own sessions.
pub(crate) const SESSIONS: NativeSessions = NativeSessions {
    files,
    relocate,
    import: None,
    before_resume: false,
};

/// The transcript of session `id` (live or archived). Nothing for an id that is
/// not a plain file name.
pub(crate) fn files(id: &str, at: &Place) -> Vec<NativeSource> {
    if id.is_empty() || id == "." || id == ".." || id.contains(['/', '\0']) {
        return Vec::new();
    }
    let chats = join(&project_folder(at), "chats");
    vec![
        NativeSource::File(join(&chats, &format!("{id}.jsonl"))),
        NativeSource::File(join(&chats, &format!("archive/{id}.jsonl"))),
    ]
}

/// The file at the same place under the new directory's project folder (in the new
/// place's runtime folder); its text with the old place's paths replaced by the new
/// one's, and the `cwd` of its records the new directory.
pub(crate) fn relocate(
    path: &str,
    contents: Vec<u8>,
    from: &Place,
    to: &Place,
) -> Result<MovedFile, String> {
    let old_project = project_folder(from);
    let rest = inside(path, &old_project, "Qwen Code's session folder")?;
    let contents = match String::from_utf8(contents) {
        Ok(text) => {
            let text = rewrite_json_paths(&text, from, to);
            with_cwd(&text, &to.directory).into_bytes()
        }
        Err(error) => error.into_bytes(),
    };
    Ok(MovedFile {
        path: join(&project_folder(to), rest),
        contents,
    })
}

/// `$RT/projects/<sanitized directory>` at `place`.
fn project_folder(place: &Place) -> String {
    join(
        &join(&runtime_dir(place), "projects"),
        &sanitize(&place.directory),
    )
}

/// `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen` (`~` and relative paths
/// resolved as the CLI does: against the home and its working directory).
fn runtime_dir(place: &Place) -> String {
    let named = var(place, RUNTIME_ENV).or_else(|| var(place, crate::credentials::LOCATION_ENV));
    let Some(dir) = named else {
        return join(&place.home, ".qwen");
    };
    let dir = if dir == "~" {
        place.home.clone()
    } else if let Some(rest) = dir.strip_prefix("~/") {
        join(&place.home, rest)
    } else if dir.starts_with('/') {
        dir.to_owned()
    } else {
        join(&place.directory, dir)
    };
    match dir.trim_end_matches('/') {
        "" => "/".to_owned(),
        trimmed => trimmed.to_owned(),
    }
}

/// The CLI's project folder name (`sanitizeCwd`): every UTF-16 unit outside
/// `[a-zA-Z0-9]` becomes `-`, with no length limit.
pub(crate) fn sanitize(directory: &str) -> String {
    directory
        .chars()
        .flat_map(|c| {
            let (c, units) = if c.is_ascii_alphanumeric() {
                (c, 1)
            } else {
                ('-', c.len_utf16())
            };
            std::iter::repeat_n(c, units)
        })
        .collect()
}

/// `text` (JSON lines) with the first record's `cwd`, and every `"cwd"` equal to
/// it, set to `directory`: the CLI checks the first record's against the ACP `cwd`.
fn with_cwd(text: &str, directory: &str) -> String {
    let first = text.split('\n').next().unwrap_or_default();
    let Ok(Value::Object(mut record)) = serde_json::from_str::<Value>(first) else {
        return text.to_owned();
    };
    let Some(Value::String(old)) = record.get("cwd").cloned() else {
        return text.to_owned();
    };
    if old == directory {
        return text.to_owned();
    }
    let field = |cwd: &str| format!(r#""cwd":{}"#, Value::String(cwd.to_owned()));
    let (old_field, new_field) = (field(&old), field(directory));
    if first.contains(&old_field) {
        return text.replace(&old_field, &new_field);
    }
    // Written another way (spaces, escapes): the first record written anew.
    record.insert("cwd".to_owned(), Value::String(directory.to_owned()));
    let rest = &text[first.len()..];
    format!("{}{rest}", Value::Object(record))
}
