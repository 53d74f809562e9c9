//! What Pi's `models.json` (checked with Pi 0.73.1) says about where its providers'
//! calls go, reported as credentials so the model gateway forwards them there
//! (`sandbox_agent_adapter_kit::configured`). Pi reads the file as JSON with
//! comments and trailing commas; each `providers.<name>` may set `baseUrl`, `api`
//! and `apiKey`.
//!
//! - A built-in provider the adapter points (`anthropic`, `openai`, `openrouter`,
//!   `google`): its `baseUrl` moves every model of it (Google's ends in `/v1beta`),
//!   and its `apiKey` is used when neither `auth.json` nor Pi's variable has one.
//! - Any other provider whose `api` is one of the four formats' (`anthropic-messages`,
//!   `openai-responses`, `openai-completions`, `google-generative-ai`): the first by
//!   name of each format with a `baseUrl` and a key the daemon can hold (not a
//!   `"!command"`) gives its base URL, key and name.
//!
//! Other keys (`"!command"`, a key of `auth.json` for a custom provider) and a
//! model's own `baseUrl` are not carried.

use std::collections::BTreeSet;

use sandbox_agent_adapter_kit::configured::{without_suffix, Slot};
use sandbox_agent_adapter_kit::credentials::{jsonc_file, JsonFields};
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

use crate::credentials::key;
use crate::gateway::{version, AGENT, BUILTINS};

/// The providers of `models.json`: their keys, and what the gateway needs of the
/// ones it can carry.
pub(crate) fn parse(text: &str) -> CredentialRead {
    jsonc_file(text, |json, read| {
        let Some(providers) = json.get("providers") else {
            return;
        };
        let mut formats = BTreeSet::new();
        for (provider, entry) in read.entries(providers, "providers") {
            let builtin = BUILTINS.iter().find(|builtin| builtin.provider == provider);
            let slot = match builtin {
                Some(builtin) => Some((builtin.format, Slot::builtin(AGENT, provider))),
                None => format_of(entry)
                    .filter(|format| !formats.contains(format))
                    .map(|format| (format, Slot::custom(AGENT, format))),
            };
            let found = slot.as_ref().map_or_else(Vec::new, |(format, slot)| {
                carried(provider, entry, *format, slot, builtin.is_none())
            });
            if !found
                .iter()
                .any(|found| found.kind == CredentialKind::ApiKey)
            {
                read.string(entry, &["apiKey"], |raw| {
                    key(provider, format!("providers.{provider}.apiKey"), raw, None)
                });
            }
            if let (None, Some((format, _)), false) = (builtin, &slot, found.is_empty()) {
                formats.insert(*format);
            }
            read.found.extend(found);
        }
    })
}

/// The format of a provider's `api`.
fn format_of(entry: &Value) -> Option<ModelApiFormat> {
    Some(match entry.get("api")?.as_str()? {
        "anthropic-messages" => ModelApiFormat::AnthropicMessages,
        "openai-responses" => ModelApiFormat::OpenaiResponses,
        "openai-completions" => ModelApiFormat::OpenaiChatCompletions,
        "google-generative-ai" => ModelApiFormat::Gemini,
        _ => return None,
    })
}

/// What `slot` carries of `provider`'s entry: a built-in's base URL and key as far
/// as given; a custom one's base URL, key and name, or nothing without all three.
fn carried(
    provider: &str,
    entry: &Value,
    format: ModelApiFormat,
    slot: &Slot,
    custom: bool,
) -> Vec<FoundCredential> {
    let at = |field: &str| format!("providers.{provider}.{field}");
    let base_url = entry
        .get("baseUrl")
        .and_then(Value::as_str)
        .and_then(|url| without_suffix(url, version(format)))
        .and_then(|url| slot.base_url(provider, &at("baseUrl"), url));
    let raw_key = entry.get("apiKey").and_then(Value::as_str);
    let key = raw_key
        .filter(|raw| !raw.is_empty())
        .map(|raw| key(provider, at("apiKey"), raw.to_owned(), Some(slot.key_env())))
        .filter(|found| found.kind == CredentialKind::ApiKey);
    if !custom {
        return base_url.into_iter().chain(key).collect();
    }
    match (base_url, key) {
        (Some(base_url), Some(key)) => vec![base_url, key, slot.name(&at("api"), provider)],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (variable, value) of each credential `models.json` gives with a variable.
    fn passed(text: &str) -> Vec<(String, String)> {
        let read = parse(text);
        assert!(read.problems.is_empty(), "{:?}", read.problems);
        read.found
            .into_iter()
            .filter_map(|found| {
                let value = match found.value {
                    CredentialValue::Literal(value) | CredentialValue::VariableOrLiteral(value) => {
                        value
                    }
                };
                Some((found.env?, value))
            })
            .collect()
    }

    fn pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn a_custom_provider_gives_its_base_url_key_and_name() {
        let text = r#"{
          // the model server
          "providers": {
            "scripted": { "baseUrl": "http://127.0.0.1:9", "api": "anthropic-messages",
                          "apiKey": "sk-scripted", "models": [{ "id": "scripted" }] },
            "second": { "baseUrl": "http://127.0.0.1:10", "api": "anthropic-messages",
                        "apiKey": "sk-second" },
            "local": { "baseUrl": "http://localhost:8080/v1", "api": "openai-completions",
                       "apiKey": "LOCAL_KEY" },
            "gem": { "baseUrl": "https://g.test/v1beta", "api": "google-generative-ai",
                     "apiKey": "!pass show gem" },
          },
        }"#;
        assert_eq!(
            passed(text),
            pairs(&[
                (
                    "AGENTPLEX_PI_CUSTOM_CHAT_COMPLETIONS_BASE_URL",
                    "http://localhost:8080/v1"
                ),
                ("AGENTPLEX_PI_CUSTOM_CHAT_COMPLETIONS_API_KEY", "LOCAL_KEY"),
                ("AGENTPLEX_PI_CUSTOM_CHAT_COMPLETIONS_PROVIDER", "local"),
                (
                    "AGENTPLEX_PI_CUSTOM_ANTHROPIC_MESSAGES_BASE_URL",
                    "http://127.0.0.1:9"
                ),
                (
                    "AGENTPLEX_PI_CUSTOM_ANTHROPIC_MESSAGES_API_KEY",
                    "sk-scripted"
                ),
                (
                    "AGENTPLEX_PI_CUSTOM_ANTHROPIC_MESSAGES_PROVIDER",
                    "scripted"
                ),
            ])
        );
        let read = parse(text);
        let second = read.found.iter().find(|found| found.provider == "second");
        assert_eq!(
            second.map(|found| found.env.clone()),
            Some(None),
            "one a format"
        );
        let gem = read.found.iter().find(|found| found.provider == "gem");
        assert_eq!(gem.map(|found| found.kind), Some(CredentialKind::Command));
    }

    #[test]
    fn a_built_in_provider_gives_its_base_url_and_key() {
        let text = r#"{"providers": {
            "anthropic": { "baseUrl": "https://proxy.test/" },
            "google": { "baseUrl": "https://g.test/v1beta", "apiKey": "sk-g" },
            "openai": { "baseUrl": "not a url" },
            "groq": { "baseUrl": "https://groq.test/v1", "apiKey": "sk-groq" }
        }}"#;
        assert_eq!(
            passed(text),
            pairs(&[
                ("AGENTPLEX_PI_ANTHROPIC_BASE_URL", "https://proxy.test"),
                ("AGENTPLEX_PI_GOOGLE_BASE_URL", "https://g.test"),
                ("AGENTPLEX_PI_GOOGLE_API_KEY", "sk-g"),
            ])
        );
    }
}
