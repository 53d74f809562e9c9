//! Where Gemini CLI keeps credentials (checked in its package, 0.61.0): an API key
//! in `~/.gemini/.env` (dotenv, `GEMINI_API_KEY` or `GOOGLE_API_KEY`) and the Google
//! login in `~/.gemini/oauth_creds.json`, refreshed by Gemini CLI itself; the
//! `.gemini` folder is under `$GEMINI_CLI_HOME` when set.

use sandbox_agent_adapter_kit::credentials::{self, Locations, DOTENV};
use sandbox_agent_adapter_kit::prelude::*;

/// The variables Gemini CLI reads credentials and its endpoint from.
pub(crate) fn variables() -> Vec<CredentialVariable> {
    let keys = [("GEMINI_API_KEY", "google"), ("GOOGLE_API_KEY", "google")];
    let mut variables = credentials::api_keys(&keys);
    variables.extend(credentials::settings(&[(
        "GOOGLE_GEMINI_BASE_URL",
        "google",
    )]));
    variables
}

/// The variable that moves Gemini CLI's files.
pub(crate) const LOCATION_ENV: &str = "GEMINI_CLI_HOME";

pub(crate) fn files(at: &Locations) -> Vec<String> {
    let dir = at
        .dir(LOCATION_ENV)
        .or_else(|| at.home())
        .map(|home| home.join(".gemini"));
    credentials::dotenv_and_oauth_files(dir)
}

pub(crate) fn parse(path: &str, text: &str) -> CredentialRead {
    if path.ends_with(DOTENV) {
        credentials::dotenv_keys(text, "google", &["GEMINI_API_KEY", "GOOGLE_API_KEY"])
    } else {
        credentials::oauth_creds(text, "google")
    }
}
