//! Where Claude Code keeps its own session, for moving it to another sandbox
//! (checked in the 2.1.197 binary; `/work/notes/native-claude-qwen-gemini.md`).
//!
//! The transcript is `$CFG/projects/<slug>/<id>.jsonl`, where `$CFG` is
//! `${CLAUDE_CONFIG_DIR:-$HOME/.claude}` and the slug is made of the working
//! directory as the CLI sees it: `realpath(process.cwd())`, which is the place's
//! directory (absolute, links resolved), since the CLI runs in the session's
//! directory. Large tool outputs (`<id>/tool-results/`) and subagent transcripts
//! (`<id>/subagents/`) are in a folder named after the session beside it.
//!
//! `--resume <id>` looks for the transcript only in the folder of the working
//! directory's slug, and checks nothing in it: at a new place the files go in the
//! new directory's slug folder, with the old paths in their text rewritten so the
//! model is not misled and the saved-output references (absolute paths into the
//! old slug folder) still lead to the files.

use sandbox_agent_adapter_kit::native_session::{
    as_in_json, as_in_json_text, folder, inside, join, replace_folder, rewrite_paths,
};
use sandbox_agent_adapter_kit::prelude::*;

/// The longest slug the CLI uses as it is; longer ones are cut and get a hash.
const MAX_SLUG: usize = 200;

/// Claude Code's own sessions.
pub(crate) const SESSIONS: NativeSessions = NativeSessions {
    files,
    relocate,
    import: None,
    before_resume: false,
};

/// `${CLAUDE_CONFIG_DIR:-$HOME/.claude}` at `place`.
fn config_dir(place: &Place) -> String {
    folder(place, crate::credentials::LOCATION_ENV, ".claude")
}

/// The folder of the sessions of the place's working directory.
fn project_folder(place: &Place) -> String {
    join(
        &join(&config_dir(place), "projects"),
        &slug(&place.directory),
    )
}

/// The transcript of session `id`, and the folder of its saved outputs and
/// subagents (`<id>/tool-results/*.txt`, `<id>/subagents/*.jsonl`, `<id>/workflows/`).
/// Nothing for an id that is not a plain file name.
pub(crate) fn files(id: &str, at: &Place) -> Vec<NativeSource> {
    if !plain_name(id) {
        return Vec::new();
    }
    let project = project_folder(at);
    vec![
        NativeSource::File(join(&project, &format!("{id}.jsonl"))),
        NativeSource::Search(FileSearch {
            folder: join(&project, id),
            depth: 3,
            suffix: String::new(),
        }),
    ]
}

/// The file at the same place under the new directory's slug folder (in the new
/// place's config dir), its text with the old place's paths replaced by the new
/// one's, the old slug folder included.
pub(crate) fn relocate(
    path: &str,
    contents: Vec<u8>,
    from: &Place,
    to: &Place,
) -> Result<MovedFile, String> {
    let old_project = project_folder(from);
    let rest = inside(path, &old_project, "Claude Code's session folder")?;
    let new_project = project_folder(to);
    let contents = match String::from_utf8(contents) {
        Ok(text) => {
            // Transcripts are JSON lines; saved outputs are plain text.
            let (from, to, new_project) = if path.ends_with(".jsonl") {
                (
                    as_in_json(from),
                    as_in_json(to),
                    as_in_json_text(&new_project),
                )
            } else {
                (from.clone(), to.clone(), new_project.clone())
            };
            let text = rewrite_paths(&text, &from, &to);
            // The old slug folder, after the rewrite: the config dir moved, the slug
            // did not.
            let moved_folder = rewrite_paths(&old_project, &from, &to);
            replace_folder(&text, &moved_folder, &new_project).into_bytes()
        }
        Err(error) => error.into_bytes(),
    };
    Ok(MovedFile {
        path: join(&new_project, rest),
        contents,
    })
}

/// The CLI's folder name for a working directory (`$E` in its code): every UTF-16
/// unit outside `[a-zA-Z0-9]` becomes `-`; a name longer than 200 is cut to 200,
/// followed by `-` and the base-36 absolute value of the Java-style hash of the
/// whole path.
pub(crate) fn slug(directory: &str) -> String {
    let mut slug = String::with_capacity(directory.len());
    for c in directory.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else {
            // An astral character is two UTF-16 units, hence two dashes.
            for _ in 0..c.len_utf16() {
                slug.push('-');
            }
        }
    }
    if slug.len() <= MAX_SLUG {
        return slug;
    }
    slug.truncate(MAX_SLUG);
    format!(
        "{slug}-{}",
        base36(i64::from(java_hash(directory)).unsigned_abs())
    )
}

/// `String.hashCode` over the UTF-16 units: `h = 31 * h + unit`, wrapping at 32 bits.
fn java_hash(text: &str) -> i32 {
    text.encode_utf16().fold(0i32, |hash, unit| {
        hash.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// `n` in base 36, lower case (JavaScript's `toString(36)`).
pub(crate) fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// A session id that is one plain file name: not empty, no `/`, not `.` or `..`.
fn plain_name(id: &str) -> bool {
    !id.is_empty() && id != "." && id != ".." && !id.contains(['/', '\0'])
}
