//! Where Codex keeps credentials (checked in its package, 0.169.0):
//! `~/.codex/auth.json` (or `$CODEX_HOME/auth.json`) holds `OPENAI_API_KEY`
//! (`codex login --with-api-key`) or the ChatGPT login's `tokens`.

use sandbox_agent_adapter_kit::credentials::{self, found, json_file, JsonFields, Locations};
use sandbox_agent_adapter_kit::prelude::*;

/// The variables Codex reads credentials from.
pub(crate) fn variables() -> Vec<CredentialVariable> {
    credentials::api_keys(&[("OPENAI_API_KEY", "openai"), ("CODEX_API_KEY", "openai")])
}

/// The variable that moves Codex's files.
pub(crate) const LOCATION_ENV: &str = "CODEX_HOME";

pub(crate) fn files(at: &Locations) -> Vec<String> {
    credentials::paths([at
        .dir(LOCATION_ENV)
        .or_else(|| at.under_home(".codex"))
        .map(|dir| dir.join("auth.json"))])
}

pub(crate) fn parse(_path: &str, text: &str) -> CredentialRead {
    json_file(text, |json, read| {
        read.string(json, &["OPENAI_API_KEY"], |value| {
            found(
                "openai",
                CredentialKind::ApiKey,
                "OPENAI_API_KEY",
                value,
                Some("OPENAI_API_KEY"),
            )
        });
        read.string(json, &["tokens", "access_token"], |value| {
            found(
                "openai",
                CredentialKind::OauthToken,
                "tokens.access_token",
                value,
                None,
            )
        });
    })
}
