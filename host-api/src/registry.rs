//! The set of adapters a host runs: builtins known by their precompiled facts,
//! components compiled (once, through the cache) from files or bytes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use wasmtime::component::Component;

use crate::adapter::{Embedded, EmbeddedWasm, LoadedAdapter};
use crate::artifact::{self, Artifact};
use crate::cache::CompileCache;
use crate::compile::{compile_wasm, Compiled};
use crate::error::one_line;
use crate::host::{AdapterOrigin, Host};
use crate::ticker::EpochTicker;
use crate::{engine, HostConfig, HostError};

/// A builtin adapter as the daemon's binary embeds it (see `runtime/builtins/build.rs`).
#[derive(Debug, Clone, Copy)]
pub struct EmbeddedAdapter {
    /// The component's file name.
    pub name: &'static str,
    /// The component, zstd-compressed (against the base's when `against_base`).
    pub compressed_wasm: &'static [u8],
    /// Its precompiled artifact for the daemon's target, when the build made one;
    /// its code may be a delta of the base's ([`artifact::rebase`]).
    pub precompiled: Option<&'static [u8]>,
    /// Whether `compressed_wasm` was compressed against the base's WebAssembly
    /// ([`artifact::compress_against`]).
    pub against_base: bool,
}

/// An agent the host runs with another adapter's component (the generic ACP
/// adapter for an agent of the ACP registry): the facts that make it its own.
#[derive(Debug, Clone)]
pub struct AgentDefinition {
    /// Its agent id.
    pub id: String,
    /// Its name for people.
    pub name: String,
    /// Variables of the daemon's environment its processes are given (its API
    /// key, its base URL), as an adapter's `credential-env` would name them.
    pub credential_env: Vec<crate::CredentialVariable>,
}

/// The set of loaded adapters, by agent id. A later load with the same id replaces
/// the earlier one (a file in the adapters folder overrides a builtin). Adapters
/// can be added while others are in use.
pub struct AdapterRegistry {
    host: Arc<Host>,
    adapters: RwLock<BTreeMap<String, Arc<LoadedAdapter>>>,
    /// The builtins by id, for a reloaded folder to fall back on.
    builtins: RwLock<BTreeMap<String, Arc<LoadedAdapter>>>,
    /// The agents defined on top of other adapters ([`Self::define`]), kept
    /// across folder reloads.
    defined: RwLock<BTreeMap<String, Arc<LoadedAdapter>>>,
}

impl AdapterRegistry {
    /// A registry with an engine configured for isolation and the given limits.
    pub fn new(config: HostConfig) -> Result<Self, HostError> {
        let engine = engine::native(&config)?;
        let compatibility = engine::compatibility_key(&engine);
        Ok(Self {
            host: Arc::new(Host {
                ticker: EpochTicker::start(&engine),
                engine,
                cache: config.cache_dir.as_deref().map(CompileCache::new),
                config: Arc::new(config),
                compatibility,
            }),
            adapters: RwLock::new(BTreeMap::new()),
            builtins: RwLock::new(BTreeMap::new()),
            defined: RwLock::new(BTreeMap::new()),
        })
    }

    /// Registers a builtin adapter from the artifact made when the daemon was built
    /// (see [`precompile`]) and its WebAssembly, zstd-compressed
    /// ([`artifact::compress`]), either of them maybe against `base`'s
    /// ([`artifact::rebase`], [`artifact::compress_against`]): the facts are read
    /// now, the code is checked and loaded when a session first needs it (a damaged
    /// one is compiled from the WebAssembly then). Without a readable artifact the
    /// component is compiled now (through the cache).
    pub fn add_builtin(
        &self,
        builtin: &EmbeddedAdapter,
        base: Option<&EmbeddedAdapter>,
    ) -> Result<Arc<LoadedAdapter>, HostError> {
        let origin = AdapterOrigin::Builtin(builtin.name.to_owned());
        let wasm = EmbeddedWasm {
            compressed: builtin.compressed_wasm,
            base: base
                .filter(|_| builtin.against_base)
                .map(|base| base.compressed_wasm),
        };
        let checked = builtin
            .precompiled
            .ok_or_else(|| "not precompiled".to_owned())
            .and_then(|bytes| {
                let artifact = Artifact::decode(bytes).map_err(|e| e.to_string())?;
                let code = artifact.code();
                Ok((artifact.facts, code))
            });
        let adapter = match checked {
            Ok((facts, code)) => {
                let base_code = base
                    .and_then(|base| base.precompiled)
                    .and_then(|bytes| Artifact::decode(bytes).ok())
                    .map(|base| base.code());
                LoadedAdapter::lazy(
                    self.host.clone(),
                    origin,
                    facts,
                    Embedded {
                        code,
                        base_code,
                        wasm,
                    },
                )
            }
            Err(why) => {
                if builtin.precompiled.is_some() {
                    tracing::warn!(%origin, "builtin adapter has no usable precompiled form ({why}); compiling it");
                } else {
                    // A build without `precompiled-builtins` (scripts/run.sh's): expected.
                    tracing::info!(%origin, "compiling the builtin adapter (this build did not precompile it; kept in the cache)");
                }
                let wasm = wasm.decompress(&origin)?;
                self.compile(origin, &wasm)?
            }
        };
        let adapter = self.register(adapter);
        self.builtins
            .write()
            .unwrap()
            .insert(adapter.id().to_owned(), adapter.clone());
        Ok(adapter)
    }

    /// Compiles and describes a component (through the cache) without registering it.
    pub fn compile(&self, origin: AdapterOrigin, bytes: &[u8]) -> Result<LoadedAdapter, HostError> {
        let (compiled, facts) = self.host.compile(&origin, bytes, None)?;
        Ok(LoadedAdapter::compiled(
            self.host.clone(),
            origin,
            facts,
            compiled,
        ))
    }

    /// Compiles a component and registers it under its agent id.
    pub fn load_bytes(
        &self,
        origin: AdapterOrigin,
        bytes: &[u8],
    ) -> Result<Arc<LoadedAdapter>, HostError> {
        Ok(self.register(self.compile(origin, bytes)?))
    }

    fn register(&self, adapter: LoadedAdapter) -> Arc<LoadedAdapter> {
        let adapter = Arc::new(adapter);
        tracing::debug!(agent = adapter.id(), version = %adapter.info().version, origin = %adapter.origin(), "adapter loaded");
        self.adapters
            .write()
            .unwrap()
            .insert(adapter.id().to_owned(), adapter.clone());
        adapter
    }

    /// Reads, compiles and registers one component file.
    pub fn load_file(&self, path: &Path) -> Result<Arc<LoadedAdapter>, HostError> {
        let bytes = std::fs::read(path).map_err(|e| HostError::Load {
            origin: path.display().to_string(),
            reason: e.to_string(),
        })?;
        self.load_bytes(AdapterOrigin::File(path.to_owned()), &bytes)
    }

    /// Loads every `*.wasm` file of a folder, in name order. Returns one result per
    /// file so a broken component does not keep the others from loading.
    pub fn load_dir(
        &self,
        dir: &Path,
    ) -> Result<Vec<Result<Arc<LoadedAdapter>, HostError>>, HostError> {
        Ok(wasm_files(dir)?
            .iter()
            .map(|path| self.load_file(path))
            .collect())
    }

    /// Loads a folder anew, replacing what earlier loads of files registered: the
    /// set becomes the builtins with the folder's components over them (a file
    /// that is gone no longer counts; an agent only it provided is gone too).
    /// Unchanged components come from the compile cache. The swap is atomic;
    /// sessions keep the adapter they started with. Returns one result per file,
    /// as [`Self::load_dir`].
    pub fn reload_dir(
        &self,
        dir: &Path,
    ) -> Result<Vec<Result<Arc<LoadedAdapter>, HostError>>, HostError> {
        let results: Vec<Result<Arc<LoadedAdapter>, HostError>> = wasm_files(dir)?
            .iter()
            .map(|path| {
                let bytes = std::fs::read(path).map_err(|e| HostError::Load {
                    origin: path.display().to_string(),
                    reason: e.to_string(),
                })?;
                Ok(Arc::new(
                    self.compile(AdapterOrigin::File(path.to_owned()), &bytes)?,
                ))
            })
            .collect();
        let mut set = self.builtins.read().unwrap().clone();
        set.extend(self.defined.read().unwrap().clone());
        for adapter in results.iter().flatten() {
            set.insert(adapter.id().to_owned(), adapter.clone());
        }
        *self.adapters.write().unwrap() = set;
        Ok(results)
    }

    /// Registers `definition` as an agent run by the component of the adapter
    /// `base` (its facts but the id, name and credential variables; no install
    /// plan of its own). Fails
    /// when `base` is not loaded.
    pub fn define(
        &self,
        base: &str,
        definition: &AgentDefinition,
    ) -> Result<Arc<LoadedAdapter>, HostError> {
        let base = self.get(base).ok_or_else(|| HostError::Load {
            origin: definition.id.clone(),
            reason: format!("no adapter {base:?} to run it with"),
        })?;
        let adapter = Arc::new(LoadedAdapter::defined(base, definition));
        self.defined
            .write()
            .unwrap()
            .insert(definition.id.clone(), adapter.clone());
        self.adapters
            .write()
            .unwrap()
            .insert(definition.id.clone(), adapter.clone());
        Ok(adapter)
    }

    /// The adapter for an agent id.
    pub fn get(&self, id: &str) -> Option<Arc<LoadedAdapter>> {
        self.adapters.read().unwrap().get(id).cloned()
    }

    /// Every registered adapter, by id.
    pub fn list(&self) -> Vec<Arc<LoadedAdapter>> {
        self.adapters.read().unwrap().values().cloned().collect()
    }
}

/// Compiles a component ahead of time for `target` (a Rust target triple) into an
/// artifact for [`AdapterRegistry::add_builtin`]: portable machine code for that
/// target (zstd-compressed), and the adapter's facts, asked of the component on
/// this machine.
/// `config` must be the limits the daemon runs with by default, or the code will
/// not fit its engine (and be compiled again at run time).
pub fn precompile(
    config: &HostConfig,
    origin: AdapterOrigin,
    wasm: &[u8],
    target: &str,
) -> Result<Vec<u8>, HostError> {
    let portable = engine::portable(config, target)?;
    crate::contract::check_format(wasm).map_err(|reason| HostError::Load {
        origin: origin.to_string(),
        reason: reason.to_string(),
    })?;
    let code = portable
        .precompile_component(wasm)
        .map_err(|e| HostError::Load {
            origin: origin.to_string(),
            reason: one_line(&e),
        })?;
    // The facts come from running the component here: the portable code itself
    // when it runs on this machine, else a native compile of the same bytes.
    let native = AdapterRegistry::new(HostConfig {
        cache_dir: None,
        ..config.clone()
    })?;
    let host = &native.host;
    // SAFETY: `code` was just produced by wasmtime from `wasm`; wasmtime checks
    // that its target and settings fit the engine before using it.
    let component = match unsafe { Component::deserialize(&host.engine, &code) } {
        Ok(component) => component,
        Err(_) => compile_wasm(&host.engine, &origin, wasm)?,
    };
    let facts = Compiled::link(host, &origin, &component)?.describe(&origin)?;
    Ok(artifact::encode(
        &facts,
        engine::compatibility_key(&portable),
        wasm,
        &code,
        true,
    ))
}

/// The `*.wasm` files of a folder, in name order.
fn wasm_files(dir: &Path) -> Result<Vec<PathBuf>, HostError> {
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
    Ok(paths)
}
