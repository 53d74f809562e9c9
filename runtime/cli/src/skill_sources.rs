//! The daemon's flags for git skill sources.

use std::time::Duration;

use clap::builder::BoolishValueParser;
use clap::Args;

use agentplex_sessions::skills::git::{GitSettings, DEFAULT_FETCH_TIMEOUT};

/// `agentplex server` flags of git skill sources (a session's `skills`).
#[derive(Debug, Args)]
pub struct SkillSourceFlags {
    /// Let git skill sources be repositories on this machine (`file://` URLs and
    /// paths); without it only `https://`, `ssh://` and `user@host:path` are fetched.
    #[arg(long, env = "AGENTPLEX_ALLOW_LOCAL_SKILL_REPOS", value_parser = BoolishValueParser::new())]
    allow_local_skill_repos: bool,
    /// Milliseconds fetching one git skill source may take; past it git is killed
    /// and the session create answers 504.
    #[arg(
        long,
        default_value_t = DEFAULT_FETCH_TIMEOUT.as_millis() as u64,
        value_parser = clap::value_parser!(u64).range(1..),
        env = "AGENTPLEX_SKILL_FETCH_TIMEOUT_MS"
    )]
    skill_fetch_timeout_ms: u64,
}

impl SkillSourceFlags {
    /// The settings the flags give.
    pub fn into_settings(self) -> GitSettings {
        GitSettings {
            allow_local: self.allow_local_skill_repos,
            fetch_timeout: Duration::from_millis(self.skill_fetch_timeout_ms),
        }
    }
}
