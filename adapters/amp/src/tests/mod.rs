//! Unit tests: flag probing and launch plans per Amp version, and the session's
//! handling of single lines and process events (the static facts are `facts.json`'s).

mod launch;
mod session;

sandbox_agent_adapter_kit::facts_test!(crate::Amp, "../facts.json");

/// A session config with the transcripts' defaults.
pub(crate) use sandbox_agent_adapter_kit::testing::config;

sandbox_agent_adapter_kit::fuzz_test!(crate::AmpSession, transcripts: ["transcripts"], captures: []);
