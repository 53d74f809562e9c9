//! The static facts and the launch; the session itself is the kit's ACP session,
//! run for real against the CLI by the conformance suite.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing;
use sandbox_agent_adapter_kit::transcript::render;

use crate::{Qwen, QwenSession};
use sandbox_agent_adapter_kit::native_session::place;

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

/// Qwen Code's sessions, as the kit's exports reach them.
fn sessions() -> NativeSessions {
    <Qwen as Adapter>::NATIVE_SESSIONS.expect("Qwen Code's sessions move")
}

#[test]
fn session_files_are_in_the_sanitized_directorys_chats_of_the_runtime_folder() {
    let id = "5d99cfc4-1111-2222-3333-444455556666";
    let files = |at: &Place| (sessions().files)(id, at);
    let chats = "/home/a/.qwen/projects/-tmp-t-C2-other-dir-x-b--/chats";
    assert_eq!(
        files(&place("/home/a", "/tmp/t/C2/other.dir_x b😀", &[])),
        [
            NativeSource::File(format!("{chats}/{id}.jsonl")),
            NativeSource::File(format!("{chats}/archive/{id}.jsonl")),
        ]
    );
    let at = place("/home/a", "/w/p", &[("QWEN_HOME", "/q/home/")]);
    assert_eq!(
        files(&at)[0],
        NativeSource::File(format!("/q/home/projects/-w-p/chats/{id}.jsonl"))
    );
    // The runtime folder before QWEN_HOME; `~` is the home.
    let at = place(
        "/home/a",
        "/w/p",
        &[("QWEN_HOME", "/q/home"), ("QWEN_RUNTIME_DIR", "~/rt")],
    );
    assert_eq!(
        files(&at)[0],
        NativeSource::File(format!("/home/a/rt/projects/-w-p/chats/{id}.jsonl"))
    );
    assert!((sessions().files)("../x", &at).is_empty());
    assert!(<Qwen as Adapter>::info()
        .location_env
        .contains(&"QWEN_RUNTIME_DIR".to_owned()));
}

#[test]
fn a_moved_transcript_has_the_new_cwd_in_its_first_record_and_paths_rewritten() {
    let id = "5d99cfc4-1111-2222-3333-444455556666";
    let from = place("/tmp/t/homeA", "/tmp/t/C1/proj", &[]);
    let to = place("/tmp/t/homeB", "/tmp/t/C2/other.dir_x", &[]);
    let old = format!("/tmp/t/homeA/.qwen/projects/-tmp-t-C1-proj/chats/{id}.jsonl");
    let transcript = format!(
        concat!(
            r#"{{"uuid":"u1","parentUuid":null,"sessionId":"{id}","type":"user","cwd":"/tmp/t/C1/proj","message":{{"role":"user","parts":[{{"text":"FIRST_TURN_MARKER_alpha CALL_SHELL"}}]}}}}"#,
            "\n",
            r#"{{"uuid":"u2","parentUuid":"u1","sessionId":"{id}","type":"tool_result","cwd":"/tmp/t/C1/proj","message":{{"parts":[{{"functionResponse":{{"response":{{"output":"Output: /tmp/t/C1/proj\nsaved to: /tmp/t/homeA/.qwen/tmp/f66f/run_shell_command_300c54fb69e2.output"}}}}}}]}}}}"#,
            "\n"
        ),
        id = id
    );
    let moved = (sessions().relocate)(&old, transcript.into_bytes(), &from, &to).unwrap();
    assert_eq!(
        moved.path,
        format!("/tmp/t/homeB/.qwen/projects/-tmp-t-C2-other-dir-x/chats/{id}.jsonl")
    );
    let text = String::from_utf8(moved.contents).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines[0]["cwd"], "/tmp/t/C2/other.dir_x");
    assert_eq!(lines[0]["uuid"], "u1");
    assert_eq!(lines[1]["cwd"], "/tmp/t/C2/other.dir_x");
    assert_eq!(
        lines[1]["message"]["parts"][0]["functionResponse"]["response"]["output"],
        "Output: /tmp/t/C2/other.dir_x\nsaved to: /tmp/t/homeB/.qwen/tmp/f66f/run_shell_command_300c54fb69e2.output"
    );
    assert!(!text.contains("/C1/") && !text.contains("homeA"));

    // A session started through a link to the directory: its recorded cwd is not
    // the place's (links resolved), and still becomes the new directory.
    let recorded = format!(
        r#"{{"sessionId":"{id}","cwd":"/tmp/t/link","type":"user"}}{}"#,
        "\n"
    );
    let moved = (sessions().relocate)(&old, recorded.into_bytes(), &from, &to).unwrap();
    assert_eq!(
        String::from_utf8(moved.contents).unwrap(),
        format!(
            r#"{{"sessionId":"{id}","cwd":"/tmp/t/C2/other.dir_x","type":"user"}}{}"#,
            "\n"
        )
    );

    // A new directory with characters JSON escapes: the lines stay JSON.
    let odd = place("/tmp/t/homeB", r#"/tmp/t/a"b\c"#, &[]);
    let line = format!(r#"{{"sessionId":"{id}","cwd":"/tmp/t/C1/proj","out":"/tmp/t/C1/proj/x"}}"#);
    let moved = (sessions().relocate)(&old, line.into_bytes(), &from, &odd).unwrap();
    assert!(moved
        .path
        .ends_with(&format!("/projects/-tmp-t-a-b-c/chats/{id}.jsonl")));
    let record: serde_json::Value = serde_json::from_slice(&moved.contents).unwrap();
    assert_eq!(record["cwd"], r#"/tmp/t/a"b\c"#);
    assert_eq!(record["out"], r#"/tmp/t/a"b\c/x"#);

    // Archived sessions stay archived; files of another folder are refused.
    let archived = old.replace("/chats/", "/chats/archive/");
    let moved = (sessions().relocate)(&archived, Vec::new(), &from, &to).unwrap();
    assert!(moved.path.ends_with(&format!("/chats/archive/{id}.jsonl")));
    assert!((sessions().relocate)("/tmp/t/homeA/.qwen/x.json", Vec::new(), &from, &to).is_err());
}
