//! What the daemon knows about each agent: its adapter, whether and where its
//! binary is installed, which version it is, and whether its credentials are set.
//! That status is worked out once and kept until a file behind it changes
//! ([`watch`]).

mod added;
pub mod folder;
mod watch;

pub use added::{Added, GENERIC_ACP_ADAPTER};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use agentplex_api::{
    AgentCapabilities, AgentInfo, AgentModeInfo, AgentModelInfo, ServerStatusInfo,
};
use agentplex_host::{AdapterRegistry, LoadedAdapter};
use futures::FutureExt;
use tokio::sync::watch as signal;

use crate::SessionError;
use agentplex_install::credentials::{self, Lookup, Scan};
use agentplex_install::{
    Done, Follow, InstallOutcome, InstallRequest, InstallSettings, Installed, Installer,
};

/// How long a `--version` probe of an agent binary may take.
const VERSION_PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// Whether an agent is installed, which version, and whether its credentials are there.
#[derive(Debug, Clone)]
struct AgentStatus {
    path: Option<PathBuf>,
    version: Option<String>,
    credentials_available: bool,
}

/// The agents of this daemon.
pub struct AgentCatalog {
    registry: Arc<AdapterRegistry>,
    /// False while the adapters folder is still being loaded.
    loaded: signal::Receiver<bool>,
    installer: Installer,
    /// Probed versions by binary path, valid while the binary's mtime is unchanged.
    versions: Mutex<BTreeMap<PathBuf, (SystemTime, Option<String>)>>,
    /// Each agent's status and the change count it was worked out at.
    statuses: Mutex<BTreeMap<String, (u64, AgentStatus)>>,
    changes: watch::ChangeCounter,
    /// Credential file warnings already logged (each is logged once).
    warned: Mutex<BTreeSet<String>>,
    /// The ACP registry, and the agents added from it.
    added: added::AddedAgents,
}

impl AgentCatalog {
    /// A catalog over the loaded adapters, installing agents as `install` says.
    pub fn new(registry: Arc<AdapterRegistry>, install: InstallSettings) -> Self {
        Self::loading(registry, install, signal::channel(true).1)
    }

    /// A catalog whose registry is still being filled: [`AgentCatalog::loaded`]
    /// waits until `loaded` turns true (or its sender is gone).
    pub fn loading(
        registry: Arc<AdapterRegistry>,
        install: InstallSettings,
        loaded: signal::Receiver<bool>,
    ) -> Self {
        // Watched directly, so changes elsewhere in the data dir are not counted.
        let _ = std::fs::create_dir_all(&install.dir);
        let added = added::AddedAgents::load(&registry, &install);
        Self {
            added,
            registry,
            loaded,
            installer: Installer::new(install),
            versions: Mutex::new(BTreeMap::new()),
            statuses: Mutex::new(BTreeMap::new()),
            changes: watch::ChangeCounter::new(),
            warned: Mutex::new(BTreeSet::new()),
        }
    }

    /// Waits until every adapter of the adapters folder is loaded.
    pub async fn loaded(&self) {
        let mut loaded = self.loaded.clone();
        let _ = loaded.wait_for(|done| *done).await;
    }

    /// How agents are installed.
    pub fn install_settings(&self) -> &InstallSettings {
        self.installer.settings()
    }

    /// Where agent binaries are installed.
    pub fn install_dir(&self) -> &Path {
        &self.installer.settings().dir
    }

    /// The adapter for an agent id (not the generic ACP adapter's own, which is
    /// no agent).
    pub fn adapter(&self, agent: &str) -> Result<Arc<LoadedAdapter>, SessionError> {
        self.registry
            .get(agent)
            .filter(|_| agent != GENERIC_ACP_ADAPTER)
            .ok_or_else(|| SessionError::UnsupportedAgent {
                agent: agent.to_owned(),
            })
    }

    /// Every agent's adapter.
    pub fn adapters(&self) -> Vec<Arc<LoadedAdapter>> {
        let mut adapters = self.registry.list();
        adapters.retain(|adapter| adapter.id() != GENERIC_ACP_ADAPTER);
        adapters
    }

    /// The agent's binary, when it has one and it is installed.
    pub fn binary_path(&self, adapter: &LoadedAdapter) -> Option<PathBuf> {
        if adapter.info().builtin {
            return None;
        }
        let name = adapter
            .install_plan(self.installer.settings().platform, None)
            .ok()
            .flatten()
            .map_or_else(|| adapter.id().to_owned(), |plan| plan.binary_name);
        agentplex_install::locate_program(&name, self.install_dir())
    }

    /// The agent's binary for a new session; fails when a non-builtin agent is missing.
    pub fn require_installed(
        &self,
        adapter: &LoadedAdapter,
    ) -> Result<Option<PathBuf>, SessionError> {
        if adapter.info().builtin {
            return Ok(None);
        }
        match self.binary_path(adapter) {
            Some(path) => Ok(Some(path)),
            None => Err(SessionError::AgentNotInstalled {
                agent: adapter.id().to_owned(),
                detail: format!(
                    "no binary on PATH or in {}; install it with POST /v1/agents/{}/install",
                    self.install_dir().display(),
                    adapter.id()
                ),
            }),
        }
    }

    /// Starts installing an agent, or joins the install of it under way; the
    /// returned [`Follow`] has its progress and its result.
    pub async fn install(
        self: &Arc<Self>,
        agent: &str,
        request: InstallRequest,
    ) -> Result<Follow, SessionError> {
        let adapter = self.adapter(agent)?;
        if let Some(version) = &request.version {
            check_version(version)?;
            if let Some(added) = self.added_entry(&adapter) {
                if *version != added.entry.version {
                    return Err(SessionError::InvalidRequest(format!(
                        "{agent} comes from the ACP registry, which lists version {}; add it again when the registry lists another",
                        added.entry.version
                    )));
                }
            }
        }
        let catalog = self.clone();
        let job_request = request.clone();
        let job = move |progress: Arc<agentplex_install::Progress>| {
            async move { catalog.run_install(&adapter, &job_request, &progress).await }.boxed()
        };
        Ok(self.installer.follow(agent, &request, job).await)
    }

    /// Installs the agent unless the wanted version is there; reports what it did.
    async fn run_install(
        &self,
        adapter: &LoadedAdapter,
        request: &InstallRequest,
        progress: &agentplex_install::Progress,
    ) -> agentplex_install::InstallResult {
        let info = adapter.info();
        let outcome = |path: Option<&Path>, version, already_installed, source| InstallOutcome {
            agent: info.id.clone(),
            version,
            path: path.map(|path| path.display().to_string()),
            already_installed,
            source,
        };
        if info.builtin {
            return Ok(outcome(None, Some(info.version.clone()), true, None));
        }
        let installed = match self.binary_path(adapter) {
            Some(path) => Some(Installed {
                version: self.version(adapter, &path).await,
                path,
            }),
            None => None,
        };
        let done = match self.added_entry(adapter) {
            Some(added) => {
                let current = installed.filter(|installed| {
                    !request.reinstall && installed.version.as_ref() == Some(&added.entry.version)
                });
                match current {
                    Some(installed) => Done::AlreadyInstalled(installed),
                    None => self.installer.install_entry(&added.entry, progress).await?,
                }
            }
            None => {
                self.installer
                    .install(adapter, request, installed, progress)
                    .await?
            }
        };
        match done {
            Done::AlreadyInstalled(installed) => {
                tracing::info!(agent = %info.id, path = %installed.path.display(), version = ?installed.version, "already installed");
                Ok(outcome(
                    Some(&installed.path),
                    installed.version,
                    true,
                    None,
                ))
            }
            Done::Placed {
                path,
                version,
                source,
            } => {
                self.versions.lock().unwrap().remove(&path);
                if let Some(version) = version.as_deref().filter(|_| adapter.base().is_some()) {
                    self.installed_from_registry(&info.id, version);
                }
                self.changes.bump();
                let version = self.version(adapter, &path).await.or(version);
                tracing::info!(agent = %info.id, path = %path.display(), ?version, %source, "installed");
                Ok(outcome(Some(&path), version, false, Some(source)))
            }
        }
    }

    /// Before a session starts: installs the agent when it is missing or is not the
    /// `version` asked for, unless installing on create is off (`--no-install`).
    pub async fn ensure_installed(
        self: &Arc<Self>,
        adapter: &LoadedAdapter,
        version: Option<&str>,
    ) -> Result<(), SessionError> {
        if adapter.info().builtin {
            return Ok(());
        }
        let missing = match (self.binary_path(adapter), version) {
            (None, _) => "no binary on PATH or in the install dir".to_owned(),
            (Some(path), Some(wanted)) => match self.version(adapter, &path).await {
                Some(found) if found == wanted => return Ok(()),
                found => format!(
                    "version {wanted} is not installed ({} has {})",
                    path.display(),
                    found.as_deref().unwrap_or("an unknown version")
                ),
            },
            (Some(_), None) => return Ok(()),
        };
        if !self.installer.settings().on_create {
            return Err(SessionError::AgentNotInstalled {
                agent: adapter.id().to_owned(),
                detail: format!(
                    "{missing}, and this daemon does not install agents on session create (--no-install); install it with POST /v1/agents/{}/install",
                    adapter.id()
                ),
            });
        }
        let request = InstallRequest {
            version: version.map(str::to_owned),
            reinstall: false,
        };
        self.install(adapter.id(), request)
            .await?
            .result
            .await
            .map(drop)
            .map_err(|error| install_failed(adapter.id(), &error))
    }

    /// The installed version, probed at most once per binary change.
    /// A registry agent's is the version installed from its entry.
    pub async fn version(&self, adapter: &LoadedAdapter, path: &Path) -> Option<String> {
        if let Some(added) = self.added_entry(adapter) {
            return added.installed_version;
        }
        let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
        if let Some((cached_at, version)) = self.versions.lock().unwrap().get(path) {
            if *cached_at == modified {
                return version.clone();
            }
        }
        let args = adapter.version_args()?;
        let output =
            tokio::time::timeout(VERSION_PROBE_TIMEOUT, version_probe(path, &args).output())
                .await
                .ok()?
                .ok()?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let version = adapter.parse_version(&text).ok().flatten();
        self.versions
            .lock()
            .unwrap()
            .insert(path.to_owned(), (modified, version.clone()));
        version
    }

    /// The agent's credentials, from the daemon's environment and the agent's config
    /// files under the daemon's `HOME` (see docs/credentials.md). Each file problem is
    /// logged once.
    pub fn credentials(&self, adapter: &LoadedAdapter) -> Scan {
        self.scan(adapter, &Lookup::from_process())
    }

    /// The agent's credentials as `lookup` finds them, each file problem logged once.
    fn scan(&self, adapter: &LoadedAdapter, lookup: &Lookup) -> Scan {
        let scan = credentials::scan(adapter, lookup);
        let mut warned = self.warned.lock().unwrap();
        for warning in &scan.warnings {
            if warned.insert(warning.to_string()) {
                tracing::warn!("credentials: {warning}");
            }
        }
        scan
    }

    /// The credential variables the agent's processes get: those of its adapter's
    /// `credential-env` set, then keys found only in its config files, all as the
    /// agent will read them: with `session`, the session's own environment, over
    /// the daemon's (a `HOME` or `CODEX_HOME` it sets moves the files read, a
    /// variable a file names for a key is its value), and in `directory`, the
    /// session's (a project's own config files there are read).
    pub fn credentials_env(
        &self,
        adapter: &LoadedAdapter,
        session: &[(String, String)],
        directory: &Path,
    ) -> Vec<(String, String)> {
        let lookup = Lookup::from_process()
            .with_overrides(session)
            .in_directory(directory);
        self.scan(adapter, &lookup).session_env()
    }

    /// Other agents' credential variables, which the agent's processes must not
    /// inherit from the daemon's environment.
    pub fn foreign_credential_env(&self, agent: &str) -> Vec<String> {
        let adapters = self.registry.list();
        let names = |adapter: &LoadedAdapter| -> Vec<String> {
            adapter
                .info()
                .credential_env
                .iter()
                .map(|variable| variable.name.clone())
                .collect()
        };
        let own = self
            .registry
            .get(agent)
            .map(|a| names(&a))
            .unwrap_or_default();
        credentials::foreign_variables(&own, adapters.iter().map(|adapter| names(adapter)))
    }

    /// The agent's install and credential status: the one worked out earlier
    /// unless a file behind it changed since.
    async fn status(&self, adapter: &LoadedAdapter) -> AgentStatus {
        let info = adapter.info();
        let generation = self.changes.generation();
        if let Some(generation) = generation {
            if let Some((at, status)) = self.statuses.lock().unwrap().get(&info.id) {
                if *at == generation {
                    return status.clone();
                }
            }
        }
        // Watch first, then look: a change made while looking counts.
        self.changes.watch(self.watched_paths(adapter));
        let generation = self.changes.generation();
        let path = self.binary_path(adapter);
        let version = match &path {
            Some(path) => self.version(adapter, path).await,
            None if info.builtin => Some(info.version.clone()),
            None => None,
        };
        let status = AgentStatus {
            path,
            version,
            credentials_available: info.credential_env.is_empty()
                || self.credentials(adapter).available(),
        };
        // Kept only while this is still the agent's adapter (a reload may have
        // replaced it meanwhile).
        let current = self
            .registry
            .get(&info.id)
            .is_some_and(|now| std::ptr::eq(&*now, adapter));
        if let (Some(generation), true) = (generation, current) {
            self.statuses
                .lock()
                .unwrap()
                .insert(info.id.clone(), (generation, status.clone()));
        }
        status
    }

    /// The adapter set changed (the adapters folder was loaded again): statuses
    /// worked out for the earlier adapters are forgotten.
    pub fn adapters_changed(&self) {
        self.statuses.lock().unwrap().clear();
    }

    /// The adapters the daemon runs with.
    pub fn registry(&self) -> &Arc<AdapterRegistry> {
        &self.registry
    }

    /// The files and folders an agent's status is read from.
    fn watched_paths(&self, adapter: &LoadedAdapter) -> Vec<PathBuf> {
        let mut paths = vec![self.install_dir().to_owned()];
        if let Some(path) = std::env::var_os("PATH") {
            paths.extend(std::env::split_paths(&path));
        }
        match credentials::files_of(adapter, &Lookup::from_process()) {
            Ok(files) => paths.extend(files),
            Err(error) => tracing::warn!(agent = adapter.id(), %error, "credential files unknown"),
        }
        paths
    }

    /// The `GET /v1/agents` entry of an agent.
    pub async fn describe(
        &self,
        adapter: &LoadedAdapter,
        server_status: Option<ServerStatusInfo>,
    ) -> AgentInfo {
        let info = adapter.info();
        let status = self.status(adapter).await;
        AgentInfo {
            id: info.id.clone(),
            name: Some(info.name.clone()),
            installed: info.builtin || status.path.is_some(),
            credentials_available: status.credentials_available,
            version: status.version,
            path: status.path.map(|p| p.display().to_string()),
            capabilities: capabilities(adapter),
            server_status,
            adapter_version: info.version.clone(),
        }
    }

    /// The agent's modes.
    pub fn modes(&self, agent: &str) -> Result<Vec<AgentModeInfo>, SessionError> {
        let adapter = self.adapter(agent)?;
        Ok(adapter
            .info()
            .modes
            .iter()
            .map(|mode| AgentModeInfo {
                id: mode.id.clone(),
                name: mode.name.clone(),
                description: mode.description.clone(),
            })
            .collect())
    }

    /// The agent's models and default model.
    pub fn models(
        &self,
        agent: &str,
    ) -> Result<(Vec<AgentModelInfo>, Option<String>), SessionError> {
        let adapter = self.adapter(agent)?;
        let info = adapter.info();
        let models = info
            .models
            .iter()
            .map(|model| AgentModelInfo {
                id: model.id.clone(),
                name: model.name.clone(),
                variants: (!model.variants.is_empty()).then(|| model.variants.clone()),
                default_variant: model.default_variant.clone(),
            })
            .collect();
        Ok((models, info.default_model.clone()))
    }
}

/// The adapter's capabilities in the API's shape.
pub fn capabilities(adapter: &LoadedAdapter) -> AgentCapabilities {
    let info = adapter.info();
    let asks_for = adapter.facts().asks_for.iter();
    AgentCapabilities {
        asks_for: asks_for.map(|kind| policy_kind(*kind)).collect(),
        plan_mode: info.has("plan-mode"),
        permissions: info.has("permissions"),
        questions: info.has("questions"),
        tool_calls: info.has("tool-calls"),
        tool_results: info.has("tool-results"),
        text_messages: info.has("text-messages"),
        images: info.has("images"),
        file_attachments: info.has("file-attachments"),
        session_lifecycle: info.has("session-lifecycle"),
        error_events: info.has("error-events"),
        reasoning: info.has("reasoning"),
        status: info.has("status"),
        command_execution: info.has("command-execution"),
        file_changes: info.has("file-changes"),
        mcp_tools: info.has("mcp-tools"),
        streaming_deltas: info.has("streaming-deltas"),
        item_started: info.has("item-started"),
        shared_process: info.has("shared-process"),
        resume: info.has("resume"),
        cancel: info.has("cancel"),
        usage: info.has("usage"),
        variants: info.has("variants"),
        mcp_servers: info.has("mcp-servers"),
        skills: info.has("skills"),
        moves: info.has("move"),
        mode_change: info.has(crate::modes::CAPABILITY),
        model_change: info.has(crate::modes::MODEL_CAPABILITY),
        variant_change: info.has(crate::modes::VARIANT_CAPABILITY),
    }
}

/// The API's name of a kind of request.
fn policy_kind(kind: agentplex_host::ToolKind) -> agentplex_api::PolicyToolKind {
    use agentplex_api::PolicyToolKind as Api;
    use agentplex_host::ToolKind as Wit;
    match kind {
        Wit::Shell => Api::Shell,
        Wit::Read => Api::Read,
        Wit::Write => Api::Write,
        Wit::Fetch => Api::Fetch,
        Wit::Mcp => Api::Mcp,
        Wit::Other => Api::Other,
    }
}

/// The `install_failed` problem for an install error.
/// What [`check_version`] accepts, as the OpenAPI document says it.
pub const VERSION_PATTERN: &str = "^[A-Za-z0-9._+-]{1,64}$";

/// An agent version a client names (an install's `version`, a session's
/// `agentVersion`): 1-64 letters, digits, `.`, `-`, `_` and `+`, whatever the agent.
pub fn check_version(version: &str) -> Result<(), SessionError> {
    let valid = !version.is_empty()
        && version.len() <= 64
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'));
    if valid {
        Ok(())
    } else {
        Err(SessionError::InvalidRequest(format!(
            "invalid version {version:?}: use letters, digits, '.', '-', '_' and '+'"
        )))
    }
}

pub fn install_failed(agent: &str, error: &agentplex_install::InstallError) -> SessionError {
    SessionError::InstallFailed {
        agent: agent.to_owned(),
        source: error.clone(),
    }
}

/// The command that prints an installed agent's version; it inherits none of the
/// daemon's secrets.
fn version_probe(path: &std::path::Path, args: &[String]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(path);
    agentplex_processes::secrets::keep_from_child(command.as_std_mut()).args(args);
    command.kill_on_drop(true);
    command
}
