//! Where OpenCode keeps credentials (checked in its package, 1.18.33):
//! `~/.local/share/opencode/auth.json` (under `$XDG_DATA_HOME` when set) holds, per
//! provider, `{"type": "api", "key"}`, `{"type": "oauth", "access", "refresh",
//! "expires"}` or `{"type": "wellknown", "token"}`; the global configuration
//! (`~/.config/opencode/`, under `$XDG_CONFIG_HOME` when set) gives providers base
//! URLs and keys ([`crate::providers`]).

use sandbox_agent_adapter_kit::configured::{Slot, CUSTOM};
use sandbox_agent_adapter_kit::credentials::{self, found, json_file, JsonFields, Locations};
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

use crate::gateway::{AGENT, BUILTINS};
use crate::providers::{self, CONFIG_FILES};

/// Provider keys OpenCode reads from its environment (plus its own
/// `OPENCODE_API_KEY` for OpenCode Zen), then the variables the adapter reports
/// the configuration's base URLs and keys in (which OpenCode never reads).
pub(crate) fn variables() -> Vec<CredentialVariable> {
    let mut variables = credentials::api_keys(&[
        ("ANTHROPIC_API_KEY", "anthropic"),
        ("OPENAI_API_KEY", "openai"),
        ("OPENROUTER_API_KEY", "openrouter"),
        ("GOOGLE_GENERATIVE_AI_API_KEY", "google"),
        ("GEMINI_API_KEY", "google"),
        ("OPENCODE_API_KEY", "opencode"),
    ]);
    for builtin in BUILTINS {
        let provider = builtin.provider;
        variables.extend(Slot::builtin(AGENT, provider).variables(provider));
        variables.extend(Slot::custom(AGENT, builtin.format).variables(CUSTOM));
    }
    variables
}

/// The variables that move OpenCode's files: its data (`auth.json`) and its
/// configuration.
pub(crate) const LOCATION_ENV: [&str; 2] = ["XDG_DATA_HOME", "XDG_CONFIG_HOME"];

/// `auth.json`, then the global config files, the one OpenCode prefers first.
pub(crate) fn files(at: &Locations) -> Vec<String> {
    let config = at.config_home().map(|home| home.join("opencode"));
    let configs = CONFIG_FILES.map(|name| config.as_ref().map(|dir| dir.join(name)));
    credentials::paths(
        [at.data_home().map(|dir| dir.join("opencode/auth.json"))]
            .into_iter()
            .chain(configs),
    )
}

pub(crate) fn parse(path: &str, text: &str) -> CredentialRead {
    if CONFIG_FILES
        .iter()
        .any(|name| path.ends_with(&format!("/{name}")))
    {
        return providers::parse(text);
    }
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
