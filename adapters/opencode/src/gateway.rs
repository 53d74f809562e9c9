//! How OpenCode's model calls reach the daemon's endpoints (checked with OpenCode
//! 1.18.33).
//!
//! OpenCode calls each provider through its AI SDK package, which takes
//! `provider.<id>.options.baseURL` and `.apiKey` from OpenCode's configuration;
//! `apiKey` wins over the provider's variable and over `auth.json`. The adapter puts
//! them, for each of the session's endpoints, in the session's own config file
//! (`api::SESSION_CONFIG_FILE`, named in `OPENCODE_CONFIG`), which OpenCode merges
//! key by key with the user's configuration: everything else the client and the
//! user configured stays. The SDKs' base URLs differ from the endpoints' form:
//! Anthropic's ends in `/v1` and Google's in `/v1beta`.
//!
//! What it cannot carry: a project's `opencode.json` or `OPENCODE_CONFIG_CONTENT`
//! that sets the same provider's `baseURL` wins over the session's file (OpenCode
//! reads those later), so those calls go where they say, unmetered; providers
//! other than these four (OpenCode Zen, Copilot, custom `@ai-sdk/openai-compatible`
//! ones, which name their own URL) are not pointed; and an OAuth login held by a
//! plugin is not replaced by the session's token.

use sandbox_agent_adapter_kit::prelude::*;
use serde_json::{json, Map, Value};

/// One format OpenCode speaks: its provider id, where that provider's calls go by
/// default, the variables OpenCode reads its base URL and key from, and what
/// OpenCode's `baseURL` adds to the endpoint's base URL.
struct Api {
    format: ModelApiFormat,
    provider: &'static str,
    default_base_url: &'static str,
    base_url_env: &'static [&'static str],
    key_env: &'static [&'static str],
    suffix: &'static str,
}

/// OpenCode's formats. Anthropic's SDK also reads `ANTHROPIC_BASE_URL`, but with
/// `/v1` in it, unlike the endpoint's form, so it is not named.
const APIS: [Api; 4] = [
    Api {
        format: ModelApiFormat::AnthropicMessages,
        provider: "anthropic",
        default_base_url: "https://api.anthropic.com",
        base_url_env: &[],
        key_env: &["ANTHROPIC_API_KEY"],
        suffix: "/v1",
    },
    Api {
        format: ModelApiFormat::OpenaiResponses,
        provider: "openai",
        default_base_url: "https://api.openai.com/v1",
        base_url_env: &["OPENAI_BASE_URL"],
        key_env: &["OPENAI_API_KEY"],
        suffix: "",
    },
    Api {
        format: ModelApiFormat::OpenaiChatCompletions,
        provider: "openrouter",
        default_base_url: "https://openrouter.ai/api/v1",
        base_url_env: &[],
        key_env: &["OPENROUTER_API_KEY"],
        suffix: "",
    },
    Api {
        format: ModelApiFormat::Gemini,
        provider: "google",
        default_base_url: "https://generativelanguage.googleapis.com",
        base_url_env: &[],
        key_env: &["GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"],
        suffix: "/v1beta",
    },
];

/// OpenCode's formats, each pointed by the adapter.
pub(crate) fn model_apis() -> Vec<ModelApi> {
    APIS.iter()
        .map(|api| {
            ModelApi::through_environment(
                api.format,
                api.provider,
                api.default_base_url,
                api.base_url_env,
                api.key_env,
            )
            .by_adapter()
        })
        .collect()
}

/// OpenCode's `provider` table pointing each provider the session has an endpoint
/// for at it; `None` when the session has none.
pub(crate) fn providers(config: &SessionConfig) -> Option<Map<String, Value>> {
    let providers: Map<String, Value> = APIS
        .iter()
        .filter_map(|api| {
            let endpoint = config.model_endpoint(api.format)?;
            let options = json!({
                "baseURL": format!("{}{}", endpoint.base_url, api.suffix),
                "apiKey": endpoint.token,
            });
            Some((api.provider.to_owned(), json!({ "options": options })))
        })
        .collect();
    (!providers.is_empty()).then_some(providers)
}
