//! An incremental Server-Sent Events splitter for the usage taps and the relay.
//!
//! The gateway relays an answer's events as they complete and hands them to the
//! tap here. Events end at a blank line; lines end in `\n`, `\r\n` or `\r`, and
//! a chunk may end anywhere, even between the `\r` and `\n` of one line end.
//! Complete events are read straight from the chunk and passed on; only the
//! unfinished event at its end is held (copied), to be completed by the next
//! one. So the bytes passed on always end at an event's end, and a stream cut
//! between two of them is still well formed.

use bytes::Bytes;
use memchr::memchr2;

/// Longest event held while waiting for its end: a longer one is passed on as it
/// comes, unread, so a stream that never ends an event cannot grow the
/// gateway's memory.
const MAX_PENDING: usize = 16 << 20;

/// Splits a byte stream into events.
#[derive(Debug, Default)]
pub struct Splitter {
    /// The start of an unfinished event, from earlier chunks.
    pending: Vec<u8>,
    /// Whether an event outgrew [`MAX_PENDING`] and is being passed on to its end.
    skipping: bool,
}

impl Splitter {
    /// Hands each event completed by `chunk` to `on_event(event_name, data)`:
    /// the name is empty when the event has no `event:` field, and the data
    /// lines are joined with `\n`. Returns the bytes to pass on: the events
    /// completed, with the start held from earlier chunks.
    pub fn feed(&mut self, chunk: Bytes, on_event: &mut dyn FnMut(&str, &str)) -> Bytes {
        if self.pending.is_empty() {
            let rest = self.split(&chunk, on_event);
            return self.hold(chunk, rest);
        }
        let mut joined = std::mem::take(&mut self.pending);
        joined.extend_from_slice(&chunk);
        let rest = self.split(&joined, on_event);
        if rest == 0 && !self.skipping && joined.len() <= MAX_PENDING {
            // Still the same unfinished event: held as it is.
            self.pending = joined;
            return Bytes::new();
        }
        self.hold(Bytes::from(joined), rest)
    }

    /// Holds the unfinished event from `rest` on; returns the bytes before it.
    fn hold(&mut self, mut bytes: Bytes, rest: usize) -> Bytes {
        if self.skipping || bytes.len() - rest > MAX_PENDING {
            // Inside an event too long to hold: pass it all on.
            self.skipping = true;
            return bytes;
        }
        self.pending = bytes.split_off(rest).to_vec();
        bytes
    }

    /// Whether the bytes passed on end inside an event (one too long to hold).
    pub fn mid_event(&self) -> bool {
        self.skipping
    }

    /// Ends the stream: an event the stream left without its blank line still
    /// counts (servers that close right after their last `data:` line).
    /// Returns its bytes, still to be passed on.
    pub fn finish(self, on_event: &mut dyn FnMut(&str, &str)) -> Bytes {
        if !self.pending.is_empty() {
            dispatch(&self.pending, on_event);
        }
        Bytes::from(self.pending)
    }

    /// Dispatches the complete events at the start of `bytes`; returns where the
    /// unfinished rest starts.
    fn split(&mut self, bytes: &[u8], on_event: &mut dyn FnMut(&str, &str)) -> usize {
        let mut event_start = 0;
        let mut line_start = 0;
        while let Some(offset) = memchr2(b'\n', b'\r', &bytes[line_start..]) {
            let end = line_start + offset;
            let ending = match (bytes[end], bytes.get(end + 1)) {
                (b'\r', Some(b'\n')) => 2,
                // A `\r` at the end of the bytes may be the first half of `\r\n`.
                (b'\r', None) => break,
                _ => 1,
            };
            if end == line_start {
                if !self.skipping {
                    dispatch(&bytes[event_start..end], on_event);
                }
                self.skipping = false;
                event_start = end + ending;
            }
            line_start = end + ending;
        }
        event_start
    }
}

/// Reads one event's lines and hands it on if it has data.
fn dispatch(event: &[u8], on_event: &mut dyn FnMut(&str, &str)) {
    let Ok(text) = std::str::from_utf8(event) else {
        return;
    };
    let mut name = "";
    let mut data = String::new();
    let mut has_data = false;
    for line in text.split(['\n', '\r']).filter(|line| !line.is_empty()) {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => name = value,
            "data" => {
                if has_data {
                    data.push('\n');
                }
                data.push_str(value);
                has_data = true;
            }
            // Comments (`: ping`), `id:` and `retry:` say nothing about usage.
            _ => {}
        }
    }
    if has_data {
        on_event(name, &data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events of `chunks`, fed one after the other, as `(name, data)`;
    /// checks that the bytes passed on are the stream's, cut at event ends.
    fn events(chunks: &[&[u8]]) -> Vec<(String, String)> {
        let mut seen = Vec::new();
        let mut splitter = Splitter::default();
        let mut record = |name: &str, data: &str| seen.push((name.to_owned(), data.to_owned()));
        let mut passed = Vec::new();
        for chunk in chunks {
            let out = splitter.feed(Bytes::copy_from_slice(chunk), &mut record);
            passed.extend_from_slice(&out);
            // What was passed on ends at an event's end: read again, nothing is held.
            let mut again = Splitter::default();
            again.feed(Bytes::from(passed.clone()), &mut |_, _| {});
            assert!(again.pending.is_empty(), "{passed:?}");
        }
        passed.extend_from_slice(&splitter.finish(&mut record));
        assert_eq!(passed, chunks.concat());
        seen
    }

    fn owned(events: &[(&str, &str)]) -> Vec<(String, String)> {
        events
            .iter()
            .map(|(name, data)| (name.to_string(), data.to_string()))
            .collect()
    }

    const STREAM: &[u8] = b"event: message_start\ndata: {\"a\":1}\n\n: ping\n\nevent: delta\r\ndata: {\"b\":\r\ndata: 2}\r\n\r\ndata: [DONE]\r\r";

    #[test]
    fn events_are_read_whole_with_any_line_ending() {
        assert_eq!(
            events(&[STREAM]),
            owned(&[
                ("message_start", "{\"a\":1}"),
                ("delta", "{\"b\":\n2}"),
                ("", "[DONE]"),
            ])
        );
    }

    #[test]
    fn a_stream_split_at_every_byte_gives_the_same_events() {
        let whole = events(&[STREAM]);
        for at in 0..=STREAM.len() {
            let (first, second) = STREAM.split_at(at);
            assert_eq!(events(&[first, second]), whole, "split at {at}");
        }
        let bytes: Vec<&[u8]> = STREAM.chunks(1).collect();
        assert_eq!(events(&bytes), whole, "one byte at a time");
    }

    #[test]
    fn a_cr_at_a_chunks_end_waits_for_a_possible_lf() {
        // `\r` then `\n` in the next chunk is one line end, not two (which would
        // end the event early and start an empty one).
        assert_eq!(
            events(&[b"data: x\r", b"\ndata: y\r\n\r\n"]),
            owned(&[("", "x\ny")])
        );
    }

    #[test]
    fn only_the_unfinished_event_is_held() {
        let mut splitter = Splitter::default();
        let mut seen = 0;
        let chunk = Bytes::from_static(b"data: 1\n\ndata: 2\n\ndata: 3");
        let passed = splitter.feed(chunk, &mut |_, _| seen += 1);
        assert_eq!(seen, 2);
        assert_eq!(&passed[..], b"data: 1\n\ndata: 2\n\n");
        assert_eq!(splitter.pending, b"data: 3");
    }

    #[test]
    fn a_last_event_without_its_blank_line_still_counts() {
        assert_eq!(
            events(&[b"data: {}\n\ndata: last\n"]),
            owned(&[("", "{}"), ("", "last")])
        );
    }

    #[test]
    fn an_endless_event_is_passed_on_unread_and_the_next_ones_read() {
        let mut splitter = Splitter::default();
        let mut seen = Vec::new();
        let mut feed = |splitter: &mut Splitter, chunk: Vec<u8>| {
            splitter
                .feed(Bytes::from(chunk), &mut |_, d| seen.push(d.to_owned()))
                .len()
        };
        assert_eq!(feed(&mut splitter, b"data: ".to_vec()), 0);
        let huge = vec![b'x'; MAX_PENDING + 1];
        assert_eq!(feed(&mut splitter, huge), MAX_PENDING + 7);
        assert!(splitter.pending.is_empty() && splitter.mid_event());
        assert_eq!(feed(&mut splitter, b"x\n\ndata: next\n\n".to_vec()), 15);
        assert!(!splitter.mid_event());
        assert_eq!(seen, ["next"]);
    }
}
