//! Where Amp keeps credentials (its documented `secrets.json`):
//! `~/.local/share/amp/secrets.json` (under `$XDG_DATA_HOME` when set) holds one key
//! per Amp server URL, `{"apiKey@https://ampcode.com/": "sgamp_..."}`, saved by
//! `amp login`.

use sandbox_agent_adapter_kit::credentials::{self, found, json_file, JsonFields, Locations};
use sandbox_agent_adapter_kit::prelude::*;

/// The variable Amp reads its key from.
pub(crate) fn variables() -> Vec<CredentialVariable> {
    credentials::api_keys(&[("AMP_API_KEY", "amp")])
}

/// The variable that moves Amp's files.
pub(crate) const LOCATION_ENV: &str = "XDG_DATA_HOME";

pub(crate) fn files(at: &Locations) -> Vec<String> {
    credentials::paths([at.data_home().map(|dir| dir.join("amp/secrets.json"))])
}

pub(crate) fn parse(_path: &str, text: &str) -> CredentialRead {
    json_file(text, |json, read| {
        for (name, _) in read.entries(json, "") {
            if name.starts_with("apiKey@") {
                read.string(json, &[name.as_str()], |value| {
                    found(
                        "amp",
                        CredentialKind::ApiKey,
                        name,
                        value,
                        Some("AMP_API_KEY"),
                    )
                });
            }
        }
    })
}
