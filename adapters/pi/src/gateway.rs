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
//! The upstream of each format is what Pi would have called ([`crate::providers`]):
//! the built-in provider at the `baseUrl` `models.json` gives it, with its key; and
//! the custom provider of the format `models.json` defines, with its own key: with
//! both keys the session has an endpoint for each, and the extension registers
//! each provider at its own.
//!
//! What it cannot carry: Pi prefers a key of its own (`auth.json`, or the provider's
//! variable when the host left it) to the extension's, and sends it to the endpoint
//! in place of the token; an Anthropic OAuth token (`ANTHROPIC_OAUTH_TOKEN`, a
//! `/login`) is left to Pi for that reason, since only Pi adds the headers such a
//! token needs. A provider's `headers` are dropped once the extension registers it.
//! Providers other than these four and one custom provider a format are not pointed.

use sandbox_agent_adapter_kit::configured::FileKey;
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::{json, Map, Value};

/// The adapter's agent id, the prefix of its configured providers' variables.
pub(crate) const AGENT: &str = "pi";

/// The session's extension, in its scratch folder.
pub(crate) const EXTENSION_FILE: &str = "agentplex-gateway.js";

/// A built-in provider the adapter points.
pub(crate) struct Builtin {
    /// The format of its calls.
    pub format: ModelApiFormat,
    /// Its name in Pi.
    pub provider: &'static str,
    /// Where its calls go by default, in the endpoint's form.
    default_base_url: &'static str,
    /// The variable Pi reads its key from.
    key_env: &'static str,
}

/// The built-in providers the adapter points.
pub(crate) const BUILTINS: [Builtin; 4] = [
    Builtin {
        format: ModelApiFormat::AnthropicMessages,
        provider: "anthropic",
        default_base_url: "https://api.anthropic.com",
        key_env: "ANTHROPIC_API_KEY",
    },
    Builtin {
        format: ModelApiFormat::OpenaiResponses,
        provider: "openai",
        default_base_url: "https://api.openai.com/v1",
        key_env: "OPENAI_API_KEY",
    },
    Builtin {
        format: ModelApiFormat::OpenaiChatCompletions,
        provider: "openrouter",
        default_base_url: "https://openrouter.ai/api/v1",
        key_env: "OPENROUTER_API_KEY",
    },
    Builtin {
        format: ModelApiFormat::Gemini,
        provider: "google",
        default_base_url: "https://generativelanguage.googleapis.com",
        key_env: "GEMINI_API_KEY",
    },
];

/// Pi's formats, each pointed by the adapter: Anthropic Messages, OpenAI Responses,
/// Chat Completions (OpenRouter) and Gemini (`google`), each built-in provider
/// followed by the custom provider of its format (a key in `models.json` comes after
/// Pi's variables, as Pi reads it).
pub(crate) fn model_apis() -> Vec<ModelApi> {
    BUILTINS
        .iter()
        .flat_map(|builtin| {
            ModelApi::through_environment(
                builtin.format,
                builtin.provider,
                builtin.default_base_url,
                &[],
                &[builtin.key_env],
            )
            .by_adapter()
            .with_custom(AGENT, Some(FileKey::Last))
        })
        .collect()
}

/// The path of the session's extension, when it has endpoints.
pub(crate) fn extension_path(config: &SessionConfig) -> Option<String> {
    (!config.model_endpoints.is_empty()).then(|| config.scratch_path(EXTENSION_FILE))
}

/// The session's extension, when it has endpoints: it registers the provider each
/// endpoint stands for with the endpoint's base URL and the session's token.
pub(crate) fn extension(config: &SessionConfig) -> Option<Vec<u8>> {
    extension_path(config)?;
    let providers: Map<String, Value> = config
        .model_endpoints
        .iter()
        .filter_map(|endpoint| {
            let provider = json!({ "baseUrl": base_url(endpoint), "apiKey": endpoint.token });
            Some((config.endpoint_provider(AGENT, endpoint)?, provider))
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

/// Pi's `baseUrl` for an endpoint: the endpoint's with [`version`].
fn base_url(endpoint: &ModelEndpoint) -> String {
    format!("{}{}", endpoint.base_url, version(endpoint.format))
}

/// What Pi's `baseUrl` of a format has after the endpoint's form: Google's models
/// name theirs with the API version (`/v1beta`), the others none.
pub(crate) fn version(format: ModelApiFormat) -> &'static str {
    match format {
        ModelApiFormat::Gemini => "/v1beta",
        _ => "",
    }
}
