//! Events of types this client does not know: a newer daemon's transcript may hold
//! event types added after this client was built (0.4 added `model.usage`), and a
//! client must not break on them. They are left out of pages and streams; their
//! sequence numbers show where they were.

use agentplex_universal::{UniversalEvent, UniversalEventType};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::EventsResponse;

/// A page of events as the daemon sent it, each event still JSON.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawPage {
    events: Vec<Box<RawValue>>,
    has_more: bool,
}

/// The envelope fields read from an event this client cannot decode.
#[derive(Deserialize)]
struct Head {
    #[serde(rename = "type")]
    event_type: String,
    sequence: u64,
}

/// An event as this client reads it.
// Matched at once where it is made, never kept: its size does not matter.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Decoded {
    /// An event of a type it knows.
    Known(UniversalEvent),
    /// A well-formed event of a type it does not know, left out.
    Unknown {
        /// Its place in the transcript.
        sequence: u64,
    },
}

/// Decodes one event.
pub(crate) fn decode_event(json: &str) -> Result<Decoded, serde_json::Error> {
    match serde_json::from_str(json) {
        Ok(event) => Ok(Decoded::Known(event)),
        Err(error) => {
            let Ok(head) = serde_json::from_str::<Head>(json) else {
                return Err(error);
            };
            match serde_json::from_value::<UniversalEventType>(head.event_type.into()) {
                // A type it knows: the event itself is wrong.
                Ok(_) => Err(error),
                Err(_) => Ok(Decoded::Unknown {
                    sequence: head.sequence,
                }),
            }
        }
    }
}

/// The page without the events of unknown types, and the sequence of the page's
/// last event (known or not), to page on from when all of them were unknown.
pub(crate) fn known_events(
    page: RawPage,
) -> Result<(EventsResponse, Option<u64>), serde_json::Error> {
    let mut events = Vec::with_capacity(page.events.len());
    let mut last = None;
    for json in &page.events {
        match decode_event(json.get())? {
            Decoded::Known(event) => {
                last = Some(event.sequence);
                events.push(event);
            }
            Decoded::Unknown { sequence } => last = Some(sequence),
        }
    }
    let has_more = page.has_more;
    Ok((EventsResponse { events, has_more }, last))
}
