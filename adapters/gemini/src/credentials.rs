//! Where Gemini CLI keeps credentials (checked in its package, 0.61.0): an API key
//! in `~/.gemini/.env` (dotenv, `GEMINI_API_KEY` or `GOOGLE_API_KEY`) and the Google
//! login in `~/.gemini/oauth_creds.json`, refreshed by Gemini CLI itself; the
//! `.gemini` folder is under `$GEMINI_CLI_HOME` when set.

use sandbox_agent_adapter_kit::credentials::{self, found, json_file, JsonFields, Locations};
use sandbox_agent_adapter_kit::prelude::*;

/// The variables Gemini CLI reads credentials and its endpoint from.
pub(crate) fn variables() -> Vec<CredentialVariable> {
    let mut variables =
        credentials::api_keys(&[("GEMINI_API_KEY", "google"), ("GOOGLE_API_KEY", "google")]);
    variables.push(CredentialVariable::new(
        "GOOGLE_GEMINI_BASE_URL",
        "google",
        CredentialKind::Setting,
    ));
    variables
}

/// The variable that moves Gemini CLI's files.
pub(crate) const LOCATION_ENV: &str = "GEMINI_CLI_HOME";

const DOTENV: &str = ".env";

pub(crate) fn files(at: &Locations) -> Vec<String> {
    let dir = at
        .dir(LOCATION_ENV)
        .or_else(|| at.home())
        .map(|home| home.join(".gemini"));
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
                    "google",
                    CredentialKind::OauthToken,
                    "access_token",
                    value,
                    None,
                )
            });
        });
    }
    credentials::dotenv_keys(text, "google", &["GEMINI_API_KEY", "GOOGLE_API_KEY"])
}
