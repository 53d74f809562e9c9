//! Where Pi keeps credentials (checked in its package, 0.73.1):
//! `~/.pi/agent/auth.json` (or under `$PI_CODING_AGENT_DIR`) holds, per provider,
//! `{"type": "api_key", "key"}` or a `/login`'s `{"type": "oauth", "access",
//! "refresh", "expires"}`; `models.json` holds providers' `apiKey`
//! (`{"providers": {"<name>": {"apiKey": ...}}}`), which Pi reads from that file
//! only, and their base URLs ([`crate::providers`]). A key value is resolved as Pi
//! does: `"!command"` is a command (never run by the daemon), the name of a set
//! variable is that variable's value, anything else is the key.

use sandbox_agent_adapter_kit::configured::{Slot, CUSTOM};
use sandbox_agent_adapter_kit::credentials::{self, json_file, JsonFields, Locations};
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

use crate::gateway::{AGENT, BUILTINS};

/// The built-in providers' variables Pi reads.
const VARIABLES: [(&str, &str); 8] = [
    ("anthropic", "ANTHROPIC_API_KEY"),
    ("openai", "OPENAI_API_KEY"),
    ("google", "GEMINI_API_KEY"),
    ("openrouter", "OPENROUTER_API_KEY"),
    ("groq", "GROQ_API_KEY"),
    ("xai", "XAI_API_KEY"),
    ("mistral", "MISTRAL_API_KEY"),
    ("deepseek", "DEEPSEEK_API_KEY"),
];

/// The variables Pi reads credentials from, then those the adapter reports
/// `models.json`'s base URLs and keys in (which Pi never reads, see
/// [`crate::providers`]).
pub(crate) fn variables() -> Vec<CredentialVariable> {
    let mut variables: Vec<CredentialVariable> = VARIABLES
        .iter()
        .map(|(provider, name)| CredentialVariable::new(name, provider, CredentialKind::ApiKey))
        .collect();
    variables.insert(
        1,
        CredentialVariable::new(
            "ANTHROPIC_OAUTH_TOKEN",
            "anthropic",
            CredentialKind::OauthToken,
        ),
    );
    for builtin in BUILTINS {
        let provider = builtin.provider;
        variables.extend(Slot::builtin(AGENT, provider).variables(provider));
        variables.extend(Slot::custom(AGENT, builtin.format).variables(CUSTOM));
    }
    variables
}

/// The variable that moves Pi's files.
pub(crate) const LOCATION_ENV: &str = "PI_CODING_AGENT_DIR";

const MODELS: &str = "models.json";

pub(crate) fn files(at: &Locations) -> Vec<String> {
    let dir = at.dir(LOCATION_ENV).or_else(|| at.under_home(".pi/agent"));
    credentials::paths([
        dir.as_ref().map(|dir| dir.join("auth.json")),
        dir.map(|dir| dir.join(MODELS)),
    ])
}

pub(crate) fn parse(path: &str, text: &str) -> CredentialRead {
    if path.ends_with(MODELS) {
        return crate::providers::parse(text);
    }
    json_file(text, |json, read| {
        for (provider, entry) in read.entries(json, "") {
            match entry.get("type").and_then(Value::as_str) {
                Some("api_key") => read.string(entry, &["key"], |raw| {
                    let env = VARIABLES.iter().find(|(p, _)| *p == provider);
                    let env = env.map(|(_, name)| (*name).to_owned());
                    key(provider, format!("{provider}.key"), raw, env)
                }),
                Some("oauth") => read.string(entry, &["access"], |value| {
                    credentials::found(
                        provider,
                        CredentialKind::OauthToken,
                        &format!("{provider}.access"),
                        value,
                        None,
                    )
                }),
                _ => read
                    .problems
                    .push(format!("`{provider}` has no known `type` (api_key, oauth)")),
            }
        }
    })
}

/// A key as Pi reads it (see the module documentation), passed in the variable
/// `env` when given (a command never is).
pub(crate) fn key(
    provider: &str,
    key: String,
    raw: String,
    env: Option<String>,
) -> FoundCredential {
    if raw.starts_with('!') {
        return credentials::found(provider, CredentialKind::Command, &key, raw, None);
    }
    FoundCredential {
        provider: provider.to_owned(),
        kind: CredentialKind::ApiKey,
        key,
        value: CredentialValue::VariableOrLiteral(raw),
        env,
    }
}
