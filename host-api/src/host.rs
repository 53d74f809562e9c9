//! What every adapter of a registry shares, and where a component came from.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use wasmtime::Engine;

use crate::cache::CompileCache;
use crate::ticker::EpochTicker;
use crate::HostConfig;

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

/// What every adapter of a registry shares: the engine, the limits and the cache.
pub(crate) struct Host {
    pub(crate) engine: Engine,
    pub(crate) config: Arc<HostConfig>,
    /// Bounds the time of guest calls.
    pub(crate) ticker: EpochTicker,
    /// Where components compiled here are kept, when anywhere.
    pub(crate) cache: Option<CompileCache>,
    /// The engine's compatibility key (see `engine::compatibility_key`).
    pub(crate) compatibility: u64,
}
