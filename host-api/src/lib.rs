//! The wasmtime host that runs agentplex adapter components.
//!
//! An adapter is a WebAssembly component implementing the WIT contract in `wit/`
//! (`sandbox-agent:adapter`). This crate loads such components ([`AdapterRegistry`]),
//! compiles them once (ahead of time for the builtins, through an on-disk cache
//! for the others), and runs one isolated instance per
//! daemon session ([`AdapterSession`]). It knows nothing of any particular agent, of
//! processes or of HTTP: it turns inputs into the actions an adapter returns, and
//! checks them. The daemon (`runtime/`) carries the actions out.
//!
//! Isolation: guests get no WASI filesystem, network, clock, environment or
//! randomness (imports they declare trap when called); each instance has a memory
//! cap and each call a time budget; a trap, an over-limit guest or an invalid
//! action is reported as a fatal [`HostError`] for that session only. Because wasm
//! memory never shrinks, a session whose instance grew past a threshold is rebuilt
//! from its own snapshot.

mod adapter;
pub mod artifact;
mod bindings;
mod cache;
mod call;
mod compile;
mod contract;
mod convert;
pub mod engine;
mod error;
mod guest;
mod host;
pub mod instance_memory;
mod limits;
mod offer;
mod policy;
mod registry;
mod session;
mod ticker;
mod types;

pub use adapter::LoadedAdapter;
pub use artifact::AdapterFacts;
pub use convert::{is_loopback_url, InvalidAction};
pub use error::HostError;
pub use host::AdapterOrigin;
pub use offer::OFFER_CAPABILITY;
pub use policy::approval_policy;
pub use registry::{precompile, AdapterRegistry, AgentDefinition, EmbeddedAdapter};
pub use session::AdapterSession;
pub use types::*;

/// The WIT package versions this host accepts.
pub const SUPPORTED_CONTRACTS: &[&str] = &[
    "sandbox-agent:adapter@0.5.0",
    "sandbox-agent:adapter@0.4.0",
    "sandbox-agent:adapter@0.3.0",
    "sandbox-agent:adapter@0.2.0",
    "sandbox-agent:adapter@0.1.0",
];

/// The supported contract a component exporting `contract`
/// (`sandbox-agent:adapter@0.2.1`) is run as (`sandbox-agent:adapter@0.2.0`), by
/// semver; `None` when it is not compatible with any.
pub fn run_as(contract: &str) -> Option<&'static str> {
    let version = contract::supported_version(contract)?;
    SUPPORTED_CONTRACTS
        .iter()
        .copied()
        .find(|supported| supported.ends_with(&format!("@{version}")))
}
