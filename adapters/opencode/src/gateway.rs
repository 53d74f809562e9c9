//! How OpenCode's model calls reach the daemon's endpoints (checked with OpenCode
//! 1.18.33).
//!
//! OpenCode calls each provider through its AI SDK package, which takes
//! `provider.<id>.options.baseURL` and `.apiKey` from OpenCode's configuration;
//! `apiKey` wins over the provider's variable and over `auth.json`. The adapter puts
//! them, for each of the session's endpoints, in `OPENCODE_CONFIG_CONTENT`
//! ([`crate::session_config`]), the place OpenCode reads last and merges key by
//! key over the others: everything else the client, the user and the project
//! configured stays, and no project file points the provider elsewhere. The SDKs'
//! base URLs differ from the endpoints' form: Anthropic's ends in `/v1` and
//! Google's in `/v1beta`.
//!
//! The upstream of each format is what OpenCode would have called
//! ([`crate::providers`], from its configuration merged as OpenCode merges it):
//! the built-in provider at the `baseURL` and with the `apiKey` the configuration
//! gives it (else its key); and the custom provider of the format the
//! configuration defines, with its own key: with both keys the session has an
//! endpoint for each, and the session's additions point each provider at its own.
//!
//! What it cannot carry: providers other than these four and one custom provider
//! a format (OpenCode Zen, Copilot) are not pointed; and an OAuth login held by a
//! plugin is not replaced by the session's token.

use sandbox_agent_adapter_kit::configured::FileKey;
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::{json, Map, Value};

/// The adapter's agent id, the prefix of its configured providers' variables.
pub(crate) const AGENT: &str = "opencode";

/// A built-in provider the adapter points.
pub(crate) struct Builtin {
    /// The format of its calls.
    pub format: ModelApiFormat,
    /// Its name in OpenCode's configuration.
    pub provider: &'static str,
    /// Where its calls go by default, in the endpoint's form.
    default_base_url: &'static str,
    /// The variables its AI SDK reads its base URL from.
    base_url_env: &'static [&'static str],
    /// The variables its AI SDK reads its key from.
    key_env: &'static [&'static str],
}

/// The built-in providers the adapter points. Anthropic's SDK also reads
/// `ANTHROPIC_BASE_URL`, but with `/v1` in it, unlike the endpoint's form, so it is
/// not named.
pub(crate) const BUILTINS: [Builtin; 4] = [
    Builtin {
        format: ModelApiFormat::AnthropicMessages,
        provider: "anthropic",
        default_base_url: "https://api.anthropic.com",
        base_url_env: &[],
        key_env: &["ANTHROPIC_API_KEY"],
    },
    Builtin {
        format: ModelApiFormat::OpenaiResponses,
        provider: "openai",
        default_base_url: "https://api.openai.com/v1",
        base_url_env: &["OPENAI_BASE_URL"],
        key_env: &["OPENAI_API_KEY"],
    },
    Builtin {
        format: ModelApiFormat::OpenaiChatCompletions,
        provider: "openrouter",
        default_base_url: "https://openrouter.ai/api/v1",
        base_url_env: &[],
        key_env: &["OPENROUTER_API_KEY"],
    },
    Builtin {
        format: ModelApiFormat::Gemini,
        provider: "google",
        default_base_url: "https://generativelanguage.googleapis.com",
        base_url_env: &[],
        key_env: &["GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"],
    },
];

/// OpenCode's formats, each pointed by the adapter: Anthropic Messages, OpenAI
/// Responses, Chat Completions (OpenRouter) and Gemini (`google`), each built-in
/// provider followed by the custom provider of its format (a configured `apiKey`
/// comes first, as OpenCode prefers it).
pub(crate) fn model_apis() -> Vec<ModelApi> {
    BUILTINS
        .iter()
        .flat_map(|builtin| {
            ModelApi::through_environment(
                builtin.format,
                builtin.provider,
                builtin.default_base_url,
                builtin.base_url_env,
                builtin.key_env,
            )
            .by_adapter()
            .with_custom(AGENT, Some(FileKey::First))
        })
        .collect()
}

/// OpenCode's `provider` table pointing the provider each of the session's
/// endpoints stands for at it; `None` when the session has none.
pub(crate) fn providers(config: &SessionConfig) -> Option<Map<String, Value>> {
    let providers: Map<String, Value> = config
        .model_endpoints
        .iter()
        .filter_map(|endpoint| {
            let options = json!({ "baseURL": base_url(endpoint), "apiKey": endpoint.token });
            let provider = config.endpoint_provider(AGENT, endpoint)?;
            Some((provider, json!({ "options": options })))
        })
        .collect();
    (!providers.is_empty()).then_some(providers)
}

/// OpenCode's `baseURL` for an endpoint: the endpoint's with [`version`].
fn base_url(endpoint: &ModelEndpoint) -> String {
    format!("{}{}", endpoint.base_url, version(endpoint.format))
}

/// What OpenCode's `baseURL` of a format has after the endpoint's form: the AI SDKs
/// name Anthropic's with `/v1` and Google's with `/v1beta`, the OpenAI ones none.
pub(crate) fn version(format: ModelApiFormat) -> &'static str {
    match format {
        ModelApiFormat::AnthropicMessages => "/v1",
        ModelApiFormat::Gemini => "/v1beta",
        _ => "",
    }
}
