//! Where an adapter's `credential-files` says an agent's credentials are: files,
//! variables holding a config file's text (`env:NAME`), and sets of those the
//! agent merges key by key (`merge:` before each), which are read together.

use std::path::{Path, PathBuf};

use super::{Lookup, Source, MAX_FILE_BYTES};

/// How `credential-files` names a variable whose text is read instead of a file.
const TEXT_PREFIX: &str = "env:";

/// How `credential-files` marks an origin of a merged set, and the path that
/// set's `parse-credentials` call gets.
const MERGE: &str = "merge:";

/// What a merged set is called in warnings.
const MERGED_LABEL: &str = "merged configuration";

/// One place credentials are read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Origin {
    /// A file.
    File(PathBuf),
    /// A variable holding a config file's text.
    Text(String),
}

/// Folders of the kernel's own views (a process's environment and memory,
/// devices): no agent keeps a credential file there, and the daemon's own
/// environment is not an adapter's to read.
const NOT_READ: [&str; 3] = ["/proc", "/sys", "/dev"];

impl Origin {
    /// A name of `credential-files` (not `merge:`): `None` for a relative path, a
    /// path in [`NOT_READ`], or a variable that is not one of `declared` (the
    /// adapter's own `credential-env`).
    fn parse(name: &str, declared: &[String]) -> Option<Self> {
        match name.strip_prefix(TEXT_PREFIX) {
            Some(variable) => declared
                .iter()
                .any(|name| name == variable)
                .then(|| Origin::Text(variable.to_owned())),
            None => Some(PathBuf::from(name))
                .filter(|path| path.is_absolute())
                .filter(|path| !NOT_READ.iter().any(|folder| path.starts_with(folder)))
                .map(Origin::File),
        }
    }

    /// As the adapter named it.
    pub(super) fn name(&self) -> String {
        match self {
            Origin::File(path) => path.to_string_lossy().into_owned(),
            Origin::Text(variable) => format!("{TEXT_PREFIX}{variable}"),
        }
    }

    /// As a warning names it.
    pub(super) fn path(&self) -> PathBuf {
        match self {
            Origin::File(path) => path.clone(),
            Origin::Text(_) => PathBuf::from(self.name()),
        }
    }

    /// What it holds; `None` when the file does not exist or the variable is not
    /// set; why it cannot be read otherwise (too large, unreadable, not UTF-8).
    pub(super) fn read(&self, lookup: &Lookup) -> Result<Option<Found>, String> {
        match self {
            Origin::File(path) => read_small(path),
            Origin::Text(variable) => match lookup.var(variable) {
                Some(text) if text.len() as u64 > MAX_FILE_BYTES => Err(too_large()),
                text => Ok(text.map(|text| Found::Text(text.to_owned()))),
            },
        }
    }
}

/// What an origin that exists holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Found {
    /// Its text.
    Text(String),
    /// It is a folder: no file to read, but there (an agent may look for one, a
    /// `.git` say, to know where a project's root is).
    Folder,
}

/// One `parse-credentials` call's worth of origins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Read {
    /// One origin, parsed alone.
    One(Origin),
    /// The origins the agent merges, in the order named: parsed in one call whose
    /// text is the JSON array of `{"origin", "text"}` of those that exist.
    Merged(Vec<Origin>),
}

impl Read {
    /// As a warning about the whole read names it.
    pub(super) fn path(&self) -> PathBuf {
        match self {
            Read::One(origin) => origin.path(),
            Read::Merged(_) => PathBuf::from(MERGED_LABEL),
        }
    }

    /// The path `parse-credentials` gets.
    pub(super) fn name(&self) -> String {
        match self {
            Read::One(origin) => origin.name(),
            Read::Merged(_) => MERGE.to_owned(),
        }
    }

    /// Where a credential it holds at `key` is.
    pub(super) fn source(&self, key: String) -> Source {
        match self {
            Read::One(Origin::File(path)) => Source::File {
                path: path.clone(),
                key,
            },
            Read::One(Origin::Text(variable)) => Source::Text {
                variable: variable.clone(),
                key,
            },
            Read::Merged(_) => Source::Merged { key },
        }
    }

    /// Its text for `parse-credentials`, with what could not be read (origin and
    /// why); `None` when nothing of it exists.
    pub(super) fn text(&self, lookup: &Lookup) -> (Option<String>, Vec<(PathBuf, String)>) {
        match self {
            Read::One(origin) => match origin.read(lookup) {
                Ok(None) => (None, Vec::new()),
                Ok(Some(Found::Text(text))) => (Some(text), Vec::new()),
                Ok(Some(Found::Folder)) => {
                    let message = "cannot read: a folder, not a file".to_owned();
                    (None, vec![(origin.path(), message)])
                }
                Err(message) => (None, vec![(origin.path(), message)]),
            },
            Read::Merged(origins) => {
                let mut texts = Vec::new();
                let mut problems = Vec::new();
                for origin in origins {
                    match origin.read(lookup) {
                        Ok(Some(Found::Text(text))) => texts.push(serde_json::json!({
                            "origin": origin.name(),
                            "text": text,
                        })),
                        Ok(Some(Found::Folder)) => texts.push(serde_json::json!({
                            "origin": origin.name(),
                            "folder": true,
                        })),
                        Ok(None) => {}
                        Err(message) => problems.push((origin.path(), message)),
                    }
                }
                let text = (!texts.is_empty()).then(|| serde_json::Value::from(texts).to_string());
                (text, problems)
            }
        }
    }
}

/// The reads `credential-files` names, in its order (a variable only when it is
/// one of `declared`, the adapter's `credential-env`); the origins marked `merge:`
/// make one read, where the first of them is.
pub(super) fn reads(names: Vec<String>, declared: &[String]) -> Vec<Read> {
    let mut reads = Vec::new();
    let mut merged: Option<usize> = None;
    for name in names {
        let named = name.strip_prefix(MERGE).unwrap_or(&name);
        let Some(origin) = Origin::parse(named, declared) else {
            continue;
        };
        if !name.starts_with(MERGE) {
            reads.push(Read::One(origin));
            continue;
        }
        let at = *merged.get_or_insert_with(|| {
            reads.push(Read::Merged(Vec::new()));
            reads.len() - 1
        });
        if let Read::Merged(origins) = &mut reads[at] {
            origins.push(origin);
        }
    }
    reads
}

fn too_large() -> String {
    format!("larger than {} KiB: not read", MAX_FILE_BYTES >> 10)
}

/// A credential file's text, or that it is a folder; `None` when it does not
/// exist; why it cannot be read otherwise (too large, unreadable, not UTF-8).
fn read_small(path: &Path) -> Result<Option<Found>, String> {
    use std::io::Read;
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(error)
            if matches!(
                error.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None)
        }
        Err(error) => return Err(format!("cannot read: {error}")),
    };
    if file.metadata().is_ok_and(|metadata| metadata.is_dir()) {
        return Ok(Some(Found::Folder));
    }
    let mut text = String::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|error| format!("cannot read: {error}"))?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large());
    }
    Ok(Some(Found::Text(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_there_with_no_text_and_a_merged_read_says_so() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_small(dir.path()), Ok(Some(Found::Folder)));
        assert_eq!(read_small(&dir.path().join("absent")), Ok(None));
        std::fs::write(dir.path().join("file"), "text").unwrap();
        let text = Found::Text("text".into());
        assert_eq!(read_small(&dir.path().join("file")), Ok(Some(text)));
        let lookup = Lookup::new(Vec::new());
        let origins = ["", "/absent", "/file"]
            .map(|name| Origin::File(PathBuf::from(format!("{}{name}", dir.path().display()))));
        let (text, problems) = Read::Merged(origins.to_vec()).text(&lookup);
        assert!(problems.is_empty(), "{problems:?}");
        let places: serde_json::Value = serde_json::from_str(&text.unwrap()).unwrap();
        assert_eq!(places[0]["folder"], true);
        assert_eq!(places[1]["text"], "text");
        let (text, problems) = Read::One(origins[0].clone()).text(&lookup);
        assert_eq!(text, None);
        assert!(problems[0].1.contains("a folder"), "{problems:?}");
    }

    #[test]
    fn merged_origins_make_one_read_where_the_first_is() {
        let names = [
            "merge:env:CONTENT",
            "/auth.json",
            "merge:/p/opencode.json",
            "relative.json",
            "merge:relative.json",
            "env:OTHER",
            "env:AGENTPLEX_TOKEN",
            "/proc/self/environ",
            "merge:/proc/1/environ",
        ]
        .map(str::to_owned);
        let declared = ["CONTENT", "OTHER"].map(str::to_owned);
        assert_eq!(
            reads(names.into(), &declared),
            [
                Read::Merged(vec![
                    Origin::Text("CONTENT".into()),
                    Origin::File("/p/opencode.json".into())
                ]),
                Read::One(Origin::File("/auth.json".into())),
                Read::One(Origin::Text("OTHER".into())),
            ]
        );
    }
}
