//! A versioned encoding for session snapshots.
//!
//! The host stores a session's [`crate::SessionMachine::snapshot`] bytes and hands them
//! back to [`crate::SessionMachine::restore`], possibly to a newer build of the adapter
//! after an upgrade. [`encode`] wraps the state in `{"version": N, "state": ...}` JSON;
//! [`decode`] refuses a blob written with another version, so a format change is an
//! explicit error instead of a silently wrong session. Bump the version whenever the
//! state's shape changes incompatibly.
//!
//! ```
//! use sandbox_agent_adapter_kit::snapshot;
//!
//! let bytes = snapshot::encode(1, &vec!["pending".to_string()]);
//! let state: Vec<String> = snapshot::decode(1, &bytes).unwrap();
//! assert_eq!(state, ["pending"]);
//! assert!(snapshot::decode::<Vec<String>>(2, &bytes).is_err());
//! ```

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[derive(Serialize)]
struct Envelope<'a, T> {
    version: u32,
    state: &'a T,
}

#[derive(Deserialize)]
struct OwnedEnvelope<T> {
    version: u32,
    state: Option<T>,
}

/// Encodes `state` with its format `version`.
pub fn encode<T: Serialize>(version: u32, state: &T) -> Vec<u8> {
    // Serializing plain data (no maps with non-string keys) cannot fail.
    serde_json::to_vec(&Envelope { version, state }).expect("snapshot state serializes to JSON")
}

/// Decodes bytes written by [`encode`] with the same `version`.
pub fn decode<T: DeserializeOwned>(version: u32, bytes: &[u8]) -> Result<T, String> {
    let envelope: OwnedEnvelope<serde_json::Value> =
        serde_json::from_slice(bytes).map_err(|e| format!("snapshot is not valid: {e}"))?;
    if envelope.version != version {
        return Err(format!(
            "snapshot has format version {}, this adapter reads version {version}",
            envelope.version
        ));
    }
    let state = envelope.state.unwrap_or(serde_json::Value::Null);
    serde_json::from_value(state).map_err(|e| format!("snapshot state is not valid: {e}"))
}

/// Implements [`crate::SessionMachine::restore`] and [`crate::SessionMachine::snapshot`]
/// for the usual session shape: a struct with a `config: SessionConfig` field and a
/// `state` field holding everything else (`Serialize` + `Deserialize`). The state is
/// stored with [`encode`] at format `version` and read back with [`decode`]; the
/// configuration is the host's. Write it inside `impl SessionMachine for ...`.
///
/// With `default` it also writes [`crate::SessionMachine::new`]: the state starts as
/// its `Default`. With `resume: field`, the same, and the state's `field` holds the
/// native session id to resume (`SessionConfig::resume_native_session_id`):
/// `snapshot_state!(STATE_VERSION, resume: native_session_id)`.
///
///
/// ```
/// use sandbox_agent_adapter_kit::prelude::*;
///
/// /// The format version of the snapshot.
/// const STATE_VERSION: u32 = 1;
///
/// struct Counting {
///     config: SessionConfig,
///     state: u32,
/// }
///
/// impl SessionMachine for Counting {
///     fn new(config: SessionConfig) -> Self {
///         Self { config, state: 0 }
///     }
///
///     sandbox_agent_adapter_kit::snapshot_state!(STATE_VERSION);
///
///     fn start(&mut self) -> Vec<Action> {
///         Vec::new()
///     }
///
///     fn send_message(&mut self, _parts: Vec<MessagePart>) -> Vec<Action> {
///         self.state += 1;
///         Vec::new()
///     }
/// }
/// # let config = SessionConfig {
/// #     session_id: "s1".into(), agent_mode: "build".into(), permission_mode: "default".into(),
/// #     model: None, variant: None, directory: "/workspace".into(), agent_binary: None,
/// #     env: Vec::new(), resume_native_session_id: None,
/// #     mcp_servers: Vec::new(), skills: Vec::new(), scratch_dir: String::new(),
/// # };
/// let mut session = Counting::new(config.clone());
/// session.send_message(Vec::new());
/// let restored = Counting::restore(config, &session.snapshot()).unwrap();
/// assert_eq!(restored.state, 1);
/// ```
#[macro_export]
macro_rules! snapshot_state {
    ($version:expr) => {
        fn restore(
            config: $crate::types::SessionConfig,
            state: &[u8],
        ) -> ::core::result::Result<Self, ::std::string::String> {
            ::core::result::Result::Ok(Self {
                config,
                state: $crate::snapshot::decode($version, state)?,
            })
        }

        fn snapshot(&self) -> ::std::vec::Vec<u8> {
            $crate::snapshot::encode($version, &self.state)
        }
    };
    ($version:expr, default) => {
        fn new(config: $crate::types::SessionConfig) -> Self {
            Self {
                config,
                state: ::core::default::Default::default(),
            }
        }

        $crate::snapshot_state!($version);
    };
    ($version:expr, resume: $field:ident) => {
        fn new(config: $crate::types::SessionConfig) -> Self {
            let mut session = Self {
                config,
                state: ::core::default::Default::default(),
            };
            session.state.$field = session.config.resume_native_session_id.clone();
            session
        }

        $crate::snapshot_state!($version);
    };
}
