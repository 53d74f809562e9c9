//! The launch recipe (the static facts, install recipe and version probe are
//! `facts.json`'s).

use serde_json::json;

use super::replay::config_of;
use crate::launch;

#[test]
fn the_launch_follows_the_session_config() {
    let argv = |config: serde_json::Value, resume: Option<&str>| {
        launch::spawn(&config_of(&config), "pi_1", resume).argv
    };
    assert_eq!(argv(json!({}), None), ["pi", "--mode", "rpc"]);
    assert_eq!(
        argv(
            json!({ "permissionMode": "plan", "model": "anthropic/claude-sonnet-4-5",
                    "variant": "high", "agentBinary": "/opt/pi/bin/pi" }),
            Some("01a2")
        ),
        [
            "/opt/pi/bin/pi",
            "--mode",
            "rpc",
            "--tools",
            "read,grep,find,ls",
            "--model",
            "anthropic/claude-sonnet-4-5",
            "--thinking",
            "high",
            "--session",
            "01a2"
        ]
    );
    assert_eq!(
        argv(json!({ "permissionMode": "bypass" }), None),
        ["pi", "--mode", "rpc"]
    );
}

#[test]
fn skills_go_in_one_skill_flag_each() {
    let mut config = config_of(&json!({}));
    config.skills = ["greet", "review"]
        .map(|name| sandbox_agent_adapter_kit::types::Skill {
            name: name.into(),
            path: format!("/skills/{name}"),
        })
        .to_vec();
    assert_eq!(
        launch::spawn(&config, "pi_1", None).argv,
        [
            "pi",
            "--mode",
            "rpc",
            "--skill",
            "/skills/greet",
            "--skill",
            "/skills/review"
        ]
    );
}
