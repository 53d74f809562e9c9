//! The Qwen Code adapter: drives Alibaba's `qwen` CLI (written against 0.24.4) for
//! sandbox-agent.
//!
//! Qwen Code speaks the Agent Client Protocol with `--acp`, so the session is the
//! kit's generic ACP session ([`AcpSession`]); this crate only says how to start
//! the CLI, where it comes from and where its credentials are. It talks to any
//! OpenAI-compatible endpoint (`--auth-type openai` with `OPENAI_BASE_URL`,
//! `OPENAI_API_KEY` and `OPENAI_MODEL`), which is how the conformance suite runs it
//! offline against the scripted model server.

#![warn(missing_docs)]

use sandbox_agent_adapter_kit::acp::{self, AcpAgent, AcpSession};
use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::{credentials::CredentialFiles, install::VersionProbe};
use serde_json::{json, Value};

mod credentials;
mod native_files;

#[cfg(test)]
mod tests;

/// A Qwen Code session: one `qwen --acp` process, driven over ACP.
pub type QwenSession = AcpSession<Qwen>;

/// The Qwen Code adapter (agent id `qwen`).
pub struct Qwen;

/// The program when the session has no installed binary path.
const PROGRAM: &str = "qwen";

impl AcpAgent for Qwen {
    const NAME: &'static str = "Qwen Code";
    const PROCESS: &'static str = "qwen";
    /// After each tool call the CLI asks whether prompts were queued meanwhile
    /// (its own extension); "method not found" means none.
    const QUIET_REQUESTS: &'static [&'static str] = &["craft/drainMidTurnQueue"];

    /// `qwen --acp --auth-type openai --approval-mode <mode> [--model <model>]`.
    fn spawn(config: &SessionConfig, process_id: &str) -> SpawnRequest {
        let program = config.program(PROGRAM);
        let mut argv: Vec<String> = [program, "--acp", "--auth-type", "openai"]
            .map(str::to_owned)
            .to_vec();
        argv.extend([
            "--approval-mode".to_owned(),
            approval_mode(config).to_owned(),
        ]);
        argv.extend(text::flag("--model", config.chosen_model()));
        let spawn = SpawnRequest::command(process_id, argv);
        if config.mcp_servers.is_empty() {
            return spawn;
        }
        // Qwen Code connects MCP servers in the background unless told to wait: the
        // session's servers are there before its first turn.
        spawn.with_env([("QWEN_CODE_LEGACY_MCP_BLOCKING".to_owned(), "1".to_owned())])
    }

    /// The CLI's ACP modes are its approval modes, named as its flag names them.
    fn mode_id(config: &SessionConfig, _offered: &[String]) -> Option<String> {
        Some(approval_mode(config).to_owned())
    }

    /// Qwen Code's ACP takes `session/set_model` (unstable in ACP).
    const MODEL_CHANGE: bool = true;

    fn session_metadata(config: &SessionConfig) -> Option<Value> {
        Some(json!({ "approvalMode": approval_mode(config), "model": config.model }))
    }
}

/// The CLI's `--approval-mode`: `plan` when the agent mode or the permission mode
/// asks for it, `yolo` for `bypass`, `auto-edit` for `acceptEdits`, else `default`
/// (ask before tools that change things).
fn approval_mode(config: &SessionConfig) -> &'static str {
    config.cli_permission_mode("yolo", "auto-edit")
}

impl Adapter for Qwen {
    type Session = QwenSession;
    const VERSION: Option<VersionProbe> = Some(VersionProbe::flag(
        sandbox_agent_adapter_kit::text::version_word,
    ));
    const CREDENTIALS: Option<CredentialFiles> = Some(CredentialFiles {
        files: credentials::files,
        parse: credentials::parse,
    });
    /// The transcript in `$QWEN_RUNTIME_DIR` (else `$QWEN_HOME`, else `~/.qwen`)
    /// `/projects/<sanitized directory>/chats/`, its first record's `cwd` rewritten
    /// at the new place (`native_files`).
    const NATIVE_SESSIONS: Option<NativeSessions> = Some(native_files::SESSIONS);

    /// Qwen Code's calls (with an API key) are OpenAI Chat Completions; it reads
    /// its base URL from `OPENAI_BASE_URL` and its key from `OPENAI_API_KEY`. A
    /// Qwen login is not carried.
    fn asks_for() -> Vec<ToolKind> {
        acp::asks_for()
    }

    fn model_apis() -> Vec<ModelApi> {
        vec![ModelApi::through_environment(
            ModelApiFormat::OpenaiChatCompletions,
            "openai",
            "https://api.openai.com/v1",
            &["OPENAI_BASE_URL"],
            &["OPENAI_API_KEY"],
        )]
    }

    /// Modes `build` and `plan` (the CLI's analyze-only approval mode); the model
    /// is whatever the OpenAI-compatible endpoint serves (`OPENAI_MODEL`, or the
    /// session's `model`).
    fn info() -> AdapterInfo {
        let mut info = sandbox_agent_adapter_kit::agent_info!("qwen", "Qwen Code", CAPABILITIES)
            .for_versions(">=0.24, <0.25")
            .with_build_and_plan(
                "Qwen Code with its full tool set",
                "Qwen Code's plan mode: analyze only",
            )
            .with_credentials(credentials::variables(), credentials::LOCATION_ENV);
        // Where its sessions are when set (`native_files`).
        info.location_env.push(native_files::RUNTIME_ENV.to_owned());
        info
    }

    /// The npm package `@qwen-code/qwen-code` (one JavaScript entry for every
    /// platform, run by Node.js).
    fn install_plan(_target: Platform, _version: Option<String>) -> Option<InstallRecipe> {
        Some(InstallRecipe::npm(
            PROGRAM,
            "@qwen-code/qwen-code",
            "cli-entry.js",
        ))
    }
}

/// What the generic ACP session maps and the conformance suite proves on the real
/// CLI: text, reasoning, tool calls and results with file changes, permission
/// prompts, cancel, resume (`session/load`), and the token usage the CLI reports
/// on its last update. Not `questions` (none over ACP), not attachments (paths in
/// the text only), not `session_lifecycle` (the adapter's own events). MCP servers go
/// in ACP's `session/new`; Qwen Code offers their tools behind its `tool_search` and
/// `tool_call` tools, and the suite's model calls them that way. A session's changed
/// modes reach the running CLI as `session/set_mode` (`mode_change`), its changed
/// model as `session/set_model` (`model_change`), its variant (at create or
/// changed) as the thought level its configuration options offer (`variants`,
/// `variant_change`).
const CAPABILITIES: Capabilities = sandbox_agent_adapter_kit::capabilities![
    mode_change,
    model_change,
    variants,
    variant_change,
    ..acp::CAPABILITIES
];

sandbox_agent_adapter_kit::export!(Qwen);
