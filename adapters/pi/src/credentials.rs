//! Where Pi keeps credentials (checked in its package, 0.73.1):
//! `~/.pi/agent/auth.json` (or under `$PI_CODING_AGENT_DIR`) holds, per provider,
//! `{"type": "api_key", "key"}` or a `/login`'s `{"type": "oauth", "access",
//! "refresh", "expires"}`; `models.json` holds custom providers' `apiKey`
//! (`{"providers": {"<name>": {"apiKey": ...}}}`), which Pi reads from that file
//! only. A key value is resolved as Pi does: `"!command"` is a command (never run
//! by the daemon), the name of a set variable is that variable's value, anything
//! else is the key.

use sandbox_agent_adapter_kit::credentials::{self, json_file, JsonFields, Locations};
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

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

/// The variables Pi reads credentials from.
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
        return json_file(text, |json, read| {
            let Some(providers) = json.get("providers") else {
                return;
            };
            for (provider, entry) in read.entries(providers, "providers") {
                read.string(entry, &["apiKey"], |raw| {
                    key(provider, format!("providers.{provider}.apiKey"), raw, false)
                });
            }
        });
    }
    json_file(text, |json, read| {
        for (provider, entry) in read.entries(json, "") {
            match entry.get("type").and_then(Value::as_str) {
                Some("api_key") => read.string(entry, &["key"], |raw| {
                    key(provider, format!("{provider}.key"), raw, true)
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

/// A key as Pi reads it (see the module documentation); a built-in provider's key
/// is passed in the variable Pi reads for it.
fn key(provider: &str, key: String, raw: String, builtin: bool) -> FoundCredential {
    if raw.starts_with('!') {
        return credentials::found(provider, CredentialKind::Command, &key, raw, None);
    }
    let env = builtin
        .then(|| VARIABLES.iter().find(|(p, _)| *p == provider))
        .flatten()
        .map(|(_, name)| (*name).to_owned());
    FoundCredential {
        provider: provider.to_owned(),
        kind: CredentialKind::ApiKey,
        key,
        value: CredentialValue::VariableOrLiteral(raw),
        env,
    }
}
