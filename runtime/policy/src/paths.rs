//! Paths: a request's made absolute and its `.` and `..` resolved without
//! touching the file system; a rule's glob matched inside the session's
//! directory, the home, or from the root.

use std::path::{Component, Path, PathBuf};

use globset::GlobMatcher;

use crate::error::PolicyError;
use crate::rules::glob;

/// Where a path glob is matched from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    /// The root: the glob is absolute.
    Root,
    /// The session's directory: the glob is relative.
    Directory,
    /// The home: the glob starts `~/`.
    Home,
}

/// A rule's `path` glob.
#[derive(Debug, Clone)]
pub(crate) struct PathGlob {
    base: Base,
    glob: GlobMatcher,
}

impl PathGlob {
    /// The glob `text` (`place` names it in errors), its `.` and `..` resolved.
    pub fn read(text: &str, place: &str) -> Result<Self, PolicyError> {
        let (base, rest) = if let Some(rest) = text.strip_prefix("~/") {
            (Base::Home, rest)
        } else if text == "~" {
            (Base::Home, "")
        } else if let Some(rest) = text.strip_prefix('/') {
            (Base::Root, rest)
        } else {
            (Base::Directory, text)
        };
        let mut segments: Vec<&str> = Vec::new();
        for segment in rest.split('/') {
            match segment {
                "" | "." => {}
                ".." => match segments.last() {
                    Some(last) if is_wild(last) => {
                        return Err(PolicyError::invalid(
                            place,
                            "cannot be resolved: `..` follows a wildcard",
                        ))
                    }
                    Some(_) => {
                        segments.pop();
                    }
                    None if base == Base::Root => {}
                    None => {
                        return Err(PolicyError::invalid(
                            place,
                            "cannot match: a relative path is matched inside the session's \
                             directory (or the home, for ~/); give an absolute path",
                        ))
                    }
                },
                segment => segments.push(segment),
            }
        }
        let joined = segments.join("/");
        let text = match base {
            Base::Root => format!("/{joined}"),
            Base::Directory | Base::Home => joined,
        };
        Ok(Self {
            base,
            glob: glob(&text, true, place)?,
        })
    }

    /// Whether the absolute, normalized `path` matches, for a session in
    /// `directory` whose home is `home`.
    pub fn matches(&self, path: &Path, directory: &Path, home: Option<&Path>) -> bool {
        let inside = |base: &Path| {
            path.strip_prefix(normalize(base))
                .is_ok_and(|relative| self.glob.is_match(relative))
        };
        match self.base {
            Base::Root => self.glob.is_match(path),
            Base::Directory => inside(directory),
            Base::Home => home.is_some_and(inside),
        }
    }
}

/// Whether a glob's segment has a wildcard.
fn is_wild(segment: &str) -> bool {
    segment.contains(['*', '?', '[', '{'])
}

/// `path` (as a request gives it) made absolute from `directory` (`~/` from
/// `home`), its `.` and `..` resolved.
pub(crate) fn absolute(path: &str, directory: &Path, home: Option<&Path>) -> PathBuf {
    let joined = match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => directory.join(path),
    };
    normalize(&joined)
}

/// `path` with its `.` and `..` resolved (`..` stops at the root).
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other.as_os_str()),
        }
    }
    normal
}
