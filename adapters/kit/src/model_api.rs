//! How an adapter says which wire formats its agent's model calls use and how the
//! agent is pointed at another endpoint ([`crate::Adapter::model_apis`]), and where
//! a session finds the daemon's endpoint for them
//! ([`SessionConfig::model_endpoint`]).
//!
//! ```
//! use sandbox_agent_adapter_kit::types::{ModelApi, ModelApiFormat};
//!
//! // An agent that reads `ANTHROPIC_BASE_URL` and `ANTHROPIC_API_KEY`: the daemon
//! // sets both for it.
//! let api = ModelApi::through_environment(
//!     ModelApiFormat::AnthropicMessages,
//!     "anthropic",
//!     "https://api.anthropic.com",
//!     &["ANTHROPIC_BASE_URL"],
//!     &["ANTHROPIC_API_KEY"],
//! );
//! assert_eq!(api.key_env, ["ANTHROPIC_API_KEY"]);
//! ```

use crate::types::{ModelApi, ModelApiFormat, ModelApiPointing, ModelEndpoint, SessionConfig};

impl ModelApi {
    /// A format the host points the agent at through its environment: each
    /// `base_url_env` variable set to the daemon's endpoint, each `key_env`
    /// variable to the session's token. `default_base_url` is where the agent sends
    /// these calls when nothing points it elsewhere, in the format's base-URL form.
    pub fn through_environment(
        format: ModelApiFormat,
        provider: &str,
        default_base_url: &str,
        base_url_env: &[&str],
        key_env: &[&str],
    ) -> Self {
        Self {
            format,
            provider: provider.to_owned(),
            default_base_url: default_base_url.to_owned(),
            base_url_env: base_url_env.iter().map(|name| (*name).to_owned()).collect(),
            key_env: key_env.iter().map(|name| (*name).to_owned()).collect(),
            pointing: ModelApiPointing::Environment,
        }
    }

    /// The same format, but the adapter points the agent itself, from
    /// [`SessionConfig::model_endpoint`] (a flag, a file it writes, a request).
    pub fn by_adapter(self) -> Self {
        Self {
            pointing: ModelApiPointing::Adapter,
            ..self
        }
    }
}

impl SessionConfig {
    /// The daemon's endpoint for this session's model calls of `format`, when the
    /// daemon carries them.
    pub fn model_endpoint(&self, format: ModelApiFormat) -> Option<&ModelEndpoint> {
        self.model_endpoints
            .iter()
            .find(|endpoint| endpoint.format == format)
    }
}
