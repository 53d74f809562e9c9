//! Where Claude Code keeps credentials (checked in its package, 2.1.197): the
//! claude.ai login in `~/.claude/.credentials.json`, refreshed by Claude Code
//! itself, and an Anthropic Console key saved by `/login` in `~/.claude.json`;
//! both files move to `$CLAUDE_CONFIG_DIR` when it is set.

use sandbox_agent_adapter_kit::credentials::{self, found, json_file, JsonFields, Locations};
use sandbox_agent_adapter_kit::prelude::*;

/// The variables Claude Code reads credentials from.
pub(crate) fn variables() -> Vec<CredentialVariable> {
    vec![
        CredentialVariable::new("ANTHROPIC_API_KEY", "anthropic", CredentialKind::ApiKey),
        CredentialVariable::new(
            "CLAUDE_CODE_OAUTH_TOKEN",
            "anthropic",
            CredentialKind::OauthToken,
        ),
    ]
}

/// The variable that moves Claude Code's files.
pub(crate) const LOCATION_ENV: &str = "CLAUDE_CONFIG_DIR";

const LOGIN: &str = ".credentials.json";
const CONFIG: &str = ".claude.json";

pub(crate) fn files(at: &Locations) -> Vec<String> {
    let config_dir = at.dir(LOCATION_ENV);
    credentials::paths([
        config_dir
            .clone()
            .or_else(|| at.under_home(".claude"))
            .map(|dir| dir.join(LOGIN)),
        config_dir.or_else(|| at.home()).map(|dir| dir.join(CONFIG)),
    ])
}

pub(crate) fn parse(path: &str, text: &str) -> CredentialRead {
    json_file(text, |json, read| {
        if path.ends_with(LOGIN) {
            read.string(json, &["claudeAiOauth", "accessToken"], |value| {
                found(
                    "anthropic",
                    CredentialKind::OauthToken,
                    "claudeAiOauth.accessToken",
                    value,
                    None,
                )
            });
        } else {
            read.string(json, &["primaryApiKey"], |value| {
                found(
                    "anthropic",
                    CredentialKind::ApiKey,
                    "primaryApiKey",
                    value,
                    Some("ANTHROPIC_API_KEY"),
                )
            });
        }
    })
}
