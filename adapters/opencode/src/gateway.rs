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

/// OpenCode's formats, each pointed by the adapter: Anthropic Messages, OpenAI
/// Responses, Chat Completions (OpenRouter) and Gemini (`google`). Anthropic's SDK
/// also reads `ANTHROPIC_BASE_URL`, but with `/v1` in it, unlike the endpoint's
/// form, so it is not named.
pub(crate) fn model_apis() -> Vec<ModelApi> {
    let api = ModelApi::through_environment;
    [
        api(
            ModelApiFormat::AnthropicMessages,
            "anthropic",
            "https://api.anthropic.com",
            &[],
            &["ANTHROPIC_API_KEY"],
        ),
        api(
            ModelApiFormat::OpenaiResponses,
            "openai",
            "https://api.openai.com/v1",
            &["OPENAI_BASE_URL"],
            &["OPENAI_API_KEY"],
        ),
        api(
            ModelApiFormat::OpenaiChatCompletions,
            "openrouter",
            "https://openrouter.ai/api/v1",
            &[],
            &["OPENROUTER_API_KEY"],
        ),
        api(
            ModelApiFormat::Gemini,
            "google",
            "https://generativelanguage.googleapis.com",
            &[],
            &["GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"],
        ),
    ]
    .map(ModelApi::by_adapter)
    .into()
}

/// OpenCode's `provider` table pointing each provider the session has an endpoint
/// for at it; `None` when the session has none.
pub(crate) fn providers(config: &SessionConfig) -> Option<Map<String, Value>> {
    let providers: Map<String, Value> = config
        .model_endpoints
        .iter()
        .map(|endpoint| {
            let options = json!({ "baseURL": base_url(endpoint), "apiKey": endpoint.token });
            (endpoint.provider.clone(), json!({ "options": options }))
        })
        .collect();
    (!providers.is_empty()).then_some(providers)
}

/// OpenCode's `baseURL` for an endpoint: the AI SDKs name Anthropic's with `/v1`
/// and Google's with `/v1beta`, the OpenAI ones in the endpoint's form.
fn base_url(endpoint: &ModelEndpoint) -> String {
    let version = match endpoint.format {
        ModelApiFormat::AnthropicMessages => "/v1",
        ModelApiFormat::Gemini => "/v1beta",
        _ => "",
    };
    format!("{}{version}", endpoint.base_url)
}
