//! The keys file as a running broker holds it: looked at again on every call,
//! and read again whenever it changed (its inode, size, or modification or
//! change time), so a sandbox taken out of it is refused from the next call on,
//! with no signal or restart. File times tick in jiffies, so two writes of the
//! same size may look alike: a file modified in the last two seconds is read
//! again at every call. A file that no longer reads or parses refuses every
//! call until it does again: a half-written edit never lets a revoked token
//! through.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use hyper::HeaderMap;

use super::keys::Keys;
use crate::error::Error;
use crate::format::{Format, Refusal};
use crate::forward::credentials;
use crate::route::{Registered, Route};
use crate::usage::{CallUsage, UsageSink};

/// The broker's keys file, read again when it changes.
pub(crate) struct Keyring {
    path: PathBuf,
    loaded: Mutex<Loaded>,
}

/// The file as last read.
struct Loaded {
    /// What the file looked like then; `None` when it could not be looked at.
    stamp: Option<Stamp>,
    /// Its keys, or why there are none.
    keys: Result<Arc<Keys>, String>,
}

/// How long after its last modification a file's times may not yet tell a
/// later write from it.
const RACY: Duration = Duration::from_secs(2);

/// What changes when a file is written or replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    device: u64,
    inode: u64,
    length: u64,
    modified: SystemTime,
    changed: (i64, i64),
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let metadata = std::fs::metadata(path).ok()?;
        Some(Stamp {
            device: metadata.dev(),
            inode: metadata.ino(),
            length: metadata.len(),
            modified: metadata.modified().ok()?,
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        })
    }

    /// Whether the file was modified too recently for its times to show the
    /// next write (or in the future).
    fn racy(&self) -> bool {
        self.modified.elapsed().map_or(true, |age| age < RACY)
    }
}

/// Why a call found no way through the broker: the refusal and its message.
pub(crate) type Refused = (Refusal, String);

impl Keyring {
    /// Reads the keys file at `path`: a file that cannot be used stops the
    /// broker before it starts.
    pub(crate) fn open(path: PathBuf) -> Result<Self, Error> {
        let stamp = Stamp::of(&path);
        let keys = Keys::from_file(&path)?;
        log_read(&path, &keys);
        Ok(Keyring {
            path,
            loaded: Mutex::new(Loaded {
                stamp,
                keys: Ok(Arc::new(keys)),
            }),
        })
    }

    /// The keys as the file has them now, read again if it changed.
    fn current(&self) -> Result<Arc<Keys>, String> {
        let stamp = Stamp::of(&self.path);
        let mut loaded = self
            .loaded
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let changed = stamp != loaded.stamp;
        if changed || stamp.is_some_and(|stamp| stamp.racy()) {
            loaded.stamp = stamp;
            loaded.keys = match Keys::from_file(&self.path) {
                Ok(keys) => {
                    if changed {
                        log_read(&self.path, &keys);
                    }
                    Ok(Arc::new(keys))
                }
                Err(error) => {
                    if changed {
                        tracing::error!(%error, "broker: the keys file changed and cannot be used; every call is refused until it is fixed");
                    }
                    Err(error.to_string())
                }
            };
        }
        loaded.keys.clone()
    }

    /// The way of a call to `provider` in `format`: the route of the sandbox
    /// whose token it carries (where agents send keys), to the provider's
    /// upstream, and that token; or why there is none.
    pub(crate) fn route(
        &self,
        provider: &str,
        format: Format,
        headers: &HeaderMap,
        query: Option<&str>,
    ) -> Result<(Registered, String), Refused> {
        let keys = self.current().map_err(|reason| {
            let message = format!("the broker's keys file cannot be used: {reason}");
            (Refusal::KeysUnusable, message)
        })?;
        let found = credentials(headers, query)
            .into_iter()
            .find_map(|(_, token)| Some((keys.sandbox(token)?.to_owned(), token.to_owned())));
        let Some((sandbox, token)) = found else {
            let message = "unknown or revoked sandbox token".to_owned();
            return Err((Refusal::UnknownToken, message));
        };
        let Some(upstream) = keys.provider(provider, format) else {
            let message = format!("the broker holds no key for provider {provider:?}");
            return Err((Refusal::NoUpstream, message));
        };
        let route = Route {
            session_id: sandbox.clone(),
            agent: provider.to_owned(),
            upstreams: HashMap::from([(format.into(), upstream)]),
            sink: Arc::new(CallLog {
                sandbox,
                provider: provider.to_owned(),
            }),
        };
        let registered = Registered {
            route: Arc::new(route),
            budgets: None,
        };
        Ok((registered, token))
    }
}

fn log_read(path: &Path, keys: &Keys) {
    let (providers, sandboxes) = keys.counts();
    tracing::info!(file = %path.display(), providers, sandboxes, "broker: keys file read");
}

/// Where a broker's calls' usage goes: its log, by sandbox and provider.
struct CallLog {
    sandbox: String,
    provider: String,
}

impl UsageSink for CallLog {
    fn record(&self, usage: CallUsage) {
        tracing::info!(
            sandbox = %self.sandbox,
            provider = %self.provider,
            format = %usage.format,
            model = %usage.model,
            input_tokens = usage.input_tokens,
            output_tokens = usage.output_tokens,
            cost_usd = usage.cost_usd,
            status = usage.status,
            complete = usage.complete,
            "broker: model call"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::SandboxToken;
    use hyper::header::HeaderValue;

    fn keys_file(sandboxes: &[(&str, &SandboxToken)]) -> String {
        let sandboxes: serde_json::Map<String, serde_json::Value> = sandboxes
            .iter()
            .map(|(name, token)| {
                let entry = serde_json::json!({"tokenSha256": token.sha256()});
                ((*name).to_owned(), entry)
            })
            .collect();
        serde_json::json!({
            "providers": {"anthropic": {"baseUrl": "http://127.0.0.1:9", "key": "sk-real"}},
            "sandboxes": sandboxes,
        })
        .to_string()
    }

    /// A call with `value` in `header`: the sandbox it was found to come from.
    fn call(keyring: &Keyring, header: &str, value: &str) -> Result<String, Refusal> {
        let mut headers = HeaderMap::new();
        headers.insert(
            hyper::header::HeaderName::from_bytes(header.as_bytes()).unwrap(),
            HeaderValue::from_str(value).unwrap(),
        );
        keyring
            .route("anthropic", Format::AnthropicMessages, &headers, None)
            .map(|(registered, token)| {
                assert!(value.ends_with(&token), "{token} of {value}");
                registered.route.session_id.clone()
            })
            .map_err(|(refusal, _)| refusal)
    }

    #[test]
    fn a_sandbox_taken_out_of_the_file_is_refused_at_its_next_call() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.json");
        let (one, two) = (SandboxToken::new(), SandboxToken::new());
        std::fs::write(&path, keys_file(&[("one", &one), ("two", &two)])).unwrap();
        let keyring = Keyring::open(path.clone()).unwrap();
        assert_eq!(call(&keyring, "x-api-key", one.token()), Ok("one".into()));
        let bearer = format!("Bearer {}", two.token());
        assert_eq!(call(&keyring, "authorization", &bearer), Ok("two".into()));
        assert_eq!(
            call(&keyring, "x-api-key", "apxb_unknown"),
            Err(Refusal::UnknownToken)
        );
        let refused = keyring.route("openai", Format::OpenaiResponses, &HeaderMap::new(), None);
        assert_eq!(refused.err().map(|(r, _)| r), Some(Refusal::UnknownToken));

        // Revoked: rewritten in place.
        let replaced = keys_file(&[("two", &two)]);
        std::fs::write(&path, &replaced).unwrap();
        assert_eq!(
            call(&keyring, "x-api-key", one.token()),
            Err(Refusal::UnknownToken)
        );
        assert_eq!(call(&keyring, "x-api-key", two.token()), Ok("two".into()));
        // Rewritten at once with the same length: the file is too new to trust its times.
        let swapped = keys_file(&[("owt", &two)]);
        std::fs::write(&path, &swapped).unwrap();
        assert_eq!(call(&keyring, "x-api-key", two.token()), Ok("owt".into()));

        // Half written: nothing passes until it parses again.
        std::fs::write(&path, &replaced[..replaced.len() / 2]).unwrap();
        assert_eq!(
            call(&keyring, "x-api-key", two.token()),
            Err(Refusal::KeysUnusable)
        );
        // Replaced by a new file (a rename, as editors do).
        let new = dir.path().join("keys.json.new");
        std::fs::write(&new, keys_file(&[("one", &one)])).unwrap();
        std::fs::rename(&new, &path).unwrap();
        assert_eq!(call(&keyring, "x-api-key", one.token()), Ok("one".into()));
        // Removed: refused.
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            call(&keyring, "x-api-key", one.token()),
            Err(Refusal::KeysUnusable)
        );
    }

    #[test]
    fn a_provider_the_file_does_not_name_is_not_found() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.json");
        let token = SandboxToken::new();
        std::fs::write(&path, keys_file(&[("one", &token)])).unwrap();
        let keyring = Keyring::open(path).unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-goog-api-key",
            HeaderValue::from_str(token.token()).unwrap(),
        );
        let refused = keyring.route("google", Format::Gemini, &headers, None);
        assert_eq!(refused.err().map(|(r, _)| r), Some(Refusal::NoUpstream));
        let query = format!("alt=sse&key={}", token.token());
        let found = keyring.route("anthropic", Format::Gemini, &HeaderMap::new(), Some(&query));
        assert!(found.is_ok());
    }
}
