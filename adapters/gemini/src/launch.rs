//! How a session's `gemini` process is started: argv and environment.

use sandbox_agent_adapter_kit::prelude::*;

/// The program when the session has no installed binary path.
const PROGRAM: &str = "gemini";

/// The spawn of the session's CLI process `process_id`.
pub(crate) fn spawn(config: &SessionConfig, process_id: &str) -> SpawnRequest {
    let mut argv: Vec<String> = vec![program(config).to_owned(), "--acp".to_owned()];
    argv.extend([
        "--approval-mode".to_owned(),
        approval_mode(config).to_owned(),
    ]);
    if let Some(model) = config.model.as_deref().filter(|m| !m.is_empty()) {
        argv.extend(["--model".to_owned(), model.to_owned()]);
    }
    SpawnRequest::command(process_id, argv).with_env(environment())
}

/// The program to run: the installed binary's path, else `gemini` (looked up by the
/// host).
fn program(config: &SessionConfig) -> &str {
    config.agent_binary.as_deref().unwrap_or(PROGRAM)
}

/// The CLI's `--approval-mode` for the session: `plan` when the agent mode or the
/// permission mode asks for it, `yolo` for `bypass`, `auto_edit` for `acceptEdits`,
/// otherwise `default` (ask before tools).
pub(crate) fn approval_mode(config: &SessionConfig) -> &'static str {
    if config.agent_mode == "plan" {
        return "plan";
    }
    match config.permission_mode.as_str() {
        "plan" => "plan",
        "bypass" => "yolo",
        "acceptEdits" => "auto_edit",
        _ => "default",
    }
}

/// Variables for the CLI:
/// - `GEMINI_CLI_TRUST_WORKSPACE=true`: the session's directory was chosen by the
///   client; without it the CLI refuses to run in a folder nobody trusted
///   interactively.
/// - `GEMINI_PTY_INFO=child_process`: run shell commands without a pseudo-terminal,
///   so their output reaches ACP as text (with a PTY the CLI reports only a terminal
///   snapshot, which ACP drops).
/// - `GEMINI_CLI_NO_RELAUNCH=true`: no second Node.js process, so the exit status
///   is the CLI's own.
fn environment() -> Vec<(String, String)> {
    [
        ("GEMINI_CLI_TRUST_WORKSPACE", "true"),
        ("GEMINI_PTY_INFO", "child_process"),
        ("GEMINI_CLI_NO_RELAUNCH", "true"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}
