//! Where Qwen Code keeps credentials (checked in its package, 0.24.4): the
//! variables of its OpenAI-compatible auth, an `.env` file in `~/.qwen` (dotenv)
//! and the Qwen OAuth login in `~/.qwen/oauth_creds.json`, refreshed by the CLI
//! itself; `~/.qwen` is `$QWEN_HOME` when set.

use sandbox_agent_adapter_kit::credentials::{self, Locations, DOTENV};
use sandbox_agent_adapter_kit::prelude::*;

/// The variables Qwen Code's OpenAI-compatible auth reads.
pub(crate) fn variables() -> Vec<CredentialVariable> {
    let mut variables = credentials::api_keys(&[("OPENAI_API_KEY", "openai")]);
    let endpoint = [("OPENAI_BASE_URL", "openai"), ("OPENAI_MODEL", "openai")];
    variables.extend(credentials::settings(&endpoint));
    variables
}

/// The variable that moves Qwen Code's folder.
pub(crate) const LOCATION_ENV: &str = "QWEN_HOME";

pub(crate) fn files(at: &Locations) -> Vec<String> {
    let dir = at.dir(LOCATION_ENV).or_else(|| at.under_home(".qwen"));
    credentials::dotenv_and_oauth_files(dir)
}

pub(crate) fn parse(path: &str, text: &str) -> CredentialRead {
    if path.ends_with(DOTENV) {
        credentials::dotenv_keys(text, "openai", &["OPENAI_API_KEY"])
    } else {
        credentials::oauth_creds(text, "qwen")
    }
}
