//! Following a process's log as it grows: what SSE readers and terminal viewers
//! consume. Each follower reads the ring buffer at its own pace, a page at a
//! time; one that fell behind learns what it missed and goes on from the oldest
//! byte still held.

use std::collections::VecDeque;
use std::sync::Arc;

use agentplex_api::ProcessLogsStream;
use futures::Stream;
use tokio::sync::watch;

use super::log::{Chunk, Position};
use super::ManagedProcess;

/// Most bytes taken from the log per wake-up.
const PAGE_BYTES: usize = 256 << 10;

/// What a follower gets.
#[derive(Debug, Clone)]
pub enum LogEvent {
    /// The next chunk of output.
    Chunk(Chunk),
    /// Output dropped from the ring buffer before this follower got it.
    Missed {
        entries: u64,
        bytes: u64,
        first_offset: u64,
    },
}

struct Follower {
    process: Arc<ManagedProcess>,
    position: Position,
    stream: ProcessLogsStream,
    changes: watch::Receiver<u64>,
    buffer: VecDeque<LogEvent>,
    finished: bool,
}

/// The process's output of `stream` from `from` on, ending once the process
/// exited and all its output was given.
pub fn follow(
    process: Arc<ManagedProcess>,
    from: Position,
    stream: ProcessLogsStream,
) -> impl Stream<Item = LogEvent> + Send + 'static {
    let changes = process.log.subscribe();
    let follower = Follower {
        process,
        position: from,
        stream,
        changes,
        buffer: VecDeque::new(),
        finished: false,
    };
    futures::stream::unfold(follower, |mut f| async move {
        loop {
            if let Some(event) = f.buffer.pop_front() {
                return Some((event, f));
            }
            if f.finished {
                f.process.exited().await;
                return None;
            }
            // Mark the current version seen before reading, so no push is missed.
            f.changes.borrow_and_update();
            let page = f
                .process
                .log
                .read(f.position, f.stream, None, Some(PAGE_BYTES));
            if page.missed_bytes > 0 || page.missed_entries > 0 {
                f.buffer.push_back(LogEvent::Missed {
                    entries: page.missed_entries,
                    bytes: page.missed_bytes,
                    first_offset: page.first_offset,
                });
            }
            let progressed = page.cursor != current(f.position);
            f.buffer
                .extend(page.chunks.into_iter().map(LogEvent::Chunk));
            f.position = Position::At(page.cursor);
            f.finished = page.finished;
            if f.buffer.is_empty()
                && !f.finished
                && !progressed
                && f.changes.changed().await.is_err()
            {
                f.finished = true;
            }
        }
    })
}

/// The cursor a position stands for when it is one (to tell whether a read moved).
fn current(position: Position) -> super::log::Cursor {
    match position {
        Position::At(cursor) => cursor,
        _ => super::log::Cursor {
            sequence: u64::MAX,
            offset: u64::MAX,
        },
    }
}
