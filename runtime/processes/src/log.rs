//! A process's output: a ring buffer of chunks, as read, bounded in bytes.
//!
//! Every byte the process printed has an offset (from 0, over all its streams in
//! the order read) and every chunk a sequence number (from 1), so a reader that
//! falls behind the buffer learns exactly how much it missed. Readers are woken
//! through a watch channel and read at their own pace: a slow one never holds the
//! daemon's memory.

use std::collections::VecDeque;
use std::sync::Mutex;

use agentplex_api::ProcessLogsStream;
use bytes::Bytes;
use tokio::sync::watch;

/// What each chunk costs besides its bytes, counted against the buffer's limit: a
/// process printing a byte at a time cannot hold more memory than one printing pages.
pub const CHUNK_OVERHEAD: usize = 64;

/// Where an output chunk came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// The process's standard output.
    Stdout,
    /// Its standard error.
    Stderr,
    /// A terminal's output.
    Pty,
}

impl Stream {
    /// The wire name of the stream.
    pub fn wire(self) -> ProcessLogsStream {
        match self {
            Stream::Stdout => ProcessLogsStream::Stdout,
            Stream::Stderr => ProcessLogsStream::Stderr,
            Stream::Pty => ProcessLogsStream::Pty,
        }
    }

    /// Whether a reader asking for `wanted` gets this stream's output.
    pub fn matches(self, wanted: ProcessLogsStream) -> bool {
        match wanted {
            ProcessLogsStream::Combined => self != Stream::Pty,
            other => self.wire() == other,
        }
    }
}

/// One chunk of output as read.
#[derive(Debug, Clone)]
pub struct Chunk {
    /// Its number, from 1.
    pub sequence: u64,
    /// Where its first byte is in everything printed, from 0.
    pub offset: u64,
    /// Which output it came from.
    pub stream: Stream,
    /// When it was read (Unix milliseconds).
    pub timestamp_ms: i64,
    /// The bytes.
    pub data: Bytes,
}

impl Chunk {
    /// Offset one past its last byte.
    pub fn end(&self) -> u64 {
        self.offset + self.data.len() as u64
    }

    /// The part of the chunk from `offset` on (all of it when it starts there or later).
    fn starting_at(&self, offset: u64) -> Chunk {
        let skip = offset
            .saturating_sub(self.offset)
            .min(self.data.len() as u64) as usize;
        Chunk {
            offset: self.offset + skip as u64,
            data: self.data.slice(skip..),
            ..self.clone()
        }
    }
}

/// Where a read starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// At this byte offset.
    Offset(u64),
    /// After the chunk with this sequence number.
    AfterSequence(u64),
    /// Where a reader stopped.
    At(Cursor),
}

/// A reader's place in the log once it has read: the next chunk and byte it expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    /// The sequence of the next chunk.
    pub sequence: u64,
    /// The offset of the next byte.
    pub offset: u64,
}

/// What a read returns.
#[derive(Debug, Clone)]
pub struct Page {
    /// The chunks that match, in order.
    pub chunks: Vec<Chunk>,
    /// Offset of the oldest byte held.
    pub first_offset: u64,
    /// Sequence of the oldest chunk held (the next one when none is).
    pub first_sequence: u64,
    /// Offset one past the newest byte.
    pub next_offset: u64,
    /// Chunks asked for that were dropped before this read.
    pub missed_entries: u64,
    /// Bytes asked for that were dropped before this read (when the read started at
    /// an offset or a cursor; unknown, so 0, after a sequence that was dropped).
    pub missed_bytes: u64,
    /// Where the next read continues.
    pub cursor: Cursor,
    /// No output will come any more (the process's output is closed) and this
    /// read reached its end.
    pub finished: bool,
}

struct Ring {
    chunks: VecDeque<Chunk>,
    held: usize,
    limit: usize,
    next_offset: u64,
    next_sequence: u64,
    closed: bool,
}

impl Ring {
    fn first_offset(&self) -> u64 {
        self.chunks.front().map_or(self.next_offset, |c| c.offset)
    }

    fn first_sequence(&self) -> u64 {
        self.chunks
            .front()
            .map_or(self.next_sequence, |c| c.sequence)
    }

    /// The cursor a position names, and the bytes and chunks dropped before it.
    fn locate(&self, from: Position) -> (Cursor, u64, u64) {
        let first = Cursor {
            sequence: self.first_sequence(),
            offset: self.first_offset(),
        };
        match from {
            Position::Offset(offset) if offset < first.offset => (first, first.offset - offset, 0),
            Position::Offset(offset) => {
                let offset = offset.min(self.next_offset);
                let sequence = self
                    .chunks
                    .iter()
                    .find(|c| c.end() > offset)
                    .map_or(self.next_sequence, |c| c.sequence);
                (Cursor { sequence, offset }, 0, 0)
            }
            Position::At(cursor) if cursor.offset < first.offset => (
                first,
                first.offset - cursor.offset,
                first.sequence.saturating_sub(cursor.sequence),
            ),
            Position::At(cursor) => (cursor, 0, 0),
            Position::AfterSequence(after) => {
                let wanted = after.saturating_add(1);
                if wanted < first.sequence {
                    return (first, 0, first.sequence - wanted);
                }
                let offset = self
                    .chunks
                    .iter()
                    .find(|c| c.sequence >= wanted)
                    .map_or(self.next_offset, |c| c.offset);
                let sequence = wanted.min(self.next_sequence);
                (Cursor { sequence, offset }, 0, 0)
            }
        }
    }
}

/// A process's output log.
pub struct OutputLog {
    ring: Mutex<Ring>,
    changed: watch::Sender<u64>,
}

impl OutputLog {
    /// An empty log holding at most `limit` bytes, each chunk counting
    /// [`CHUNK_OVERHEAD`] more than its bytes (a limit below one chunk of one byte is
    /// raised to it).
    pub fn new(limit: usize) -> Self {
        OutputLog {
            ring: Mutex::new(Ring {
                chunks: VecDeque::new(),
                held: 0,
                limit: limit.max(CHUNK_OVERHEAD + 1),
                next_offset: 0,
                next_sequence: 1,
                closed: false,
            }),
            changed: watch::channel(0).0,
        }
    }

    /// Appends a chunk, dropping the oldest ones to make room. A chunk larger than
    /// the whole buffer keeps its last bytes only (its first were dropped).
    pub fn push(&self, stream: Stream, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        let mut ring = self.ring.lock().unwrap();
        let room = ring.limit - CHUNK_OVERHEAD;
        let kept = &data[data.len().saturating_sub(room)..];
        let cost = kept.len() + CHUNK_OVERHEAD;
        while ring.held + cost > ring.limit {
            let Some(dropped) = ring.chunks.pop_front() else {
                break;
            };
            ring.held -= dropped.data.len() + CHUNK_OVERHEAD;
        }
        let chunk = Chunk {
            sequence: ring.next_sequence,
            offset: ring.next_offset + (data.len() - kept.len()) as u64,
            stream,
            timestamp_ms: now_ms(),
            data: Bytes::copy_from_slice(kept),
        };
        ring.held += cost;
        ring.next_offset += data.len() as u64;
        ring.next_sequence += 1;
        ring.chunks.push_back(chunk);
        drop(ring);
        self.changed.send_modify(|version| *version += 1);
    }

    /// Marks the output closed: no chunk will follow.
    pub fn close(&self) {
        self.ring.lock().unwrap().closed = true;
        self.changed.send_modify(|version| *version += 1);
    }

    /// Wakes on every push and on close.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Reads the chunks of `stream` from `from` on; with `tail`, only the last
    /// that many of them; with `max_bytes`, stops after the chunk that reaches it.
    pub fn read(
        &self,
        from: Position,
        stream: ProcessLogsStream,
        tail: Option<usize>,
        max_bytes: Option<usize>,
    ) -> Page {
        let ring = self.ring.lock().unwrap();
        let (start, missed_bytes, missed_entries) = ring.locate(from);
        let mut chunks = Vec::new();
        let mut cursor = start;
        let mut bytes = 0;
        for chunk in ring.chunks.iter().filter(|c| c.end() > start.offset) {
            if max_bytes.is_some_and(|max| bytes >= max) {
                break;
            }
            cursor = Cursor {
                sequence: chunk.sequence + 1,
                offset: chunk.end(),
            };
            if chunk.stream.matches(stream) {
                let part = chunk.starting_at(start.offset);
                bytes += part.data.len();
                chunks.push(part);
            }
        }
        if let Some(tail) = tail {
            let skip = chunks.len().saturating_sub(tail);
            chunks.drain(..skip);
        }
        Page {
            chunks,
            first_offset: ring.first_offset(),
            first_sequence: ring.first_sequence(),
            next_offset: ring.next_offset,
            missed_entries,
            missed_bytes,
            finished: ring.closed && cursor.offset >= ring.next_offset,
            cursor,
        }
    }
}

/// Now, in Unix milliseconds.
pub fn now_ms() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp_nanos() as i64 / 1_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(page: &Page) -> String {
        page.chunks
            .iter()
            .map(|c| String::from_utf8_lossy(&c.data).into_owned())
            .collect()
    }

    #[test]
    fn offsets_and_sequences_count_everything_printed() {
        let log = sized(1024, 3);
        log.push(Stream::Stdout, b"hello ");
        log.push(Stream::Stderr, b"oops");
        log.push(Stream::Stdout, b"world");
        let page = log.read(Position::Offset(0), ProcessLogsStream::Combined, None, None);
        assert_eq!(text(&page), "hello oopsworld");
        let offsets: Vec<_> = page.chunks.iter().map(|c| (c.sequence, c.offset)).collect();
        assert_eq!(offsets, [(1, 0), (2, 6), (3, 10)]);
        assert_eq!(page.next_offset, 15);
        let stdout = log.read(Position::Offset(0), ProcessLogsStream::Stdout, None, None);
        assert_eq!(text(&stdout), "hello world");
        // The cursor passes the other stream's chunks too.
        assert_eq!(
            stdout.cursor,
            Cursor {
                sequence: 4,
                offset: 15
            }
        );
    }

    /// A log with room for `bytes` of data in `chunks` chunks.
    fn sized(bytes: usize, chunks: usize) -> OutputLog {
        OutputLog::new(bytes + chunks * CHUNK_OVERHEAD)
    }

    #[test]
    fn the_oldest_chunks_go_first_and_readers_learn_what_they_missed() {
        let log = sized(8, 2);
        for word in ["aaaa", "bbbb", "cccc", "dddd"] {
            log.push(Stream::Stdout, word.as_bytes());
        }
        let page = log.read(Position::Offset(0), ProcessLogsStream::Combined, None, None);
        assert_eq!(text(&page), "ccccdddd");
        assert_eq!(page.first_offset, 8);
        assert_eq!(page.first_sequence, 3);
        assert_eq!(page.missed_bytes, 8);
        let since = log.read(
            Position::AfterSequence(0),
            ProcessLogsStream::Combined,
            None,
            None,
        );
        assert_eq!(since.missed_entries, 2);
        let held = log.read(
            Position::AfterSequence(3),
            ProcessLogsStream::Combined,
            None,
            None,
        );
        assert_eq!((text(&held), held.missed_entries), ("dddd".to_owned(), 0));
    }

    #[test]
    fn a_chunk_larger_than_the_buffer_keeps_its_end() {
        let log = sized(4, 1);
        log.push(Stream::Pty, b"0123456789");
        let page = log.read(Position::Offset(0), ProcessLogsStream::Pty, None, None);
        assert_eq!(text(&page), "6789");
        assert_eq!((page.first_offset, page.next_offset), (6, 10));
    }

    #[test]
    fn tiny_chunks_count_their_overhead() {
        let log = sized(10, 4);
        for byte in b"abcdefghij" {
            log.push(Stream::Pty, &[*byte]);
        }
        let page = log.read(Position::Offset(0), ProcessLogsStream::Pty, None, None);
        // Four chunks of one byte fill the room of four chunks (the data room is not used).
        assert_eq!(text(&page), "ghij");
    }

    #[test]
    fn a_read_from_inside_a_chunk_cuts_it_and_tail_keeps_the_last() {
        let log = sized(100, 2);
        log.push(Stream::Stdout, b"abcdef");
        log.push(Stream::Stdout, b"ghi");
        let page = log.read(Position::Offset(4), ProcessLogsStream::Combined, None, None);
        assert_eq!(text(&page), "efghi");
        assert_eq!(page.chunks[0].offset, 4);
        let tail = log.read(
            Position::Offset(0),
            ProcessLogsStream::Combined,
            Some(1),
            None,
        );
        assert_eq!(text(&tail), "ghi");
    }

    #[test]
    fn a_closed_log_is_finished_once_read_to_its_end() {
        let log = sized(100, 1);
        log.push(Stream::Stdout, b"x");
        log.close();
        let page = log.read(Position::Offset(0), ProcessLogsStream::Combined, None, None);
        assert!(page.finished);
        let partial = log.read(
            Position::Offset(0),
            ProcessLogsStream::Combined,
            None,
            Some(0),
        );
        assert!(!partial.finished);
    }
}
