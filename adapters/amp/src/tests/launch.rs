//! Flag probing and the launch plan of each Amp version.

use crate::flags::{Flags, HelpScan};
use crate::launch;

use super::config;

/// The flags picked from a `--help` text.
fn flags_of(help: &str) -> Flags {
    let mut scan = HelpScan::default();
    for line in help.lines() {
        scan.line(line);
    }
    scan.flags()
}

/// The help of the CLI of 2026-09 (`@ampcode/cli` 0.0.1790142911), as printed.
const NEW: &str = include_str!("../../testdata/help-0.0.1790142911.txt");
/// The help of the CLI of 2026-01 (`@sourcegraph/amp` 0.0.1767830505), as printed.
const OLD: &str = include_str!("../../testdata/help-0.0.1767830505.txt");
/// The flags of the oldest launch recipe (`--print --output-format stream-json
/// --continue --dangerously-skip-permissions`), written for this test.
const LEGACY: &str = include_str!("../../testdata/help-legacy.txt");

/// The argv of a turn with `flags`, continuing `thread`, for a config changed by `edit`.
fn argv(
    flags: &Flags,
    thread: Option<&str>,
    edit: impl FnOnce(&mut sandbox_agent_adapter_kit::SessionConfig),
) -> Vec<String> {
    let mut config = config();
    edit(&mut config);
    launch::turn(&config, flags, "amp_1", thread).argv
}

#[test]
fn the_new_cli_streams_thinking_and_continues_with_the_threads_subcommand() {
    let flags = flags_of(NEW);
    assert_eq!(flags.stream, ["--stream-json-thinking"]);
    assert_eq!(
        argv(&flags, None, |_| {}),
        ["amp", "--execute", "--stream-json-thinking"]
    );
    assert_eq!(
        argv(&flags, Some("T-1"), |c| {
            c.permission_mode = "bypass".to_owned();
            c.model = Some("high".to_owned());
        }),
        [
            "amp",
            "threads",
            "continue",
            "T-1",
            "--execute",
            "--stream-json-thinking",
            "--dangerously-allow-all",
            "--mode",
            "high"
        ]
    );
}

#[test]
fn the_old_cli_has_no_thinking_flag() {
    let flags = flags_of(OLD);
    assert_eq!(flags.stream, ["--stream-json"]);
    assert_eq!(
        argv(&flags, None, |_| {}),
        ["amp", "--execute", "--stream-json"]
    );
    assert_eq!(
        argv(&flags, Some("T-1"), |c| c.permission_mode =
            "bypass".to_owned()),
        [
            "amp",
            "threads",
            "continue",
            "T-1",
            "--execute",
            "--stream-json",
            "--dangerously-allow-all"
        ]
    );
}

#[test]
fn the_legacy_flags_are_used_when_only_they_are_listed() {
    let flags = flags_of(LEGACY);
    assert_eq!(
        argv(&flags, Some("T-1"), |c| {
            c.permission_mode = "bypass".to_owned();
            c.model = Some("smart".to_owned());
        }),
        [
            "amp",
            "--print",
            "--output-format",
            "stream-json",
            "--continue",
            "T-1",
            "--dangerously-skip-permissions",
            "--model",
            "smart"
        ]
    );
}

#[test]
fn an_empty_probe_gives_the_current_flags() {
    let flags = flags_of("");
    assert_eq!(
        argv(&flags, Some("T-1"), |c| c.agent_binary =
            Some("/opt/amp/amp".to_owned())),
        [
            "/opt/amp/amp",
            "threads",
            "continue",
            "T-1",
            "--execute",
            "--stream-json"
        ]
    );
}

#[test]
fn the_prompt_goes_to_stdin_with_attachments_listed() {
    use sandbox_agent_adapter_kit::prelude::*;
    let parts = [
        MessagePart::Text("--look at this".to_owned()),
        MessagePart::File(Attachment {
            path: "/workspace/a.txt".to_owned(),
            mime: None,
            filename: None,
        }),
    ];
    assert_eq!(
        launch::prompt(&parts),
        "--look at this\n\nAttached files:\n- /workspace/a.txt\n"
    );
}

#[test]
fn mcp_servers_go_in_a_file_named_by_mcp_config_which_every_listed_release_has() {
    for help in [NEW, OLD] {
        assert!(
            help.contains("--mcp-config <value>\n      JSON configuration or file path"),
            "a listed release lacks --mcp-config taking a file"
        );
    }
    let servers = vec![sandbox_agent_adapter_kit::testing::local_mcp_server(
        "calc",
        &["node", "add.mjs"],
    )];
    let argv = argv(&flags_of(NEW), None, |config| {
        config.scratch_dir = "/data/scratch/s1".to_owned();
        config.mcp_servers = servers.clone();
    });
    let at = argv
        .iter()
        .position(|arg| arg == "--mcp-config")
        .expect("--mcp-config");
    assert_eq!(argv[at + 1], "/data/scratch/s1/mcp-servers.json");
    let mut with_servers = config();
    with_servers.mcp_servers = servers;
    let (path, contents) = launch::mcp_config_file(&with_servers).unwrap();
    assert_eq!(path, "mcp-servers.json");
    let servers: serde_json::Value = serde_json::from_slice(&contents).unwrap();
    assert_eq!(
        servers,
        serde_json::json!({ "calc": { "command": "node", "args": ["add.mjs"], "env": { "MCP_KEY": "v" } } })
    );
    assert!(launch::mcp_config_file(&config()).is_none());
    assert!(
        !super::super::launch::turn(&config(), &flags_of(NEW), "amp_1", None)
            .argv
            .iter()
            .any(|arg| arg == "--mcp-config")
    );
}
