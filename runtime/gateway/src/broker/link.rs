//! The daemon's side of a broker (`--broker`): where a session's calls go
//! instead of the providers, with the sandbox's token in place of a key.

use std::fmt;

use super::keys::is_provider_name;
use crate::error::Error;
use crate::format::{Format, KeyPlacement};
use crate::route::Upstream;

/// A broker a daemon's calls go through: its URL and the sandbox's token, which
/// the daemon sends where the agent sent its session token.
#[derive(Clone)]
pub struct BrokerLink {
    /// The broker's URL, without a trailing `/`.
    url: String,
    token: String,
}

impl BrokerLink {
    /// A link to the broker at `url` (`http://10.0.0.5:2469`, or `https://`
    /// behind a TLS proxy) with this sandbox's `token`.
    pub fn new(url: &str, token: &str) -> Result<Self, Error> {
        let base = Upstream::new(url)?;
        base.clone().with_key(token, KeyPlacement::AsSent)?;
        Ok(Self {
            url: base.base_url().to_owned(),
            token: token.to_owned(),
        })
    }

    /// The broker's URL, without a trailing `/`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The upstream of a session's calls in `format` to `provider` (the
    /// adapter's name for it): the broker's endpoint for them,
    /// `URL/<provider>/<format>` (with `/v1` after it for the OpenAI formats),
    /// with the sandbox's token as the key.
    pub fn upstream(&self, provider: &str, format: Format) -> Result<Upstream, Error> {
        if !is_provider_name(provider) {
            return Err(Error::ProviderName(provider.to_owned()));
        }
        let base = format!(
            "{}/{provider}/{}{}",
            self.url,
            format.as_str(),
            format.base_suffix()
        );
        Upstream::new(&base)?.with_key(&self.token, KeyPlacement::AsSent)
    }
}

impl fmt::Debug for BrokerLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BrokerLink")
            .field("url", &self.url)
            .field("token", &"<redacted>")
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_provider_and_format_has_its_endpoint_at_the_broker() {
        let link = BrokerLink::new("https://broker.internal:2469/", "apxb_t").unwrap();
        assert_eq!(link.url(), "https://broker.internal:2469");
        let openai = link.upstream("openai", Format::OpenaiResponses).unwrap();
        assert_eq!(
            openai.base_url(),
            "https://broker.internal:2469/openai/openai-responses/v1"
        );
        assert_eq!(openai.key(), Some("apxb_t"));
        let anthropic = link
            .upstream("anthropic", Format::AnthropicMessages)
            .unwrap();
        assert_eq!(
            anthropic.base_url(),
            "https://broker.internal:2469/anthropic/anthropic-messages"
        );
        assert!(link.upstream("a/b", Format::Gemini).is_err());
        assert!(!format!("{link:?}").contains("apxb_t"));
        assert!(BrokerLink::new("broker:2469", "apxb_t").is_err());
        assert!(BrokerLink::new("http://broker", "bad\ntoken").is_err());
    }
}
