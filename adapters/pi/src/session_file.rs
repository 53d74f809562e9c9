//! Where Pi keeps a session, and how it moves to another sandbox (WIT
//! `native-session-files`, `move-native-file`; measured on Pi 0.73.1).
//!
//! A session is one file,
//! `<agent dir>/sessions/--<encoded cwd>--/<UTC time>_<session id>.jsonl`, where the
//! agent dir is `$PI_CODING_AGENT_DIR` (a leading `~` is the home) else
//! `~/.pi/agent`, and the folder name is the working directory without its leading
//! `/` (or `\`), with every `/`, `\` and `:` turned into `-` (`getDefaultSessionDir`).
//! The first line is the header, `{"type":"session","version":3,"id",…,"cwd"}`.
//!
//! `pi --session <id>` looks for the id in the folder of the current working
//! directory first; found elsewhere, Pi asks on stdin whether to fork it (in RPC mode
//! it reads the adapter's first command as the answer, and exits). Then it runs in
//! the header's `cwd`, not in the process's. So the file moves into the folder of the
//! new working directory, under the same name, with the header's `cwd` set to it and
//! the other paths of the old place rewritten ([`rewrite_paths`]).
//!
//! Not handled: a session folder set by `--session-dir`,
//! `PI_CODING_AGENT_SESSION_DIR` or `settings.json` `sessionDir` (the adapter sets
//! none of them).

use sandbox_agent_adapter_kit::native_session::{join, rewrite_paths, var, NativeSessions};
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

use crate::credentials::LOCATION_ENV;

/// Pi's session files, moved into the folder of the new working directory.
pub(crate) const SESSIONS: NativeSessions = NativeSessions {
    files,
    relocate,
    import: None,
    before_resume: false,
};

/// Pi's agent folder at `place`: `$PI_CODING_AGENT_DIR` (with `~` expanded as Pi
/// does), else `~/.pi/agent`.
fn agent_dir(place: &Place) -> String {
    let dir = match var(place, LOCATION_ENV) {
        Some("~") => place.home.clone(),
        Some(dir) => match dir.strip_prefix("~/") {
            Some(rest) => join(&place.home, rest),
            None => dir.to_owned(),
        },
        None => join(&place.home, ".pi/agent"),
    };
    let trimmed = dir.trim_end_matches('/');
    if trimmed.is_empty() { "/" } else { trimmed }.to_owned()
}

/// The name of the folder Pi keeps the sessions of working directory `cwd` in:
/// `/tmp/mig/pi/C1` → `--tmp-mig-pi-C1--`.
pub(crate) fn folder_name(cwd: &str) -> String {
    let cwd = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    let safe: String = cwd
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '-'
            } else {
                c
            }
        })
        .collect();
    format!("--{safe}--")
}

/// The working directory of `place`, as Pi's `process.cwd()` has it (no trailing
/// `/`).
fn directory(place: &Place) -> &str {
    match place.directory.trim_end_matches('/') {
        "" => "/",
        trimmed => trimmed,
    }
}

/// The folder of the sessions Pi runs in at `place`.
fn sessions_folder(place: &Place) -> String {
    join(
        &join(&agent_dir(place), "sessions"),
        &folder_name(directory(place)),
    )
}

/// The file of session `id`: the one ending `_<id>.jsonl` in the folder of the
/// place's working directory.
fn files(id: &str, at: &Place) -> Vec<NativeSource> {
    vec![NativeSource::Search(FileSearch {
        folder: sessions_folder(at),
        depth: 0,
        suffix: format!("_{id}.jsonl"),
    })]
}

/// The file, under the same name, in the folder of the new working directory; its
/// header's `cwd` the new directory, and the other paths of the old place rewritten.
fn relocate(path: &str, contents: Vec<u8>, from: &Place, to: &Place) -> Result<MovedFile, String> {
    let name = path
        .rsplit('/')
        .next()
        .filter(|name| !name.is_empty())
        .ok_or_else(|| format!("{path} names no file"))?;
    let text = String::from_utf8(contents)
        .map_err(|_| format!("{path} is not a Pi session: it is not UTF-8 text"))?;
    let text = rewrite_paths(&text, &with_agent_dir(from), &with_agent_dir(to));
    let (header, rest) = match text.find('\n') {
        Some(end) => text.split_at(end),
        None => (text.as_str(), ""),
    };
    let header = with_cwd(header, directory(to)).ok_or_else(|| {
        format!("{path} is not a Pi session: its first line is no session header")
    })?;
    Ok(MovedFile {
        path: join(&sessions_folder(to), name),
        contents: format!("{header}{rest}").into_bytes(),
    })
}

/// The header line `line` with its `cwd` set to `cwd`; `None` when it is no Pi
/// session header. The line keeps its bytes when it already names `cwd`, and
/// only the value changes when the member is found as Pi writes it.
fn with_cwd(line: &str, cwd: &str) -> Option<String> {
    let mut header: Value = serde_json::from_str(line.trim_end_matches('\r')).ok()?;
    if header.get("type").and_then(Value::as_str) != Some("session") {
        return None;
    }
    let old = header.get("cwd").and_then(Value::as_str);
    if old == Some(cwd) {
        return Some(line.to_owned());
    }
    if let Some(old) = old {
        let member = |value: &str| format!("\"cwd\":{}", Value::from(value));
        let (was, now) = (member(old), member(cwd));
        if line.matches(&was).count() == 1 {
            return Some(line.replacen(&was, &now, 1));
        }
    }
    header["cwd"] = Value::from(cwd);
    let end = if line.ends_with('\r') { "\r" } else { "" };
    Some(format!("{header}{end}"))
}

/// `place` with `PI_CODING_AGENT_DIR` naming Pi's agent folder there, set or not,
/// so that [`rewrite_paths`] maps one onto the other.
fn with_agent_dir(place: &Place) -> Place {
    let dir = agent_dir(place);
    let mut place = place.clone();
    place.env.retain(|(name, _)| name != LOCATION_ENV);
    place.env.push((LOCATION_ENV.to_owned(), dir));
    place
}
