//! Local tools for adapter components: list what a daemon would load, inspect a file.

use std::path::PathBuf;

use clap::Subcommand;
use sandbox_agent_api::{AgentCapabilities, AgentModeInfo, AgentModelInfo};
use sandbox_agent_host::{
    AdapterOrigin, AdapterRegistry, HostConfig, LoadedAdapter, SUPPORTED_CONTRACTS,
};
use serde::Serialize;

use crate::agents::capabilities;
use crate::config::default_data_dir;

#[derive(Debug, Subcommand)]
pub enum AdaptersCommand {
    /// The adapters a daemon would load: the builtins, then the folder's.
    List {
        /// Folder of extra components, as for `server --adapters-dir`
        /// [default: <data-dir>/adapters when it exists].
        #[arg(long, env = "SANDBOX_AGENT_ADAPTERS_DIR")]
        adapters_dir: Option<PathBuf>,
        /// The daemon's data dir (for the default adapters folder and the compile cache).
        #[arg(long, env = "SANDBOX_AGENT_DATA_DIR")]
        data_dir: Option<PathBuf>,
    },
    /// Load one component file and print what it declares.
    Inspect {
        /// The component (`.wasm`).
        file: PathBuf,
        /// The daemon's data dir (for the compile cache).
        #[arg(long, env = "SANDBOX_AGENT_DATA_DIR")]
        data_dir: Option<PathBuf>,
    },
}

/// What an adapter declares, as printed by `adapters list|inspect`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct AdapterView {
    id: String,
    name: String,
    version: String,
    agent_versions: String,
    origin: String,
    contract: &'static str,
    builtin: bool,
    default_mode: String,
    modes: Vec<AgentModeInfo>,
    models: Vec<AgentModelInfo>,
    default_model: Option<String>,
    credential_env: Vec<String>,
    capabilities: AgentCapabilities,
}

impl AdapterView {
    fn of(adapter: &LoadedAdapter) -> Self {
        let info = adapter.info();
        Self {
            id: info.id.clone(),
            name: info.name.clone(),
            version: info.version.clone(),
            agent_versions: info.agent_versions.clone(),
            origin: adapter.origin().to_string(),
            contract: SUPPORTED_CONTRACTS[0],
            builtin: info.builtin,
            default_mode: info.default_mode.clone(),
            modes: info
                .modes
                .iter()
                .map(|m| AgentModeInfo {
                    id: m.id.clone(),
                    name: m.name.clone(),
                    description: m.description.clone(),
                })
                .collect(),
            models: info
                .models
                .iter()
                .map(|m| AgentModelInfo {
                    id: m.id.clone(),
                    name: m.name.clone(),
                    variants: Some(m.variants.clone()),
                    default_variant: m.default_variant.clone(),
                })
                .collect(),
            default_model: info.default_model.clone(),
            credential_env: info.credential_env.clone(),
            capabilities: capabilities(&info.capabilities),
        }
    }
}

/// Default limits, with the daemon's compile cache so components compile once.
fn cached_host(data_dir: &std::path::Path) -> HostConfig {
    HostConfig {
        cache_dir: Some(data_dir.join("cache")),
        ..HostConfig::default()
    }
}

/// `sandbox-agent adapters ...`.
pub fn adapters(command: AdaptersCommand) -> Result<(), String> {
    match command {
        AdaptersCommand::List {
            adapters_dir,
            data_dir,
        } => {
            let data_dir = data_dir.unwrap_or_else(default_data_dir);
            let adapters_dir =
                adapters_dir.or_else(|| Some(data_dir.join("adapters")).filter(|dir| dir.is_dir()));
            let (registry, skipped) =
                crate::adapters::load_registry(cached_host(&data_dir), adapters_dir.as_deref())
                    .map_err(|e| e.to_string())?;
            let adapters: Vec<_> = registry
                .list()
                .iter()
                .map(|adapter| AdapterView::of(adapter))
                .collect();
            let skipped: Vec<String> = skipped.iter().map(ToString::to_string).collect();
            let listing = serde_json::json!({ "adapters": adapters, "skipped": skipped });
            println!(
                "{}",
                serde_json::to_string_pretty(&listing).map_err(|e| e.to_string())?
            );
            Ok(())
        }
        AdaptersCommand::Inspect { file, data_dir } => {
            let bytes =
                std::fs::read(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let data_dir = data_dir.unwrap_or_else(default_data_dir);
            let registry =
                AdapterRegistry::new(cached_host(&data_dir)).map_err(|e| e.to_string())?;
            let adapter = registry
                .compile(AdapterOrigin::File(file), &bytes)
                .map_err(|e| e.to_string())?;
            let view = AdapterView::of(&adapter);
            println!(
                "{}",
                serde_json::to_string_pretty(&view).map_err(|e| e.to_string())?
            );
            Ok(())
        }
    }
}
