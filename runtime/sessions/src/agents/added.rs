//! Agents added from the ACP registry (`POST /v1/registry/{id}`, `agentplex agents
//! add ID`): each is its registry entry, kept at
//! `<install dir>/acp-registry/agents/<id>.json`, and an agent of the adapter
//! registry defined on top of the generic ACP adapter ([`GENERIC_ACP_ADAPTER`]):
//! no code of its own, no rebuild. Its install is the entry's
//! ([`Installer::install_entry`](agentplex_install::Installer::install_entry)).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentplex_host::{
    AdapterRegistry, AgentDefinition, CredentialKind, CredentialVariable, LoadedAdapter,
};
use agentplex_install::registry::{Entry, Listing, Registry};
use agentplex_install::{Follow, InstallRequest, InstallSettings};
use serde::{Deserialize, Serialize};

use super::AgentCatalog;
use crate::SessionError;

/// The adapter that runs every registry agent (`adapters/acp-generic`). It is
/// not an agent itself: it is not listed and runs no session under its own id.
pub const GENERIC_ACP_ADAPTER: &str = "acp-generic";

/// A registry agent as kept: the entry it was added from, and the version
/// installed (none until its install succeeds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Added {
    /// The registry's entry.
    pub entry: Entry,
    /// The version installed from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installed_version: Option<String>,
    /// Variables of the daemon's environment its processes are given (its API
    /// key, its base URL): the registry names none, and an agent is given no
    /// other agent's credentials unless they are named here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
}

/// The registry and the agents added from it.
pub(super) struct AddedAgents {
    registry: Registry,
    /// Where added agents are kept, one file each.
    dir: PathBuf,
    added: std::sync::Mutex<BTreeMap<String, Added>>,
}

impl AddedAgents {
    /// The agents added earlier (defined again in `adapters`), and the registry
    /// `install` reads.
    pub(super) fn load(adapters: &AdapterRegistry, install: &InstallSettings) -> Self {
        let root = install.dir.join("acp-registry");
        let dir = root.join("agents");
        let registry = Registry::new(
            install.acp_registry.clone(),
            root.join("index.json"),
            install.mirror.clone(),
        );
        let mut added = BTreeMap::new();
        for (path, kept) in read_kept(&dir) {
            match kept {
                Ok(kept) => match define(adapters, &kept) {
                    Ok(()) => {
                        added.insert(kept.entry.id.clone(), kept);
                    }
                    Err(error) => {
                        tracing::warn!(path = %path.display(), %error, "registry agent not defined")
                    }
                },
                Err(error) => {
                    tracing::warn!(path = %path.display(), %error, "unreadable registry agent")
                }
            }
        }
        Self {
            registry,
            dir,
            added: std::sync::Mutex::new(added),
        }
    }

    /// The agent added with this id.
    pub(super) fn get(&self, id: &str) -> Option<Added> {
        self.added.lock().unwrap().get(id).cloned()
    }

    /// Keeps `added` (written aside, then renamed).
    fn keep(&self, added: &Added) -> Result<(), SessionError> {
        let io = |what: &str, source| SessionError::Io {
            what: format!("{what} {}", self.dir.display()),
            source,
        };
        std::fs::create_dir_all(&self.dir).map_err(|e| io("creating", e))?;
        let path = self.dir.join(format!("{}.json", added.entry.id));
        let partial = path.with_extension("partial");
        let text =
            serde_json::to_vec_pretty(added).map_err(|e| SessionError::Internal(e.to_string()))?;
        std::fs::write(&partial, text)
            .and_then(|()| std::fs::rename(&partial, &path))
            .map_err(|e| io("writing", e))?;
        self.added
            .lock()
            .unwrap()
            .insert(added.entry.id.clone(), added.clone());
        Ok(())
    }
}

/// Defines the added agent on top of the generic ACP adapter.
fn define(adapters: &AdapterRegistry, added: &Added) -> Result<(), agentplex_host::HostError> {
    let definition = AgentDefinition {
        id: added.entry.id.clone(),
        name: added.entry.name.clone(),
        credential_env: added
            .env
            .iter()
            .map(|name| credential(&added.entry.id, name))
            .collect(),
    };
    adapters.define(GENERIC_ACP_ADAPTER, &definition).map(drop)
}

/// A variable an added agent is given: a secret unless its name says it is a
/// setting (a base URL, a model, a home folder).
fn credential(agent: &str, name: &str) -> CredentialVariable {
    const SETTINGS: &[&str] = &[
        "_URL", "_BASE", "_HOST", "_MODEL", "_HOME", "_DIR", "_REGION",
    ];
    let setting = SETTINGS.iter().any(|end| name.ends_with(end));
    CredentialVariable {
        name: name.to_owned(),
        provider: agent.to_owned(),
        kind: if setting {
            CredentialKind::Setting
        } else {
            CredentialKind::ApiKey
        },
    }
}

/// Whether `name` can be an environment variable passed on.
pub fn valid_variable(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Every kept agent file of `dir`, read.
fn read_kept(dir: &Path) -> Vec<(PathBuf, Result<Added, String>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let kept = std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|bytes| serde_json::from_slice(&bytes).map_err(|e| e.to_string()));
            (path, kept)
        })
        .collect()
}

impl AgentCatalog {
    /// The ACP registry's index (fetched anew with `refresh`), with which of its
    /// agents are added here.
    pub async fn registry_listing(
        &self,
        refresh: bool,
    ) -> Result<(Listing, Vec<String>), SessionError> {
        let listing = self
            .added
            .registry
            .listing(refresh)
            .await
            .map_err(|error| SessionError::RegistryUnavailable(error.to_string()))?;
        let added = self.added.added.lock().unwrap().keys().cloned().collect();
        Ok((listing, added))
    }

    /// Adds the registry's agent `id` (the entry the registry lists now) and
    /// installs it: after this it is one of the daemon's agents, sessions and all.
    /// Adding it again takes the registry's entry anew (a new version installs).
    /// `env` names the variables of the daemon's environment its processes get.
    pub async fn add_from_registry(
        self: &Arc<Self>,
        id: &str,
        env: Vec<String>,
        reinstall: bool,
    ) -> Result<Follow, SessionError> {
        if let Some(name) = env.iter().find(|name| !valid_variable(name)) {
            return Err(SessionError::InvalidRequest(format!(
                "env: {name:?} is not a variable name"
            )));
        }
        let (listing, _) = self.registry_listing(false).await?;
        let entry = listing
            .index
            .get(id)
            .cloned()
            .ok_or_else(|| SessionError::NotInRegistry {
                agent: id.to_owned(),
            })?;
        let taken = self
            .registry
            .get(id)
            .is_some_and(|adapter| adapter.base().is_none());
        if taken || id == GENERIC_ACP_ADAPTER {
            return Err(SessionError::AgentIdTaken {
                agent: id.to_owned(),
            });
        }
        let settings = self.installer.settings();
        if entry
            .distributions(&settings.platform, settings.source)
            .is_empty()
        {
            return Err(SessionError::NotConfigured(format!(
                "the ACP registry lists {} for {id}: nothing this daemon installs on {} with --install-source {}",
                entry.kinds().join(", "),
                agentplex_install::registry::index::platform_name(&settings.platform),
                settings.source.name(),
            )));
        }
        let installed_version = self
            .added
            .get(id)
            .filter(|added| added.entry == entry)
            .and_then(|added| added.installed_version);
        let added = Added {
            entry,
            installed_version,
            env,
        };
        define(&self.registry, &added)
            .map_err(|error| SessionError::Internal(error.to_string()))?;
        self.added.keep(&added)?;
        self.adapters_changed();
        self.install(
            id,
            InstallRequest {
                version: None,
                reinstall,
            },
        )
        .await
    }

    /// The registry agent `adapter` was added as, if it was.
    pub(super) fn added_entry(&self, adapter: &LoadedAdapter) -> Option<Added> {
        adapter.base()?;
        self.added.get(adapter.id())
    }

    /// Records the version installed for a registry agent.
    pub(super) fn installed_from_registry(&self, id: &str, version: &str) {
        let Some(mut added) = self.added.get(id) else {
            return;
        };
        added.installed_version = Some(version.to_owned());
        if let Err(error) = self.added.keep(&added) {
            tracing::warn!(agent = id, %error, "cannot record the installed version");
        }
    }
}
