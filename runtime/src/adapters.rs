//! The adapter set a daemon runs with: the components built into the binary,
//! then every `*.wasm` in the adapters folder (which override builtins by agent id).

use std::path::Path;

use sandbox_agent_host::{AdapterOrigin, AdapterRegistry, HostConfig, HostError};

include!(concat!(env!("OUT_DIR"), "/builtin_adapters.rs"));

/// Loads the builtin adapters and the folder's. A component in the folder that
/// fails to load is skipped (and returned, with why) so the others still load.
pub fn load_registry(
    config: HostConfig,
    adapters_dir: Option<&Path>,
) -> Result<(AdapterRegistry, Vec<HostError>), HostError> {
    let mut registry = AdapterRegistry::new(config)?;
    for (name, bytes) in BUILTIN_ADAPTERS {
        registry.load_bytes(AdapterOrigin::Builtin((*name).to_owned()), bytes)?;
    }
    let mut skipped = Vec::new();
    if let Some(dir) = adapters_dir {
        skipped.extend(registry.load_dir(dir)?.into_iter().filter_map(Result::err));
    }
    Ok((registry, skipped))
}
