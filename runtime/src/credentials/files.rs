//! Each agent's own config files and the credentials in them. File names and
//! fields are the ones the agents themselves read and write (checked in the
//! packages of Claude Code 2.1.197, Codex 0.169.0, OpenCode 1.18.33, Pi 0.73.1 and
//! Gemini CLI 0.61.0; Amp's from its documented `secrets.json`).

use std::path::PathBuf;

use serde_json::Value;

use super::{Kind, Lookup};

/// A credential read from a file, before precedence is applied.
pub(super) struct Found {
    pub provider: String,
    pub kind: Kind,
    /// Where in the file: a dotted JSON path, or a dotenv variable.
    pub key: String,
    pub value: String,
    /// The variable the agent reads for this credential when it reads one; `None`
    /// for logins the agent refreshes in its file and for keys only the file holds.
    pub env: Option<String>,
}

/// What one file yielded.
#[derive(Default)]
pub(super) struct Read {
    pub found: Vec<Found>,
    /// Why (parts of) the file could not be used.
    pub problems: Vec<String>,
}

/// Reads the credentials out of a file's text.
pub(super) type Reader = fn(&str, &Lookup) -> Read;

/// A config file of an agent and how to read it.
pub(super) struct AgentFile {
    pub path: PathBuf,
    pub read: Reader,
}

/// The config files of an agent that hold credentials (none for unknown agents).
pub(super) fn agent_files(agent: &str, lookup: &Lookup) -> Vec<AgentFile> {
    let data_home = lookup
        .agent_dir("XDG_DATA_HOME")
        .or_else(|| lookup.under_home(".local/share"));
    let files: Vec<(Option<PathBuf>, Reader)> = match agent {
        "claude" => {
            let config_dir = lookup.agent_dir("CLAUDE_CONFIG_DIR");
            vec![
                (
                    config_dir
                        .clone()
                        .or_else(|| lookup.under_home(".claude"))
                        .map(|dir| dir.join(".credentials.json")),
                    claude_login,
                ),
                (
                    config_dir
                        .or_else(|| lookup.home().map(PathBuf::from))
                        .map(|dir| dir.join(".claude.json")),
                    claude_config,
                ),
            ]
        }
        "codex" => vec![(
            lookup
                .agent_dir("CODEX_HOME")
                .or_else(|| lookup.under_home(".codex"))
                .map(|dir| dir.join("auth.json")),
            codex_auth,
        )],
        "opencode" => vec![(
            data_home.map(|dir| dir.join("opencode/auth.json")),
            opencode_auth,
        )],
        "amp" => vec![(
            data_home.map(|dir| dir.join("amp/secrets.json")),
            amp_secrets,
        )],
        "pi" => {
            let dir = lookup
                .agent_dir("PI_CODING_AGENT_DIR")
                .or_else(|| lookup.under_home(".pi/agent"));
            vec![
                (dir.as_ref().map(|dir| dir.join("auth.json")), pi_auth),
                (dir.map(|dir| dir.join("models.json")), pi_models),
            ]
        }
        "gemini" => {
            let dir = lookup
                .agent_dir("GEMINI_CLI_HOME")
                .or_else(|| lookup.home().map(PathBuf::from))
                .map(|home| home.join(".gemini"));
            vec![
                (dir.as_ref().map(|dir| dir.join(".env")), gemini_dotenv),
                (dir.map(|dir| dir.join("oauth_creds.json")), gemini_login),
            ]
        }
        _ => Vec::new(),
    };
    files
        .into_iter()
        .filter_map(|(path, read)| Some(AgentFile { path: path?, read }))
        .collect()
}

/// `~/.claude/.credentials.json`: the claude.ai login (`/login`), refreshed by Claude Code.
fn claude_login(text: &str, _: &Lookup) -> Read {
    json_fields(text, |json, read| {
        read.string(json, &["claudeAiOauth", "accessToken"], |value| Found {
            provider: "anthropic".into(),
            kind: Kind::OauthToken,
            key: "claudeAiOauth.accessToken".into(),
            value,
            env: None,
        });
    })
}

/// `~/.claude.json`: an Anthropic Console key saved by `/login` (`primaryApiKey`).
fn claude_config(text: &str, _: &Lookup) -> Read {
    json_fields(text, |json, read| {
        read.string(json, &["primaryApiKey"], |value| Found {
            provider: "anthropic".into(),
            kind: Kind::ApiKey,
            key: "primaryApiKey".into(),
            value,
            env: Some("ANTHROPIC_API_KEY".into()),
        });
    })
}

/// `~/.codex/auth.json`: `OPENAI_API_KEY` (`codex login --with-api-key`) or the
/// ChatGPT login's `tokens`.
fn codex_auth(text: &str, _: &Lookup) -> Read {
    json_fields(text, |json, read| {
        read.string(json, &["OPENAI_API_KEY"], |value| Found {
            provider: "openai".into(),
            kind: Kind::ApiKey,
            key: "OPENAI_API_KEY".into(),
            value,
            env: Some("OPENAI_API_KEY".into()),
        });
        read.string(json, &["tokens", "access_token"], |value| Found {
            provider: "openai".into(),
            kind: Kind::OauthToken,
            key: "tokens.access_token".into(),
            value,
            env: None,
        });
    })
}

/// `~/.local/share/opencode/auth.json`: per provider, `{"type": "api", "key"}`,
/// `{"type": "oauth", "access", "refresh", "expires"}` or `{"type": "wellknown", "token"}`.
fn opencode_auth(text: &str, _: &Lookup) -> Read {
    json_fields(text, |json, read| {
        for (provider, entry) in read.entries(json, "") {
            let (field, kind, env) = match entry.get("type").and_then(Value::as_str) {
                Some("api") => ("key", Kind::ApiKey, opencode_variable(provider)),
                Some("oauth") => ("access", Kind::OauthToken, None),
                Some("wellknown") => ("token", Kind::Token, None),
                _ => {
                    read.problems.push(format!(
                        "`{provider}` has no known `type` (api, oauth, wellknown)"
                    ));
                    continue;
                }
            };
            read.string(entry, &[field], |value| Found {
                provider: provider.clone(),
                kind,
                key: format!("{provider}.{field}"),
                value,
                env: env.map(str::to_owned),
            });
        }
    })
}

/// The variable OpenCode reads for a provider's key.
fn opencode_variable(provider: &str) -> Option<&'static str> {
    Some(match provider {
        "anthropic" => "ANTHROPIC_API_KEY",
        "openai" => "OPENAI_API_KEY",
        "openrouter" => "OPENROUTER_API_KEY",
        "google" => "GOOGLE_GENERATIVE_AI_API_KEY",
        "opencode" => "OPENCODE_API_KEY",
        _ => return None,
    })
}

/// `~/.local/share/amp/secrets.json`: `{"apiKey@https://ampcode.com/": "sgamp_..."}`
/// (one key per Amp server URL), saved by `amp login`.
fn amp_secrets(text: &str, _: &Lookup) -> Read {
    json_fields(text, |json, read| {
        for (name, _) in read.entries(json, "") {
            if name.starts_with("apiKey@") {
                read.string(json, &[name.as_str()], |value| Found {
                    provider: "amp".into(),
                    kind: Kind::ApiKey,
                    key: name.clone(),
                    value,
                    env: Some("AMP_API_KEY".into()),
                });
            }
        }
    })
}

/// `~/.pi/agent/auth.json`: per provider, `{"type": "api_key", "key"}` or
/// `{"type": "oauth", "access", "refresh", "expires"}` (`/login`).
fn pi_auth(text: &str, lookup: &Lookup) -> Read {
    json_fields(text, |json, read| {
        for (provider, entry) in read.entries(json, "") {
            match entry.get("type").and_then(Value::as_str) {
                Some("api_key") => read.string(entry, &["key"], |raw| {
                    pi_key(lookup, provider, format!("{provider}.key"), raw, true)
                }),
                Some("oauth") => read.string(entry, &["access"], |value| Found {
                    provider: provider.clone(),
                    kind: Kind::OauthToken,
                    key: format!("{provider}.access"),
                    value,
                    env: None,
                }),
                _ => read
                    .problems
                    .push(format!("`{provider}` has no known `type` (api_key, oauth)")),
            }
        }
    })
}

/// `~/.pi/agent/models.json`: custom providers' `apiKey`
/// (`{"providers": {"<name>": {"apiKey": ...}}}`); Pi reads them from this file only.
fn pi_models(text: &str, lookup: &Lookup) -> Read {
    json_fields(text, |json, read| {
        let Some(providers) = json.get("providers") else {
            return;
        };
        for (provider, entry) in read.entries(providers, "providers") {
            read.string(entry, &["apiKey"], |raw| {
                pi_key(
                    lookup,
                    provider,
                    format!("providers.{provider}.apiKey"),
                    raw,
                    false,
                )
            });
        }
    })
}

/// A Pi key value, resolved as Pi does: `"!command"` is a command (not run here),
/// the name of a set variable is that variable's value, anything else is the key.
fn pi_key(lookup: &Lookup, provider: &str, key: String, raw: String, builtin: bool) -> Found {
    if raw.starts_with('!') {
        return Found {
            provider: provider.to_owned(),
            kind: Kind::Command,
            key,
            value: raw,
            env: None,
        };
    }
    Found {
        provider: provider.to_owned(),
        kind: Kind::ApiKey,
        key,
        value: lookup.var(&raw).map_or(raw, str::to_owned),
        env: builtin
            .then(|| pi_variable(provider))
            .flatten()
            .map(str::to_owned),
    }
}

/// The variable Pi reads for a built-in provider's key.
fn pi_variable(provider: &str) -> Option<&'static str> {
    Some(match provider {
        "anthropic" => "ANTHROPIC_API_KEY",
        "openai" => "OPENAI_API_KEY",
        "google" => "GEMINI_API_KEY",
        "openrouter" => "OPENROUTER_API_KEY",
        "groq" => "GROQ_API_KEY",
        "xai" => "XAI_API_KEY",
        "mistral" => "MISTRAL_API_KEY",
        "deepseek" => "DEEPSEEK_API_KEY",
        _ => return None,
    })
}

/// `~/.gemini/.env`: `GEMINI_API_KEY` or `GOOGLE_API_KEY` in dotenv syntax.
fn gemini_dotenv(text: &str, _: &Lookup) -> Read {
    let mut read = Read::default();
    for item in dotenvy::from_read_iter(text.as_bytes()) {
        match item {
            Ok((name, value)) if !value.is_empty() => {
                if matches!(name.as_str(), "GEMINI_API_KEY" | "GOOGLE_API_KEY") {
                    read.found.push(Found {
                        provider: "google".into(),
                        kind: Kind::ApiKey,
                        key: name.clone(),
                        value,
                        env: Some(name),
                    });
                }
            }
            Ok(_) => {}
            Err(error) => {
                read.problems
                    .push(format!("not a valid dotenv file: {error}"));
                break;
            }
        }
    }
    read
}

/// `~/.gemini/oauth_creds.json`: the Google login, refreshed by Gemini CLI.
fn gemini_login(text: &str, _: &Lookup) -> Read {
    json_fields(text, |json, read| {
        read.string(json, &["access_token"], |value| Found {
            provider: "google".into(),
            kind: Kind::OauthToken,
            key: "access_token".into(),
            value,
            env: None,
        });
    })
}

/// Parses a JSON object and lets `fields` pick credentials out of it.
fn json_fields(text: &str, fields: impl FnOnce(&Value, &mut Read)) -> Read {
    let mut read = Read::default();
    match serde_json::from_str::<Value>(text) {
        Ok(json) if json.is_object() => fields(&json, &mut read),
        Ok(_) => read.problems.push("not a JSON object".into()),
        Err(error) => read.problems.push(format!("not valid JSON: {error}")),
    }
    read
}

impl Read {
    /// The string at `path` under `json`, made into a credential; nothing when it is
    /// absent, null or empty; a problem when it is something else.
    fn string(&mut self, json: &Value, path: &[&str], found: impl FnOnce(String) -> Found) {
        let mut value = json;
        for (depth, name) in path.iter().enumerate() {
            match value.get(name) {
                None | Some(Value::Null) => return,
                Some(inner) if depth + 1 < path.len() && !inner.is_object() => {
                    self.problems
                        .push(format!("`{}` is not an object", path[..=depth].join(".")));
                    return;
                }
                Some(inner) => value = inner,
            }
        }
        match value {
            Value::String(text) if text.is_empty() => {}
            Value::String(text) => self.found.push(found(text.clone())),
            _ => self
                .problems
                .push(format!("`{}` is not a string", path.join("."))),
        }
    }

    /// The members of the JSON object `json` (named `what` in the problem
    /// reported when it is something else).
    fn entries<'a>(&mut self, json: &'a Value, what: &str) -> Vec<(&'a String, &'a Value)> {
        let Some(object) = json.as_object() else {
            self.problems.push(format!("`{what}` is not an object"));
            return Vec::new();
        };
        object.iter().collect()
    }
}
