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
//! What it cannot carry: a ChatGPT login (Codex then talks to ChatGPT's backend, not
//! the Responses API), and a thread already loaded in the app-server, which keeps the
//! provider it was opened with until the session that opened it ends.

use sandbox_agent_adapter_kit::prelude::*;
use serde_json::{json, Map, Value};

/// The model provider of a thread pointed at the daemon's endpoint. A thread records
/// it, so resuming that thread needs the endpoint again.
pub(crate) const PROVIDER: &str = "agentplex";

/// Codex's one wire format: Responses to OpenAI, keys in `OPENAI_API_KEY` or
/// `CODEX_API_KEY`, pointed by the adapter.
pub(crate) fn model_apis() -> Vec<ModelApi> {
    vec![ModelApi::through_environment(
        ModelApiFormat::OpenaiResponses,
        "openai",
        "https://api.openai.com/v1",
        &[],
        &["OPENAI_API_KEY", "CODEX_API_KEY"],
    )
    .by_adapter()]
}

/// Points the thread of `thread/start` or `thread/resume` at the session's
/// endpoint, when it has one: `modelProvider` in `params`, the provider's
/// definition in `overrides` (the thread's `config`).
pub(crate) fn point(
    config: &SessionConfig,
    params: &mut Map<String, Value>,
    overrides: &mut Map<String, Value>,
) {
    let Some(endpoint) = config.model_endpoint(ModelApiFormat::OpenaiResponses) else {
        return;
    };
    params.insert("modelProvider".into(), PROVIDER.into());
    let provider = json!({
        "name": PROVIDER,
        "base_url": endpoint.base_url,
        "wire_api": "responses",
        "experimental_bearer_token": endpoint.token,
        "supports_websockets": false,
    });
    overrides.insert("model_providers".into(), json!({ PROVIDER: provider }));
}
