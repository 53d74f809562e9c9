//! What the daemon knows about each agent: its adapter, whether and where its
//! binary is installed, which version it is, and whether its credentials are set.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use sandbox_agent_api::{
    AgentCapabilities, AgentInfo, AgentModeInfo, AgentModelInfo, ServerStatusInfo,
};
use sandbox_agent_host::{AdapterRegistry, Arch, Capabilities, Libc, LoadedAdapter, Os, Platform};

use crate::error::ApiError;

/// How long a `--version` probe of an agent binary may take.
const VERSION_PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// The agents of this daemon.
pub struct AgentCatalog {
    registry: AdapterRegistry,
    install_dir: PathBuf,
    /// Probed versions by binary path, valid while the binary's mtime is unchanged.
    versions: Mutex<BTreeMap<PathBuf, (SystemTime, Option<String>)>>,
}

impl AgentCatalog {
    /// A catalog over the loaded adapters.
    pub fn new(registry: AdapterRegistry, install_dir: PathBuf) -> Self {
        Self {
            registry,
            install_dir,
            versions: Mutex::new(BTreeMap::new()),
        }
    }

    /// Where agent binaries are installed.
    pub fn install_dir(&self) -> &Path {
        &self.install_dir
    }

    /// The adapter for an agent id.
    pub fn adapter(&self, agent: &str) -> Result<Arc<LoadedAdapter>, ApiError> {
        self.registry
            .get(agent)
            .ok_or_else(|| ApiError::UnsupportedAgent {
                agent: agent.to_owned(),
            })
    }

    /// Every adapter.
    pub fn adapters(&self) -> Vec<Arc<LoadedAdapter>> {
        self.registry.list()
    }

    /// The agent's binary, when it has one and it is installed.
    pub fn binary_path(&self, adapter: &LoadedAdapter) -> Option<PathBuf> {
        if adapter.info().builtin {
            return None;
        }
        let name = adapter
            .install_plan(current_platform(), None)
            .ok()
            .flatten()
            .map_or_else(|| adapter.id().to_owned(), |plan| plan.binary_name);
        crate::sessions::processes::locate_program(&name, &self.install_dir)
    }

    /// The agent's binary for a new session; fails when a non-builtin agent is missing.
    pub fn require_installed(&self, adapter: &LoadedAdapter) -> Result<Option<PathBuf>, ApiError> {
        if adapter.info().builtin {
            return Ok(None);
        }
        match self.binary_path(adapter) {
            Some(path) => Ok(Some(path)),
            None => Err(ApiError::AgentNotInstalled {
                agent: adapter.id().to_owned(),
                detail: format!(
                    "no binary on PATH or in {}; install it with POST /v1/agents/{}/install",
                    self.install_dir.display(),
                    adapter.id()
                ),
            }),
        }
    }

    /// The installed version, probed at most once per binary change.
    pub async fn version(&self, adapter: &LoadedAdapter, path: &Path) -> Option<String> {
        let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
        if let Some((cached_at, version)) = self.versions.lock().unwrap().get(path) {
            if *cached_at == modified {
                return version.clone();
            }
        }
        let args = adapter.version_args().ok().flatten()?;
        let output = tokio::time::timeout(
            VERSION_PROBE_TIMEOUT,
            tokio::process::Command::new(path)
                .args(&args)
                .kill_on_drop(true)
                .output(),
        )
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

    /// The credential variables of the daemon's environment the agent uses.
    pub fn credentials_env(&self, adapter: &LoadedAdapter) -> Vec<(String, String)> {
        adapter
            .info()
            .credential_env
            .iter()
            .filter_map(|name| {
                std::env::var(name)
                    .ok()
                    .filter(|v| !v.is_empty())
                    .map(|value| (name.clone(), value))
            })
            .collect()
    }

    /// The `GET /v1/agents` entry of an agent.
    pub async fn describe(
        &self,
        adapter: &LoadedAdapter,
        server_status: Option<ServerStatusInfo>,
    ) -> AgentInfo {
        let info = adapter.info();
        let path = self.binary_path(adapter);
        let version = match &path {
            Some(path) => self.version(adapter, path).await,
            None if info.builtin => Some(info.version.clone()),
            None => None,
        };
        AgentInfo {
            id: info.id.clone(),
            name: Some(info.name.clone()),
            installed: info.builtin || path.is_some(),
            credentials_available: info.credential_env.is_empty()
                || !self.credentials_env(adapter).is_empty(),
            version,
            path: path.map(|p| p.display().to_string()),
            capabilities: capabilities(&info.capabilities),
            server_status,
            adapter_version: info.version.clone(),
        }
    }

    /// The agent's modes.
    pub fn modes(&self, agent: &str) -> Result<Vec<AgentModeInfo>, ApiError> {
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
    pub fn models(&self, agent: &str) -> Result<(Vec<AgentModelInfo>, Option<String>), ApiError> {
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

/// The adapter's capability record in the API's shape.
pub fn capabilities(c: &Capabilities) -> AgentCapabilities {
    AgentCapabilities {
        plan_mode: c.plan_mode,
        permissions: c.permissions,
        questions: c.questions,
        tool_calls: c.tool_calls,
        tool_results: c.tool_results,
        text_messages: c.text_messages,
        images: c.images,
        file_attachments: c.file_attachments,
        session_lifecycle: c.session_lifecycle,
        error_events: c.error_events,
        reasoning: c.reasoning,
        status: c.status,
        command_execution: c.command_execution,
        file_changes: c.file_changes,
        mcp_tools: c.mcp_tools,
        streaming_deltas: c.streaming_deltas,
        item_started: c.item_started,
        shared_process: c.shared_process,
        resume: c.resume,
        cancel: c.cancel,
        usage: c.usage,
        variants: c.variants,
    }
}

/// The platform this daemon runs on, as install plans want it.
pub fn current_platform() -> Platform {
    let os = match std::env::consts::OS {
        "macos" => Os::Macos,
        "windows" => Os::Windows,
        _ => Os::Linux,
    };
    let arch = match std::env::consts::ARCH {
        "aarch64" => Arch::Aarch64,
        _ => Arch::X8664,
    };
    let libc = (os == Os::Linux).then(|| if is_musl() { Libc::Musl } else { Libc::Gnu });
    Platform { os, arch, libc }
}

/// A musl system has a musl dynamic loader in /lib.
fn is_musl() -> bool {
    std::fs::read_dir("/lib").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|entry| entry.file_name().to_string_lossy().starts_with("ld-musl-"))
    })
}
