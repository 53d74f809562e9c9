//! The journal in front of the database: a session's commit is one record
//! appended to `sessions.journal` with a single `write`, acknowledged at once,
//! and copied into SQLite by the writer thread a few milliseconds later, with
//! whatever else came meanwhile, in one transaction.
//!
//! A record is durable as soon as its `write` returns, like a commit in the
//! database's own write-ahead log (`synchronous = NORMAL`): the daemon can be
//! killed at any point after it. The database keeps the number of the last
//! record it holds (`journal_applied`), in the transaction that copied it; a
//! daemon opening the database copies the records past that number first, so a
//! record is applied exactly once. Once everything in the journal is in the
//! database the file starts over.
//!
//! Each record is framed as `length (u32 LE) | CRC-32 of the body (u32 LE) |
//! body`, the body a `postcard` encoding of [`Entry`]. A record cut short or
//! damaged ends the journal: nothing after it was acknowledged, since records
//! are written one after another.

use std::borrow::Cow;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::{cause, cause_while, Commit, EncodedEvent, StoreError};

/// The bytes of a record's frame before its body.
const FRAME_HEAD: usize = 8;

/// One commit as journaled. Borrowed when written, owned when read back.
#[derive(Serialize, Deserialize)]
struct Entry<'a> {
    /// The record's number: one more than the previous record's, never reused.
    number: u64,
    #[serde(borrow)]
    session_id: Cow<'a, str>,
    /// The checkpoint as the database stores it (JSON).
    #[serde(borrow)]
    checkpoint: Cow<'a, str>,
    #[serde(borrow)]
    snapshot: Option<Cow<'a, [u8]>>,
    /// Each event: sequence, envelope, raw payload.
    #[serde(borrow)]
    events: Vec<(u64, Cow<'a, str>, Option<Cow<'a, str>>)>,
}

/// A journaled commit read back at start, to copy into the database.
pub(super) struct Pending {
    pub number: u64,
    pub commit: Commit,
}

/// The open journal file, appended to under the store's lock.
pub(super) struct Journal {
    file: File,
    /// Bytes in the file: where the next record goes.
    len: u64,
    /// The number the next record gets.
    next: u64,
}

impl Journal {
    /// Opens (creating) the journal at `path` and reads back the records with a
    /// number above `applied` (those the database does not hold yet), in order.
    pub fn open(path: &Path, applied: u64) -> std::io::Result<(Self, Vec<Pending>)> {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            // Events hold what clients and agents wrote: owner only.
            .mode(0o600)
            .open(path)?;
        // A journal made by hand or copied with wider permissions is narrowed too;
        // as for the database's own files, one this user may not change is used as it is.
        let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let (records, whole) = read_records(&bytes);
        if whole < bytes.len() {
            tracing::warn!(
                path = %path.display(),
                ignored = bytes.len() - whole,
                "the session journal ends with a record cut short (written as the daemon stopped): it was never acknowledged"
            );
            // The next record follows the last whole one.
            file.set_len(whole as u64)?;
        }
        let last = records.last().map_or(0, |record| record.number);
        let pending = records
            .into_iter()
            .filter(|record| record.number > applied)
            .collect();
        let journal = Journal {
            file,
            len: whole as u64,
            next: applied.max(last) + 1,
        };
        Ok((journal, pending))
    }

    /// Appends `commit` as one record; its number once written. A failed write
    /// leaves the file as it was.
    pub fn append(&mut self, commit: &Commit) -> Result<u64, StoreError> {
        let checkpoint = serde_json::to_string(&commit.checkpoint)?;
        let entry = Entry {
            number: self.next,
            session_id: Cow::Borrowed(&commit.session_id),
            checkpoint: Cow::Owned(checkpoint),
            snapshot: commit.snapshot.as_deref().map(Cow::Borrowed),
            events: commit
                .events
                .iter()
                .map(|event| {
                    (
                        event.sequence,
                        Cow::Borrowed(event.envelope()),
                        event.raw().map(Cow::Borrowed),
                    )
                })
                .collect(),
        };
        let frame = frame(&entry)?;
        if let Err(error) = self.file.write_all(&frame) {
            // Cut back what part of the record was written, so that the next one
            // follows the last whole record.
            let _ = self.file.set_len(self.len);
            return Err(StoreError::Io(cause_while(
                "writing the session journal",
                error,
            )));
        }
        self.len += frame.len() as u64;
        self.next += 1;
        Ok(entry.number)
    }

    /// Bytes in the file.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// The number of the last record written (0 before any).
    pub fn last_number(&self) -> u64 {
        self.next - 1
    }

    /// Empties the file: every record in it is in the database.
    pub fn start_over(&mut self) -> std::io::Result<()> {
        self.file.set_len(0)?;
        self.len = 0;
        Ok(())
    }
}

/// A record's frame: its length, checksum and body.
fn frame(entry: &Entry<'_>) -> Result<Vec<u8>, StoreError> {
    let body = postcard::to_allocvec(entry)
        .map_err(|error| StoreError::Io(cause_while("encoding a journal record", error)))?;
    let length = u32::try_from(body.len())
        .map_err(|_| StoreError::Io(cause("a commit too large for the session journal")))?;
    let mut frame = Vec::with_capacity(FRAME_HEAD + body.len());
    frame.extend_from_slice(&length.to_le_bytes());
    frame.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    frame.extend_from_slice(&body);
    Ok(frame)
}

/// The whole records at the start of `bytes`, and the bytes they take.
fn read_records(bytes: &[u8]) -> (Vec<Pending>, usize) {
    let mut records = Vec::new();
    let mut at = 0;
    while let Some(head) = bytes.get(at..at + FRAME_HEAD) {
        let length = u32::from_le_bytes(head[..4].try_into().unwrap()) as usize;
        let checksum = u32::from_le_bytes(head[4..].try_into().unwrap());
        let Some(body) = bytes.get(at + FRAME_HEAD..at + FRAME_HEAD + length) else {
            break;
        };
        if crc32fast::hash(body) != checksum {
            break;
        }
        let Some(record) = decode(body) else {
            break;
        };
        records.push(record);
        at += FRAME_HEAD + length;
    }
    (records, at)
}

/// A record's body as the commit it holds.
fn decode(body: &[u8]) -> Option<Pending> {
    let entry: Entry<'_> = postcard::from_bytes(body).ok()?;
    let events = entry
        .events
        .into_iter()
        .map(|(sequence, envelope, raw)| {
            EncodedEvent::from_stored(sequence, envelope.into_owned(), raw.map(Cow::into_owned))
                .map(Arc::new)
        })
        .collect::<Result<_, _>>()
        .ok()?;
    Some(Pending {
        number: entry.number,
        commit: Commit {
            session_id: entry.session_id.into_owned(),
            events,
            checkpoint: serde_json::from_str(&entry.checkpoint).ok()?,
            snapshot: entry.snapshot.map(Cow::into_owned),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Checkpoint;

    fn commit(session: &str, sequence: u64) -> Commit {
        let envelope = format!(r#"{{"type":"item.delta","sequence":{sequence}}}"#);
        Commit {
            session_id: session.into(),
            events: vec![Arc::new(
                EncodedEvent::from_stored(sequence, envelope, Some("\"native\"".into())).unwrap(),
            )],
            checkpoint: Checkpoint {
                updated_at: sequence as i64,
                ..Checkpoint::default()
            },
            snapshot: Some(vec![sequence as u8; 3]),
        }
    }

    fn numbers(pending: &[Pending]) -> Vec<u64> {
        pending.iter().map(|p| p.number).collect()
    }

    #[test]
    fn records_read_back_as_written_past_the_applied_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let (mut journal, pending) = Journal::open(&path, 0).unwrap();
        assert!(pending.is_empty());
        for sequence in 1..=3 {
            assert_eq!(journal.append(&commit("s", sequence)).unwrap(), sequence);
        }
        drop(journal);
        let (journal, pending) = Journal::open(&path, 1).unwrap();
        assert_eq!(numbers(&pending), [2, 3]);
        let read = &pending[1].commit;
        let written = commit("s", 3);
        assert_eq!(read.session_id, written.session_id);
        assert_eq!(read.events, written.events);
        assert_eq!(read.checkpoint, written.checkpoint);
        assert_eq!(read.snapshot, written.snapshot);
        assert_eq!(journal.last_number(), 3);
    }

    #[test]
    fn the_journal_is_readable_by_its_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions.journal");
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        Journal::open(&path, 0).unwrap();
        assert_eq!(mode(&path), 0o600, "a new journal");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        Journal::open(&path, 0).unwrap();
        assert_eq!(mode(&path), 0o600, "a journal found with wider permissions");
    }

    #[test]
    fn numbers_go_on_after_the_file_starts_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let (mut journal, _) = Journal::open(&path, 0).unwrap();
        journal.append(&commit("s", 1)).unwrap();
        journal.start_over().unwrap();
        assert_eq!(journal.append(&commit("s", 2)).unwrap(), 2);
        drop(journal);
        // Reopened empty with the database at 2: the next record is 3.
        std::fs::write(&path, b"").unwrap();
        let (mut journal, pending) = Journal::open(&path, 2).unwrap();
        assert!(pending.is_empty());
        assert_eq!(journal.append(&commit("s", 3)).unwrap(), 3);
    }

    #[test]
    fn a_record_cut_short_or_damaged_ends_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let (mut journal, _) = Journal::open(&path, 0).unwrap();
        for sequence in 1..=3 {
            journal.append(&commit("s", sequence)).unwrap();
        }
        drop(journal);
        let whole = std::fs::read(&path).unwrap();

        // Cut in the middle of the last record: the first two stay.
        std::fs::write(&path, &whole[..whole.len() - 5]).unwrap();
        let (mut journal, pending) = Journal::open(&path, 0).unwrap();
        assert_eq!(numbers(&pending), [1, 2]);
        // What follows goes after the cut (the next number is past the whole ones).
        assert_eq!(journal.append(&commit("s", 3)).unwrap(), 3);
        drop(journal);
        let (_, pending) = Journal::open(&path, 0).unwrap();
        assert_eq!(numbers(&pending), [1, 2, 3]);

        // A flipped byte in the second record: only the first stays.
        let mut damaged = whole.clone();
        let second = FRAME_HEAD + u32::from_le_bytes(whole[..4].try_into().unwrap()) as usize;
        damaged[second + FRAME_HEAD + 2] ^= 0xff;
        std::fs::write(&path, &damaged).unwrap();
        let (_, pending) = Journal::open(&path, 0).unwrap();
        assert_eq!(numbers(&pending), [1]);
    }
}
