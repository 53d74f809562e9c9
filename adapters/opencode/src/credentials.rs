//! Where OpenCode keeps credentials (checked in its package, 1.18.33):
//! `~/.local/share/opencode/auth.json` (under `$XDG_DATA_HOME` when set) holds, per
//! provider, `{"type": "api", "key"}`, `{"type": "oauth", "access", "refresh",
//! "expires"}` or `{"type": "wellknown", "token"}`.

use sandbox_agent_adapter_kit::credentials::{self, found, json_file, JsonFields, Locations};
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

/// Provider keys OpenCode reads from its environment (plus its own
/// `OPENCODE_API_KEY` for OpenCode Zen).
pub(crate) fn variables() -> Vec<CredentialVariable> {
    credentials::api_keys(&[
        ("ANTHROPIC_API_KEY", "anthropic"),
        ("OPENAI_API_KEY", "openai"),
        ("OPENROUTER_API_KEY", "openrouter"),
        ("GOOGLE_GENERATIVE_AI_API_KEY", "google"),
        ("GEMINI_API_KEY", "google"),
        ("OPENCODE_API_KEY", "opencode"),
    ])
}

/// The variable that moves OpenCode's files.
pub(crate) const LOCATION_ENV: &str = "XDG_DATA_HOME";

pub(crate) fn files(at: &Locations) -> Vec<String> {
    credentials::paths([at.data_home().map(|dir| dir.join("opencode/auth.json"))])
}

pub(crate) fn parse(_path: &str, text: &str) -> CredentialRead {
    json_file(text, |json, read| {
        for (provider, entry) in read.entries(json, "") {
            let (field, kind, env) = match entry.get("type").and_then(Value::as_str) {
                Some("api") => ("key", CredentialKind::ApiKey, variable(provider)),
                Some("oauth") => ("access", CredentialKind::OauthToken, None),
                Some("wellknown") => ("token", CredentialKind::Token, None),
                _ => {
                    read.problems.push(format!(
                        "`{provider}` has no known `type` (api, oauth, wellknown)"
                    ));
                    continue;
                }
            };
            read.string(entry, &[field], |value| {
                found(provider, kind, &format!("{provider}.{field}"), value, env)
            });
        }
    })
}

/// The variable OpenCode reads for a provider's key.
fn variable(provider: &str) -> Option<&'static str> {
    Some(match provider {
        "anthropic" => "ANTHROPIC_API_KEY",
        "openai" => "OPENAI_API_KEY",
        "openrouter" => "OPENROUTER_API_KEY",
        "google" => "GOOGLE_GENERATIVE_AI_API_KEY",
        "opencode" => "OPENCODE_API_KEY",
        _ => return None,
    })
}
