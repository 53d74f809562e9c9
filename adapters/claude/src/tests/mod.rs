//! Tests: the static facts (`facts.json`), the launch recipe (`info`), the recorded
//! transcripts of the real CLI replayed through the session (`recorded`), and single native
//! lines the recordings do not have (`lines`); moving the CLI's own session files
//! (`native_files`). `replay` is the harness they share.

mod info;
mod lines;
mod native_files;
mod recorded;
mod replay;

sandbox_agent_adapter_kit::facts_test!(crate::Claude, "../facts.json");

#[test]
fn a_policy_has_the_cli_ask_about_every_tool_it_decides_through_a_settings_file() {
    use sandbox_agent_adapter_kit::types::{ApprovalPolicy, PolicyDecision};
    let mut config = sandbox_agent_adapter_kit::testing::config();
    config.scratch_dir = "/data/scratch/s1/".into();
    assert!(crate::launch::policy_settings(&config).is_none());
    let spawn = crate::launch::spawn(&config, "turn-1", None);
    assert!(!spawn.argv.iter().any(|arg| arg == "--settings"));
    config.policy = Some(ApprovalPolicy {
        rules: Vec::new(),
        default: PolicyDecision::Allow,
    });
    let spawn = crate::launch::spawn(&config, "turn-1", None);
    let at = spawn
        .argv
        .iter()
        .position(|arg| arg == "--settings")
        .unwrap();
    assert_eq!(spawn.argv[at + 1], "/data/scratch/s1/policy-settings.json");
    let (path, contents) = crate::launch::policy_settings(&config).unwrap();
    assert_eq!(path, "policy-settings.json");
    let settings: serde_json::Value = serde_json::from_slice(&contents).unwrap();
    let asked = settings["permissions"]["ask"].as_array().unwrap();
    for tool in ["Bash", "Read", "Grep", "Edit", "Write", "WebFetch"] {
        assert!(
            asked.contains(&serde_json::json!(tool)),
            "{tool}: {settings}"
        );
    }
    assert!(settings["permissions"].get("allow").is_none());
}

#[test]
fn mcp_servers_reach_the_cli_in_a_file_never_on_its_command_line() {
    let mut config = sandbox_agent_adapter_kit::testing::config();
    config.scratch_dir = "/data/scratch/s1/".into();
    config.mcp_servers = vec![sandbox_agent_adapter_kit::testing::local_mcp_server(
        "calc",
        &["node", "add.mjs"],
    )];
    let spawn = crate::launch::spawn(&config, "turn-1", None);
    let at = spawn
        .argv
        .iter()
        .position(|arg| arg == "--mcp-config")
        .expect("--mcp-config");
    assert_eq!(spawn.argv[at + 1], "/data/scratch/s1/mcp-servers.json");
    assert!(!spawn.argv.iter().any(|arg| arg.contains("MCP_KEY")));
    let (path, contents) = crate::launch::mcp_config(&config).unwrap();
    assert_eq!(path, "mcp-servers.json");
    let servers: serde_json::Value = serde_json::from_slice(&contents).unwrap();
    assert_eq!(
        servers,
        serde_json::json!({ "mcpServers": { "calc": {
            "type": "stdio", "command": "node", "args": ["add.mjs"], "env": { "MCP_KEY": "v" },
        }}})
    );
    let without = sandbox_agent_adapter_kit::testing::config();
    assert!(crate::launch::mcp_config(&without).is_none());
    let spawn = crate::launch::spawn(&without, "turn-1", None);
    assert!(!spawn.argv.iter().any(|arg| arg == "--mcp-config"));
}

#[test]
fn skills_reach_the_cli_as_a_plugin_made_of_the_scratch_folder() {
    let mut config = sandbox_agent_adapter_kit::testing::config();
    config.scratch_dir = "/data/scratch/s1".into();
    assert!(crate::launch::skills_plugin(&config).is_none());
    config.skills = vec![sandbox_agent_adapter_kit::types::Skill {
        name: "greet".into(),
        path: "/skills/greet".into(),
    }];
    let (path, manifest) = crate::launch::skills_plugin(&config).unwrap();
    assert_eq!(path, ".claude-plugin/plugin.json");
    let manifest: serde_json::Value = serde_json::from_slice(&manifest).unwrap();
    assert_eq!(manifest["name"], "sandbox-agent-session");
    let spawn = crate::launch::spawn(&config, "turn-1", None);
    let at = spawn
        .argv
        .iter()
        .position(|arg| arg == "--plugin-dir")
        .expect("--plugin-dir");
    assert_eq!(spawn.argv[at + 1], "/data/scratch/s1");
}

sandbox_agent_adapter_kit::fuzz_test!(crate::ClaudeSession, transcripts: ["transcripts"], captures: []);
