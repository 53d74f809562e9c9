//! Helpers for typed native messages: `#[derive(Deserialize)]` types of an agent's
//! protocol that read its output as leniently as walking a `serde_json::Value` does.
//!
//! An agent's line must never be lost because one field has an unexpected shape: a
//! field that is missing, `null` or of another type reads as its default, the way
//! `value.get("x").and_then(Value::as_str).unwrap_or_default()` does. Mark such fields
//! `#[serde(default, deserialize_with = "native::lenient")]`; use [`present`] where a
//! field that is there (even `null`) means something else than one that is not, and
//! [`Lenient`] for the elements of an array that may not all have the expected shape.
//!
//! A message type is usually an enum tagged by the protocol's kind field, with an
//! untagged last variant that keeps whatever else arrives, so an unknown kind is still
//! handled as before (an `agent.unparsed` event, or ignored); [`tag_of`] names it:
//!
//! ```
//! use sandbox_agent_adapter_kit::native;
//! use serde::Deserialize;
//!
//! #[derive(Deserialize)]
//! #[serde(tag = "type", rename_all = "snake_case")]
//! enum Message {
//!     Text {
//!         #[serde(default, deserialize_with = "native::lenient")]
//!         text: String,
//!     },
//!     #[serde(untagged)]
//!     Other(serde_json::Value),
//! }
//!
//! let text = serde_json::from_str::<Message>(r#"{"type":"text","text":7}"#).unwrap();
//! assert!(matches!(text, Message::Text { text } if text.is_empty()));
//! let Message::Other(other) = serde_json::from_str(r#"{"type":"ping"}"#).unwrap() else {
//!     unreachable!()
//! };
//! assert_eq!(native::tag_of(&other, "type"), "ping");
//! ```

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A value of type `T` when it has `T`'s shape, else `None`; it never fails, so one odd
/// element does not cost the rest of an array.
///
/// ```
/// use sandbox_agent_adapter_kit::native::Lenient;
///
/// let items: Vec<Lenient<String>> = serde_json::from_str(r#"["a", 1, "b"]"#).unwrap();
/// let strings: Vec<&str> = items.iter().filter_map(Lenient::get).map(String::as_str).collect();
/// assert_eq!(strings, ["a", "b"]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Lenient<T>(pub Option<T>);

impl<T> Default for Lenient<T> {
    fn default() -> Self {
        Self(None)
    }
}

impl<T> Lenient<T> {
    /// The value, when it had `T`'s shape.
    pub fn get(&self) -> Option<&T> {
        self.0.as_ref()
    }

    /// The value, or `T`'s default when it had another shape.
    pub fn or_default(self) -> T
    where
        T: Default,
    {
        self.0.unwrap_or_default()
    }
}

/// What [`Lenient`] reads: `T`, or anything else (buffered and skipped).
#[derive(Deserialize)]
#[serde(untagged)]
enum Shaped<T> {
    Typed(T),
    Other(IgnoredAny),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Shaped::deserialize(deserializer)? {
            Shaped::Typed(value) => Self(Some(value)),
            Shaped::Other(IgnoredAny) => Self(None),
        })
    }
}

/// For `#[serde(default, deserialize_with = "native::lenient")]`: the field as `T`, or
/// `T`'s default when it has another shape (`null` included).
pub fn lenient<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Lenient::<T>::deserialize(deserializer).map(Lenient::or_default)
}

/// For `#[serde(default, deserialize_with = "native::present")]` on an `Option<T>`:
/// `Some` whenever the field is there, even `null` (read as [`lenient`] reads it), and
/// `None` (the `default`) only when it is missing.
pub fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    lenient(deserializer).map(Some)
}

/// For `#[serde(default, deserialize_with = "native::object")]` on an `Option<T>`:
/// `Some` when the field is a JSON object (its fields read as `T` reads them), `None`
/// for anything else, arrays included (which a derived struct would otherwise read
/// field by field).
pub fn object<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let value = Value::deserialize(deserializer)?;
    Ok(match value {
        Value::Object(_) => T::deserialize(value).ok(),
        _ => None,
    })
}

/// The typed view of a JSON value an adapter already holds (the `params` or `result`
/// of a JSON-RPC message, see [`crate::jsonrpc`]): `T` as it reads the value, or
/// `T`'s default when the value has another shape (`null` included).
///
/// ```
/// use sandbox_agent_adapter_kit::native;
/// use serde::Deserialize;
///
/// #[derive(Default, Deserialize)]
/// struct Params {
///     #[serde(default, deserialize_with = "native::lenient")]
///     delta: String,
/// }
///
/// let params = serde_json::json!({ "delta": "Hel" });
/// assert_eq!(native::read::<Params>(&params).delta, "Hel");
/// assert_eq!(native::read::<Params>(&serde_json::Value::Null).delta, "");
/// ```
pub fn read<T: serde::de::DeserializeOwned + Default>(value: &Value) -> T {
    match value {
        Value::Object(_) => T::deserialize(value).unwrap_or_default(),
        _ => T::default(),
    }
}

/// The string field `key` of a message the adapter has no type for (its kind, for
/// an `agent.unparsed` event); empty when it is missing or not a string.
pub fn tag_of<'v>(message: &'v Value, key: &str) -> &'v str {
    message.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The JSON value `{}`, for `#[serde(default = "native::empty_object")]` on a
/// free-form field (a tool's input) that reads as an empty object when missing.
pub fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

/// The `usage` object of the Anthropic Messages API, as Claude Code and Amp print it
/// in stream-json; [`crate::Usage::from`] turns it into universal usage. Counts that
/// are missing or not counts read as 0.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct AnthropicUsage {
    /// Input tokens that were neither written to nor read from the prompt cache.
    #[serde(default, deserialize_with = "lenient")]
    pub input_tokens: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default, deserialize_with = "lenient")]
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default, deserialize_with = "lenient")]
    pub cache_read_input_tokens: u64,
    /// Output tokens.
    #[serde(default, deserialize_with = "lenient")]
    pub output_tokens: u64,
}
