//! Tests: static facts and launch recipe (`info`), the recorded transcripts of the
//! real CLI replayed through the session (`recorded`), and situations the recordings
//! do not have (`lines`). `replay` is the harness they share.

mod info;
mod lines;
mod recorded;
mod replay;
