//! `mock-dropin`: a test-only adapter whose id is `mock`, with version `99.0.0-dropin`,
//! that answers every message with its text upper-cased (`hello` → `HELLO`).
//!
//! Copied into the daemon's `--adapters-dir`, it must replace the built-in `mock`
//! adapter without rebuilding the daemon: `GET /v1/agents` then reports adapter version
//! `99.0.0-dropin`, and a session's reply is upper-cased. Never shipped.

#![warn(missing_docs)]

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::reply::{Replier, Reply, ReplySession};

/// The drop-in replacement for the built-in mock.
pub struct MockDropin;

impl Adapter for MockDropin {
    type Session = ReplySession<MockDropin>;

    fn info() -> AdapterInfo {
        AdapterInfo::builtin(
            "mock",
            "Mock (drop-in)",
            "99.0.0-dropin",
            Capabilities::TEXT,
        )
    }
}

impl Replier for MockDropin {
    fn reply(text: &str) -> Reply {
        Reply::Text(text.to_uppercase())
    }
}

sandbox_agent_adapter_kit::export!(MockDropin);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_the_mock_and_shouts() {
        assert_eq!(<MockDropin as Adapter>::info().id, "mock");
        assert_eq!(<MockDropin as Adapter>::info().version, "99.0.0-dropin");
        assert_eq!(MockDropin::reply("hello"), Reply::Text("HELLO".into()));
    }
}
