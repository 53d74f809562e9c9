//! Agent credentials: API keys and tokens from the environment and from each
//! agent's own config files (docs/credentials.md has the table).
//!
//! The adapter's `credential-env` names the variables an agent reads. A session's
//! processes get those that are set, then a key found only in one of the agent's
//! files as the variable the agent reads for it; never another agent's variables
//! (see [`foreign_variables`]). OAuth logins stay in their files: the agent reads
//! and refreshes them itself.

mod files;
mod secret;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use secret::Secret;

/// What a credential is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A provider's API key.
    ApiKey,
    /// An OAuth access token: a login, or a long-lived token made for scripts.
    OauthToken,
    /// Another bearer token.
    Token,
    /// A shell command the agent runs to get its key (Pi's `"!command"`); never run here.
    Command,
    /// A variable the adapter lists among its credentials that is no secret (a base URL).
    Setting,
}

/// Where a credential was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Source {
    /// An environment variable.
    Env {
        /// The variable's name.
        variable: String,
    },
    /// A field of a file.
    File {
        /// The file.
        path: PathBuf,
        /// The field: a dotted JSON path, or a variable of a dotenv file.
        key: String,
    },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Env { variable } => write!(f, "env {variable}"),
            Source::File { path, key } => write!(f, "file {} ({key})", path.display()),
        }
    }
}

/// One credential of one agent.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Credential {
    /// The agent id.
    pub agent: String,
    /// Whose credential it is (`anthropic`, `openai`, `google`, `amp`...).
    pub provider: String,
    /// What it is.
    pub kind: Kind,
    /// Where it was found.
    pub source: Source,
    /// The value (redacted whenever shown).
    pub value: Secret,
    /// The variable a session's processes get it in; `None` when the agent reads it
    /// from its own file only, or an earlier credential already sets that variable.
    pub passed_as: Option<String>,
}

impl fmt::Display for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {:?} from {}: {}",
            self.agent, self.provider, self.kind, self.source, self.value
        )
    }
}

/// A config file that exists but could not be used, or only in part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// The agent id.
    pub agent: String,
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            self.agent,
            self.path.display(),
            self.message
        )
    }
}

/// The credentials found for an agent, in precedence order, and the files that
/// could not be read.
#[derive(Debug, Default)]
pub struct Scan {
    /// Environment variables first (in the adapter's order), then files.
    pub credentials: Vec<Credential>,
    /// Unreadable or malformed files.
    pub warnings: Vec<Warning>,
}

impl Scan {
    /// Whether any credential was found (settings such as a base URL do not count).
    pub fn available(&self) -> bool {
        self.credentials.iter().any(|c| c.kind != Kind::Setting)
    }

    /// The variables a session's processes get.
    pub fn session_env(&self) -> Vec<(String, String)> {
        self.credentials
            .iter()
            .filter_map(|c| {
                c.passed_as
                    .clone()
                    .map(|name| (name, c.value.expose().to_owned()))
            })
            .collect()
    }
}

/// Where credentials are looked up: an environment and a home folder.
#[derive(Debug, Clone)]
pub struct Lookup {
    env: BTreeMap<String, String>,
    home: Option<PathBuf>,
    /// Whether the agents' folder variables (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`,
    /// `XDG_DATA_HOME`, `PI_CODING_AGENT_DIR`, `GEMINI_CLI_HOME`) move their files.
    agent_dir_vars: bool,
}

impl Lookup {
    /// This process's environment; the home is its `HOME`, and the agents' folder
    /// variables are honored as the agents honor them.
    pub fn from_process() -> Self {
        Self::new(std::env::vars_os().filter_map(|(name, value)| {
            Some((name.into_string().ok()?, value.into_string().ok()?))
        }))
    }

    /// An environment; the home is its `HOME`.
    pub fn new(env: impl IntoIterator<Item = (String, String)>) -> Self {
        let env: BTreeMap<String, String> = env.into_iter().collect();
        let home = env
            .get("HOME")
            .filter(|home| !home.is_empty())
            .map(PathBuf::from);
        Self {
            env,
            home,
            agent_dir_vars: true,
        }
    }

    /// Looks for files under `home` instead, at the agents' default places only
    /// (their folder variables are ignored).
    pub fn with_home(mut self, home: PathBuf) -> Self {
        self.home = Some(home);
        self.agent_dir_vars = false;
        self
    }

    /// A variable's value when it is set and not empty.
    fn var(&self, name: &str) -> Option<&str> {
        self.env
            .get(name)
            .map(String::as_str)
            .filter(|value| !value.is_empty())
    }

    /// A folder an agent's variable points at, when those are honored.
    fn agent_dir(&self, name: &str) -> Option<PathBuf> {
        self.agent_dir_vars
            .then(|| self.var(name).map(PathBuf::from))
            .flatten()
    }

    /// A path under the home folder.
    fn under_home(&self, relative: &str) -> Option<PathBuf> {
        self.home.as_deref().map(|home| home.join(relative))
    }

    /// The home folder.
    fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }
}

/// An agent's credentials: the variables of `credential_env` that are set, then
/// what the agent's config files hold. A file credential is passed to sessions as
/// the variable the agent reads for it when that variable is one of
/// `credential_env` and no earlier credential sets it (the environment wins).
pub fn scan(agent: &str, credential_env: &[String], lookup: &Lookup) -> Scan {
    let mut scan = Scan::default();
    let mut passed = BTreeSet::new();
    for name in credential_env {
        if let Some(value) = lookup.var(name) {
            passed.insert(name.clone());
            scan.credentials.push(Credential {
                agent: agent.to_owned(),
                provider: variable_provider(name),
                kind: variable_kind(name),
                source: Source::Env {
                    variable: name.clone(),
                },
                value: Secret::new(value),
                passed_as: Some(name.clone()),
            });
        }
    }
    for file in files::agent_files(agent, lookup) {
        let text = match std::fs::read_to_string(&file.path) {
            Ok(text) => text,
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                continue
            }
            Err(error) => {
                scan.warnings.push(Warning {
                    agent: agent.to_owned(),
                    path: file.path,
                    message: format!("cannot read: {error}"),
                });
                continue;
            }
        };
        let read = (file.read)(&text, lookup);
        scan.warnings
            .extend(read.problems.into_iter().map(|message| Warning {
                agent: agent.to_owned(),
                path: file.path.clone(),
                message,
            }));
        for found in read.found {
            let passed_as = found
                .env
                .filter(|name| credential_env.contains(name) && passed.insert(name.clone()));
            scan.credentials.push(Credential {
                agent: agent.to_owned(),
                provider: found.provider,
                kind: found.kind,
                source: Source::File {
                    path: file.path.clone(),
                    key: found.key,
                },
                value: Secret::new(found.value),
                passed_as,
            });
        }
    }
    scan
}

/// The config files an agent's credentials are read from (they may not exist).
pub fn files_of(agent: &str, lookup: &Lookup) -> Vec<PathBuf> {
    files::agent_files(agent, lookup)
        .into_iter()
        .map(|file| file.path)
        .collect()
}

/// The credential variables of every other agent that an agent's processes must
/// not inherit from the daemon's environment: those of `every_agent` not in `own`.
pub fn foreign_variables<'a>(
    own: &[String],
    every_agent: impl IntoIterator<Item = &'a [String]>,
) -> Vec<String> {
    every_agent
        .into_iter()
        .flatten()
        .filter(|name| !own.contains(name))
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// The provider a credential variable belongs to, from its name.
fn variable_provider(name: &str) -> String {
    let first = name.split('_').next().unwrap_or(name);
    match first {
        "ANTHROPIC" | "CLAUDE" => "anthropic".to_owned(),
        "OPENAI" | "CODEX" => "openai".to_owned(),
        "GEMINI" | "GOOGLE" => "google".to_owned(),
        other => other.to_lowercase(),
    }
}

/// What a credential variable holds, from its name.
fn variable_kind(name: &str) -> Kind {
    if name.contains("OAUTH") {
        Kind::OauthToken
    } else if name.ends_with("_KEY") {
        Kind::ApiKey
    } else if name.ends_with("_TOKEN") {
        Kind::Token
    } else {
        Kind::Setting
    }
}
