//! Pointing Pi at the daemon's model endpoints: the extension the session writes and
//! the flag that loads it.

use sandbox_agent_adapter_kit::configured::CUSTOM;
use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing;
use serde_json::{json, Value};

use super::replay::config_of;
use crate::gateway::{self, EXTENSION_FILE};
use crate::PiSession;

/// A session with the daemon's endpoint for every format, and a real key in its
/// environment that must not reach Pi's arguments or the extension.
fn config_with_endpoints() -> SessionConfig {
    let mut config = config_of(&json!({ "scratchDir": "/data/scratch/s1" }));
    config.env = vec![("ANTHROPIC_API_KEY".into(), "sk-ant-real".into())];
    config.model_endpoints = testing::every_model_endpoint();
    config
}

/// The providers the extension registers (the object literal it holds, which is JSON).
fn registered(extension: &str) -> Value {
    let start = extension.find("const providers = ").expect("the providers") + 18;
    let end = start
        + extension[start..]
            .find(";\n")
            .expect("the end of the providers");
    serde_json::from_str(&extension[start..end]).expect("the providers are JSON")
}

#[test]
fn a_session_with_endpoints_writes_its_extension_then_loads_it() {
    let mut session = PiSession::new(config_with_endpoints());
    let actions = session.start();
    let written = actions.iter().position(
        |action| matches!(action, Action::WriteFile(file) if file.path == EXTENSION_FILE),
    );
    let spawned = actions
        .iter()
        .position(|action| matches!(action, Action::Spawn(_)));
    assert!(written.is_some() && written < spawned, "{actions:?}");
    let Some(Action::Spawn(spawn)) = spawned.map(|at| &actions[at]) else {
        panic!("Pi starts: {actions:?}");
    };
    let path = "/data/scratch/s1/agentplex-gateway.js";
    assert!(
        spawn
            .argv
            .windows(2)
            .any(|pair| pair == ["--extension", path]),
        "{:?}",
        spawn.argv
    );
    assert!(!format!("{actions:?}").contains("sk-ant-real"));
}

#[test]
fn the_extension_registers_each_provider_with_its_endpoint_and_the_token() {
    let extension = gateway::extension(&config_with_endpoints()).unwrap();
    let extension = String::from_utf8(extension).unwrap();
    assert!(
        extension.contains("pi.registerProvider(name, config)"),
        "{extension}"
    );
    let base = "http://127.0.0.1:7070/s/apx_test";
    let key = testing::MODEL_TOKEN;
    assert_eq!(
        registered(&extension),
        json!({
            "anthropic": { "baseUrl": format!("{base}/anthropic-messages"), "apiKey": key },
            "openai": { "baseUrl": format!("{base}/openai-responses/v1"), "apiKey": key },
            "openrouter": { "baseUrl": format!("{base}/openai-chat-completions/v1"), "apiKey": key },
            "google": { "baseUrl": format!("{base}/gemini/v1beta"), "apiKey": key },
        })
    );
}

#[test]
fn a_session_without_endpoints_starts_pi_as_before() {
    let mut session = PiSession::new(config_of(&Value::Null));
    let actions = session.start();
    let spawn = actions.iter().find_map(|action| match action {
        Action::Spawn(spawn) => Some(spawn),
        _ => None,
    });
    assert_eq!(
        spawn.map(|spawn| spawn.argv.clone()),
        Some(vec!["pi".into(), "--mode".into(), "rpc".into()])
    );
    let written = actions
        .iter()
        .any(|action| matches!(action, Action::WriteFile(_)));
    assert!(!written, "{actions:?}");
    assert!(gateway::extension(&config_of(&Value::Null)).is_none());
}

#[test]
fn pi_names_four_formats_pointed_by_the_adapter() {
    let apis = <crate::Pi as Adapter>::model_apis();
    let formats: std::collections::BTreeSet<_> =
        apis.iter().map(|api| format!("{:?}", api.format)).collect();
    assert_eq!(formats.len(), 4, "{formats:?}");
    assert!(apis
        .iter()
        .all(|api| api.pointing == ModelApiPointing::Adapter));
    let providers: Vec<_> = apis.iter().map(|api| api.provider.as_str()).collect();
    assert_eq!(
        providers,
        [
            "anthropic",
            "custom",
            "openai",
            "custom",
            "openrouter",
            "custom",
            "google",
            "custom"
        ],
        "each built-in provider before the custom one of its format"
    );
    assert_eq!(
        apis[0].key_env,
        ["ANTHROPIC_API_KEY", "AGENTPLEX_PI_ANTHROPIC_API_KEY"],
        "an OAuth token stays with Pi; a key of models.json comes last"
    );
    assert_eq!(apis[0].base_url_env, ["AGENTPLEX_PI_ANTHROPIC_BASE_URL"]);
}

#[test]
fn a_custom_endpoint_registers_the_provider_models_json_names() {
    let mut config = config_with_endpoints();
    config.model_endpoints[0].provider = CUSTOM.into();
    config.model_endpoints[2].provider = CUSTOM.into();
    config.env.push((
        "AGENTPLEX_PI_CUSTOM_ANTHROPIC_MESSAGES_PROVIDER".into(),
        "scripted".into(),
    ));
    let extension = String::from_utf8(gateway::extension(&config).unwrap()).unwrap();
    let base = "http://127.0.0.1:7070/s/apx_test";
    let providers = registered(&extension);
    assert_eq!(
        providers["scripted"]["baseUrl"],
        format!("{base}/anthropic-messages")
    );
    assert!(providers.get("anthropic").is_none(), "{providers}");
    let names: Vec<_> = providers.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        names,
        ["google", "openai", "scripted"],
        "a custom endpoint without a name is left out"
    );
}

#[test]
fn models_json_is_read_for_base_urls_beside_keys() {
    let at = Locations::new(Some("/home/u".into()), Vec::new());
    let files = <crate::Pi as Adapter>::credential_files(at);
    assert_eq!(files[1], "/home/u/.pi/agent/models.json");
    let models = r#"{"providers": {"anthropic": {"baseUrl": "https://proxy.test"}}}"#;
    let read = <crate::Pi as Adapter>::parse_credentials(files[1].clone(), models.into());
    assert_eq!(
        read.found[0].env.as_deref(),
        Some("AGENTPLEX_PI_ANTHROPIC_BASE_URL")
    );
    let auth = r#"{"anthropic": {"type": "api_key", "key": "sk-ant"}}"#;
    let read = <crate::Pi as Adapter>::parse_credentials(files[0].clone(), auth.into());
    assert_eq!(read.found[0].env.as_deref(), Some("ANTHROPIC_API_KEY"));
}
