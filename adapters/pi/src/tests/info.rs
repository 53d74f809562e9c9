//! Static facts, install recipe, version probe and launch recipe.

use sandbox_agent_adapter_kit::prelude::*;
use serde_json::json;

use super::replay::config_of;
use crate::{launch, Pi};

#[test]
fn info_describes_pi() {
    let info = <Pi as Adapter>::info();
    assert_eq!(
        (info.id.as_str(), info.name.as_str(), info.builtin),
        ("pi", "Pi", false)
    );
    let modes: Vec<&str> = info.modes.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(modes, ["build"]);
    let caps = Capabilities::from_names(&info.capabilities);
    assert!(caps.images && caps.cancel && caps.resume && caps.reasoning && caps.usage);
    assert!(caps.tool_calls && caps.command_execution && caps.file_changes && caps.variants);
    assert!(!caps.permissions && !caps.questions && !caps.plan_mode && !caps.shared_process);
}

#[test]
fn the_install_recipe_names_the_npm_package() {
    let recipe = |os| {
        let target = Platform {
            os,
            arch: Arch::X8664,
            libc: None,
        };
        <Pi as Adapter>::install_plan(target, None).expect("a recipe")
    };
    let linux = recipe(Os::Linux);
    assert_eq!(linux.binary_name, "pi");
    assert_eq!(
        linux.npm_package.as_deref(),
        Some("@mariozechner/pi-coding-agent")
    );
    assert_eq!(linux.npm_binary_path.as_deref(), Some("dist/cli.js"));
    assert_eq!(recipe(Os::Windows).binary_name, "pi.cmd");
    let latest = r#"{"name":"@mariozechner/pi-coding-agent","version":"0.73.1"}"#;
    assert_eq!(
        <Pi as Adapter>::parse_latest_version(latest.to_owned()).as_deref(),
        Some("0.73.1")
    );
}

#[test]
fn the_version_is_read_from_the_real_output() {
    assert_eq!(
        <Pi as Adapter>::version_args(),
        Some(vec!["--version".to_owned()])
    );
    let parse = |text: &str| <Pi as Adapter>::parse_version(text.to_owned());
    // `pi --version` of 0.73.1 prints the bare version.
    assert_eq!(parse("0.73.1\n").as_deref(), Some("0.73.1"));
    assert_eq!(parse("no version here"), None);
}

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
