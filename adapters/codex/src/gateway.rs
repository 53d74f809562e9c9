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
/// `OPENAI_API_KEY` or `CODEX_API_KEY`), and to the provider of `config.toml` with a
/// key of its own (an endpoint of its own when both have keys); each at the base
/// URL `config.toml` gives it.
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

/// The session's endpoint that stands for the provider Codex calls (the session
/// may have one for OpenAI and one for the provider `config.toml` names): that
/// provider (carried or not), else OpenAI.
fn endpoint(config: &SessionConfig) -> Option<&ModelEndpoint> {
    let format = ModelApiFormat::OpenaiResponses;
    let active = config.configured_provider(AGENT, format).unwrap_or(OPENAI);
    config.model_endpoints.iter().find(|endpoint| {
        endpoint.format == format
            && config.endpoint_provider(AGENT, endpoint).as_deref() == Some(active)
    })
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

#[cfg(test)]
mod tests {
    //! How a session's thread is pointed at the daemon's model endpoint, and what
    //! `config.toml` tells the gateway.

    use sandbox_agent_adapter_kit::testing;
    use serde_json::json;

    use super::*;
    use crate::tests::{config, config_without_mcp};

    /// A session with the daemon's Responses endpoint, an MCP server, and a real key in
    /// its environment that must not reach the thread.
    fn config_with_endpoint() -> SessionConfig {
        let mut config = config("s1", "default", "build");
        config.env = vec![("OPENAI_API_KEY".into(), "sk-real".into())];
        config.mcp_servers = vec![testing::local_mcp_server("calc", &["node", "add.mjs"])];
        config.model_endpoints = vec![testing::model_endpoint(
            ModelApiFormat::OpenaiResponses,
            "openai",
        )];
        config
    }

    #[test]
    fn a_thread_of_a_session_with_an_endpoint_uses_a_provider_pointed_there() {
        let config = config_with_endpoint();
        for thread in [None, Some("t1")] {
            let params = crate::settings::thread_params(&config, thread);
            assert_eq!(params["modelProvider"], "agentplex", "{params}");
            assert_eq!(
                params["config"]["model_providers"],
                json!({ "agentplex": {
                    "name": "agentplex",
                    "base_url": "http://127.0.0.1:7070/s/apx_test/openai-responses/v1",
                    "wire_api": "responses",
                    "experimental_bearer_token": testing::MODEL_TOKEN,
                    "supports_websockets": false,
                } })
            );
            assert!(params["config"]["mcp_servers"]["calc"].is_object());
            assert!(!params.to_string().contains("sk-real"), "{params}");
        }
    }

    #[test]
    fn a_pointed_thread_sends_what_the_configured_provider_adds_to_each_call() {
        let mut config = config_with_endpoint();
        config.env.extend([
            (
                "AGENTPLEX_CODEX_PROVIDER_QUERY_PARAMS".to_owned(),
                r#"{"api-version":"2025-04-01-preview"}"#.to_owned(),
            ),
            (
                "AGENTPLEX_CODEX_PROVIDER_HTTP_HEADERS".to_owned(),
                "not json".to_owned(),
            ),
        ]);
        let params = crate::settings::thread_params(&config, None);
        let provider = &params["config"]["model_providers"]["agentplex"];
        assert_eq!(
            provider["query_params"],
            json!({ "api-version": "2025-04-01-preview" })
        );
        assert!(provider.get("http_headers").is_none(), "{provider}");
        assert!(provider.get("env_http_headers").is_none(), "{provider}");
    }

    #[test]
    fn a_thread_of_a_session_without_an_endpoint_keeps_codexs_provider() {
        for thread in [None, Some("t1")] {
            let params = crate::settings::thread_params(&config_without_mcp(), thread);
            assert!(params.get("modelProvider").is_none(), "{params}");
            assert!(params.get("config").is_none(), "{params}");
        }
    }

    #[test]
    fn codex_names_responses_pointed_by_the_adapter() {
        let apis = <crate::Codex as Adapter>::model_apis();
        let formats: Vec<_> = apis
            .iter()
            .map(|api| (api.format, api.pointing, api.provider.as_str()))
            .collect();
        let responses = (ModelApiFormat::OpenaiResponses, ModelApiPointing::Adapter);
        assert_eq!(
            formats,
            [
                (responses.0, responses.1, "openai"),
                (responses.0, responses.1, "custom")
            ]
        );
        assert_eq!(apis[0].base_url_env, ["AGENTPLEX_CODEX_OPENAI_BASE_URL"]);
        assert_eq!(apis[0].key_env, ["OPENAI_API_KEY", "CODEX_API_KEY"]);
        assert_eq!(
            apis[1].base_url_env,
            ["AGENTPLEX_CODEX_CUSTOM_RESPONSES_BASE_URL"]
        );
        assert_eq!(
            apis[1].key_env,
            ["AGENTPLEX_CODEX_CUSTOM_RESPONSES_API_KEY"]
        );
    }

    /// Whether a thread of a session with an endpoint standing for `provider`, whose
    /// `config.toml` names the provider `named` (if any), is pointed at it.
    fn pointed(provider: &str, named: Option<&str>) -> bool {
        let mut config = config_with_endpoint();
        config.model_endpoints[0].provider = provider.into();
        config.env.extend(named.map(|name| {
            (
                "AGENTPLEX_CODEX_CUSTOM_RESPONSES_PROVIDER".to_owned(),
                name.to_owned(),
            )
        }));
        let params = crate::settings::thread_params(&config, None);
        params.get("modelProvider").is_some()
    }

    #[test]
    fn a_thread_is_pointed_only_at_an_endpoint_for_the_provider_codex_calls() {
        assert!(pointed("openai", None), "OpenAI's, as Codex calls it");
        assert!(
            pointed("custom", Some("scripted")),
            "config.toml's provider, with its key"
        );
        assert!(
            !pointed("openai", Some("local")),
            "a provider without a key: left alone"
        );
        assert!(
            !pointed("custom", None),
            "a custom endpoint with no provider named"
        );
    }

    #[test]
    fn of_two_endpoints_the_one_for_the_provider_codex_calls_is_used() {
        let mut config = config_with_endpoint();
        let mut custom = config.model_endpoints[0].clone();
        custom.provider = "custom".into();
        custom.base_url = custom
            .base_url
            .replace("openai-responses/", "openai-responses@custom/");
        config.model_endpoints.push(custom);
        let base_url = |config: &SessionConfig| {
            let params = crate::settings::thread_params(config, None);
            params["config"]["model_providers"]["agentplex"]["base_url"].clone()
        };
        assert_eq!(
            base_url(&config),
            "http://127.0.0.1:7070/s/apx_test/openai-responses/v1"
        );
        config.env.push((
            "AGENTPLEX_CODEX_CUSTOM_RESPONSES_PROVIDER".into(),
            "scripted".into(),
        ));
        assert_eq!(
            base_url(&config),
            "http://127.0.0.1:7070/s/apx_test/openai-responses@custom/v1"
        );
    }

    #[test]
    fn config_toml_is_read_beside_auth_json() {
        let at = Locations::new(None, vec![("CODEX_HOME".into(), "/c".into())]);
        let files = <crate::Codex as Adapter>::credential_files(at);
        assert_eq!(files, ["/c/auth.json", "/c/config.toml"]);
        let config = "model_provider = \"scripted\"\n[model_providers.scripted]\n\
                      base_url = \"http://127.0.0.1:9/v1\"\nenv_key = \"SCRIPTED_API_KEY\"\n";
        let read = <crate::Codex as Adapter>::parse_credentials(files[1].clone(), config.into());
        let passed: Vec<_> = read
            .found
            .iter()
            .filter_map(|found| found.env.as_deref())
            .collect();
        assert_eq!(
            passed,
            [
                "AGENTPLEX_CODEX_CUSTOM_RESPONSES_BASE_URL",
                "AGENTPLEX_CODEX_CUSTOM_RESPONSES_API_KEY",
                "AGENTPLEX_CODEX_CUSTOM_RESPONSES_PROVIDER"
            ]
        );
        let auth = <crate::Codex as Adapter>::parse_credentials(
            files[0].clone(),
            r#"{"OPENAI_API_KEY":"sk-a"}"#.into(),
        );
        assert_eq!(auth.found[0].env.as_deref(), Some("OPENAI_API_KEY"));
    }
}
