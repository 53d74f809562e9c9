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

use crate::types::SessionConfig;

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

/// The usual session shape: a `config: SessionConfig` and a `state` holding
/// everything else, stored with [`encode`] at format `STATE_VERSION`
/// and read back with [`decode`] (the configuration is the host's). Implement the
/// two required methods, and [`crate::SessionMachine`]'s `new`, `restore` and
/// `snapshot` are one call each:
///
/// ```
/// use sandbox_agent_adapter_kit::prelude::*;
/// use sandbox_agent_adapter_kit::snapshot::Snapshotted;
///
/// struct Counting {
///     config: SessionConfig,
///     state: u32,
/// }
///
/// impl Snapshotted<u32> for Counting {
///     const STATE_VERSION: u32 = 1;
///
///     fn from_parts(config: SessionConfig, state: u32) -> Self {
///         Self { config, state }
///     }
///
///     fn state(&self) -> &u32 {
///         &self.state
///     }
/// }
///
/// impl SessionMachine for Counting {
///     fn new(config: SessionConfig) -> Self {
///         Self::fresh(config)
///     }
///
///     fn restore(config: SessionConfig, state: &[u8]) -> Result<Self, String> {
///         Self::restore_state(config, state)
///     }
///
///     fn snapshot(&self) -> Vec<u8> {
///         self.snapshot_state()
///     }
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
/// #     model_endpoints: Vec::new(),
/// #     policy: None,
/// # };
/// let mut session = Counting::new(config.clone());
/// session.send_message(Vec::new());
/// let restored = Counting::restore(config, &session.snapshot()).unwrap();
/// assert_eq!(restored.state, 1);
/// ```
///
/// `State` is a parameter rather than an associated type so that a public session
/// type can keep a crate-private state.
pub trait Snapshotted<State: Serialize + DeserializeOwned + Default>: Sized {
    /// The format version of the snapshot; bump it when `State` changes shape
    /// incompatibly.
    const STATE_VERSION: u32;

    /// The session made of its configuration and its state.
    fn from_parts(config: SessionConfig, state: State) -> Self;

    /// The session's state.
    fn state(&self) -> &State;

    /// A new session: its state starts as the state's `Default`.
    fn fresh(config: SessionConfig) -> Self {
        Self::from_parts(config, State::default())
    }

    /// The session [`Snapshotted::snapshot_state`]'s bytes hold, for `config`.
    fn restore_state(config: SessionConfig, bytes: &[u8]) -> Result<Self, String> {
        let state = decode(Self::STATE_VERSION, bytes)?;
        Ok(Self::from_parts(config, state))
    }

    /// The state, encoded at [`Snapshotted::STATE_VERSION`].
    fn snapshot_state(&self) -> Vec<u8> {
        encode(Self::STATE_VERSION, self.state())
    }
}

/// For `#[serde(with = "snapshot::numeric_keys")]` on a `BTreeMap<u64, V>` in a
/// state that is (or sits inside) a `#[serde(flatten)]` field, such as one embedding
/// a [`crate::process_state::ProcessState`].
///
/// JSON object keys are strings: serde_json reads `"7"` back as the number 7, but not
/// once a flattened field has buffered the object. Written as usual, read from the
/// keys' text.
///
/// ```
/// use std::collections::BTreeMap;
///
/// use sandbox_agent_adapter_kit::snapshot;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Debug, PartialEq, Serialize, Deserialize)]
/// struct Blocks {
///     #[serde(with = "snapshot::numeric_keys")]
///     by_index: BTreeMap<u64, String>,
/// }
///
/// #[derive(Debug, PartialEq, Serialize, Deserialize)]
/// struct State {
///     #[serde(flatten)]
///     blocks: Blocks,
/// }
///
/// let state = State { blocks: Blocks { by_index: BTreeMap::from([(7, "seven".to_owned())]) } };
/// let json = serde_json::to_string(&state).unwrap();
/// assert_eq!(json, r#"{"by_index":{"7":"seven"}}"#);
/// assert_eq!(serde_json::from_str::<State>(&json).unwrap(), state);
/// ```
pub mod numeric_keys {
    use std::collections::BTreeMap;

    use serde::de::{DeserializeOwned, Error};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Writes the map as usual (the keys become JSON strings).
    pub fn serialize<V: Serialize, S: Serializer>(
        map: &BTreeMap<u64, V>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        map.serialize(serializer)
    }

    /// Reads the map, its keys from their text.
    pub fn deserialize<'de, V: DeserializeOwned, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<BTreeMap<u64, V>, D::Error> {
        let by_text = BTreeMap::<String, V>::deserialize(deserializer)?;
        by_text
            .into_iter()
            .map(|(key, value)| match key.parse() {
                Ok(key) => Ok((key, value)),
                Err(_) => Err(D::Error::custom(format!("{key:?} is not a number"))),
            })
            .collect()
    }
}
