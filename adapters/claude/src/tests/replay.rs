//! The recorded transcripts of `transcripts/` replayed through [`ClaudeSession`] with the
//! kit's harness (`sandbox_agent_adapter_kit::testing`), which snapshots and restores
//! the session after every input.

pub(super) use sandbox_agent_adapter_kit::testing::replay::{config_of, only, rendered, Step};

use crate::ClaudeSession;

sandbox_agent_adapter_kit::replay_transcripts!(ClaudeSession);
