//! The adapter components built into the daemon (from `adapters/`, by `build.rs`),
//! known at once from the facts precompiled with them (their code is loaded when a
//! session first needs it), and the registry a daemon starts from: those, then every
//! `*.wasm` in the adapters folder, compiled once into the compile cache; those
//! override builtins by agent id.

use std::path::Path;

use agentplex_host::{AdapterRegistry, HostConfig, HostError};

/// An adapter component built into the daemon.
pub use agentplex_host::EmbeddedAdapter as Builtin;

include!(concat!(env!("OUT_DIR"), "/builtin_adapters.rs"));

/// A registry holding the builtin adapters. Nothing is compiled or instantiated
/// unless a builtin lacks its precompiled artifact.
pub fn builtin_registry(config: HostConfig) -> Result<AdapterRegistry, HostError> {
    let registry = AdapterRegistry::new(config)?;
    for builtin in BUILTIN_ADAPTERS {
        registry.add_builtin(builtin, BUILTIN_BASE)?;
    }
    Ok(registry)
}

/// Adds the folder's components to the registry. A component that fails to load
/// is skipped (and returned, with why) so the others still load.
pub fn load_folder(registry: &AdapterRegistry, dir: &Path) -> Result<Vec<HostError>, HostError> {
    Ok(registry
        .load_dir(dir)?
        .into_iter()
        .filter_map(Result::err)
        .collect())
}

/// The builtin adapters and the folder's, loaded before returning (for commands
/// that need the whole set at once).
pub fn load_registry(
    config: HostConfig,
    adapters_dir: Option<&Path>,
) -> Result<(AdapterRegistry, Vec<HostError>), HostError> {
    let registry = builtin_registry(config)?;
    let skipped = match adapters_dir {
        Some(dir) => load_folder(&registry, dir)?,
        None => Vec::new(),
    };
    Ok((registry, skipped))
}
