//! The 0.3.0 contract (`wit/v0.3.0`), and its values converted to and from 0.5.0's
//! so the rest of the host speaks 0.5.0 only. Events and actions are the same in
//! both, so 0.3.0 components use 0.5.0's types for them directly; the adapter
//! interface's own records are the same field for field but the session's
//! configuration, which 0.4.0 gave the daemon's model endpoints and 0.5.0 the
//! approval policy.
//!
//! What 0.3.0 lacks gets its 0.3 meaning: the agent's model calls go where it sends
//! them, unmetered (no `model-apis`, no `model-endpoints`), and its permission
//! requests are left to the client (no `describe-permission`).

wasmtime::component::bindgen!({
    path: "../wit/v0.3.0",
    world: "adapter-component",
    with: {
        "sandbox-agent:adapter/events@0.3.0": crate::bindings::v0_5::events,
        "sandbox-agent:adapter/actions@0.3.0": crate::bindings::v0_5::actions,
    },
});

pub use exports::sandbox_agent::adapter::adapter as guest;
pub use sandbox_agent::adapter::host;

use super::v0_5::guest as new;
use guest as old;

records_since_0_2!(later: [], config: []);
records_since_0_3!();
