//! Agent credentials: API keys and tokens from the environment and from each
//! agent's own config files (docs/credentials.md has the table).
//!
//! The adapter knows where its agent keeps them: its `credential-env` names the
//! variables the agent reads (with their provider and kind), `credential-files`
//! the files, and `parse-credentials` reads a file's text. This module reads only
//! those variables and files, and keeps every value in a [`Secret`]. A session's
//! processes get the variables that are set, then a key found only in one of the
//! agent's files as the variable the agent reads for it; never another agent's
//! variables (see [`foreign_variables`]). OAuth logins stay in their files: the
//! agent reads and refreshes them itself.

mod origin;
mod secret;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use agentplex_host::{CredentialKind, CredentialValue, LoadedAdapter};
use serde::Serialize;

use origin::{Origin, Read};
pub use secret::Secret;

/// The largest credential file read; a larger one is reported, not read.
const MAX_FILE_BYTES: u64 = 1 << 20;

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
    /// A shell command the agent runs to get its key (`"!command"` in some agents'
    /// files); never run here.
    Command,
    /// A variable the adapter lists among its credentials that is no secret (a base URL).
    Setting,
}

impl From<CredentialKind> for Kind {
    fn from(kind: CredentialKind) -> Self {
        match kind {
            CredentialKind::ApiKey => Kind::ApiKey,
            CredentialKind::OauthToken => Kind::OauthToken,
            CredentialKind::Token => Kind::Token,
            CredentialKind::Command => Kind::Command,
            CredentialKind::Setting => Kind::Setting,
        }
    }
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
    /// A field of a variable holding a config file's text.
    Text {
        /// The variable's name.
        variable: String,
        /// The field: a dotted JSON path.
        key: String,
    },
    /// A field of the configuration the agent merges from several files and
    /// variables.
    Merged {
        /// The field, and the file or variable that set it, as the adapter says.
        key: String,
    },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Env { variable } => write!(f, "env {variable}"),
            Source::File { path, key } => write!(f, "file {} ({key})", path.display()),
            Source::Text { variable, key } => write!(f, "env {variable} ({key})"),
            Source::Merged { key } => write!(f, "merged configuration ({key})"),
        }
    }
}

/// One credential of one agent.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Credential {
    /// The agent id.
    pub agent: String,
    /// Whose credential it is: the provider the adapter names.
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
    /// The working directory the agent runs in, given as [`WORKING_DIRECTORY`].
    directory: Option<PathBuf>,
}

/// The `location-env` name an adapter asks for the agent's working directory by
/// (for a project's config files): a session's directory, never the daemon's own.
pub const WORKING_DIRECTORY: &str = "PWD";

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
            directory: None,
        }
    }

    /// The agent runs in `directory` (a session's): the adapter is given it when
    /// it names [`WORKING_DIRECTORY`], to read the project's config files there.
    pub fn in_directory(mut self, directory: impl Into<PathBuf>) -> Self {
        self.directory = Some(directory.into());
        self
    }

    /// The same environment with `overrides` set over it (a session's own
    /// variables: an empty one unsets), its home their `HOME` when they set one.
    pub fn with_overrides(mut self, overrides: &[(String, String)]) -> Self {
        for (name, value) in overrides {
            self.env.insert(name.clone(), value.clone());
            if name == "HOME" {
                self.home = (!value.is_empty()).then(|| PathBuf::from(value));
            }
        }
        self
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

    /// The home folder, as the adapter is given it.
    fn home_text(&self) -> Option<String> {
        self.home
            .as_deref()
            .map(|home| home.to_string_lossy().into_owned())
    }

    /// The set variables among `names` (none when the agents' folder variables are
    /// not honored), [`WORKING_DIRECTORY`] the agent's directory when it is known.
    fn location_env(&self, names: &[String]) -> Vec<(String, String)> {
        names
            .iter()
            .filter_map(|name| {
                let value = if name == WORKING_DIRECTORY {
                    self.directory.as_deref()?.to_string_lossy().into_owned()
                } else if self.agent_dir_vars {
                    self.var(name)?.to_owned()
                } else {
                    return None;
                };
                Some((name.clone(), value))
            })
            .collect()
    }
}

/// An agent's credentials: the variables of its `credential-env` that are set,
/// then what the files it names hold. A file credential is passed to sessions as
/// the variable the agent reads for it when that variable is one of
/// `credential-env` and no earlier credential sets it (the environment wins).
pub fn scan(adapter: &LoadedAdapter, lookup: &Lookup) -> Scan {
    let info = adapter.info();
    let agent = info.id.as_str();
    let variables: Vec<String> = info.credential_env.iter().map(|v| v.name.clone()).collect();
    let mut scan = Scan::default();
    let mut passed = BTreeSet::new();
    for variable in &info.credential_env {
        if let Some(value) = lookup.var(&variable.name) {
            passed.insert(variable.name.clone());
            scan.credentials.push(Credential {
                agent: agent.to_owned(),
                provider: variable.provider.clone(),
                kind: variable.kind.into(),
                source: Source::Env {
                    variable: variable.name.clone(),
                },
                value: Secret::new(value),
                passed_as: Some(variable.name.clone()),
            });
        }
    }
    let warn = |scan: &mut Scan, path: &Path, message: String| {
        scan.warnings.push(Warning {
            agent: agent.to_owned(),
            path: path.to_owned(),
            message,
        })
    };
    let reads = match reads_of(adapter, lookup) {
        Ok(reads) => reads,
        Err(error) => {
            warn(&mut scan, Path::new(""), error.to_string());
            return scan;
        }
    };
    for read in reads {
        let (text, unread) = read.text(lookup);
        for (path, message) in unread {
            warn(&mut scan, &path, message);
        }
        let Some(text) = text else { continue };
        let parsed = match adapter.parse_credentials(&read.name(), &text) {
            Ok(parsed) => parsed,
            Err(error) => {
                let message = format!("the adapter cannot read it: {error}");
                warn(&mut scan, &read.path(), message);
                continue;
            }
        };
        for message in parsed.problems {
            warn(&mut scan, &read.path(), message);
        }
        for found in parsed.found {
            let passed_as = found
                .env
                .filter(|name| variables.contains(name) && passed.insert(name.clone()));
            let value = match found.value {
                CredentialValue::Literal(value) => value,
                CredentialValue::VariableOrLiteral(name) => {
                    lookup.var(&name).map_or(name, str::to_owned)
                }
            };
            scan.credentials.push(Credential {
                agent: agent.to_owned(),
                provider: found.provider,
                kind: found.kind.into(),
                source: read.source(found.key),
                value: Secret::new(value),
                passed_as,
            });
        }
    }
    scan
}

/// The reads of an agent's credentials, as its adapter names them: files (they
/// may not exist; only absolute paths are kept), variables holding a config
/// file's text, and merged sets of those ([`origin`]).
fn reads_of(
    adapter: &LoadedAdapter,
    lookup: &Lookup,
) -> Result<Vec<Read>, agentplex_host::HostError> {
    let info = adapter.info();
    let names = adapter.credential_files(
        lookup.home_text().as_deref(),
        &lookup.location_env(&info.location_env),
    )?;
    let declared: Vec<String> = info.credential_env.iter().map(|v| v.name.clone()).collect();
    Ok(origin::reads(names, &declared))
}

/// The files an agent's credentials are read from (they may not exist).
pub fn files_of(
    adapter: &LoadedAdapter,
    lookup: &Lookup,
) -> Result<Vec<PathBuf>, agentplex_host::HostError> {
    let origins = reads_of(adapter, lookup)?
        .into_iter()
        .flat_map(|read| match read {
            Read::One(origin) => vec![origin],
            Read::Merged(origins) => origins,
        });
    Ok(origins
        .filter_map(|origin| match origin {
            Origin::File(path) => Some(path),
            Origin::Text(_) => None,
        })
        .collect())
}

/// The credential variables of every other agent that an agent's processes must
/// not inherit from the daemon's environment: those of `every_agent` not in `own`.
pub fn foreign_variables(
    own: &[String],
    every_agent: impl IntoIterator<Item = Vec<String>>,
) -> Vec<String> {
    every_agent
        .into_iter()
        .flatten()
        .filter(|name| !own.contains(name))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}
