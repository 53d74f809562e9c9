//! Where Codex's `config.toml` (`$CODEX_HOME/config.toml`, checked with Codex
//! 0.169.0) sends its model calls, reported as credentials so the model gateway
//! forwards them there (`sandbox_agent_adapter_kit::configured`).
//!
//! Codex calls its active provider: `model_provider` (or the active `profile`'s),
//! `openai` when none is named. Every provider speaks Responses (0.169 refuses
//! `wire_api = "chat"`).
//!
//! - `openai`: its base URL is `openai_base_url` (Codex ignores `OPENAI_BASE_URL`),
//!   reported in the `openai` slot; its key is OpenAI's (`OPENAI_API_KEY`,
//!   `CODEX_API_KEY`, `auth.json`).
//! - a provider of `[model_providers.<id>]` that takes OpenAI's key
//!   (`requires_openai_auth = true`, or `env_key = "OPENAI_API_KEY"`): its
//!   `base_url` in the `openai` slot too.
//! - another one: its `base_url`, its key and its id in the custom slot. The key
//!   is `experimental_bearer_token`, or the variable `env_key` names, which the
//!   host reads as Codex would: from the session's own variables, else the
//!   daemon's environment (an unset one reads as the variable's name).
//! - a provider the daemon cannot stand in for (one that takes no key, a built-in
//!   such as `ollama`): its id alone in the custom slot, which tells the session to
//!   leave Codex's calls to it (see `crate::gateway`).
//!
//! What a carried provider adds to each call, its `query_params` (Azure's
//! `api-version`), `http_headers` and `env_http_headers`, is reported too, each a
//! JSON object in a variable of [`EXTRAS`], for the thread's own provider to send
//! ([`crate::gateway`]).
//!
//! A trusted project's `.codex/config.toml` is not read: Codex 0.169 applies its
//! `model` but ignores what would choose the provider (`model_provider`,
//! `model_providers`, `profile`, `openai_base_url`; checked with `codex exec`, the
//! calls stayed with the user's provider).

use sandbox_agent_adapter_kit::configured::Slot;
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

/// The adapter's agent id, the prefix of its slots' variables.
pub(crate) const AGENT: &str = "codex";

/// The provider Codex calls when its configuration names none.
pub(crate) const OPENAI: &str = "openai";

/// The fields of a provider that add to each of its calls (tables of strings),
/// and the variables the active provider's are reported in (JSON objects).
pub(crate) const EXTRAS: [(&str, &str); 3] = [
    ("query_params", "AGENTPLEX_CODEX_PROVIDER_QUERY_PARAMS"),
    ("http_headers", "AGENTPLEX_CODEX_PROVIDER_HTTP_HEADERS"),
    (
        "env_http_headers",
        "AGENTPLEX_CODEX_PROVIDER_ENV_HTTP_HEADERS",
    ),
];

/// The slot of Codex's built-in `openai` provider.
pub(crate) fn openai_slot() -> Slot {
    Slot::builtin(AGENT, OPENAI)
}

/// The slot of a provider of `[model_providers]`.
pub(crate) fn custom_slot() -> Slot {
    Slot::custom(AGENT, ModelApiFormat::OpenaiResponses)
}

/// What `config.toml` says about Codex's active provider.
pub(crate) fn parse(text: &str) -> CredentialRead {
    let mut read = CredentialRead {
        found: Vec::new(),
        problems: Vec::new(),
    };
    match crate::toml::parse(text) {
        Ok(config) => read.found = active_provider(&config),
        Err(error) => read.problems.push(format!("not valid TOML: {error}")),
    }
    read
}

/// The credentials that say where the active provider's calls go.
fn active_provider(config: &Value) -> Vec<FoundCredential> {
    let profile = config["profile"]
        .as_str()
        .map(|profile| format!("profiles.{profile}.model_provider"));
    let named = profile
        .into_iter()
        .chain(["model_provider".to_owned()])
        .find_map(|key| Some((config.pointer(&pointer(&key))?.as_str()?, key)));
    let Some((id, named_at)) = named.filter(|(id, _)| *id != OPENAI) else {
        let url = config["openai_base_url"].as_str().unwrap_or_default();
        return openai_slot()
            .base_url(OPENAI, "openai_base_url", url)
            .into_iter()
            .collect();
    };
    let custom = custom_slot();
    let uncarried = vec![custom.name(&named_at, id)];
    let entry = &config["model_providers"][id];
    let at = |field: &str| format!("model_providers.{id}.{field}");
    let url = entry["base_url"].as_str().unwrap_or_default();
    let env_key = entry["env_key"].as_str();
    if entry["requires_openai_auth"] == true || env_key == Some("OPENAI_API_KEY") {
        let Some(base_url) = openai_slot().base_url(id, &at("base_url"), url) else {
            return Vec::new();
        };
        return [base_url].into_iter().chain(extras(id, entry)).collect();
    }
    let key = match (entry["experimental_bearer_token"].as_str(), env_key) {
        (Some(token), _) => (
            at("experimental_bearer_token"),
            CredentialValue::Literal(token.to_owned()),
        ),
        (None, Some(variable)) => (
            at("env_key"),
            CredentialValue::VariableOrLiteral(variable.to_owned()),
        ),
        (None, None) => return uncarried,
    };
    let Some(base_url) = custom.base_url(id, &at("base_url"), url) else {
        return uncarried;
    };
    [
        base_url,
        custom.key(id, &key.0, key.1),
        custom.name(&named_at, id),
    ]
    .into_iter()
    .chain(extras(id, entry))
    .collect()
}

/// The [`EXTRAS`] provider `id`'s `entry` sets: each a table of strings, passed
/// as a JSON object (anything else in it is left out, as Codex refuses it).
fn extras(id: &str, entry: &Value) -> Vec<FoundCredential> {
    EXTRAS
        .iter()
        .filter_map(|(field, variable)| {
            let table = entry.get(*field)?.as_object()?;
            let strings: serde_json::Map<String, Value> = table
                .iter()
                .filter(|(_, value)| value.is_string())
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect();
            (!strings.is_empty()).then(|| FoundCredential {
                provider: id.to_owned(),
                kind: CredentialKind::Setting,
                key: format!("model_providers.{id}.{field}"),
                value: CredentialValue::Literal(Value::Object(strings).to_string()),
                env: Some((*variable).to_owned()),
            })
        })
        .collect()
}

/// A dotted key as a JSON pointer.
fn pointer(key: &str) -> String {
    key.split('.').map(|part| format!("/{part}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (variable, value) of each credential `config.toml` gives.
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
    fn a_custom_provider_gives_its_base_url_key_and_name() {
        let text = "model = \"gpt-5.5\"\nmodel_provider = \"scripted\"\n\
                    [model_providers.scripted]\nbase_url = \"http://127.0.0.1:9/v1/\"\n\
                    env_key = \"SCRIPTED_API_KEY\"\nwire_api = \"responses\"\n";
        assert_eq!(
            passed(text),
            pairs(&[
                (
                    "AGENTPLEX_CODEX_CUSTOM_RESPONSES_BASE_URL",
                    "http://127.0.0.1:9/v1"
                ),
                (
                    "AGENTPLEX_CODEX_CUSTOM_RESPONSES_API_KEY",
                    "$SCRIPTED_API_KEY"
                ),
                ("AGENTPLEX_CODEX_CUSTOM_RESPONSES_PROVIDER", "scripted"),
            ])
        );
        let token = "profile = \"p\"\nmodel_provider = \"other\"\n\
                     [profiles.p]\nmodel_provider = \"proxy\"\n\
                     [model_providers.proxy]\nbase_url = \"https://proxy.test/v1\"\n\
                     experimental_bearer_token = \"sk-proxy\"\n";
        assert_eq!(
            passed(token),
            pairs(&[
                (
                    "AGENTPLEX_CODEX_CUSTOM_RESPONSES_BASE_URL",
                    "https://proxy.test/v1"
                ),
                ("AGENTPLEX_CODEX_CUSTOM_RESPONSES_API_KEY", "sk-proxy"),
                ("AGENTPLEX_CODEX_CUSTOM_RESPONSES_PROVIDER", "proxy"),
            ])
        );
    }

    #[test]
    fn openai_and_providers_with_openais_key_give_the_openai_base_url() {
        assert_eq!(
            passed("openai_base_url = \"https://eu.proxy.test/v1\"\n"),
            pairs(&[(
                "AGENTPLEX_CODEX_OPENAI_BASE_URL",
                "https://eu.proxy.test/v1"
            )])
        );
        assert!(passed("model = \"gpt-5.5\"\n").is_empty());
        for auth in [
            "requires_openai_auth = true",
            "env_key = \"OPENAI_API_KEY\"",
        ] {
            let text = format!(
                "model_provider = \"azure\"\n[model_providers.azure]\n\
                 base_url = \"https://a.test/openai/v1\"\n{auth}\n"
            );
            assert_eq!(
                passed(&text),
                pairs(&[(
                    "AGENTPLEX_CODEX_OPENAI_BASE_URL",
                    "https://a.test/openai/v1"
                )])
            );
        }
    }

    #[test]
    fn what_a_carried_provider_adds_to_each_call_is_passed_as_json() {
        let azure = "model_provider = \"azure\"\n[model_providers.azure]\n\
                     base_url = \"https://a.test/openai\"\nenv_key = \"AZURE_KEY\"\n\
                     query_params = { api-version = \"2025-04-01-preview\" }\n\
                     http_headers = { x-team = \"core\", bad = 7 }\n\
                     env_http_headers = { x-trace = \"TRACE_ID\" }\n";
        let extras: Vec<(String, String)> = passed(azure)
            .into_iter()
            .filter(|(name, _)| name.starts_with("AGENTPLEX_CODEX_PROVIDER_"))
            .collect();
        assert_eq!(
            extras,
            pairs(&[
                (
                    "AGENTPLEX_CODEX_PROVIDER_QUERY_PARAMS",
                    r#"{"api-version":"2025-04-01-preview"}"#
                ),
                (
                    "AGENTPLEX_CODEX_PROVIDER_HTTP_HEADERS",
                    r#"{"x-team":"core"}"#
                ),
                (
                    "AGENTPLEX_CODEX_PROVIDER_ENV_HTTP_HEADERS",
                    r#"{"x-trace":"TRACE_ID"}"#
                ),
            ])
        );
        // With OpenAI's key too; not for a provider the gateway does not stand in for.
        let openai_auth = azure.replace("env_key = \"AZURE_KEY\"", "requires_openai_auth = true");
        assert_eq!(passed(&openai_auth).len(), 4, "{openai_auth}");
        let keyless = azure.replace("env_key = \"AZURE_KEY\"\n", "");
        assert_eq!(parse(&keyless).found.len(), 1, "{keyless}");
    }

    #[test]
    fn a_provider_without_a_key_is_named_alone() {
        for text in [
            "model_provider = \"ollama\"\n",
            "model_provider = \"local\"\n[model_providers.local]\nbase_url = \"http://localhost:8080/v1\"\n",
            "model_provider = \"bad\"\n[model_providers.bad]\nbase_url = \"nowhere\"\nenv_key = \"K\"\n",
        ] {
            let read = parse(text);
            assert_eq!(read.found.len(), 1, "{text}");
            assert_eq!(
                read.found[0].env.as_deref(),
                Some("AGENTPLEX_CODEX_CUSTOM_RESPONSES_PROVIDER")
            );
        }
    }

    #[test]
    fn a_file_that_is_no_toml_is_a_problem() {
        let read = parse("model_provider = \"unclosed\n");
        assert!(read.found.is_empty());
        assert_eq!(
            read.problems,
            ["not valid TOML: line 1: a string ends at the line"]
        );
    }
}
