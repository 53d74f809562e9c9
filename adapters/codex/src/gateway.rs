//! How Codex's model calls reach the daemon's endpoint (checked with Codex 0.169.0).
//!
//! Codex sends its model calls as OpenAI Responses. Its built-in `openai` provider
//! ignores `OPENAI_BASE_URL` (it opens a WebSocket to api.openai.com, then falls back
//! to HTTPS there), and the app-server is shared by every session, so nothing in its
//! environment can point one session elsewhere. The adapter points each thread
//! instead: `thread/start` and `thread/resume` name a model provider of the thread's
//! own, [`PROVIDER`], defined in the thread's `config` overrides with the endpoint
//! as `base_url`, the session's token as `experimental_bearer_token` (sent as
//! `Authorization: Bearer`) and plain HTTP (`supports_websockets = false`).
//!
//! The upstream is the provider Codex would have called ([`crate::config`]):
//! OpenAI's (at `openai_base_url`, or a provider of `config.toml` that takes
//! OpenAI's key) when the daemon holds an OpenAI key, else a provider of
//! `config.toml` with a key of its own (the custom `model-api`). A thread is pointed
//! only when the endpoint stands for the provider Codex calls: an endpoint for
//! OpenAI's while `config.toml` names another provider leaves the thread on that
//! provider, unmetered. The thread's provider also sends what the configured one
//! adds to each call (`query_params`, `http_headers`, `env_http_headers`).
//!
//! What it cannot carry: a ChatGPT login (Codex then talks to ChatGPT's backend, not
//! the Responses API); a provider without a key, or with one of its own while the
//! daemon holds an OpenAI key; and a thread already loaded in the app-server,
//! which keeps the provider it was opened with until the session that opened it
//! ends.

use sandbox_agent_adapter_kit::prelude::*;
use serde_json::{json, Map, Value};

use crate::config::{AGENT, EXTRAS, OPENAI};

/// The model provider of a thread pointed at the daemon's endpoint. A thread records
/// it, so resuming that thread needs the endpoint again.
pub(crate) const PROVIDER: &str = "agentplex";

/// Codex's one wire format, Responses, pointed by the adapter: to OpenAI (keys in
/// `OPENAI_API_KEY` or `CODEX_API_KEY`), else, when the daemon holds no OpenAI key,
/// to the provider of `config.toml` with a key of its own; each at the base URL
/// `config.toml` gives it.
pub(crate) fn model_apis() -> Vec<ModelApi> {
    let keys = ["OPENAI_API_KEY", "CODEX_API_KEY"];
    let openai = ModelApi::through_environment(
        ModelApiFormat::OpenaiResponses,
        OPENAI,
        "https://api.openai.com/v1",
        &[],
        &keys,
    );
    openai.by_adapter().with_custom(AGENT, None).into()
}

/// The session's endpoint, when it stands for the provider Codex calls: the
/// provider `config.toml` names (carried or not), else OpenAI.
fn endpoint(config: &SessionConfig) -> Option<&ModelEndpoint> {
    let format = ModelApiFormat::OpenaiResponses;
    let endpoint = config.model_endpoint(format)?;
    let active = config.configured_provider(AGENT, format).unwrap_or(OPENAI);
    let stands_for = config.endpoint_provider(AGENT, endpoint);
    (stands_for.as_deref() == Some(active)).then_some(endpoint)
}

/// Points the thread of `thread/start` or `thread/resume` at the session's
/// endpoint, when it has one for the provider Codex calls: `modelProvider` in
/// `params`, the provider's definition in `overrides` (the thread's `config`).
pub(crate) fn point(
    config: &SessionConfig,
    params: &mut Map<String, Value>,
    overrides: &mut Map<String, Value>,
) {
    let Some(endpoint) = endpoint(config) else {
        return;
    };
    params.insert("modelProvider".into(), PROVIDER.into());
    let mut provider = json!({
        "name": PROVIDER,
        "base_url": endpoint.base_url,
        "wire_api": "responses",
        "experimental_bearer_token": endpoint.token,
        "supports_websockets": false,
    });
    // What the configured provider adds to each call, sent through the endpoint
    // to its upstream (the query and the headers pass the gateway).
    for (field, variable) in EXTRAS {
        let table = config.variable(variable).and_then(|json| {
            serde_json::from_str::<Value>(json)
                .ok()
                .filter(Value::is_object)
        });
        if let Some(table) = table {
            provider[field] = table;
        }
    }
    overrides.insert("model_providers".into(), json!({ PROVIDER: provider }));
}
