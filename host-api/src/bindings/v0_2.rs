//! The 0.2.0 contract (`wit/v0.2.0`), and its values converted to and from 0.5.0's
//! so the rest of the host speaks 0.5.0 only. Events and actions are the same in
//! both, so 0.2.0 components use 0.5.0's types for them directly; the adapter
//! interface's own records are the same field for field.
//!
//! What 0.2.0 lacks gets its 0.2 meaning: the agent's own session cannot move
//! (no `native-session-files`, no `move` capability), and its model calls are not
//! metered (no `model-apis`), and its permission requests are left to the client
//! (no `describe-permission`).

wasmtime::component::bindgen!({
    path: "../wit/v0.2.0",
    world: "adapter-component",
    with: {
        "sandbox-agent:adapter/events@0.2.0": crate::bindings::v0_5::events,
        "sandbox-agent:adapter/actions@0.2.0": crate::bindings::v0_5::actions,
    },
});

pub use exports::sandbox_agent::adapter::adapter as guest;
pub use sandbox_agent::adapter::host;

use super::v0_5::guest as new;
use guest as old;

// `move` means 0.3.0's functions: a 0.2.0 component cannot claim it.
records_since_0_2!(later: ["move"], config: []);
