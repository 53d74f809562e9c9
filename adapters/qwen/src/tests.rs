//! The static facts and the launch; the session itself is the kit's ACP session,
//! run for real against the CLI by the conformance suite.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing;
use sandbox_agent_adapter_kit::transcript::render;

use crate::{Qwen, QwenSession};

sandbox_agent_adapter_kit::facts_test!(crate::Qwen, "facts.json");

#[test]
fn permission_modes_map_to_approval_modes_and_models_to_flags() {
    for (mode, approval) in [
        ("default", "default"),
        ("plan", "plan"),
        ("bypass", "yolo"),
        ("acceptEdits", "auto-edit"),
    ] {
        let config = SessionConfig {
            permission_mode: mode.into(),
            model: Some("qwen3-coder".into()),
            ..testing::config()
        };
        let started = render(&QwenSession::new(config).start());
        assert!(
            started[1].contains(&format!(
                r#"["qwen", "--acp", "--auth-type", "openai", "--approval-mode", "{approval}", "--model", "qwen3-coder"]"#
            )),
            "{started:?}"
        );
        assert!(
            started[2].starts_with("write-stdin qwen_1") && started[2].contains("initialize"),
            "{started:?}"
        );
    }
}

/// The other static facts are `facts.json`'s.
#[test]
fn credential_files_and_their_keys() {
    let files =
        <Qwen as Adapter>::credential_files(Locations::new(Some("/home/u".into()), Vec::new()));
    assert_eq!(
        files,
        ["/home/u/.qwen/.env", "/home/u/.qwen/oauth_creds.json"]
    );
    let read = <Qwen as Adapter>::parse_credentials(
        files[0].clone(),
        "OPENAI_API_KEY=sk-test-qwen\nOTHER=1\n".into(),
    );
    assert_eq!(read.found.len(), 1);
    assert_eq!(read.found[0].env.as_deref(), Some("OPENAI_API_KEY"));
}

#[test]
fn a_session_with_mcp_servers_waits_for_them_before_its_first_turn() {
    let config = SessionConfig {
        mcp_servers: vec![testing::local_mcp_server("calc", &["node", "add.mjs"])],
        ..testing::config()
    };
    let spawn = <Qwen as sandbox_agent_adapter_kit::acp::AcpAgent>::spawn(&config, "qwen_1");
    assert!(spawn
        .env
        .contains(&("QWEN_CODE_LEGACY_MCP_BLOCKING".to_owned(), "1".to_owned())));
    let plain =
        <Qwen as sandbox_agent_adapter_kit::acp::AcpAgent>::spawn(&testing::config(), "qwen_1");
    assert!(plain.env.is_empty(), "{:?}", plain.env);
}

// Qwen Code speaks ACP like Gemini CLI: its recordings are the seeds.
sandbox_agent_adapter_kit::fuzz_test!(crate::QwenSession, transcripts: ["../gemini/transcripts"], captures: ["../gemini/captures"]);
