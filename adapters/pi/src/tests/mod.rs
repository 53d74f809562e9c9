//! Tests: the static facts (`facts.json`), the launch recipe (`info`), pointing Pi at
//! the daemon's model endpoints (`gateway`), the recorded transcripts of the real CLI
//! replayed through the session (`recorded`), and situations the recordings do not
//! have (`lines`). `replay` is the harness they share.

mod gateway;
mod info;
mod lines;
mod moves;
mod recorded;
mod replay;

sandbox_agent_adapter_kit::facts_test!(crate::Pi, "../facts.json");

sandbox_agent_adapter_kit::fuzz_test!(crate::PiSession, transcripts: ["transcripts"], captures: []);
