//! What OpenCode's global configuration (`$XDG_CONFIG_HOME/opencode/`
//! `opencode.jsonc`, `opencode.json`, `config.json`; checked with OpenCode 1.18.33)
//! says about where its providers' calls go, reported as credentials so the model
//! gateway forwards them there (`sandbox_agent_adapter_kit::configured`). OpenCode
//! reads these files as JSON with comments; each `provider.<id>` may set `npm` (its
//! AI SDK package) and `options.baseURL` and `options.apiKey`, which win over the
//! provider's variables and `auth.json`.
//!
//! - A built-in provider the adapter points (`anthropic`, `openai`, `openrouter`,
//!   `google`): its `baseURL` (Anthropic's ends in `/v1`, Google's in `/v1beta`) and
//!   `apiKey`.
//! - Any other provider whose `npm` speaks one of the four formats
//!   (`@ai-sdk/anthropic`, `@ai-sdk/openai`, `@ai-sdk/openai-compatible` or
//!   `@openrouter/ai-sdk-provider`, `@ai-sdk/google`): the first by id of each format
//!   with a `baseURL` and an `apiKey` gives its base URL, key and id.
//!
//! An `apiKey` of `{env:NAME}` is that variable as the session's own variables, else
//! the daemon's environment, set it (the host resolves it); other substitutions (`{file:...}`), a key `auth.json` holds for a custom provider,
//! and a project's `opencode.json` are not carried.

use std::collections::BTreeSet;

use sandbox_agent_adapter_kit::configured::{without_suffix, Slot};
use sandbox_agent_adapter_kit::credentials::{jsonc_file, JsonFields};
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

use crate::gateway::{version, AGENT, BUILTINS};

/// The names of OpenCode's global config files, the one it prefers first.
pub(crate) const CONFIG_FILES: [&str; 3] = ["opencode.jsonc", "opencode.json", "config.json"];

/// What the gateway needs of the providers of one of OpenCode's config files.
pub(crate) fn parse(text: &str) -> CredentialRead {
    jsonc_file(text, |json, read| {
        let Some(providers) = json.get("provider") else {
            return;
        };
        let mut formats = BTreeSet::new();
        for (id, entry) in read.entries(providers, "provider") {
            if let Some(builtin) = BUILTINS.iter().find(|builtin| builtin.provider == id) {
                let found = carried(id, entry, builtin.format, &Slot::builtin(AGENT, id));
                read.found.extend(found);
                continue;
            }
            let Some(format) = format_of(entry).filter(|format| !formats.contains(format)) else {
                continue;
            };
            let slot = Slot::custom(AGENT, format);
            let found = carried(id, entry, format, &slot);
            // A custom provider is carried with both its base URL and its key, or not.
            if found.len() == 2 {
                formats.insert(format);
                read.found.extend(found);
                read.found
                    .push(slot.name(&format!("provider.{id}.npm"), id));
            }
        }
    })
}

/// The format of a provider's AI SDK package.
fn format_of(entry: &Value) -> Option<ModelApiFormat> {
    Some(match entry.get("npm")?.as_str()? {
        "@ai-sdk/anthropic" => ModelApiFormat::AnthropicMessages,
        "@ai-sdk/openai" => ModelApiFormat::OpenaiResponses,
        "@ai-sdk/openai-compatible" | "@openrouter/ai-sdk-provider" => {
            ModelApiFormat::OpenaiChatCompletions
        }
        "@ai-sdk/google" => ModelApiFormat::Gemini,
        _ => return None,
    })
}

/// The provider's base URL and key, in `slot`, as far as its `options` give them.
fn carried(id: &str, entry: &Value, format: ModelApiFormat, slot: &Slot) -> Vec<FoundCredential> {
    let at = |field: &str| format!("provider.{id}.options.{field}");
    let option = |field: &str| {
        entry
            .pointer(&format!("/options/{field}"))
            .and_then(Value::as_str)
    };
    let base_url = option("baseURL")
        .and_then(|url| without_suffix(url, version(format)))
        .and_then(|url| slot.base_url(id, &at("baseURL"), url));
    let key = option("apiKey")
        .and_then(key_value)
        .map(|value| slot.key(id, &at("apiKey"), value));
    base_url.into_iter().chain(key).collect()
}

/// An `apiKey` as OpenCode reads it: `{env:NAME}` is the variable, another
/// substitution is not known here, anything else is the key.
fn key_value(raw: &str) -> Option<CredentialValue> {
    if let Some(name) = raw
        .strip_prefix("{env:")
        .and_then(|rest| rest.strip_suffix('}'))
    {
        return Some(CredentialValue::VariableOrLiteral(name.to_owned()));
    }
    (!raw.is_empty() && !raw.starts_with('{')).then(|| CredentialValue::Literal(raw.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (variable, value) of each credential the file gives.
    fn passed(text: &str) -> Vec<(String, String)> {
        let read = parse(text);
        assert!(read.problems.is_empty(), "{:?}", read.problems);
        read.found
            .into_iter()
            .map(|found| {
                let value = match found.value {
                    CredentialValue::Literal(value) => value,
                    CredentialValue::VariableOrLiteral(name) => format!("${name}"),
                };
                (found.env.unwrap(), value)
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
    fn a_custom_provider_gives_its_base_url_key_and_id() {
        let text = r#"{
          "$schema": "https://opencode.ai/config.json",
          "provider": {
            // the model server
            "scripted": { "npm": "@ai-sdk/openai-compatible",
                          "options": { "baseURL": "http://127.0.0.1:9/v1", "apiKey": "sk-scripted" } },
            "second": { "npm": "@ai-sdk/openai-compatible",
                        "options": { "baseURL": "http://127.0.0.1:10/v1", "apiKey": "sk-2" } },
            "claude-proxy": { "npm": "@ai-sdk/anthropic",
                              "options": { "baseURL": "https://proxy.test/v1", "apiKey": "{env:PROXY_KEY}" } },
            "nokey": { "npm": "@ai-sdk/google", "options": { "baseURL": "https://g.test/v1beta" } },
          },
        }"#;
        assert_eq!(
            passed(text),
            pairs(&[
                (
                    "AGENTPLEX_OPENCODE_CUSTOM_ANTHROPIC_MESSAGES_BASE_URL",
                    "https://proxy.test"
                ),
                (
                    "AGENTPLEX_OPENCODE_CUSTOM_ANTHROPIC_MESSAGES_API_KEY",
                    "$PROXY_KEY"
                ),
                (
                    "AGENTPLEX_OPENCODE_CUSTOM_ANTHROPIC_MESSAGES_PROVIDER",
                    "claude-proxy"
                ),
                (
                    "AGENTPLEX_OPENCODE_CUSTOM_CHAT_COMPLETIONS_BASE_URL",
                    "http://127.0.0.1:9/v1"
                ),
                (
                    "AGENTPLEX_OPENCODE_CUSTOM_CHAT_COMPLETIONS_API_KEY",
                    "sk-scripted"
                ),
                (
                    "AGENTPLEX_OPENCODE_CUSTOM_CHAT_COMPLETIONS_PROVIDER",
                    "scripted"
                ),
            ])
        );
    }

    #[test]
    fn a_built_in_provider_gives_its_base_url_and_key() {
        let text = r#"{"provider": {
            "anthropic": { "options": { "baseURL": "https://proxy.test/v1/", "apiKey": "sk-p" } },
            "google": { "options": { "baseURL": "https://g.test/v1" } },
            "openai": { "options": { "baseURL": "https://o.test/v1", "apiKey": "{file:~/k}" } }
        }}"#;
        assert_eq!(
            passed(text),
            pairs(&[
                (
                    "AGENTPLEX_OPENCODE_ANTHROPIC_BASE_URL",
                    "https://proxy.test"
                ),
                ("AGENTPLEX_OPENCODE_ANTHROPIC_API_KEY", "sk-p"),
                ("AGENTPLEX_OPENCODE_OPENAI_BASE_URL", "https://o.test/v1"),
            ])
        );
    }
}
