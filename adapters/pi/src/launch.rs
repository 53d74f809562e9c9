//! How a session's `pi` process is started: argv and environment.
//!
//! ```text
//! pi --mode rpc [--tools read,grep,find,ls] [--model <model>] [--thinking <variant>]
//!    [--session <native session id>] [--extension <scratch>/agentplex-gateway.js]
//!    [--skill <folder>]...
//! ```
//!
//! The extension points Pi at the daemon's model endpoints ([`crate::gateway`]); the
//! session writes it before each launch.

use sandbox_agent_adapter_kit::prelude::*;

/// The program when the session has no installed binary path.
pub(crate) const PROGRAM: &str = "pi";

/// The read-only tool set of permission mode `plan` (Pi has no plan mode: without
/// `write`, `edit` and `bash` it cannot change anything).
pub(crate) const READ_ONLY_TOOLS: &str = "read,grep,find,ls";

/// The spawn of the session's process `process_id`, resuming the native session
/// `resume` when given.
pub(crate) fn spawn(
    config: &SessionConfig,
    process_id: &str,
    resume: Option<&str>,
) -> SpawnRequest {
    let mut argv: Vec<String> = vec![
        config.program(PROGRAM).to_owned(),
        "--mode".into(),
        "rpc".into(),
    ];
    argv.extend(text::flag("--tools", tools(config)));
    argv.extend(text::flag("--model", config.chosen_model()));
    argv.extend(text::flag("--thinking", config.chosen_variant()));
    argv.extend(text::flag("--session", resume));
    let extension = crate::gateway::extension_path(config);
    argv.extend(text::flag("--extension", extension.as_deref()));
    for skill in &config.skills {
        argv.extend(["--skill".to_owned(), skill.path.clone()]);
    }
    let env = [("PI_SKIP_VERSION_CHECK", "1"), ("PI_TELEMETRY", "0")]
        .map(|(k, v)| (k.to_owned(), v.to_owned()));
    SpawnRequest::command(process_id, argv).with_env(env)
}

/// The tool allowlist of the session: read-only tools in permission mode `plan`, Pi's
/// defaults otherwise (Pi never asks before a tool runs, so `default` and `bypass`
/// behave the same).
pub(crate) fn tools(config: &SessionConfig) -> Option<&'static str> {
    (config.permission_mode == "plan").then_some(READ_ONLY_TOOLS)
}
