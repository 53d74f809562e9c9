//! How a session's `gemini` process is started: argv and environment.

use sandbox_agent_adapter_kit::prelude::*;

/// The program when the session has no installed binary path.
pub(crate) const PROGRAM: &str = "gemini";

/// The spawn of the session's CLI process `process_id`.
pub(crate) fn spawn(config: &SessionConfig, process_id: &str) -> SpawnRequest {
    let mut argv: Vec<String> = vec![config.program(PROGRAM).to_owned(), "--acp".to_owned()];
    argv.extend([
        "--approval-mode".to_owned(),
        approval_mode(config).to_owned(),
    ]);
    argv.extend(text::flag("--model", config.chosen_model()));
    SpawnRequest::command(process_id, argv).with_env(environment())
}

/// The CLI's `--approval-mode` for the session: `plan` when the agent mode or the
/// permission mode asks for it, `yolo` for `bypass`, `auto_edit` for `acceptEdits`,
/// otherwise `default` (ask before tools).
pub(crate) fn approval_mode(config: &SessionConfig) -> &'static str {
    config.cli_permission_mode("yolo", "auto_edit")
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
