//! The registry's index (`registry.json`: `{version, agents: [...]}`) and what
//! one agent's entry says: who it is and how to install and start it.

use std::collections::BTreeMap;

use agentplex_host::{Arch, Os, Platform};
use serde::{Deserialize, Serialize};

use crate::SourcePreference;

/// The registry's index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Index {
    /// The index format's version (`1.0.0`).
    pub version: String,
    /// The agents, in the registry's order.
    pub agents: Vec<Entry>,
}

/// Why a document is not a registry index.
#[derive(Debug, Clone, thiserror::Error)]
pub enum IndexError {
    /// Not JSON of the index's shape.
    #[error("not an ACP registry index: {0}")]
    Shape(String),
    /// An entry that cannot be an agent id here.
    #[error("the registry lists an invalid agent id {0:?}")]
    InvalidId(String),
}

impl Index {
    /// Reads an index, checking every agent id.
    pub fn parse(text: &str) -> Result<Self, IndexError> {
        let index: Index =
            serde_json::from_str(text).map_err(|e| IndexError::Shape(e.to_string()))?;
        if let Some(entry) = index.agents.iter().find(|entry| !valid_id(&entry.id)) {
            return Err(IndexError::InvalidId(entry.id.clone()));
        }
        Ok(index)
    }

    /// The agent with this id.
    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.agents.iter().find(|entry| entry.id == id)
    }
}

/// The registry's id rule (`^[a-z][a-z0-9-]*$`), which also keeps an id usable
/// as a file name in the install folder.
fn valid_id(id: &str) -> bool {
    id.len() <= 64
        && id.starts_with(|c: char| c.is_ascii_lowercase())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// One agent of the registry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Its id (`some-agent`).
    pub id: String,
    /// Its name for people.
    pub name: String,
    /// The version the entry installs.
    pub version: String,
    /// One line on what it is.
    #[serde(default)]
    pub description: String,
    /// Its source repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// Its website.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website: Option<String>,
    /// Who makes it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// Its licence (an SPDX id or `proprietary`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// Where to get it.
    pub distribution: Distributions,
}

/// The ways an entry can be installed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Distributions {
    /// Release archives by registry platform (`linux-x86_64`, `darwin-aarch64`...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<BTreeMap<String, Release>>,
    /// An npm package, run as `npx` would.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub npx: Option<Package>,
    /// A PyPI package, run as `uvx` would.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uvx: Option<Package>,
}

/// A package of a package registry (npm or PyPI) and how to start it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Package {
    /// The package, maybe with its version (`@scope/tool@1.2.3`, `tool@1.2.3`).
    pub package: String,
    /// The command of the package to run, when it is not the one named after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmd: Option<String>,
    /// Arguments that make it speak ACP on stdio.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Variables it is started with.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

/// A release archive for one platform and how to start what it holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Release {
    /// The archive's URL (`.tar.gz`, `.tgz` or `.zip`).
    pub archive: String,
    /// The program inside it (`./tool`).
    pub cmd: String,
    /// Arguments that make it speak ACP on stdio.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Variables it is started with.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// The archive's SHA-256, when the registry gives one: the download must match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// One way to install an entry on this machine, in the order they are tried.
#[derive(Debug, Clone, PartialEq)]
pub enum Distribution {
    /// From the npm registry.
    Npm(Package),
    /// From PyPI.
    Pypi(Package),
    /// A release archive.
    Archive(Release),
}

impl Distribution {
    /// Its kind as the registry names it (`npx`, `uvx`, `binary`).
    pub fn kind(&self) -> &'static str {
        match self {
            Distribution::Npm(_) => "npx",
            Distribution::Pypi(_) => "uvx",
            Distribution::Archive(_) => "binary",
        }
    }

    /// The arguments and variables the agent is started with.
    pub fn launch(&self) -> (&[String], &BTreeMap<String, String>) {
        match self {
            Distribution::Npm(package) | Distribution::Pypi(package) => {
                (&package.args, &package.env)
            }
            Distribution::Archive(release) => (&release.args, &release.env),
        }
    }
}

impl Entry {
    /// The kinds of distribution the entry lists (`npx`, `uvx`, `binary`).
    pub fn kinds(&self) -> Vec<&'static str> {
        let d = &self.distribution;
        [
            d.npx.as_ref().map(|_| "npx"),
            d.uvx.as_ref().map(|_| "uvx"),
            d.binary.as_ref().map(|_| "binary"),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The ways to install it on `platform` that `sources` allows, in the order
    /// they are tried: the npm package, the PyPI package (both from a package
    /// registry, which sandboxes reach most often), then the platform's archive.
    pub fn distributions(
        &self,
        platform: &Platform,
        sources: SourcePreference,
    ) -> Vec<Distribution> {
        let d = &self.distribution;
        let mut found = Vec::new();
        if sources.npm() {
            found.extend(d.npx.clone().map(Distribution::Npm));
            found.extend(d.uvx.clone().map(Distribution::Pypi));
        }
        if sources.releases() {
            let release = d
                .binary
                .as_ref()
                .and_then(|binaries| binaries.get(&platform_name(platform)));
            found.extend(release.cloned().map(Distribution::Archive));
        }
        found
    }
}

/// The registry's name for a platform (`linux-x86_64`, `darwin-aarch64`).
pub fn platform_name(platform: &Platform) -> String {
    let os = match platform.os {
        Os::Linux => "linux",
        Os::Macos => "darwin",
        Os::Windows => "windows",
    };
    let arch = match platform.arch {
        Arch::X8664 => "x86_64",
        Arch::Aarch64 => "aarch64",
    };
    format!("{os}-{arch}")
}

#[cfg(test)]
mod tests;
