//! Tests: the static facts (`facts.json`), the launch recipe (`info`), the recorded
//! transcripts of the real CLI replayed through the session (`recorded`), and single native
//! lines the recordings do not have (`lines`). `replay` is the harness they share.

mod info;
mod lines;
mod recorded;
mod replay;

sandbox_agent_adapter_kit::facts_test!(crate::Claude, "../facts.json");

#[test]
fn mcp_servers_reach_the_cli_as_mcp_config_json() {
    let mut config = sandbox_agent_adapter_kit::testing::config();
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
    let servers: serde_json::Value = serde_json::from_str(&spawn.argv[at + 1]).unwrap();
    assert_eq!(
        servers,
        serde_json::json!({ "mcpServers": { "calc": {
            "type": "stdio", "command": "node", "args": ["add.mjs"], "env": { "MCP_KEY": "v" },
        }}})
    );
    let without = crate::launch::spawn(
        &sandbox_agent_adapter_kit::testing::config(),
        "turn-1",
        None,
    );
    assert!(!without.argv.iter().any(|arg| arg == "--mcp-config"));
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
