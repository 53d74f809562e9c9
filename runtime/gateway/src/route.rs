//! Routes: a session's upstreams and usage sink, reached through its token,
//! with the budgets its calls fall under.
//!
//! A token is 32 random bytes from the system, base64url, after `apx_`: worth
//! nothing outside this gateway, and nothing once its [`RouteGuard`] is dropped,
//! since the route goes with it.

use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use base64::Engine as _;

use crate::budget::{Budget, RouteBudgets};
use crate::error::Error;
use crate::format::{Format, KeyPlacement};
use crate::usage::UsageSink;
use crate::Shared;

/// One session's way through the gateway.
pub struct Route {
    /// The session's id (for the gateway's logs).
    pub session_id: String,
    /// The agent the session runs (for the gateway's logs).
    pub agent: String,
    /// Where each lane's calls go.
    pub upstreams: HashMap<Lane, Upstream>,
    /// Where each call's usage goes.
    pub sink: Arc<dyn UsageSink>,
}

impl fmt::Debug for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Route")
            .field("session_id", &self.session_id)
            .field("agent", &self.agent)
            .field("upstreams", &self.upstreams)
            .finish_non_exhaustive()
    }
}

/// One of a session's ways to a model API: its format's, or, for an agent that
/// calls more than one provider of a format (a built-in one and a configured
/// one), another provider's, whose endpoint's path names it after the format
/// (`anthropic-messages@custom`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Lane {
    /// The calls' format.
    pub format: Format,
    /// The provider, for a lane that is not the format's first.
    pub provider: Option<String>,
}

impl Lane {
    /// The lane of `provider`'s calls of `format`, beside the format's first.
    /// A provider's name in a path is letters, digits, `-` and `_`.
    pub fn of(format: Format, provider: &str) -> Result<Self, Error> {
        let fits = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if provider.is_empty() || !provider.chars().all(fits) {
            return Err(Error::LaneName {
                provider: provider.to_owned(),
            });
        }
        Ok(Self {
            format,
            provider: Some(provider.to_owned()),
        })
    }

    /// A lane as an endpoint's path names it: `anthropic-messages`,
    /// `anthropic-messages@custom`.
    pub(crate) fn parse(segment: &str) -> Option<Self> {
        let (format, provider) = match segment.split_once('@') {
            Some((format, provider)) => (format, Some(provider)),
            None => (segment, None),
        };
        let format: Format = format.parse().ok()?;
        match provider {
            None => Some(format.into()),
            Some(provider) => Self::of(format, provider).ok(),
        }
    }
}

impl From<Format> for Lane {
    fn from(format: Format) -> Self {
        Self {
            format,
            provider: None,
        }
    }
}

impl fmt::Display for Lane {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.provider {
            Some(provider) => write!(f, "{}@{provider}", self.format.as_str()),
            None => f.write_str(self.format.as_str()),
        }
    }
}

/// A route as the gateway keeps it: with its budgets, the session's and the
/// daemon's.
#[derive(Clone)]
pub(crate) struct Registered {
    pub route: Arc<Route>,
    /// `None` when no budget applies.
    pub budgets: Option<Arc<RouteBudgets>>,
}

/// A model API the gateway forwards to: its base URL, in the form the agent
/// itself would use for the format (`https://api.anthropic.com`,
/// `https://api.openai.com/v1`, `https://generativelanguage.googleapis.com`),
/// and the real key, if the daemon holds one.
#[derive(Clone)]
pub struct Upstream {
    /// The base URL, without a trailing `/`.
    base: String,
    key: Option<String>,
    placement: KeyPlacement,
}

impl Upstream {
    /// An upstream without a key: calls go through with the agent's own
    /// credentials, and a session token in them is taken out.
    pub fn new(base_url: &str) -> Result<Self, Error> {
        let refuse = |reason: &str| Error::UpstreamUrl {
            url: base_url.to_owned(),
            reason: reason.to_owned(),
        };
        let url = reqwest::Url::parse(base_url).map_err(|error| refuse(&error.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(refuse("only http and https upstreams are forwarded to"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(refuse("a base URL has no query or fragment"));
        }
        Ok(Self {
            base: url.as_str().trim_end_matches('/').to_owned(),
            key: None,
            placement: KeyPlacement::AsSent,
        })
    }

    /// The same upstream with its real key, sent where `placement` says on
    /// calls that carry the session's token.
    pub fn with_key(mut self, key: &str, placement: KeyPlacement) -> Result<Self, Error> {
        let bad = key.is_empty()
            || reqwest::header::HeaderValue::from_str(&format!("Bearer {key}")).is_err();
        if bad {
            return Err(Error::UpstreamKey { url: self.base });
        }
        self.key = Some(key.to_owned());
        self.placement = placement;
        Ok(self)
    }

    /// The same upstream with its key sent where `placement` says.
    pub(crate) fn placed(mut self, placement: KeyPlacement) -> Self {
        self.placement = placement;
        self
    }

    /// The base URL, without a trailing `/`.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// The real key, if the daemon holds one.
    pub(crate) fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// Where the real key goes.
    pub(crate) fn placement(&self) -> KeyPlacement {
        self.placement
    }
}

impl fmt::Debug for Upstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Upstream")
            .field("base", &self.base)
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .field("placement", &self.placement)
            .finish()
    }
}

/// A registered route: its token works while the guard lives, and stops at
/// once when it is dropped.
pub struct RouteGuard {
    token: String,
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl RouteGuard {
    /// Registers `route` under a new token, its calls under `budget` (the
    /// session's) and the daemon's budget, if there are.
    pub(crate) fn register(
        shared: &Arc<Shared>,
        addr: SocketAddr,
        route: Route,
        budget: Option<Arc<Budget>>,
    ) -> Self {
        let token = random_token("apx_");
        let budgets = RouteBudgets::new(budget.into_iter().chain(shared.budget.clone()));
        let registered = Registered {
            route: Arc::new(route),
            budgets,
        };
        shared.insert(token.clone(), registered);
        Self {
            token,
            addr,
            shared: shared.clone(),
        }
    }

    /// The session's token (`apx_...`), for agents that need a key.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The session's base URL for a lane (a format), in the form its agents
    /// expect: `http://127.0.0.1:PORT/s/<token>/<lane>`, with `/v1` after it for
    /// the OpenAI formats.
    pub fn endpoint(&self, lane: impl Into<Lane>) -> String {
        let lane = lane.into();
        let suffix = lane.format.base_suffix();
        format!("http://{}/s/{}/{lane}{suffix}", self.addr, self.token)
    }
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.shared.remove(&self.token);
    }
}

impl fmt::Debug for RouteGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RouteGuard")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// A new token: `prefix` and 32 random bytes, base64url (`apx_` for a
/// session's, `apxb_` for a sandbox's at a broker).
pub(crate) fn random_token(prefix: &str) -> String {
    let mut bytes = [0u8; 32];
    // Without the system's randomness there is no safe token to give out.
    getrandom::fill(&mut bytes).expect("the system's random number generator");
    format!(
        "{prefix}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_base64url_after_apx() {
        let (one, two) = (random_token("apx_"), random_token("apx_"));
        assert_ne!(one, two);
        assert_eq!(one.len(), 4 + 43);
        assert!(one.starts_with("apx_"));
        assert!(one[4..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    }

    #[test]
    fn a_lane_is_its_format_or_a_provider_of_it() {
        let first = Lane::from(Format::AnthropicMessages);
        assert_eq!(first.to_string(), "anthropic-messages");
        let other = Lane::of(Format::AnthropicMessages, "custom").unwrap();
        assert_eq!(other.to_string(), "anthropic-messages@custom");
        assert_eq!(Lane::parse("anthropic-messages"), Some(first));
        assert_eq!(Lane::parse("anthropic-messages@custom"), Some(other));
        for bad in [
            "anthropic-messages@",
            "anthropic-messages@a/b",
            "nothing@custom",
        ] {
            assert_eq!(Lane::parse(bad), None, "{bad}");
        }
        assert!(Lane::of(Format::Gemini, "a b").is_err());
    }

    #[test]
    fn upstreams_need_an_http_base_and_a_sendable_key() {
        let upstream = Upstream::new("https://api.openai.com/v1/").unwrap();
        assert_eq!(upstream.base_url(), "https://api.openai.com/v1");
        assert!(Upstream::new("ftp://example.com").is_err());
        assert!(Upstream::new("https://example.com/?key=x").is_err());
        assert!(Upstream::new("not a url").is_err());
        assert!(upstream
            .clone()
            .with_key("sk\nnewline", KeyPlacement::Bearer)
            .is_err());
        let keyed = upstream.with_key("sk-real", KeyPlacement::Bearer).unwrap();
        assert!(!format!("{keyed:?}").contains("sk-real"));
    }
}
