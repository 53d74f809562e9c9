//! The broker's keys file: the providers it holds real keys for, and the
//! sandboxes that may use them, each known only by the SHA-256 of its token.
//!
//! ```json
//! {"providers": {
//!    "anthropic": {"baseUrl": "https://api.anthropic.com", "key": "sk-ant-..."},
//!    "openai": {"baseUrl": "https://api.openai.com/v1", "key": "sk-...", "sendKeyAs": "bearer"}},
//!  "sandboxes": {
//!    "ci-runner-1": {"tokenSha256": "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b"}}}
//! ```
//!
//! A provider's name is what the daemons' adapters call it (`model-api.provider`)
//! and one segment of the broker's paths; its `baseUrl` is in the form its
//! formats' clients take (with `/v1` for the OpenAI formats); `sendKeyAs` says
//! where the key goes (a [`KeyPlacement`]; by default where each format's
//! clients send an API key: `x-api-key` for Anthropic Messages, a bearer token
//! for the OpenAI formats, `x-goog-api-key` for Gemini). A sandbox's name is
//! only for the logs. Anything else in the file, or a
//! value that cannot be used, is refused with its line and column.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::error::{located, Error};
use crate::format::{Format, KeyPlacement};
use crate::route::{random_token, Upstream};

/// A keys file, read and checked.
#[derive(Debug)]
pub(crate) struct Keys {
    /// Each provider's upstream, with its real key.
    providers: HashMap<String, Provider>,
    /// Each sandbox's name, by the SHA-256 of its token.
    sandboxes: HashMap<[u8; 32], String>,
}

/// The file's shape.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    providers: HashMap<ProviderName, Provider>,
    #[serde(default)]
    sandboxes: Sandboxes,
}

/// A provider's name: one path segment.
#[derive(PartialEq, Eq, Hash, Deserialize)]
#[serde(try_from = "String")]
struct ProviderName(String);

impl TryFrom<String> for ProviderName {
    type Error = Error;

    fn try_from(name: String) -> Result<Self, Self::Error> {
        match is_provider_name(&name) {
            true => Ok(ProviderName(name)),
            false => Err(Error::ProviderName(name)),
        }
    }
}

/// A provider's entry, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ProviderEntry {
    base_url: String,
    key: String,
    send_key_as: Option<KeyPlacement>,
}

/// A provider's upstream, checked, and where its key goes if the file says.
#[derive(Debug, Deserialize)]
#[serde(try_from = "ProviderEntry")]
struct Provider {
    upstream: Upstream,
    send_key_as: Option<KeyPlacement>,
}

impl TryFrom<ProviderEntry> for Provider {
    type Error = Error;

    fn try_from(entry: ProviderEntry) -> Result<Self, Self::Error> {
        let placement = entry.send_key_as.unwrap_or(KeyPlacement::AsSent);
        let upstream = Upstream::new(&entry.base_url)?.with_key(&entry.key, placement)?;
        Ok(Provider {
            upstream,
            send_key_as: entry.send_key_as,
        })
    }
}

/// The sandboxes' names by their token's hash: no two with one token.
#[derive(Default, Deserialize)]
#[serde(try_from = "HashMap<String, Sandbox>")]
struct Sandboxes(HashMap<[u8; 32], String>);

impl TryFrom<HashMap<String, Sandbox>> for Sandboxes {
    type Error = String;

    fn try_from(named: HashMap<String, Sandbox>) -> Result<Self, Self::Error> {
        let mut named: Vec<_> = named.into_iter().collect();
        named.sort_by(|(one, _), (two, _)| one.cmp(two));
        let mut by_hash = HashMap::new();
        for (name, Sandbox(hash)) in named {
            if let Some(other) = by_hash.insert(hash, name.clone()) {
                return Err(format!(
                    "sandboxes {other:?} and {name:?} have the same token"
                ));
            }
        }
        Ok(Sandboxes(by_hash))
    }
}

/// A sandbox's entry, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SandboxEntry {
    token_sha256: String,
}

/// A sandbox: its token's SHA-256.
#[derive(Deserialize)]
#[serde(try_from = "SandboxEntry")]
struct Sandbox([u8; 32]);

impl TryFrom<SandboxEntry> for Sandbox {
    type Error = String;

    fn try_from(entry: SandboxEntry) -> Result<Self, Self::Error> {
        let hex = entry.token_sha256.trim();
        let bad = || format!("tokenSha256 {hex:?} is not a SHA-256 in hex (64 digits)");
        if hex.len() != 64 || !hex.is_ascii() {
            return Err(bad());
        }
        let mut hash = [0u8; 32];
        for (byte, pair) in hash.iter_mut().zip(hex.as_bytes().chunks(2)) {
            let pair = std::str::from_utf8(pair).map_err(|_| bad())?;
            *byte = u8::from_str_radix(pair, 16).map_err(|_| bad())?;
        }
        Ok(Sandbox(hash))
    }
}

impl Keys {
    /// Reads and checks the keys file at `path`.
    pub(crate) fn from_file(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::KeysUnreadable {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Checks a keys file's text; `origin` names it in errors.
    pub(crate) fn parse(text: &str, origin: &str) -> Result<Self, Error> {
        let file: File = serde_json::from_str(text).map_err(|error| {
            let (line, column, reason) = located(&error);
            Error::Keys {
                origin: origin.to_owned(),
                line,
                column,
                reason,
            }
        })?;
        let providers = file
            .providers
            .into_iter()
            .map(|(ProviderName(name), provider)| (name, provider))
            .collect();
        Ok(Keys {
            providers,
            sandboxes: file.sandboxes.0,
        })
    }

    /// The name of the sandbox whose token is `token`.
    pub(crate) fn sandbox(&self, token: &str) -> Option<&str> {
        self.sandboxes.get(&sha256(token)).map(String::as_str)
    }

    /// The upstream of `provider`'s calls in `format`, with its real key.
    pub(crate) fn provider(&self, provider: &str, format: Format) -> Option<Upstream> {
        let entry = self.providers.get(provider)?;
        let placement = entry.send_key_as.unwrap_or(format.key_placement());
        Some(entry.upstream.clone().placed(placement))
    }

    /// How many providers and sandboxes the file names.
    pub(crate) fn counts(&self) -> (usize, usize) {
        (self.providers.len(), self.sandboxes.len())
    }
}

/// Whether `name` can be a provider's name in a broker's paths: ASCII
/// letters, digits, `.`, `_` and `-`, and not `.` or `..`.
pub(crate) fn is_provider_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"._-".contains(&byte))
}

fn sha256(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// A new sandbox token for a broker: give the token to the sandbox's daemon
/// (`--broker-token-file`), and its SHA-256 to the broker's keys file.
pub struct SandboxToken(String);

impl SandboxToken {
    /// A new token: `apxb_` and 32 random bytes, base64url.
    pub fn new() -> Self {
        SandboxToken(random_token("apxb_"))
    }

    /// The token itself.
    pub fn token(&self) -> &str {
        &self.0
    }

    /// Its SHA-256, in lowercase hex: the keys file's `tokenSha256`.
    pub fn sha256(&self) -> String {
        sha256(&self.0)
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}

impl Default for SandboxToken {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for SandboxToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("SandboxToken").field(&"<redacted>").finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"{
  "providers": {
    "anthropic": {"baseUrl": "https://api.anthropic.com", "key": "sk-ant-real"},
    "openai": {"baseUrl": "https://api.openai.com/v1/", "key": "sk-real", "sendKeyAs": "bearer"}
  },
  "sandboxes": {"ci-1": {"tokenSha256": "HASH"}}
}"#;

    fn file_with(token: &SandboxToken) -> String {
        FILE.replace("HASH", &token.sha256())
    }

    #[test]
    fn a_sandbox_is_known_by_its_token_s_hash_and_providers_by_name() {
        let token = SandboxToken::new();
        assert!(token.token().starts_with("apxb_"));
        assert_eq!(token.sha256().len(), 64);
        let keys = Keys::parse(&file_with(&token), "keys.json").unwrap();
        assert_eq!(keys.sandbox(token.token()), Some("ci-1"));
        assert_eq!(keys.sandbox(&token.sha256()), None);
        assert_eq!(keys.sandbox("apxb_other"), None);
        let openai = keys.provider("openai", Format::OpenaiResponses).unwrap();
        assert_eq!(openai.base_url(), "https://api.openai.com/v1");
        assert_eq!(openai.key(), Some("sk-real"));
        assert_eq!(openai.placement(), KeyPlacement::Bearer);
        // Where the format's clients send API keys, unless the file says.
        let anthropic = |format| keys.provider("anthropic", format).unwrap().placement();
        assert_eq!(anthropic(Format::AnthropicMessages), KeyPlacement::XApiKey);
        assert_eq!(anthropic(Format::Gemini), KeyPlacement::XGoogApiKey);
        let fixed = file_with(&token).replace("\"bearer\"", "\"as-sent\"");
        let fixed = Keys::parse(&fixed, "keys.json").unwrap();
        let openai = fixed
            .provider("openai", Format::OpenaiChatCompletions)
            .unwrap();
        assert_eq!(openai.placement(), KeyPlacement::AsSent);
        assert!(keys.provider("google", Format::Gemini).is_none());
        assert_eq!(keys.counts(), (2, 1));
        assert!(!format!("{keys:?}").contains("sk-real"));
    }

    #[test]
    fn a_file_that_cannot_be_used_is_refused_with_its_line() {
        let token = SandboxToken::new();
        let cases = [
            (
                FILE.replace("\"key\": \"sk-real\"", "\"key\": 3"),
                4,
                "invalid type",
            ),
            (FILE.replace("HASH", "abc"), 6, "not a SHA-256"),
            (
                FILE.replace("https://api.anthropic.com", "ftp://x"),
                3,
                "ftp://x",
            ),
            (
                FILE.replace("\"openai\"", "\"open/ai\""),
                4,
                "provider name",
            ),
            (FILE.replace("bearer", "header"), 4, "unknown variant"),
            (
                FILE.replace("\"sandboxes\"", "\"sandbox\""),
                6,
                "unknown field",
            ),
            (
                file_with(&token).replace(
                    "\"ci-1\": {",
                    &format!(
                        "\"ci-0\": {{\"tokenSha256\": \"{}\"}}, \"ci-1\": {{",
                        token.sha256()
                    ),
                ),
                7,
                "the same token",
            ),
        ];
        for (text, line, reason) in cases {
            let Err(Error::Keys {
                origin,
                line: at,
                reason: why,
                ..
            }) = Keys::parse(&text, "keys.json")
            else {
                panic!("not refused: {text}");
            };
            assert_eq!(origin, "keys.json");
            assert_eq!((at, why.contains(reason)), (line, true), "{why}\n{text}");
        }
    }

    #[test]
    fn provider_names_are_one_path_segment() {
        for name in ["anthropic", "open-router", "z.ai", "v_2"] {
            assert!(is_provider_name(name), "{name}");
        }
        for name in ["", ".", "..", "a/b", "a b", "é", "a?b"] {
            assert!(!is_provider_name(name), "{name}");
        }
    }
}
