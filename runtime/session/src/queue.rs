//! Messages waiting for a session's running turn to end. The queue is part of
//! the session's checkpoint, so a message the daemon accepted survives a crash
//! and runs, in order, after the restart.

use agentplex_adapter_types::{Attachment, MessagePart};

use crate::StoredPart;

/// Names a queued message whose sender wants to know when its turn starts (the
/// driver keeps the channel; the core only passes the ticket back).
pub type Ticket = u64;

/// A message waiting for the running turn to end.
#[derive(Debug)]
pub struct Queued {
    /// The message.
    pub parts: Vec<MessagePart>,
    /// Names whoever wants the last sequence before the message's turn starts
    /// (for streaming that turn); none for a message a previous daemon accepted.
    pub ticket: Option<Ticket>,
}

impl Queued {
    /// A message as the checkpoint keeps it.
    pub fn stored(&self) -> Vec<StoredPart> {
        self.parts.iter().map(stored_part).collect()
    }

    /// A message a previous daemon accepted and stored.
    pub fn from_stored(parts: &[StoredPart]) -> Self {
        Self {
            parts: parts.iter().cloned().map(message_part).collect(),
            ticket: None,
        }
    }
}

fn stored_part(part: &MessagePart) -> StoredPart {
    let attachment = |a: &Attachment| (a.path.clone(), a.mime.clone(), a.filename.clone());
    match part {
        MessagePart::Text(text) => StoredPart::Text { text: text.clone() },
        MessagePart::Image(a) => {
            let (path, mime, filename) = attachment(a);
            StoredPart::Image {
                path,
                mime,
                filename,
            }
        }
        MessagePart::File(a) => {
            let (path, mime, filename) = attachment(a);
            StoredPart::File {
                path,
                mime,
                filename,
            }
        }
    }
}

fn message_part(part: StoredPart) -> MessagePart {
    match part {
        StoredPart::Text { text } => MessagePart::Text(text),
        StoredPart::Image {
            path,
            mime,
            filename,
        } => MessagePart::Image(Attachment {
            path,
            mime,
            filename,
        }),
        StoredPart::File {
            path,
            mime,
            filename,
        } => MessagePart::File(Attachment {
            path,
            mime,
            filename,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_part_comes_back_from_the_store_as_it_was() {
        let attachment = |path: &str| Attachment {
            path: path.into(),
            mime: Some("image/png".into()),
            filename: None,
        };
        let queued = Queued {
            parts: vec![
                MessagePart::Text("hello".into()),
                MessagePart::Image(attachment("/a.png")),
                MessagePart::File(attachment("/b.txt")),
            ],
            ticket: None,
        };
        let json = serde_json::to_string(&queued.stored()).unwrap();
        let stored: Vec<StoredPart> = serde_json::from_str(&json).unwrap();
        let back = Queued::from_stored(&stored);
        assert_eq!(format!("{:?}", back.parts), format!("{:?}", queued.parts));
    }
}
