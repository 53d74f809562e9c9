//! Unit tests: static facts, flag probing and launch plans per Amp version, and the
//! session's handling of single lines and process events.

mod info;
mod launch;
mod session;

use sandbox_agent_adapter_kit::prelude::*;

/// A session config with the transcripts' defaults.
pub(crate) fn config() -> SessionConfig {
    SessionConfig {
        session_id: "s1".to_owned(),
        agent_mode: "build".to_owned(),
        permission_mode: "default".to_owned(),
        model: None,
        variant: None,
        directory: "/workspace".to_owned(),
        agent_binary: None,
        env: Vec::new(),
        resume_native_session_id: None,
    }
}
