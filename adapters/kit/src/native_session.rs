//! Moving an agent's own session to another sandbox (WIT `native-session-files`
//! and `move-native-file`).
//!
//! An agent keeps its conversation in files under its home folder, often in a
//! folder named after the working directory, with the working directory written
//! inside. When a session moves to a sandbox with another home and working
//! directory, each file is read where [`NativeSessions::files`] says, and written
//! where [`NativeSessions::relocate`] says, with what depends on the old place
//! rewritten. [`same_place`] is the usual relocation: the same path relative to the
//! home (or to a folder a location variable names), and every path of the old
//! place in the text replaced by the new one ([`rewrite_paths`]).

use crate::types::{Landing, MovedFile, NativeCommand, NativeSource, Place};

/// Why an agent's session cannot move, when the adapter does not say.
pub const CANNOT_MOVE: &str = "the adapter does not know where the agent keeps its own sessions";

/// Where an agent keeps its own sessions, as plain data the adapter gives in
/// [`crate::Adapter::NATIVE_SESSIONS`].
#[derive(Debug, Clone, Copy)]
pub struct NativeSessions {
    /// The files holding one native session (by its id) at a place.
    pub files: fn(&str, &Place) -> Vec<NativeSource>,
    /// Where one of those files goes at a new place, and what it holds there: its
    /// path, its contents, the old place and the new one. [`same_place`] when
    /// nothing but paths depends on the place.
    pub relocate: fn(&str, Vec<u8>, &Place, &Place) -> Result<MovedFile, String>,
    /// For an agent whose `files` include a command's output
    /// ([`NativeSource::Output`]): the command that takes that output in at the new
    /// place (its name, the old place, the new one). `None`: no command outputs.
    pub import: Option<ImportCommand>,
    /// Whether the host moves the session to the place it already is before the
    /// agent resumes it (capability `move-before-resume`): each file renamed to
    /// where `relocate`, given that place as old and new, puts it. For an agent
    /// that would write over or delete its session's files at its next start.
    pub before_resume: bool,
}

/// The command that takes a command's output in at a new place: given the
/// output's name, the old place and the new one.
pub type ImportCommand = fn(&str, &Place, &Place) -> Result<NativeCommand, String>;

impl NativeSessions {
    /// Sessions kept in `files`, moved with [`same_place`].
    pub const fn in_files(files: fn(&str, &Place) -> Vec<NativeSource>) -> Self {
        Self {
            files,
            relocate: same_place,
            import: None,
            before_resume: false,
        }
    }

    /// How the file `path` lands at `to`: a command's output (a name, not a path)
    /// is taken in by [`NativeSessions::import`]'s command, a file is relocated.
    pub fn land(
        &self,
        path: &str,
        contents: Vec<u8>,
        from: &Place,
        to: &Place,
    ) -> Result<Landing, String> {
        match (path.starts_with('/'), self.import) {
            (false, Some(import)) => import(path, from, to).map(Landing::Command),
            _ => (self.relocate)(path, contents, from, to).map(Landing::File),
        }
    }
}

impl Landing {
    /// The file written, when the landing is a file; the command otherwise.
    pub fn into_file(self) -> Result<MovedFile, NativeCommand> {
        match self {
            Landing::File(file) => Ok(file),
            Landing::Command(command) => Err(command),
        }
    }
}

/// A command's output moved: the command that takes it in gets it as `{file}`.
pub const FILE_PLACEHOLDER: &str = "{file}";

/// A place: its home, working directory and location variables.
pub fn place(home: &str, directory: &str, env: &[(&str, &str)]) -> Place {
    Place {
        home: home.into(),
        directory: directory.into(),
        env: env
            .iter()
            .map(|(name, value)| ((*name).into(), (*value).into()))
            .collect(),
    }
}

/// A location variable's value at a place, when set and not empty.
pub fn var<'a>(place: &'a Place, name: &str) -> Option<&'a str> {
    place
        .env
        .iter()
        .find(|(n, value)| n == name && !value.is_empty())
        .map(|(_, value)| value.as_str())
}

/// The folder a location variable names at `place`, else `fallback` under its home
/// (`folder(place, "XDG_DATA_HOME", ".local/share")`).
pub fn folder(place: &Place, variable: &str, fallback: &str) -> String {
    var(place, variable).map_or_else(
        || join(&place.home, fallback),
        |dir| dir.trim_end_matches('/').to_owned(),
    )
}

/// `base/relative`, with one slash between.
pub fn join(base: &str, relative: &str) -> String {
    let base = base.trim_end_matches('/');
    let relative = relative.trim_start_matches('/');
    if relative.is_empty() {
        base.to_owned()
    } else {
        format!("{base}/{relative}")
    }
}

/// The rest of `path` after the folder `base` (`None` when it is not beneath it).
pub fn beneath<'a>(path: &'a str, base: &str) -> Option<&'a str> {
    let base = base.trim_end_matches('/');
    let rest = path.strip_prefix(base)?;
    match rest.strip_prefix('/') {
        Some(rest) => Some(rest),
        None if rest.is_empty() => Some(""),
        None => None,
    }
}

/// The rest of `path` after `folder`, which must hold it (as a file, not be it):
/// else an error saying it is not in `what` (`Claude Code's session folder`).
pub fn inside<'a>(path: &'a str, folder: &str, what: &str) -> Result<&'a str, String> {
    beneath(path, folder)
        .filter(|rest| !rest.is_empty())
        .ok_or_else(|| format!("{path} is not in {what} {folder}"))
}

/// The folders of a place that a file may be relative to, most specific first: the
/// folders its location variables name, then its home; each with the name of its
/// variable (`HOME` for the home).
fn roots(place: &Place) -> Vec<(&str, &str)> {
    let mut roots: Vec<(&str, &str)> = place
        .env
        .iter()
        .filter(|(_, value)| value.starts_with('/'))
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    // The longest folder first: `~/.config/x` before `~`.
    roots.sort_by_key(|(_, folder)| std::cmp::Reverse(folder.trim_end_matches('/').len()));
    roots.push(("HOME", place.home.as_str()));
    roots
}

/// Where `path` (at `from`) is at `to`: the same path relative to the folder of the
/// same location variable, or to the home. An error when it is beneath neither.
pub fn rebase(path: &str, from: &Place, to: &Place) -> Result<String, String> {
    for (name, folder) in roots(from) {
        let Some(rest) = beneath(path, folder) else {
            continue;
        };
        let target = if name == "HOME" {
            to.home.as_str()
        } else {
            match var(to, name) {
                Some(target) => target,
                // The variable is not set at the new place: the agent falls back to
                // its home, as it did where the variable pointed under the home.
                None => match beneath(folder, &from.home) {
                    Some(under_home) => return Ok(join(&join(&to.home, under_home), rest)),
                    None => {
                        return Err(format!(
                            "{path} is in {name}, which is not set at the new place"
                        ))
                    }
                },
            }
        };
        return Ok(join(target, rest));
    }
    Err(format!(
        "{path} is neither in the home folder {} nor in a location folder",
        from.home
    ))
}

/// `text` with every path of the old place (its working directory, its location
/// folders, its home: the longest first) replaced by the new place's. A path is
/// replaced only where it ends: at a `/`, a quote, a space or the end, so
/// `/work/a` is not replaced inside `/work/ab`.
pub fn rewrite_paths(text: &str, from: &Place, to: &Place) -> String {
    let mut pairs: Vec<(String, String)> = Vec::new();
    pairs.push((trimmed(&from.directory), trimmed(&to.directory)));
    for (name, folder) in roots(from) {
        if let Ok(target) = rebase(folder, from, to) {
            let _ = name;
            pairs.push((trimmed(folder), trimmed(&target)));
        }
    }
    pairs.retain(|(old, new)| old.len() > 1 && old != new);
    pairs.sort_by_key(|(old, _)| std::cmp::Reverse(old.len()));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while !rest.is_empty() {
        for (old, new) in &pairs {
            if let Some(after) = rest.strip_prefix(old.as_str()) {
                if ends_name(after) {
                    out.push_str(new);
                    rest = after;
                    continue 'scan;
                }
            }
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
}

/// `text` with the folder `old` replaced by `new` where it ends (at a `/`, a quote,
/// a space...: not inside a longer name), as [`rewrite_paths`] does.
pub fn replace_folder(text: &str, old: &str, new: &str) -> String {
    if old == new || old.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(old) {
        let after = &rest[at + old.len()..];
        out.push_str(&rest[..at]);
        out.push_str(if ends_name(after) { new } else { old });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Whether a path ends where `after` starts: at its end, or at a character that
/// cannot go on a file name (`/`, a quote, a space...).
fn ends_name(after: &str) -> bool {
    after
        .chars()
        .next()
        .is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
}

/// `text` as a JSON string holds it (`"` and `\` escaped, without the quotes).
pub fn as_in_json_text(text: &str) -> String {
    let quoted = serde_json::Value::String(text.to_owned()).to_string();
    quoted[1..quoted.len() - 1].to_owned()
}

/// `place` with its paths as a JSON string holds them: the old place's paths
/// are found, and the new place's written, in JSON text as they stand there.
pub fn as_in_json(place: &Place) -> Place {
    Place {
        home: as_in_json_text(&place.home),
        directory: as_in_json_text(&place.directory),
        env: place
            .env
            .iter()
            .map(|(name, value)| (name.clone(), as_in_json_text(value)))
            .collect(),
    }
}

/// [`rewrite_paths`] for JSON text (a JSON Lines transcript): the paths as JSON
/// strings hold them.
pub fn rewrite_json_paths(text: &str, from: &Place, to: &Place) -> String {
    rewrite_paths(text, &as_in_json(from), &as_in_json(to))
}

/// A folder without its trailing slash.
fn trimmed(folder: &str) -> String {
    let trimmed = folder.trim_end_matches('/');
    if trimmed.is_empty() { "/" } else { trimmed }.to_owned()
}

/// The usual relocation: the file at the same path relative to its home or
/// location folder, and every path of the old place in its text rewritten
/// ([`rewrite_paths`]); bytes that are not UTF-8 are kept as they are.
pub fn same_place(
    path: &str,
    contents: Vec<u8>,
    from: &Place,
    to: &Place,
) -> Result<MovedFile, String> {
    let path = rebase(path, from, to)?;
    let contents = match String::from_utf8(contents) {
        Ok(text) => rewrite_paths(&text, from, to).into_bytes(),
        Err(error) => error.into_bytes(),
    };
    Ok(MovedFile { path, contents })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(home: &str, directory: &str, env: &[(&str, &str)]) -> Place {
        Place {
            home: home.into(),
            directory: directory.into(),
            env: env
                .iter()
                .map(|(n, v)| ((*n).into(), (*v).into()))
                .collect(),
        }
    }

    #[test]
    fn paths_move_with_their_home_or_location_folder() {
        let from = place("/home/a", "/work/one", &[("XDG_DATA_HOME", "/data/a")]);
        let to = place("/root", "/srv/two", &[("XDG_DATA_HOME", "/var/b")]);
        assert_eq!(
            rebase("/home/a/.claude/x.jsonl", &from, &to).unwrap(),
            "/root/.claude/x.jsonl"
        );
        assert_eq!(
            rebase("/data/a/pi/s.jsonl", &from, &to).unwrap(),
            "/var/b/pi/s.jsonl"
        );
        assert!(rebase("/etc/passwd", &from, &to).is_err());
        assert!(rebase("/home/ab/x", &from, &to).is_err());
        // A variable unset at the new place: its folder under the new home, when it was under the old one.
        let from = place(
            "/home/a",
            "/w",
            &[("XDG_DATA_HOME", "/home/a/.local/share")],
        );
        let to = place("/root", "/w", &[]);
        assert_eq!(
            rebase("/home/a/.local/share/x", &from, &to).unwrap(),
            "/root/.local/share/x"
        );
    }

    #[test]
    fn text_has_the_old_paths_replaced_where_they_end() {
        let from = place("/home/a", "/home/a/proj", &[]);
        let to = place("/root", "/srv/p", &[]);
        let text = r#"{"cwd":"/home/a/proj","file":"/home/a/proj/src/x.rs","other":"/home/a/projects","h":"/home/a"}"#;
        assert_eq!(
            rewrite_paths(text, &from, &to),
            r#"{"cwd":"/srv/p","file":"/srv/p/src/x.rs","other":"/root/projects","h":"/root"}"#
        );
        let moved =
            same_place("/home/a/.pi/s.jsonl", text.as_bytes().to_vec(), &from, &to).unwrap();
        assert_eq!(moved.path, "/root/.pi/s.jsonl");
        assert!(String::from_utf8(moved.contents)
            .unwrap()
            .contains("/srv/p/src/x.rs"));
        let binary = vec![0xff, 0xfe, b'/'];
        assert_eq!(
            same_place("/home/a/b", binary.clone(), &from, &to)
                .unwrap()
                .contents,
            binary
        );
    }
}
