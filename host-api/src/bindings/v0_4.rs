//! The 0.4.0 contract (`wit/v0.4.0`), and its values converted to and from 0.5.0's
//! so the rest of the host speaks 0.5.0 only. Events and actions are the same in
//! both, so 0.4.0 components use 0.5.0's types for them directly; the adapter
//! interface's own records are the same field for field but the session's
//! configuration, which 0.5.0 gave the approval policy.
//!
//! What 0.4.0 lacks gets its 0.4 meaning: its permission requests are left to the
//! client (no `describe-permission`, no `asks-for`), and its agents get no native
//! rules from the policy.

wasmtime::component::bindgen!({
    path: "../wit/v0.4.0",
    world: "adapter-component",
    // The model API records convert through their serde form (see `same_shape`).
    additional_derives: [serde::Serialize, serde::Deserialize],
    with: {
        "sandbox-agent:adapter/events@0.4.0": crate::bindings::v0_5::events,
        "sandbox-agent:adapter/actions@0.4.0": crate::bindings::v0_5::actions,
    },
});

pub use exports::sandbox_agent::adapter::adapter as guest;
pub use sandbox_agent::adapter::host;

use super::v0_5::guest as new;
use guest as old;

records_since_0_2!(later: [], config: [model_endpoints]);
records_since_0_3!();

// Host to guest: the daemon's endpoints.
impl From<new::ModelEndpoint> for old::ModelEndpoint {
    fn from(endpoint: new::ModelEndpoint) -> Self {
        same_shape(endpoint)
    }
}

// Guest to host: its model APIs.
impl From<old::ModelApi> for new::ModelApi {
    fn from(api: old::ModelApi) -> Self {
        same_shape(api)
    }
}

/// A record of the model APIs as the other contract's: they are the same field for
/// field and case for case in 0.4.0 and 0.5.0, so their serde forms are one (which
/// keeps the wire formats, named for their providers, out of the host's code).
fn same_shape<A: serde::Serialize, B: serde::de::DeserializeOwned>(value: A) -> B {
    serde_json::to_value(value)
        .and_then(serde_json::from_value)
        .expect("the model API records are the same in 0.4.0 and 0.5.0")
}
