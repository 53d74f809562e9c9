//! An event encoded once, by the core that numbers it: the JSON that the store
//! writes, the log keeps, and every reader (page, SSE stream) sends, without
//! serializing or parsing it again.

use std::borrow::Cow;

use agentplex_universal::{UniversalEvent, UniversalEventType};
use serde_json::value::RawValue;

/// One transcript event as JSON, in two pieces so that a reader with or without
/// `raw` gets its bytes without parsing: the envelope (every field but `raw`) and
/// the native payload.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedEvent {
    /// The event's position in its session.
    pub sequence: u64,
    /// Its type, for readers that stop at a kind of event.
    pub event_type: UniversalEventType,
    /// The event without `raw`, as a JSON object.
    envelope: Box<str>,
    /// `raw` as JSON, when the event has one.
    raw: Option<Box<str>>,
}

/// The fields of an envelope a stored event is read back with.
#[derive(serde::Deserialize)]
struct Head {
    #[serde(rename = "type")]
    event_type: UniversalEventType,
}

impl EncodedEvent {
    /// Encodes an event whose native payload is already checked JSON: the
    /// envelope is serialized once and `raw` is kept as it is (`envelope.raw`
    /// is not written; `raw` is the payload).
    pub fn new(envelope: &UniversalEvent, raw: Option<Box<RawValue>>) -> Self {
        debug_assert!(envelope.raw.is_none(), "the payload goes apart");
        Self {
            sequence: envelope.sequence,
            event_type: envelope.event_type,
            envelope: serde_json::to_string(envelope)
                .expect("a universal event always serializes")
                .into(),
            raw: raw.map(Box::<str>::from),
        }
    }

    /// Encodes a whole event, its `raw` value included (for events not made by
    /// a session, such as a test's).
    pub fn encode(event: &UniversalEvent) -> Self {
        let raw = event.raw.as_ref().map(|raw| {
            serde_json::value::to_raw_value(raw).expect("a JSON value always serializes")
        });
        let envelope = UniversalEvent {
            raw: None,
            ..event.clone()
        };
        Self::new(&envelope, raw)
    }

    /// An event as the store keeps it: its envelope and its raw payload, JSON
    /// the store wrote (only the envelope's type is read).
    pub fn from_stored(
        sequence: u64,
        envelope: String,
        raw: Option<String>,
    ) -> Result<Self, serde_json::Error> {
        let head: Head = serde_json::from_str(&envelope)?;
        Ok(Self {
            sequence,
            event_type: head.event_type,
            envelope: envelope.into(),
            raw: raw.map(Into::into),
        })
    }

    /// The envelope JSON (the event without `raw`).
    pub fn envelope(&self) -> &str {
        &self.envelope
    }

    /// The raw payload's JSON, if any.
    pub fn raw(&self) -> Option<&str> {
        self.raw.as_deref()
    }

    /// The event's JSON, with its `raw` field when asked for and present.
    pub fn json(&self, include_raw: bool) -> Cow<'_, str> {
        match (&self.raw, include_raw) {
            (Some(raw), true) => {
                // The envelope is an object: `raw` goes in before its closing brace.
                let open = &self.envelope[..self.envelope.len() - 1];
                Cow::Owned(format!("{open},\"raw\":{raw}}}"))
            }
            _ => Cow::Borrowed(&self.envelope),
        }
    }

    /// The event decoded, its `raw` payload included.
    pub fn decode(&self) -> Result<UniversalEvent, serde_json::Error> {
        serde_json::from_str(&self.json(true))
    }

    /// The event decoded without its `raw` payload (`raw` is `None`), which is
    /// not parsed: for the daemon's own readers that convert or look up events
    /// (an ACP connection's updates, a lookup back through the transcript).
    pub fn decode_envelope(&self) -> Result<UniversalEvent, serde_json::Error> {
        serde_json::from_str(&self.envelope)
    }

    /// Bytes held, for the log's memory bound.
    pub fn size(&self) -> usize {
        self.envelope.len() + self.raw.as_ref().map_or(0, |raw| raw.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentplex_universal::{ErrorData, EventSource, UniversalEventData};

    fn event(raw: Option<serde_json::Value>) -> UniversalEvent {
        UniversalEvent {
            event_id: "evt_7".into(),
            sequence: 7,
            time: "2026-11-26T00:00:00.000Z".into(),
            session_id: "s".into(),
            native_session_id: Some("n".into()),
            source: EventSource::Agent,
            synthetic: false,
            event_type: UniversalEventType::Error,
            data: UniversalEventData::Error(ErrorData {
                message: "a \"quoted\" }".into(),
                code: None,
                details: None,
            }),
            raw,
        }
    }

    #[test]
    fn both_encodings_are_what_serde_writes() {
        let raw = serde_json::json!({"native": [1, "two", {"three": null}]});
        let with_raw = event(Some(raw));
        let encoded = EncodedEvent::encode(&with_raw);
        let full: serde_json::Value = serde_json::from_str(&encoded.json(true)).unwrap();
        assert_eq!(full, serde_json::to_value(&with_raw).unwrap());
        let plain: serde_json::Value = serde_json::from_str(&encoded.json(false)).unwrap();
        assert_eq!(plain, serde_json::to_value(event(None)).unwrap());
        assert_eq!(encoded.decode().unwrap(), with_raw);
        assert_eq!(encoded.decode_envelope().unwrap(), event(None));
        assert_eq!(encoded.event_type, UniversalEventType::Error);
    }

    #[test]
    fn a_checked_payload_is_kept_byte_for_byte() {
        let native = r#"{"b": 1,  "a": [true]}"#;
        let raw = RawValue::from_string(native.to_owned()).unwrap();
        let encoded = EncodedEvent::new(&event(None), Some(raw));
        assert_eq!(encoded.raw(), Some(native));
        assert!(encoded
            .json(true)
            .ends_with(&format!(",\"raw\":{native}}}")));
        assert_eq!(
            encoded.decode().unwrap().raw,
            Some(serde_json::from_str(native).unwrap())
        );
    }

    #[test]
    fn a_stored_event_reads_back_the_same() {
        let encoded = EncodedEvent::encode(&event(Some(serde_json::json!("line"))));
        let stored = EncodedEvent::from_stored(
            7,
            encoded.envelope().to_owned(),
            encoded.raw().map(str::to_owned),
        )
        .unwrap();
        assert_eq!(stored, encoded);
        assert!(EncodedEvent::from_stored(1, "{}".into(), None).is_err());
    }
}
