//! Where Codex keeps credentials (checked in its package, 0.169.0):
//! `~/.codex/auth.json` (or `$CODEX_HOME/auth.json`) holds `OPENAI_API_KEY`
//! (`codex login --with-api-key`) or the ChatGPT login's `tokens`; `config.toml`
//! beside it says where the model calls go, and with which key ([`crate::config`]).

use sandbox_agent_adapter_kit::credentials::{self, found, json_file, JsonFields, Locations};
use sandbox_agent_adapter_kit::prelude::*;

use crate::config::{self, OPENAI};

/// The variables Codex reads credentials from, then those the adapter reports
/// `config.toml`'s base URLs, keys and call extras in (which Codex never reads).
pub(crate) fn variables() -> Vec<CredentialVariable> {
    let mut variables =
        credentials::api_keys(&[("OPENAI_API_KEY", OPENAI), ("CODEX_API_KEY", OPENAI)]);
    let openai_base_url = config::openai_slot().base_url_env();
    variables.push(CredentialVariable::new(
        &openai_base_url,
        OPENAI,
        CredentialKind::Setting,
    ));
    variables.extend(config::custom_slot().variables(OPENAI));
    variables.extend(
        config::EXTRAS
            .iter()
            .map(|(_, name)| CredentialVariable::new(name, OPENAI, CredentialKind::Setting)),
    );
    variables
}

/// The variable that moves Codex's files.
pub(crate) const LOCATION_ENV: &str = "CODEX_HOME";

/// The name of Codex's configuration file.
const CONFIG: &str = "config.toml";

pub(crate) fn files(at: &Locations) -> Vec<String> {
    let dir = at.dir(LOCATION_ENV).or_else(|| at.under_home(".codex"));
    credentials::paths([
        dir.as_ref().map(|dir| dir.join("auth.json")),
        dir.map(|dir| dir.join(CONFIG)),
    ])
}

pub(crate) fn parse(path: &str, text: &str) -> CredentialRead {
    if path.ends_with(CONFIG) {
        return config::parse(text);
    }
    json_file(text, |json, read| {
        read.string(json, &["OPENAI_API_KEY"], |value| {
            found(
                OPENAI,
                CredentialKind::ApiKey,
                "OPENAI_API_KEY",
                value,
                Some("OPENAI_API_KEY"),
            )
        });
        read.string(json, &["tokens", "access_token"], |value| {
            found(
                OPENAI,
                CredentialKind::OauthToken,
                "tokens.access_token",
                value,
                None,
            )
        });
    })
}
