//! Where Qwen Code keeps credentials (checked in its package, 0.24.4): the
//! variables of its OpenAI-compatible auth, an `.env` file in `~/.qwen` (dotenv)
//! and the Qwen OAuth login in `~/.qwen/oauth_creds.json`, refreshed by the CLI
//! itself; `~/.qwen` is `$QWEN_HOME` when set.

use sandbox_agent_adapter_kit::credentials::{self, found, json_file, JsonFields, Locations};
use sandbox_agent_adapter_kit::prelude::*;

/// The variables Qwen Code's OpenAI-compatible auth reads.
pub(crate) fn variables() -> Vec<CredentialVariable> {
    let mut variables = credentials::api_keys(&[("OPENAI_API_KEY", "openai")]);
    for setting in ["OPENAI_BASE_URL", "OPENAI_MODEL"] {
        variables.push(CredentialVariable::new(
            setting,
            "openai",
            CredentialKind::Setting,
        ));
    }
    variables
}

/// The variable that moves Qwen Code's folder.
pub(crate) const LOCATION_ENV: &str = "QWEN_HOME";

const DOTENV: &str = ".env";

pub(crate) fn files(at: &Locations) -> Vec<String> {
    let dir = at.dir(LOCATION_ENV).or_else(|| at.under_home(".qwen"));
    credentials::paths([
        dir.as_ref().map(|dir| dir.join(DOTENV)),
        dir.map(|dir| dir.join("oauth_creds.json")),
    ])
}

pub(crate) fn parse(path: &str, text: &str) -> CredentialRead {
    if !path.ends_with(DOTENV) {
        return json_file(text, |json, read| {
            read.string(json, &["access_token"], |value| {
                found(
                    "qwen",
                    CredentialKind::OauthToken,
                    "access_token",
                    value,
                    None,
                )
            });
        });
    }
    credentials::dotenv_keys(text, "openai", &["OPENAI_API_KEY"])
}
