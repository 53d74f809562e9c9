//! What OpenCode's configuration says about where its providers' calls go,
//! reported as credentials so the model gateway forwards them there
//! (`sandbox_agent_adapter_kit::configured`). OpenCode reads its configuration
//! from several places as JSON with comments and merges them key by key
//! ([`crate::credentials`] names them); the host hands the adapter every one of
//! them that exists in one read, which [`parse_merged`] merges the same way. Each
//! `provider.<id>` may set `npm` (its AI SDK package) and `options.baseURL` and
//! `options.apiKey`, which win over the provider's variables and `auth.json`.
//!
//! - A built-in provider the adapter points (`anthropic`, `openai`, `openrouter`,
//!   `google`): its `baseURL` (Anthropic's ends in `/v1`, Google's in `/v1beta`) and
//!   `apiKey`.
//! - Any other provider whose `npm` speaks one of the four formats
//!   (`@ai-sdk/anthropic`, `@ai-sdk/openai`, `@ai-sdk/openai-compatible` or
//!   `@openrouter/ai-sdk-provider`, `@ai-sdk/google`): the first by id of each format
//!   with a `baseURL` and an `apiKey` gives its base URL, key and id.
//!
//! Each credential's key names the place that set it. An `apiKey` of `{env:NAME}`
//! is that variable as the session's own variables, else the daemon's
//! environment, set it (the host resolves it); other substitutions
//! (`{file:...}`) and a key `auth.json` holds for a custom provider are not
//! carried.

use std::collections::{BTreeMap, BTreeSet};

use sandbox_agent_adapter_kit::configured::{without_suffix, Slot};
use sandbox_agent_adapter_kit::credentials::{jsonc_file, JsonFields};
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::{json, Map, Value};

use crate::gateway::{version, AGENT, BUILTINS};

/// The names of OpenCode's global config files, the one it prefers first.
pub(crate) const CONFIG_FILES: [&str; 3] = ["opencode.jsonc", "opencode.json", "config.json"];

/// The fields of a provider the gateway needs, whose place is told.
const FIELDS: [&str; 3] = ["npm", "options.baseURL", "options.apiKey"];

/// What the gateway needs of OpenCode's configuration, given as the host's merged
/// read: the JSON array of `{"origin", "text"}` of every place that exists, the
/// one that wins first. Each is merged over the ones after it, as OpenCode does;
/// a place that is not a JSON(C) object is reported and left out.
pub(crate) fn parse_merged(text: &str) -> CredentialRead {
    let mut problems = Vec::new();
    let places: Vec<Value> = match serde_json::from_str(text) {
        Ok(Value::Array(places)) => places,
        _ => {
            problems.push("the host's merged read is not a JSON array".to_owned());
            Vec::new()
        }
    };
    // Each place's text; a folder where a file is looked for has none.
    let places = crate::credentials::in_work_tree(
        places
            .iter()
            .map(|place| {
                let origin = place["origin"].as_str().unwrap_or("?").to_owned();
                (origin, place["text"].as_str().map(str::to_owned))
            })
            .collect(),
    );
    let mut providers = Map::new();
    let mut set_by: BTreeMap<String, String> = BTreeMap::new();
    for (origin, text) in places.iter().rev() {
        let Some(text) = text else {
            problems.push(format!("{origin}: a folder, not a file"));
            continue;
        };
        let mut table = None;
        let read = jsonc_file(text, |json, _| table = json.get("provider").cloned());
        problems.extend(
            read.problems
                .iter()
                .map(|problem| format!("{origin}: {problem}")),
        );
        let Some(Value::Object(table)) = table else {
            continue;
        };
        for (id, entry) in table {
            for field in FIELDS {
                if entry
                    .pointer(&format!("/{}", field.replace('.', "/")))
                    .is_some()
                {
                    set_by.insert(format!("provider.{id}.{field}"), origin.to_owned());
                }
            }
            let Value::Object(entry) = entry else {
                continue;
            };
            match providers.entry(id).or_insert_with(|| json!({})) {
                Value::Object(merged) => merge(merged, entry),
                other => *other = Value::Object(entry),
            }
        }
    }
    let mut read = CredentialRead {
        found: Vec::new(),
        problems,
    };
    carry(&Value::Object(providers), &mut read);
    for found in &mut read.found {
        if let Some(origin) = set_by.get(&found.key) {
            found.key = format!("{} in {origin}", found.key);
        }
    }
    read
}

/// `over` merged into `into` as OpenCode merges its configuration: objects key by
/// key, anything else replaced.
pub(crate) fn merge(into: &mut Map<String, Value>, over: Map<String, Value>) {
    for (key, value) in over {
        match (into.get_mut(&key), value) {
            (Some(Value::Object(set)), Value::Object(added)) => merge(set, added),
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
}

/// What the gateway needs of a configuration's `provider` table, added to `read`.
fn carry(providers: &Value, read: &mut CredentialRead) {
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

    /// (variable, value) of each credential the file gives, read as the only
    /// place of the configuration.
    fn passed(text: &str) -> Vec<(String, String)> {
        let place = json!([{ "origin": "/cfg/opencode/opencode.jsonc", "text": text }]);
        let read = parse_merged(&place.to_string());
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

    #[test]
    fn the_places_of_the_configuration_merge_as_in_opencode() {
        let place =
            |origin: &str, text: &str| serde_json::json!({ "origin": origin, "text": text });
        let merged = serde_json::json!([
            place(
                "env:OPENCODE_CONFIG_CONTENT",
                r#"{"provider": {"scripted": {"options": {"baseURL": "http://127.0.0.1:9/v1"}}}}"#
            ),
            place(
                "/work/app/opencode.json",
                r#"{"provider": {"scripted": {"options": {"apiKey": "sk-project"}}}, // a comment
            }"#
            ),
            place("/work/opencode.json", "[1]"),
            place(
                "/cfg/opencode/opencode.json",
                r#"{"provider": {"scripted": {"npm": "@ai-sdk/openai-compatible",
                "options": {"baseURL": "http://127.0.0.1:1/v1", "apiKey": "sk-global"}}}}"#
            ),
        ]);
        let read =
            <crate::OpenCode as Adapter>::parse_credentials("merge:".into(), merged.to_string());
        assert_eq!(read.problems, ["/work/opencode.json: not a JSON object"]);
        let found: Vec<(String, String, String)> = read
            .found
            .iter()
            .map(|found| {
                let CredentialValue::Literal(value) = &found.value else {
                    panic!("{found:?}")
                };
                (found.env.clone().unwrap(), value.clone(), found.key.clone())
            })
            .collect();
        let slot = "AGENTPLEX_OPENCODE_CUSTOM_CHAT_COMPLETIONS";
        let expected = [
            (
                "BASE_URL",
                "http://127.0.0.1:9/v1",
                "provider.scripted.options.baseURL in env:OPENCODE_CONFIG_CONTENT",
            ),
            (
                "API_KEY",
                "sk-project",
                "provider.scripted.options.apiKey in /work/app/opencode.json",
            ),
            (
                "PROVIDER",
                "scripted",
                "provider.scripted.npm in /cfg/opencode/opencode.json",
            ),
        ]
        .map(|(variable, value, key)| {
            (
                format!("{slot}_{variable}"),
                value.to_owned(),
                key.to_owned(),
            )
        });
        assert_eq!(found, expected);
        let broken = <crate::OpenCode as Adapter>::parse_credentials("merge:".into(), "{}".into());
        assert_eq!(
            broken.problems,
            ["the host's merged read is not a JSON array"]
        );
    }

    #[test]
    fn places_above_the_work_tree_are_not_read() {
        let place = |origin: &str, url: &str| {
            let text =
                format!(r#"{{"provider": {{"openai": {{"options": {{"baseURL": "{url}"}}}}}}}}"#);
            serde_json::json!({ "origin": origin, "text": text })
        };
        let base_url = |places: &[Value]| {
            let read = <crate::OpenCode as Adapter>::parse_credentials(
                "merge:".into(),
                Value::from(places.to_vec()).to_string(),
            );
            assert!(read.problems.is_empty(), "{:?}", read.problems);
            read.found.iter().find_map(|found| match &found.value {
                CredentialValue::Literal(url) => Some(url.clone()),
                _ => None,
            })
        };
        let above = [
            place("/.opencode/opencode.json", "https://above-dot.test/v1"),
            place("/opencode.json", "https://above.test/v1"),
        ];
        let marker =
            serde_json::json!({ "origin": "/work/.git/HEAD", "text": "ref: refs/heads/main\n" });
        assert_eq!(
            base_url(&above).as_deref(),
            Some("https://above-dot.test/v1"),
            "no work tree: up to /"
        );
        let mut places = above.to_vec();
        places.push(marker.clone());
        assert_eq!(base_url(&places), None, "above the root: not read");
        places.insert(0, place("/work/opencode.json", "https://root.test/v1"));
        assert_eq!(
            base_url(&places).as_deref(),
            Some("https://root.test/v1"),
            "the root's own: read"
        );
        // The file OPENCODE_CONFIG names is read wherever it is (named twice: it is
        // also a project's place above the root).
        let mut named = vec![place("/opencode.json", "https://named.test/v1"), marker];
        named.push(named[0].clone());
        assert_eq!(base_url(&named).as_deref(), Some("https://named.test/v1"));
        // A linked work tree's `.git` is a file.
        let linked = [
            place("/work/opencode.json", "https://above-linked.test/v1"),
            serde_json::json!({ "origin": "/work/app/.git", "text": "gitdir: /repo/.git/worktrees/app\n" }),
        ];
        assert_eq!(base_url(&linked), None);
        // An empty `.git` folder is no repository: the walk goes on to `/`.
        let empty = [
            place("/work/opencode.json", "https://above-empty.test/v1"),
            serde_json::json!({ "origin": "/work/app/.git", "folder": true }),
        ];
        assert_eq!(
            base_url(&empty).as_deref(),
            Some("https://above-empty.test/v1")
        );
        let folder = serde_json::json!([{ "origin": "/work/opencode.json", "folder": true }]);
        let read =
            <crate::OpenCode as Adapter>::parse_credentials("merge:".into(), folder.to_string());
        assert_eq!(read.problems, ["/work/opencode.json: a folder, not a file"]);
    }
}
