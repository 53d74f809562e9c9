//! An incremental Server-Sent Events splitter for the usage taps.
//!
//! The gateway relays an answer's bytes as they come and hands a copy here.
//! Events end at a blank line; lines end in `\n`, `\r\n` or `\r`, and a chunk
//! may end anywhere, even between the `\r` and `\n` of one line end. Complete
//! events are read straight from the chunk; only the unfinished event at its end
//! is copied, to be completed by the next one.

use memchr::memchr2;

/// Longest event kept while waiting for its end: a longer one is dropped, so a
/// stream that never ends an event cannot grow the gateway's memory.
const MAX_PENDING: usize = 16 << 20;

/// Splits a byte stream into events.
#[derive(Debug, Default)]
pub struct Splitter {
    /// The start of an unfinished event, from earlier chunks.
    pending: Vec<u8>,
    /// Whether the pending event outgrew [`MAX_PENDING`] and is being skipped to its end.
    skipping: bool,
}

impl Splitter {
    /// Hands each event completed by `chunk` to `on_event(event_name, data)`:
    /// the name is empty when the event has no `event:` field, and the data
    /// lines are joined with `\n`.
    pub fn feed(&mut self, chunk: &[u8], on_event: &mut dyn FnMut(&str, &str)) {
        if self.pending.is_empty() {
            let rest = self.split(chunk, on_event);
            self.keep(&chunk[rest..]);
        } else {
            let mut bytes = std::mem::take(&mut self.pending);
            bytes.extend_from_slice(chunk);
            let rest = self.split(&bytes, on_event);
            bytes.drain(..rest);
            self.pending = bytes;
            self.bound();
        }
    }

    /// Ends the stream: an event the stream left without its blank line still
    /// counts (servers that close right after their last `data:` line).
    pub fn finish(mut self, on_event: &mut dyn FnMut(&str, &str)) {
        if !self.skipping && !self.pending.is_empty() {
            dispatch(&std::mem::take(&mut self.pending), on_event);
        }
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

    fn keep(&mut self, rest: &[u8]) {
        self.pending.extend_from_slice(rest);
        self.bound();
    }

    fn bound(&mut self) {
        if self.pending.len() > MAX_PENDING {
            self.pending = Vec::new();
            self.skipping = true;
        }
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

    /// The events of `chunks`, fed one after the other, as `(name, data)`.
    fn events(chunks: &[&[u8]]) -> Vec<(String, String)> {
        let mut seen = Vec::new();
        let mut splitter = Splitter::default();
        let mut record = |name: &str, data: &str| seen.push((name.to_owned(), data.to_owned()));
        for chunk in chunks {
            splitter.feed(chunk, &mut record);
        }
        splitter.finish(&mut record);
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
    fn only_the_unfinished_event_is_kept() {
        let mut splitter = Splitter::default();
        let mut seen = 0;
        splitter.feed(b"data: 1\n\ndata: 2\n\ndata: 3", &mut |_, _| seen += 1);
        assert_eq!(seen, 2);
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
    fn an_endless_event_is_dropped_and_the_next_ones_read() {
        let mut splitter = Splitter::default();
        let mut seen = Vec::new();
        let huge = vec![b'x'; MAX_PENDING + 1];
        splitter.feed(b"data: ", &mut |_, d| seen.push(d.to_owned()));
        splitter.feed(&huge, &mut |_, d| seen.push(d.to_owned()));
        assert!(splitter.pending.is_empty());
        splitter.feed(b"x\n\ndata: next\n\n", &mut |_, d| seen.push(d.to_owned()));
        assert_eq!(seen, ["next"]);
    }
}
