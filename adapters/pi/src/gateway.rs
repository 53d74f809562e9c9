//! How Pi's model calls reach the daemon's endpoints (checked with Pi 0.73.1).
//!
//! Pi reads no base-URL variable: each built-in provider's models carry their base
//! URL. An extension can change it: `pi.registerProvider(name, {baseUrl, apiKey})`
//! with no models points every model of that provider elsewhere. So a session with
//! endpoints gets an extension of its own ([`EXTENSION_FILE`] in its scratch folder,
//! written before each launch and passed with `--extension`) that registers each
//! provider with the endpoint and the session's token as its key. Pi's own files
//! (`~/.pi/agent`, its sessions) stay where they are; `PI_CODING_AGENT_DIR` would
//! move the sessions too.
//!
//! What it cannot carry: Pi prefers a key of its own (`auth.json`, or the provider's
//! variable when the host left it) to the extension's, and sends it to the endpoint
//! in place of the token; an Anthropic OAuth token (`ANTHROPIC_OAUTH_TOKEN`, a
//! `/login`) is left to Pi for that reason, since only Pi adds the headers such a
//! token needs. Providers other than these four are not pointed.

use sandbox_agent_adapter_kit::prelude::*;
use serde_json::{json, Map, Value};

/// The session's extension, in its scratch folder.
pub(crate) const EXTENSION_FILE: &str = "agentplex-gateway.js";

/// Pi's formats, each pointed by the adapter: Anthropic Messages, OpenAI Responses,
/// Chat Completions (OpenRouter) and Gemini (`google`).
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
            &[],
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
            &["GEMINI_API_KEY"],
        ),
    ]
    .map(ModelApi::by_adapter)
    .into()
}

/// The path of the session's extension, when it has endpoints.
pub(crate) fn extension_path(config: &SessionConfig) -> Option<String> {
    (!config.model_endpoints.is_empty()).then(|| config.scratch_path(EXTENSION_FILE))
}

/// The session's extension, when it has endpoints: it registers each endpoint's
/// provider with the endpoint's base URL and the session's token.
pub(crate) fn extension(config: &SessionConfig) -> Option<Vec<u8>> {
    extension_path(config)?;
    let providers: Map<String, Value> = config
        .model_endpoints
        .iter()
        .map(|endpoint| {
            let provider = json!({ "baseUrl": base_url(endpoint), "apiKey": endpoint.token });
            (endpoint.provider.clone(), provider)
        })
        .collect();
    let source = format!(
        "// Points Pi's providers at the daemon's model endpoints for this session.\n\
         const providers = {};\n\
         export default function (pi) {{\n  \
           for (const [name, config] of Object.entries(providers)) pi.registerProvider(name, config);\n\
         }}\n",
        Value::Object(providers)
    );
    Some(source.into_bytes())
}

/// Pi's `baseUrl` for an endpoint: Google's models name theirs with the API
/// version (`/v1beta`), the others in the endpoint's form.
fn base_url(endpoint: &ModelEndpoint) -> String {
    let version = match endpoint.format {
        ModelApiFormat::Gemini => "/v1beta",
        _ => "",
    };
    format!("{}{version}", endpoint.base_url)
}
