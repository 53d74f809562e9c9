//! Unit tests: static facts, flag probing and launch plans per Amp version, and the
//! session's handling of single lines and process events.

mod info;
mod launch;
mod session;

/// A session config with the transcripts' defaults.
pub(crate) use sandbox_agent_adapter_kit::testing::config;
