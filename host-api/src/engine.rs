//! The one wasmtime configuration every engine of the host is built from.
//!
//! Components precompiled when the daemon is built ([`crate::precompile`]) are
//! loaded by the running daemon with `Component::deserialize`, which accepts them
//! only when the engine settings that shape compiled code (memory reservation,
//! guard size, epoch interruption, wasm features) are the same. Both sides build
//! their engine here, so they match unless the daemon runs with a memory cap above
//! the default (`--adapter-memory-mib`), in which case the component is compiled
//! again: a smaller cap is the store's limiter's (`crate::limits`), not the engine's.

use std::hash::{Hash, Hasher};

use wasmtime::Engine;

use crate::{HostConfig, HostError};

fn config(host: &HostConfig) -> wasmtime::Config {
    let mut config = wasmtime::Config::new();
    config.epoch_interruption(true);
    config.max_wasm_stack(1 << 20);
    // Reserve the memory cap per instance, and no less than the default cap: growth
    // never moves memory, 10,000 sessions fit easily in the address space, and the
    // code compiled for the default settings (the precompiled builtins) fits every
    // smaller cap, which the store's limiter enforces.
    let reservation = host
        .memory_limit_bytes
        .max(crate::DEFAULT_MEMORY_LIMIT_BYTES);
    config.memory_reservation(reservation as u64);
    config.memory_guard_size(64 << 10);
    config.memory_reservation_for_growth(0);
    // For profiling: `perf` names the components' compiled functions
    // (docs/configuration.md, "Other variables").
    if std::env::var_os("AGENTPLEX_WASM_PERFMAP").is_some() {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    config
}

/// An engine that compiles for and runs on this machine (its CPU features included).
pub fn native(host: &HostConfig) -> Result<Engine, HostError> {
    Engine::new(&config(host)).map_err(engine_error)
}

/// An engine that compiles portable code for `target` (a Rust target triple): only
/// the architecture's baseline CPU features, so the code runs on any machine of
/// that architecture and OS. It cannot run what it compiles unless `target` is
/// this machine's.
pub fn portable(host: &HostConfig, target: &str) -> Result<Engine, HostError> {
    let mut config = config(host);
    config.target(target).map_err(engine_error)?;
    Engine::new(&config).map_err(engine_error)
}

/// A number that changes whenever code compiled by `engine` could stop being
/// loadable by it (another wasmtime version, other settings or CPU features). Stable
/// within one build of the daemon; cache entries of another build are compiled again.
pub fn compatibility_key(engine: &Engine) -> u64 {
    // SipHash with fixed keys: the same value in every process of one build.
    #[allow(deprecated)]
    let mut hasher = std::hash::SipHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    hasher.finish()
}

fn engine_error(error: wasmtime::Error) -> HostError {
    HostError::Load {
        origin: "engine".into(),
        reason: format!("{error:#}"),
    }
}
