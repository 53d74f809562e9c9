use sandbox_agent_adapter_kit::configured::CUSTOM;
use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing;
use serde_json::{json, Value};

use crate::api;
use crate::tests::config;

/// The `OPENCODE_CONFIG_CONTENT` the server is started with, parsed.
fn content(config: &SessionConfig) -> Option<Value> {
    let spawn = api::spawn_server(config);
    assert!(
        spawn.env.iter().all(|(name, _)| name != "OPENCODE_CONFIG"),
        "the user's own OPENCODE_CONFIG stays: {:?}",
        spawn.env
    );
    let (_, text) = spawn
        .env
        .iter()
        .find(|(name, _)| name == "OPENCODE_CONFIG_CONTENT")?;
    Some(serde_json::from_str(text).expect("JSON"))
}

/// A session with the daemon's endpoint for every format, and a real key in its
/// environment that must not reach OpenCode's configuration.
fn config_with_endpoints() -> SessionConfig {
    let mut config = config(None);
    config.env = vec![("ANTHROPIC_API_KEY".into(), "sk-ant-real".into())];
    config.model_endpoints = testing::every_model_endpoint();
    config
}

fn skill(name: &str) -> Skill {
    Skill {
        name: name.into(),
        path: format!("/skills/{name}"),
    }
}

#[test]
fn mcp_servers_and_skills_reach_the_server_in_its_config_content() {
    let mut config = config(None);
    config.mcp_servers = vec![testing::local_mcp_server("calc", &["node", "add.mjs"])];
    config.skills = vec![skill("greet")];
    let content = content(&config).expect("set");
    assert_eq!(
        content["mcp"]["calc"],
        json!({ "type": "local", "command": ["node", "add.mjs"], "environment": { "MCP_KEY": "v" }, "enabled": true })
    );
    assert_eq!(content["skills"]["paths"], json!(["/skills/greet"]));
    assert_ne!(
        api::spawn_server(&config).share_key,
        api::spawn_server(&self::config(None)).share_key,
        "a server of its own"
    );
}

#[test]
fn model_endpoints_reach_the_server_as_providers() {
    let config = config_with_endpoints();
    let content = content(&config).expect("set");
    let base = "http://127.0.0.1:7070/s/apx_test";
    let pointed =
        |url: String| json!({ "options": { "baseURL": url, "apiKey": testing::MODEL_TOKEN } });
    assert_eq!(
        content["provider"],
        json!({
            "anthropic": pointed(format!("{base}/anthropic-messages/v1")),
            "openai": pointed(format!("{base}/openai-responses/v1")),
            "openrouter": pointed(format!("{base}/openai-chat-completions/v1")),
            "google": pointed(format!("{base}/gemini/v1beta")),
        })
    );
    assert!(content.get("mcp").is_none(), "{content}");
    let spawn = api::spawn_server(&config);
    assert!(!format!("{spawn:?}").contains("sk-ant-real"), "{spawn:?}");
}

#[test]
fn endpoints_mcp_servers_and_skills_go_together() {
    let mut config = config_with_endpoints();
    config.mcp_servers = vec![testing::local_mcp_server("calc", &["node", "add.mjs"])];
    let content = content(&config).expect("set");
    assert!(content["mcp"]["calc"].is_object(), "{content}");
    assert!(content["provider"]["anthropic"].is_object(), "{content}");
}

#[test]
fn a_session_adding_nothing_leaves_the_configuration_alone() {
    let mut plain = config(None);
    assert_eq!(content(&plain), None);
    plain.env = vec![(
        "OPENCODE_CONFIG_CONTENT".into(),
        r#"{"model":"a/b"}"#.into(),
    )];
    assert_eq!(content(&plain), None, "the one set is inherited as it is");
}

#[test]
fn a_custom_endpoint_points_the_provider_the_configuration_names() {
    let mut config = config_with_endpoints();
    config.model_endpoints[2].provider = CUSTOM.into();
    let providers = |config: &SessionConfig| content(config).unwrap()["provider"].clone();
    assert!(providers(&config).get("openrouter").is_none());
    assert_eq!(
        providers(&config).as_object().unwrap().len(),
        3,
        "no name, not pointed"
    );
    config.env.push((
        "AGENTPLEX_OPENCODE_CUSTOM_CHAT_COMPLETIONS_PROVIDER".into(),
        "scripted".into(),
    ));
    assert_eq!(
        providers(&config)["scripted"]["options"]["baseURL"],
        "http://127.0.0.1:7070/s/apx_test/openai-chat-completions/v1"
    );
}

#[test]
fn the_configuration_already_set_is_kept_with_the_sessions_over_it() {
    let mut config = config_with_endpoints();
    config.skills = vec![skill("greet"), skill("shared")];
    config.mcp_servers = vec![testing::local_mcp_server("calc", &["node", "add.mjs"])];
    let set = r#"{
      // the user's, as OpenCode reads it (JSON with comments)
      "model": "openai/gpt-5",
      "provider": {
        "openai": { "options": { "baseURL": "https://proxy.test/v1", "apiKey": "sk-user",
                                 "headers": { "x-team": "a" } },
                    "models": { "gpt-5": {} } },
      },
      "mcp": { "docs": { "type": "remote", "url": "https://docs.test/mcp" } },
      "skills": { "paths": ["/skills/shared", "/team/skills"] },
    }"#;
    // The daemon's value, then the session's own: the last one counts.
    config
        .env
        .push(("OPENCODE_CONFIG_CONTENT".into(), "{}".into()));
    config
        .env
        .push(("OPENCODE_CONFIG_CONTENT".into(), set.into()));
    let content = content(&config).expect("set");
    assert_eq!(content["model"], "openai/gpt-5");
    let openai = &content["provider"]["openai"];
    assert_eq!(
        openai["options"]["baseURL"],
        "http://127.0.0.1:7070/s/apx_test/openai-responses/v1"
    );
    assert_eq!(openai["options"]["apiKey"], testing::MODEL_TOKEN);
    assert_eq!(openai["options"]["headers"], json!({ "x-team": "a" }));
    assert_eq!(openai["models"], json!({ "gpt-5": {} }));
    assert!(content["mcp"]["docs"].is_object() && content["mcp"]["calc"].is_object());
    assert_eq!(
        content["skills"]["paths"],
        json!(["/skills/shared", "/team/skills", "/skills/greet"])
    );
    assert!(!content.to_string().contains("sk-user"), "{content}");
}

#[test]
fn a_configuration_set_that_is_no_object_is_left_for_opencode_to_refuse() {
    for set in ["{bad", "[1]"] {
        let mut config = config_with_endpoints();
        config
            .env
            .push(("OPENCODE_CONFIG_CONTENT".into(), set.into()));
        assert_eq!(content(&config), None, "{set}");
    }
}
