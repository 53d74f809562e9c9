//! Loading adapter components: compile once, describe, instantiate per session.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use wasmtime::component::{Component, Linker};
use wasmtime::{Engine, Store};

use crate::bindings::{AdapterComponent, AdapterComponentPre};
use crate::contract;
use crate::limits::InstanceLimits;
use crate::session::{call_guest, AdapterSession};
use crate::{AdapterInfo, HostConfig, HostError, Platform, SessionConfig, SUPPORTED_CONTRACTS};

/// How often the engine's epoch advances; the unit of the per-call time budget.
const EPOCH_TICK: Duration = Duration::from_millis(10);

/// The per-call time budget in epoch ticks.
pub(crate) fn call_budget_ticks(config: &HostConfig) -> u64 {
    (config.call_timeout.as_millis() / EPOCH_TICK.as_millis()).max(1) as u64
}

/// Where a component came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdapterOrigin {
    /// Shipped inside the daemon binary, by file name.
    Builtin(String),
    /// Loaded from a file (the adapters folder, or a path given on the command line).
    File(PathBuf),
}

impl fmt::Display for AdapterOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdapterOrigin::Builtin(name) => write!(f, "builtin:{name}"),
            AdapterOrigin::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// A compiled, linked component, ready to instantiate.
pub(crate) struct Compiled {
    pre: AdapterComponentPre<InstanceLimits>,
    engine: Engine,
    config: Arc<HostConfig>,
}

impl Compiled {
    /// A fresh instance with its own store, memory cap and call budget.
    pub(crate) fn instantiate(
        &self,
        origin: &AdapterOrigin,
    ) -> Result<(Store<InstanceLimits>, AdapterComponent), HostError> {
        let mut store = Store::new(
            &self.engine,
            InstanceLimits::new(self.config.memory_limit_bytes),
        );
        store.limiter(|limits| limits);
        store.epoch_deadline_trap();
        store.set_epoch_deadline(call_budget_ticks(&self.config));
        let bindings = self
            .pre
            .instantiate(&mut store)
            .map_err(|e| HostError::Load {
                origin: origin.to_string(),
                reason: format!("{e:#}"),
            })?;
        Ok((store, bindings))
    }

    /// Runs one stateless export on a fresh instance.
    fn stateless<R>(
        &self,
        origin: &AdapterOrigin,
        call: &str,
        f: impl FnOnce(&AdapterComponent, &mut Store<InstanceLimits>) -> wasmtime::Result<R>,
    ) -> Result<R, HostError> {
        let (mut store, bindings) = self.instantiate(origin)?;
        call_guest(
            &mut store,
            &origin.to_string(),
            call,
            &self.config,
            |store| f(&bindings, store),
        )
    }
}

/// A compiled, linked adapter component and the facts it reported.
pub struct LoadedAdapter {
    info: AdapterInfo,
    origin: AdapterOrigin,
    contract: String,
    compiled: Compiled,
}

impl fmt::Debug for LoadedAdapter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadedAdapter")
            .field("id", &self.info.id)
            .field("version", &self.info.version)
            .field("origin", &self.origin)
            .finish()
    }
}

impl LoadedAdapter {
    /// The adapter's agent id.
    pub fn id(&self) -> &str {
        &self.info.id
    }

    /// Everything `info()` reported.
    pub fn info(&self) -> &AdapterInfo {
        &self.info
    }

    /// Where the component was loaded from.
    pub fn origin(&self) -> &AdapterOrigin {
        &self.origin
    }

    /// The contract version the component was built against, as it exports it
    /// (`sandbox-agent:adapter@0.1.0`). A semver-compatible later patch
    /// (`@0.1.1`) is run as the supported version it is compatible with.
    pub fn contract(&self) -> &str {
        &self.contract
    }

    pub(crate) fn config(&self) -> &HostConfig {
        &self.compiled.config
    }

    pub(crate) fn instantiate(
        &self,
    ) -> Result<(Store<InstanceLimits>, AdapterComponent), HostError> {
        self.compiled.instantiate(&self.origin)
    }

    fn stateless<R>(
        &self,
        call: &str,
        f: impl FnOnce(&AdapterComponent, &mut Store<InstanceLimits>) -> wasmtime::Result<R>,
    ) -> Result<R, HostError> {
        self.compiled.stateless(&self.origin, call, f)
    }

    /// How to install the agent on `platform` (none when not installable).
    pub fn install_plan(
        &self,
        platform: Platform,
        version: Option<&str>,
    ) -> Result<Option<crate::InstallRecipe>, HostError> {
        self.stateless("install-plan", |b, store| {
            b.sandbox_agent_adapter_adapter()
                .call_install_plan(store, platform, version)
        })
    }

    /// The latest version named in the body of the plan's `latest-version-url`.
    pub fn parse_latest_version(&self, body: &str) -> Result<Option<String>, HostError> {
        self.stateless("parse-latest-version", |b, store| {
            b.sandbox_agent_adapter_adapter()
                .call_parse_latest_version(store, body)
        })
    }

    /// The arguments that make the agent print its version.
    pub fn version_args(&self) -> Result<Option<Vec<String>>, HostError> {
        self.stateless("version-args", |b, store| {
            b.sandbox_agent_adapter_adapter().call_version_args(store)
        })
    }

    /// The version in what the agent printed for `version_args`.
    pub fn parse_version(&self, output: &str) -> Result<Option<String>, HostError> {
        self.stateless("parse-version", |b, store| {
            b.sandbox_agent_adapter_adapter()
                .call_parse_version(store, output)
        })
    }

    /// Starts a new adapter session (call [`AdapterSession::handle`] with `Input::Start` next).
    pub fn new_session(
        self: &Arc<Self>,
        config: SessionConfig,
    ) -> Result<AdapterSession, HostError> {
        AdapterSession::create(self.clone(), config, None)
    }

    /// Rebuilds an adapter session from a snapshot taken earlier.
    pub fn restore_session(
        self: &Arc<Self>,
        config: SessionConfig,
        state: &[u8],
    ) -> Result<AdapterSession, HostError> {
        AdapterSession::create(self.clone(), config, Some(state))
    }
}

/// The set of loaded adapters, by agent id. A later load with the same id replaces
/// the earlier one (a file in the adapters folder overrides a builtin).
pub struct AdapterRegistry {
    engine: Engine,
    config: Arc<HostConfig>,
    adapters: BTreeMap<String, Arc<LoadedAdapter>>,
}

impl AdapterRegistry {
    /// A registry with an engine configured for isolation and the given limits.
    pub fn new(config: HostConfig) -> Result<Self, HostError> {
        let engine = build_engine(&config)?;
        start_epoch_ticker(&engine);
        Ok(Self {
            engine,
            config: Arc::new(config),
            adapters: BTreeMap::new(),
        })
    }

    /// Compiles and describes a component without registering it.
    pub fn compile(&self, origin: AdapterOrigin, bytes: &[u8]) -> Result<LoadedAdapter, HostError> {
        let load_error = |reason: String| HostError::Load {
            origin: origin.to_string(),
            reason,
        };
        contract::check_format(bytes).map_err(load_error)?;
        let component =
            Component::new(&self.engine, bytes).map_err(|e| load_error(one_line(&e)))?;
        let mut linker = Linker::new(&self.engine);
        // Guests built for wasm32-wasip2 import WASI even when they never use it;
        // those imports are satisfied with functions that trap: nothing is granted.
        linker
            .define_unknown_imports_as_traps(&component)
            .map_err(|e| load_error(one_line(&e)))?;
        let instance_pre = linker
            .instantiate_pre(&component)
            .map_err(|e| load_error(one_line(&e)))?;
        let pre = AdapterComponentPre::new(instance_pre).map_err(|e| {
            HostError::IncompatibleContract {
                origin: origin.to_string(),
                supported: SUPPORTED_CONTRACTS.join(", "),
                reason: contract::incompatibility(&self.engine, &component, &one_line(&e)),
            }
        })?;
        // Linking succeeded, so the component exports a compatible adapter interface.
        let exported = contract::exported_contract(&self.engine, &component)
            .unwrap_or_else(|| SUPPORTED_CONTRACTS[0].to_owned());
        let compiled = Compiled {
            pre,
            engine: self.engine.clone(),
            config: self.config.clone(),
        };
        let info = compiled.stateless(&origin, "info", |b, store| {
            b.sandbox_agent_adapter_adapter().call_info(store)
        })?;
        validate_info(&origin, &info)?;
        Ok(LoadedAdapter {
            info,
            origin,
            contract: exported,
            compiled,
        })
    }

    /// Compiles a component and registers it under its agent id.
    pub fn load_bytes(
        &mut self,
        origin: AdapterOrigin,
        bytes: &[u8],
    ) -> Result<Arc<LoadedAdapter>, HostError> {
        let adapter = Arc::new(self.compile(origin, bytes)?);
        tracing::info!(agent = adapter.id(), version = %adapter.info.version, origin = %adapter.origin, "adapter loaded");
        self.adapters
            .insert(adapter.id().to_owned(), adapter.clone());
        Ok(adapter)
    }

    /// Reads, compiles and registers one component file.
    pub fn load_file(&mut self, path: &Path) -> Result<Arc<LoadedAdapter>, HostError> {
        let bytes = std::fs::read(path).map_err(|e| HostError::Load {
            origin: path.display().to_string(),
            reason: e.to_string(),
        })?;
        self.load_bytes(AdapterOrigin::File(path.to_owned()), &bytes)
    }

    /// Loads every `*.wasm` file of a folder, in name order. Returns one result per
    /// file so a broken component does not keep the others from loading.
    pub fn load_dir(
        &mut self,
        dir: &Path,
    ) -> Result<Vec<Result<Arc<LoadedAdapter>, HostError>>, HostError> {
        let folder_error = |source| HostError::Folder {
            path: dir.to_owned(),
            source,
        };
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(folder_error)? {
            let path = entry.map_err(folder_error)?.path();
            if path.extension().is_some_and(|ext| ext == "wasm") && path.is_file() {
                paths.push(path);
            }
        }
        paths.sort();
        Ok(paths.iter().map(|path| self.load_file(path)).collect())
    }

    /// The adapter for an agent id.
    pub fn get(&self, id: &str) -> Option<Arc<LoadedAdapter>> {
        self.adapters.get(id).cloned()
    }

    /// Every registered adapter, by id.
    pub fn list(&self) -> Vec<Arc<LoadedAdapter>> {
        self.adapters.values().cloned().collect()
    }
}

fn build_engine(host: &HostConfig) -> Result<Engine, HostError> {
    let mut config = wasmtime::Config::new();
    config.epoch_interruption(true);
    config.max_wasm_stack(1 << 20);
    // Reserve exactly the memory cap per instance: growth never moves memory and
    // 10,000 sessions fit easily in the address space.
    config.memory_reservation(host.memory_limit_bytes as u64);
    config.memory_guard_size(64 << 10);
    config.memory_reservation_for_growth(0);
    if let Some(dir) = &host.cache_dir {
        // A cache is an optimisation: without one (read-only disk...) components
        // are compiled on every load.
        let mut cache = wasmtime::CacheConfig::new();
        cache.with_directory(dir);
        match wasmtime::Cache::new(cache) {
            Ok(cache) => {
                config.cache(Some(cache));
            }
            Err(error) => tracing::warn!(dir = %dir.display(), "no compile cache: {error:#}"),
        }
    }
    Engine::new(&config).map_err(|e| HostError::Load {
        origin: "engine".into(),
        reason: format!("{e:#}"),
    })
}

/// Advances the engine's epoch every tick, for as long as the engine lives.
fn start_epoch_ticker(engine: &Engine) {
    let weak = engine.weak();
    std::thread::Builder::new()
        .name("adapter-epoch".into())
        .spawn(move || loop {
            std::thread::sleep(EPOCH_TICK);
            match weak.upgrade() {
                Some(engine) => engine.increment_epoch(),
                None => break,
            }
        })
        .expect("spawning the epoch ticker thread");
}

/// An error chain on one line (wasmtime's messages can span several).
fn one_line(error: &wasmtime::Error) -> String {
    format!("{error:#}")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn validate_info(origin: &AdapterOrigin, info: &AdapterInfo) -> Result<(), HostError> {
    let valid_id = !info.id.is_empty()
        && info.id.len() <= 64
        && info
            .id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if !valid_id {
        return Err(HostError::InvalidInfo {
            origin: origin.to_string(),
            reason: format!(
                "agent id {:?} must be 1-64 characters of [a-z0-9_-]",
                info.id
            ),
        });
    }
    if !info.modes.iter().any(|mode| mode.id == info.default_mode) {
        return Err(HostError::InvalidInfo {
            origin: origin.to_string(),
            reason: format!(
                "default mode {:?} is not among its modes",
                info.default_mode
            ),
        });
    }
    Ok(())
}
