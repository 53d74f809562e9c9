//! The toolkit every sandbox-agent adapter is written with.
//!
//! An adapter teaches the daemon one coding agent. It is a WebAssembly component that
//! implements the WIT contract in `wit/v0.3.0` (package `sandbox-agent:adapter@0.3.0`,
//! world `adapter-component`), and it is a pure state machine: the host calls one of its
//! functions with an input (a user message, a line a process printed, a timer tick...),
//! the adapter returns a list of [`Action`]s (emit an event, spawn a process, write to
//! stdin, set a timer...), and the host carries them out and feeds the outcome back.
//!
//! This crate holds, in one place:
//!
//! - [`bindings`]: the Rust bindings of the contract, generated once here by
//!   `wit-bindgen` so adapter crates never regenerate them. [`types`] re-exports the
//!   generated records and variants under short paths.
//! - [`Adapter`] and [`SessionMachine`]: friendlier traits than the generated ones
//!   (`&mut self`, default handlers for inputs an adapter does not use). Any type that
//!   implements [`Adapter`] implements the generated `Guest` trait, so registering a
//!   component is one line: `sandbox_agent_adapter_kit::export!(MyAdapter);`.
//! - [`Actions`], a builder for the list an input returns, and constructors for the
//!   events and items every adapter emits ([`event`], [`item`]), so adapter code reads
//!   like the transcript it produces; [`Failure`] and [`Actions::fail_session`] for a
//!   session that ends with an error.
//! - [`IdCounter`] for item, call and request ids, [`snapshot`] for the state blob
//!   ([`snapshot::Snapshotted`] gives `new`/`restore`/`snapshot` for the usual
//!   session shape),
//!   [`install`] for install recipes, [`credentials`] and [`jsonc`] for the agent's
//!   credential files, [`configured`] for the base URLs and keys its configuration
//!   gives its model providers (carried to the model gateway), [`native`] for typed
//!   native messages, [`text`] for message text, [`diff`] for file changes, [`transcript`] to render actions in
//!   tests, `testing` (cargo feature `testing`) to replay and record
//!   transcripts natively, and
//!   [`reply`], a ready-made session for agents that answer every message with one
//!   assistant message; [`process_session`], the lifecycle of a session that drives
//!   one long-lived agent process, and [`process_state`], the state header and the
//!   output helper such sessions share.
//!
//! # A minimal adapter
//!
//! ```
//! use sandbox_agent_adapter_kit::prelude::*;
//! use sandbox_agent_adapter_kit::reply::{Reply, Replier, ReplySession};
//!
//! /// An agent that answers every message with its length.
//! pub struct Counter;
//!
//! impl Adapter for Counter {
//!     type Session = ReplySession<Counter>;
//!     fn info() -> AdapterInfo {
//!         AdapterInfo::builtin("counter", "Counter", "0.1.0", Capabilities::TEXT)
//!     }
//! }
//!
//! impl Replier for Counter {
//!     fn reply(text: &str) -> Reply {
//!         Reply::Text(format!("{} characters", text.chars().count()))
//!     }
//! }
//!
//! // In the adapter's crate (crate-type `cdylib`), this registers the component:
//! // sandbox_agent_adapter_kit::export!(Counter);
//! ```
//!
//! Build it with `cargo build --release --target wasm32-wasip2`; the `.wasm` in
//! `target/wasm32-wasip2/release/` is the component.
//!
//! # Rules for adapter code
//!
//! The host gives an adapter no filesystem, network, clock, environment or randomness:
//! every such import traps, and a trap ends the session. In practice:
//!
//! - **Do not use `std::collections::HashMap` or `HashSet` with the default hasher.**
//!   Its `RandomState` seeds itself from `wasi:random`, which traps in the host. Use
//!   `BTreeMap` and `BTreeSet` (deterministic order is a bonus: snapshots and tests are
//!   stable).
//! - No `std::fs`, `std::env`, `std::time::{SystemTime, Instant}`, `std::net`,
//!   `std::thread`, `std::process`. Ask the host with an action instead: [`Action::Spawn`]
//!   for a process, [`Action::HttpRequest`] for a loopback server, [`Action::SetTimer`]
//!   for waiting.
//! - Panics trap, and a trap ends the session: return `Err` from replies for bad client
//!   input, and emit `agent.unparsed` ([`event::unparsed`]) for native output you do not
//!   understand.
//! - Keep state small and serializable: the host snapshots it ([`SessionMachine::snapshot`])
//!   to survive daemon restarts and to recycle instances whose memory grew.
//!
//! # Testing
//!
//! The generated types are ordinary Rust types, so an adapter's state machine runs
//! natively under `cargo test`: build the session with [`SessionMachine::new`], call its
//! methods, and compare the returned actions (they implement `PartialEq` and `Debug`).
//! Do not set a default build target in `.cargo/config.toml`, or tests stop running
//! natively.

#![warn(missing_docs)]

pub mod acp;
mod actions;
pub mod bindings;
pub mod checksum;
mod config;
pub mod configured;
pub mod credentials;
pub mod diff;
pub mod event;
mod failure;
mod ids;
mod info;
pub mod install;
pub mod item;
pub mod jsonc;
pub mod jsonrpc;
pub mod log;
pub mod mcp;
pub mod model_api;
pub mod native;
pub mod native_rules;
pub mod native_session;
mod origin;
pub mod process_session;
pub mod process_state;
pub mod reply;
mod session;
pub mod snapshot;
#[cfg(feature = "testing")]
pub mod testing;
pub mod text;
pub mod tool_request;
pub mod transcript;
pub mod types;

pub use actions::Actions;
pub use failure::Failure;
pub use ids::IdCounter;
pub use origin::Origin;
pub use session::{Adapter, Answers, ReplyResult, SessionMachine, SessionResource};
pub use types::*;

/// Registers a type implementing [`Adapter`] as the component's implementation of the
/// contract: `sandbox_agent_adapter_kit::export!(MyAdapter);` at the root of the
/// adapter's `cdylib` crate.
///
/// On `wasm32` it expands to the generated `export!` of [`bindings`]: the
/// `#[unsafe(export_name = ...)]` functions the component model calls, plus the custom
/// section that describes the contract to the component linker. On other targets it
/// expands to nothing, so the same crate builds and tests natively (the contract's
/// export names are not valid symbol names for native linkers).
#[macro_export]
macro_rules! export {
    ($ty:ident) => {
        #[cfg(target_arch = "wasm32")]
        $crate::bindings::export!($ty with_types_in $crate::bindings);
    };
}

/// A [`Capabilities`] with the named flags set and every other one unset:
/// `capabilities![tool_calls, tool_results, cancel]`; or set on top of a base, the
/// other flags as the base has them: `capabilities![plan_mode, ..Capabilities::CODING_AGENT]`.
#[macro_export]
macro_rules! capabilities {
    ($($flag:ident,)* ..$base:expr $(,)?) => {
        $crate::Capabilities {
            $($flag: true,)*
            ..$base
        }
    };
    ($($flag:ident),* $(,)?) => {
        $crate::Capabilities {
            $($flag: true,)*
            ..$crate::Capabilities::NONE
        }
    };
}

/// [`AdapterInfo::agent`] for the agent with this id, name and [`Capabilities`], at
/// the version of the adapter's crate: `agent_info!("claude", "Claude Code",
/// CAPABILITIES)`.
#[macro_export]
macro_rules! agent_info {
    ($id:expr, $name:expr, $capabilities:expr) => {
        $crate::types::AdapterInfo::agent($id, $name, env!("CARGO_PKG_VERSION"), $capabilities)
    };
}

/// Everything an adapter usually needs, for `use sandbox_agent_adapter_kit::prelude::*;`.
pub mod prelude {
    pub use crate::credentials::Locations;
    pub use crate::event;
    pub use crate::item;
    pub use crate::native_session::NativeSessions;
    pub use crate::text;
    pub use crate::types::*;
    pub use crate::{
        Actions, Adapter, Answers, Failure, IdCounter, Origin, ReplyResult, SessionMachine,
    };
}
