//! How a session's `claude` process is started: argv and environment.

use sandbox_agent_adapter_kit::mcp;
use sandbox_agent_adapter_kit::native_rules::NativeRules;
use sandbox_agent_adapter_kit::prelude::*;

/// The program when the session has no installed binary path.
pub(crate) const PROGRAM: &str = "claude";

/// Flags of every launch: print mode with stream-json both ways, the model's streaming
/// deltas, and permission prompts as `control_request`s on stdout.
const BASE_ARGS: [&str; 9] = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
    "--permission-prompt-tool",
    "stdio",
];

/// The spawn of the session's CLI process `process_id`, resuming the native session
/// `resume` when given.
pub(crate) fn spawn(
    config: &SessionConfig,
    process_id: &str,
    resume: Option<&str>,
) -> SpawnRequest {
    let mut argv: Vec<String> = vec![config.program(PROGRAM).to_owned()];
    argv.extend(BASE_ARGS.iter().map(|arg| (*arg).to_owned()));
    let mode = permission_mode(config);
    argv.extend(["--permission-mode".to_owned(), mode.to_owned()]);
    argv.extend(text::flag("--model", config.chosen_model()));
    argv.extend(text::flag("--effort", config.chosen_variant()));
    argv.extend(text::flag("--resume", resume));
    if !config.mcp_servers.is_empty() {
        argv.extend([
            "--mcp-config".to_owned(),
            config.scratch_path(mcp::CONFIG_FILE),
        ]);
    }
    if !config.skills.is_empty() {
        argv.extend(["--plugin-dir".to_owned(), config.scratch_dir.clone()]);
    }
    let mut env = environment(mode);
    if !config.mcp_servers.is_empty() {
        // The first turn waits for the session's MCP servers: their tools are there
        // when the model is first asked (the CLI connects in the background otherwise).
        env.push(("MCP_CONNECTION_NONBLOCKING".to_owned(), "false".to_owned()));
    }
    SpawnRequest::command(process_id, argv).with_env(env)
}

/// The session's MCP servers as the file `--mcp-config` names ([`mcp::CONFIG_FILE`]
/// in the scratch folder, never the JSON itself on the command line, where every
/// process could read their secrets), when it has any.
pub(crate) fn mcp_config(config: &SessionConfig) -> Option<(&'static str, Vec<u8>)> {
    if config.mcp_servers.is_empty() {
        return None;
    }
    let servers = mcp::mcp_servers_config(&config.mcp_servers);
    Some((mcp::CONFIG_FILE, servers.to_string().into_bytes()))
}

/// The CLI's tools whose calls an approval policy decides, with their kinds:
/// without a rule the CLI runs some unasked (reads and searches in the session's
/// directory, commands it deems read-only such as `ls` or `git status`). MCP
/// tools are always asked.
pub(crate) const DECIDED_TOOLS: [(&str, ToolKind); 11] = [
    ("Bash", ToolKind::Shell),
    ("Read", ToolKind::Read),
    ("Glob", ToolKind::Read),
    ("Grep", ToolKind::Read),
    ("LS", ToolKind::Read),
    ("Edit", ToolKind::Write),
    ("MultiEdit", ToolKind::Write),
    ("Write", ToolKind::Write),
    ("NotebookEdit", ToolKind::Write),
    ("WebFetch", ToolKind::Fetch),
    ("WebSearch", ToolKind::Fetch),
];

/// The CLI's permission rules for `rules` (see [`NativeRules`]): each of
/// [`DECIDED_TOOLS`] is allowed or denied outright where the policy fixes its
/// kind so, and asked about otherwise, so that the daemon decides it; what the
/// CLI decides by them it reports as tool calls, which the adapter keeps for the
/// host's record (`native-decisions`). `None` without a policy.
///
/// They reach the CLI as its inline flag settings
/// ([`crate::protocol::apply_permissions`]), at launch and whenever the policy
/// is replaced: a `--settings` file would be a source of its own, whose `ask`
/// rules would outlive a replaced policy's `allow`s.
pub(crate) fn permissions(rules: &NativeRules) -> Option<serde_json::Value> {
    if !rules.has_policy() {
        return None;
    }
    let (mut allow, mut deny, mut ask) = (Vec::new(), Vec::new(), Vec::new());
    for (tool, kind) in DECIDED_TOOLS {
        match rules.handed(kind) {
            Some(PolicyDecision::Allow) => allow.push(tool),
            Some(PolicyDecision::Deny) => deny.push(tool),
            _ => ask.push(tool),
        }
    }
    Some(serde_json::json!({ "allow": allow, "deny": deny, "ask": ask }))
}

/// The name of the plugin that carries a session's skills (the CLI shows them as
/// `sandbox-agent-session:<skill>`).
const SKILLS_PLUGIN: &str = "sandbox-agent-session";

/// The manifest that makes the session's scratch folder a Claude Code plugin, when the
/// session has skills: the host links each skill at `skills/<name>` in that folder,
/// which is where a plugin's skills live; `--plugin-dir` loads it for the session only.
pub(crate) fn skills_plugin(config: &SessionConfig) -> Option<(&'static str, Vec<u8>)> {
    if config.skills.is_empty() {
        return None;
    }
    let manifest = serde_json::json!({
        "name": SKILLS_PLUGIN,
        "description": "The skills of this sandbox-agent session",
    });
    Some((
        ".claude-plugin/plugin.json",
        manifest.to_string().into_bytes(),
    ))
}

/// The CLI's permission mode that skips every permission check.
pub(crate) const BYPASS: &str = "bypassPermissions";

/// The CLI's `--permission-mode` for the session: plan mode when the agent mode or
/// the permission mode asks for it, [`BYPASS`] for `bypass`.
pub(crate) fn permission_mode(config: &SessionConfig) -> &'static str {
    config.cli_permission_mode(BYPASS, "acceptEdits")
}

/// Variables for the CLI: no update checks or other non-essential traffic, and in
/// bypass mode `IS_SANDBOX=1`, without which the CLI refuses to skip permissions when
/// it runs as root (as it often does in a sandbox).
fn environment(mode: &str) -> Vec<(String, String)> {
    let mut env = vec![
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        ("DISABLE_AUTOUPDATER", "1"),
    ];
    if mode == BYPASS {
        env.push(("IS_SANDBOX", "1"));
    }
    env.into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}
