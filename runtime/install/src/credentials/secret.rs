//! A secret value that never shows itself: its `Display`, `Debug` and JSON forms are
//! redacted (`sk-ant-…abcd`: a short prefix, an ellipsis, the last four characters).

use std::fmt;

use serde::{Serialize, Serializer};

/// Values shorter than this show nothing but the ellipsis.
const MIN_SHOWN_LEN: usize = 24;
/// At most this many leading characters are shown.
const MAX_PREFIX: usize = 8;
/// Without a separator in the first [`MAX_PREFIX`] characters, this many are shown.
const PLAIN_PREFIX: usize = 4;
/// How many trailing characters are shown.
const SUFFIX: usize = 4;

/// A credential's value.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value itself, for the environment of an agent's process.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The redacted form: up to the last `-`, `_` or `.` of the first eight
    /// characters (or the first four), `…`, the last four; only `…` for values shorter than 24 characters.
    pub fn redacted(&self) -> String {
        let chars: Vec<char> = self.0.chars().collect();
        if chars.len() < MIN_SHOWN_LEN {
            return "…".to_owned();
        }
        let head = &chars[..MAX_PREFIX];
        let prefix_len = head
            .iter()
            .rposition(|c| matches!(c, '-' | '_' | '.'))
            .map_or(PLAIN_PREFIX, |i| i + 1);
        let prefix: String = chars[..prefix_len].iter().collect();
        let suffix: String = chars[chars.len() - SUFFIX..].iter().collect();
        format!("{prefix}…{suffix}")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret({})", self.redacted())
    }
}

/// Serializes the redacted form only.
impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.redacted())
    }
}
