//! Finding and reading an agent's credentials (for `credential-files` and
//! `parse-credentials`): where its files are, and what JSON or dotenv files hold.
//!
//! The host reads only the files an adapter names, passes their text to
//! `parse-credentials`, and redacts every value it shows. Problems (a file that is
//! not JSON, a field of the wrong type) are reported to the user, so they never
//! contain a value.

use std::path::PathBuf;

use serde_json::Value;

use crate::types::{
    CredentialKind, CredentialRead, CredentialValue, CredentialVariable, FoundCredential,
};

/// Where an agent's files are: the home folder and the variables of
/// `AdapterInfo::location_env` that are set, as `credential-files` receives them.
#[derive(Debug, Clone, Default)]
pub struct Locations {
    home: Option<PathBuf>,
    env: Vec<(String, String)>,
}

impl Locations {
    /// From the arguments of `credential-files`.
    pub fn new(home: Option<String>, env: Vec<(String, String)>) -> Self {
        Self {
            home: home.filter(|home| !home.is_empty()).map(PathBuf::from),
            env,
        }
    }

    /// A variable's value, when it is set and not empty.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.env
            .iter()
            .find(|(n, value)| n == name && !value.is_empty())
            .map(|(_, value)| value.as_str())
    }

    /// The folder a variable names, when it is set.
    pub fn dir(&self, variable: &str) -> Option<PathBuf> {
        self.var(variable).map(PathBuf::from)
    }

    /// The home folder.
    pub fn home(&self) -> Option<PathBuf> {
        self.home.clone()
    }

    /// A path under the home folder.
    pub fn under_home(&self, relative: &str) -> Option<PathBuf> {
        self.home.as_ref().map(|home| home.join(relative))
    }

    /// `$XDG_DATA_HOME`, else `~/.local/share`.
    pub fn data_home(&self) -> Option<PathBuf> {
        self.dir("XDG_DATA_HOME")
            .or_else(|| self.under_home(".local/share"))
    }

    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    pub fn config_home(&self) -> Option<PathBuf> {
        self.dir("XDG_CONFIG_HOME")
            .or_else(|| self.under_home(".config"))
    }
}

/// The agent's credential files, as plain data the adapter gives in
/// [`crate::Adapter::CREDENTIALS`]; the adapter's `credential-files` and
/// `parse-credentials` then use it.
#[derive(Debug, Clone, Copy)]
pub struct CredentialFiles {
    /// The files the agent may keep credentials in, at these locations.
    pub files: fn(&Locations) -> Vec<String>,
    /// The credentials in one of them: its path and its text.
    pub parse: fn(&str, &str) -> CredentialRead,
}

/// Variables that each carry a provider's API key: `[("OPENAI_API_KEY", "openai")]`.
pub fn api_keys(variables: &[(&str, &str)]) -> Vec<CredentialVariable> {
    of_kind(CredentialKind::ApiKey, variables)
}

/// Variables that each carry a setting of a provider (an endpoint, a model), not a
/// secret: `[("OPENAI_BASE_URL", "openai")]`.
pub fn settings(variables: &[(&str, &str)]) -> Vec<CredentialVariable> {
    of_kind(CredentialKind::Setting, variables)
}

/// Variables (name, provider) that each carry a credential of `kind`.
fn of_kind(kind: CredentialKind, variables: &[(&str, &str)]) -> Vec<CredentialVariable> {
    variables
        .iter()
        .map(|(name, provider)| CredentialVariable::new(name, provider, kind))
        .collect()
}

/// The name of a dotenv file agents read keys from.
pub const DOTENV: &str = ".env";

/// The files of an agent that keeps a dotenv file ([`DOTENV`]) and an OAuth login
/// (`oauth_creds.json`, see [`oauth_creds`]) in folder `dir` (Gemini CLI, Qwen Code).
pub fn dotenv_and_oauth_files(dir: Option<PathBuf>) -> Vec<String> {
    paths([
        dir.as_ref().map(|dir| dir.join(DOTENV)),
        dir.map(|dir| dir.join("oauth_creds.json")),
    ])
}

/// The OAuth login in an `oauth_creds.json` (Google's token file, which Gemini CLI
/// and Qwen Code keep and refresh): its `access_token`, a token of `provider`.
pub fn oauth_creds(text: &str, provider: &str) -> CredentialRead {
    json_file(text, |json, read| {
        read.string(json, &["access_token"], |value| {
            found(
                provider,
                CredentialKind::OauthToken,
                "access_token",
                value,
                None,
            )
        });
    })
}

/// The paths that are known, as `credential-files` returns them.
pub fn paths(paths: impl IntoIterator<Item = Option<PathBuf>>) -> Vec<String> {
    paths
        .into_iter()
        .flatten()
        .map(|path| path.to_string_lossy().into_owned())
        .collect()
}

/// A credential found in a file.
pub fn found(
    provider: &str,
    kind: CredentialKind,
    key: &str,
    value: String,
    env: Option<&str>,
) -> FoundCredential {
    FoundCredential {
        provider: provider.to_owned(),
        kind,
        key: key.to_owned(),
        value: CredentialValue::Literal(value),
        env: env.map(str::to_owned),
    }
}

/// Parses a file that must hold a JSON object and lets `fields` pick the
/// credentials out of it.
pub fn json_file(text: &str, fields: impl FnOnce(&Value, &mut CredentialRead)) -> CredentialRead {
    let mut read = CredentialRead {
        found: Vec::new(),
        problems: Vec::new(),
    };
    match serde_json::from_str::<Value>(text) {
        Ok(json) if json.is_object() => fields(&json, &mut read),
        Ok(_) => read.problems.push("not a JSON object".into()),
        Err(error) => read.problems.push(format!("not valid JSON: {error}")),
    }
    read
}

/// [`json_file`] for a file the agent reads as JSON with comments and trailing
/// commas ([`crate::jsonc`]).
pub fn jsonc_file(text: &str, fields: impl FnOnce(&Value, &mut CredentialRead)) -> CredentialRead {
    json_file(&crate::jsonc::to_json(text), fields)
}

/// The `NAME=value` pairs of a dotenv file that have a value, or why it is not
/// one. Understands what agents' dotenv readers do: `#` comments, an `export `
/// prefix, unquoted values (up to a ` #` comment), single-quoted values taken as
/// they are, and double-quoted ones with `\n`, `\"` and `\\` escapes, which may
/// span lines.
pub fn dotenv(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((number, line)) = lines.next() {
        let line = line.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let bad = |why: &str| format!("not a valid dotenv file: line {}: {why}", number + 1);
        let (name, rest) = line.split_once('=').ok_or_else(|| bad("no `=`"))?;
        let name = name.trim();
        let valid_name = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
        if !valid_name {
            return Err(bad("not a variable name"));
        }
        let rest = rest.trim_start();
        let value = match rest.chars().next() {
            Some(quote @ ('\'' | '"')) => {
                let mut quoted = rest[1..].to_owned();
                while !closes(&quoted, quote) {
                    let (_, next) = lines.next().ok_or_else(|| bad("unterminated quote"))?;
                    quoted.push('\n');
                    quoted.push_str(next);
                }
                let end = closing_quote(&quoted, quote).unwrap_or(quoted.len());
                if quote == '"' {
                    unescape(&quoted[..end])
                } else {
                    quoted[..end].to_owned()
                }
            }
            _ => rest
                .split(" #")
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned(),
        };
        if !value.is_empty() {
            pairs.push((name.to_owned(), value));
        }
    }
    Ok(pairs)
}

/// Whether `text` (after an opening quote) holds the closing `quote`.
fn closes(text: &str, quote: char) -> bool {
    closing_quote(text, quote).is_some()
}

/// Where the closing `quote` is in `text` (after the opening one); a double quote
/// escaped with a backslash does not close.
fn closing_quote(text: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        match c {
            '\\' if quote == '"' && !escaped => escaped = true,
            c if c == quote && !escaped => return Some(at),
            _ => escaped = false,
        }
    }
    None
}

/// A double-quoted value's escapes resolved.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// The API keys of a dotenv file: the variables of `keys` that it sets, each a
/// `provider` key the agent reads from the variable of that name.
pub fn dotenv_keys(text: &str, provider: &str, keys: &[&str]) -> CredentialRead {
    let mut read = CredentialRead {
        found: Vec::new(),
        problems: Vec::new(),
    };
    match dotenv(text) {
        Ok(pairs) => read.found.extend(
            pairs
                .into_iter()
                .filter(|(name, _)| keys.contains(&name.as_str()))
                .map(|(name, value)| {
                    found(provider, CredentialKind::ApiKey, &name, value, Some(&name))
                }),
        ),
        Err(problem) => read.problems.push(problem),
    }
    read
}

/// Picking credentials out of a JSON document.
pub trait JsonFields {
    /// The string at `path` under `json`, made into a credential; nothing when it
    /// is absent, null or empty; a problem when it is something else.
    fn string(
        &mut self,
        json: &Value,
        path: &[&str],
        found: impl FnOnce(String) -> FoundCredential,
    );

    /// The members of the JSON object `json` (named `what` in the problem reported
    /// when it is something else).
    fn entries<'a>(&mut self, json: &'a Value, what: &str) -> Vec<(&'a String, &'a Value)>;
}

impl JsonFields for CredentialRead {
    fn string(
        &mut self,
        json: &Value,
        path: &[&str],
        found: impl FnOnce(String) -> FoundCredential,
    ) {
        let mut value = json;
        for (depth, name) in path.iter().enumerate() {
            match value.get(name) {
                None | Some(Value::Null) => return,
                Some(inner) if depth + 1 < path.len() && !inner.is_object() => {
                    self.problems
                        .push(format!("`{}` is not an object", path[..=depth].join(".")));
                    return;
                }
                Some(inner) => value = inner,
            }
        }
        match value {
            Value::String(text) if text.is_empty() => {}
            Value::String(text) => self.found.push(found(text.clone())),
            _ => self
                .problems
                .push(format!("`{}` is not a string", path.join("."))),
        }
    }

    fn entries<'a>(&mut self, json: &'a Value, what: &str) -> Vec<(&'a String, &'a Value)> {
        let Some(object) = json.as_object() else {
            self.problems.push(format!("`{what}` is not an object"));
            return Vec::new();
        };
        object.iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_of_a_json_file() {
        let read = json_file(r#"{"a":{"b":"secret"},"c":3,"d":""}"#, |json, read| {
            for path in [
                &["a", "b"][..],
                &["c"],
                &["d"],
                &["a", "b", "x"],
                &["missing"],
            ] {
                read.string(json, path, |value| {
                    found("p", CredentialKind::ApiKey, &path.join("."), value, None)
                });
            }
        });
        assert_eq!(read.found.len(), 1);
        assert_eq!(
            read.found[0].value,
            CredentialValue::Literal("secret".into())
        );
        assert_eq!(
            read.problems,
            ["`c` is not a string", "`a.b` is not an object"]
        );
        assert!(!format!("{:?}", read.problems).contains("secret"));
        assert_eq!(json_file("[1]", |_, _| {}).problems, ["not a JSON object"]);
        assert!(json_file("{", |_, _| {}).problems[0].starts_with("not valid JSON"));
    }

    #[test]
    fn dotenv_pairs_and_locations() {
        let pairs = |text: &str| dotenv(text).unwrap();
        let pair = |name: &str, value: &str| (name.to_owned(), value.to_owned());
        assert_eq!(
            pairs("A=1\n# note\nB=\nexport C=\"x y\"\n"),
            [pair("A", "1"), pair("C", "x y")]
        );
        assert_eq!(
            pairs("K=v # comment\nS='a \\n #b'\nD=\"l1\\n\\\"q\\\"\"\nM=\"one\ntwo\"\n"),
            [
                pair("K", "v"),
                pair("S", "a \\n #b"),
                pair("D", "l1\n\"q\""),
                pair("M", "one\ntwo")
            ]
        );
        assert!(dotenv("A='unterminated\n")
            .unwrap_err()
            .contains("line 1: unterminated"));
        assert!(dotenv("x\nnot a pair\n")
            .unwrap_err()
            .contains("line 1: no `=`"));
        assert!(dotenv("A B=1").unwrap_err().contains("not a variable name"));
        let at = Locations::new(
            Some("/h".into()),
            vec![("X".into(), "/x".into()), ("E".into(), String::new())],
        );
        assert_eq!(at.dir("X"), Some(PathBuf::from("/x")));
        assert_eq!(at.dir("E"), None);
        assert_eq!(at.data_home(), Some(PathBuf::from("/h/.local/share")));
        assert_eq!(at.config_home(), Some(PathBuf::from("/h/.config")));
        assert_eq!(paths([at.under_home(".a"), None]), ["/h/.a"]);
    }
}
