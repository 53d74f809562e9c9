//! The Claude Code adapter: drives the `claude` CLI (Anthropic's Claude Code) for
//! sandbox-agent.
//!
//! Each session runs one long-lived `claude -p` process that speaks stream-json on
//! stdin and stdout, with permission prompts routed over the same pipes
//! (`--permission-prompt-tool stdio`). The adapter writes the user's messages and the
//! answers to the CLI's `control_request`s, and turns every line the CLI prints into
//! universal events. `README.md` next to this crate has the launch recipe and the
//! mapping table.
//!
//! - [`Claude`] holds the static facts (info, install plan, version probe) and
//!   registers the component.
//! - [`ClaudeSession`] is the session state machine (`session` module); it hands the
//!   CLI's output to the `output` module, its requests to `requests`, and builds
//!   the lines it writes with `protocol`.

#![warn(missing_docs)]

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::{
    credentials::CredentialFiles,
    install::{Checksums, Installer, VersionProbe},
};

mod credentials;
mod diff;
mod install;
mod launch;
mod native;
mod native_files;
mod output;
mod policy;
mod protocol;
mod requests;
mod session;
mod state;
mod tools;

#[cfg(test)]
mod tests;

pub use session::ClaudeSession;

/// The Claude Code adapter (agent id `claude`).
pub struct Claude;

/// Effort levels of `--effort`, offered as model variants.
const EFFORT_LEVELS: [&str; 5] = ["low", "medium", "high", "xhigh", "max"];

impl Adapter for Claude {
    type Session = ClaudeSession;
    const INSTALLER: Option<Installer> = Some(Installer {
        recipe: install::recipe,
        latest_version: install::parse_latest_version,
        checksums: Checksums::Sha256Sum,
    });
    const VERSION: Option<VersionProbe> = Some(VersionProbe::flag(install::parse_version));
    const CREDENTIALS: Option<CredentialFiles> = Some(CredentialFiles {
        files: credentials::files,
        parse: credentials::parse,
    });
    /// The transcript in `$CLAUDE_CONFIG_DIR/projects/<slug of the directory>/`, with
    /// its saved outputs and subagents (`native_files`).
    const NATIVE_SESSIONS: Option<NativeSessions> = Some(native_files::SESSIONS);

    /// Claude Code's calls are Anthropic Messages; it reads its base URL from
    /// `ANTHROPIC_BASE_URL` and its key from `ANTHROPIC_API_KEY` (sent as
    /// `x-api-key`) or `ANTHROPIC_AUTH_TOKEN` (sent as a bearer token).
    fn asks_for() -> Vec<ToolKind> {
        policy::asks_for()
    }

    fn model_apis() -> Vec<ModelApi> {
        vec![ModelApi::through_environment(
            ModelApiFormat::AnthropicMessages,
            "anthropic",
            "https://api.anthropic.com",
            &["ANTHROPIC_BASE_URL"],
            &["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
        )]
    }

    /// Modes `build` and `plan`, the CLI's model aliases with effort levels as
    /// variants, and the capabilities the adapter maps and its tests prove.
    fn info() -> AdapterInfo {
        sandbox_agent_adapter_kit::agent_info!("claude", "Claude Code", CAPABILITIES)
            .for_versions(">=2.1, <3")
            .with_build_and_plan(
                "Claude Code with its full tool set",
                "Claude Code's plan mode: read-only until the plan is approved",
            )
            .with_models(
                vec![
                    Model::new("sonnet", Some("Sonnet (latest)"), &EFFORT_LEVELS),
                    Model::new("opus", Some("Opus (latest)"), &EFFORT_LEVELS),
                    Model::new("haiku", Some("Haiku (latest)"), &[]),
                ],
                None,
            )
            .with_credentials(credentials::variables(), credentials::LOCATION_ENV)
    }

    /// The release's `manifest.json`, at the JSON pointer of the URL's fragment.
    fn parse_checksum(url: String, body: String, _file_name: String) -> Result<String, String> {
        install::manifest_checksum(&url, &body)
    }
}

/// What the adapter maps and its tests cover. Not `images`/`file_attachments` (the
/// CLI's stream-json input takes no file paths: attachments reach the model only as
/// paths in the text), not `status` (the CLI's notices become status items, but no
/// test has a real one yet), not `session_lifecycle` (the CLI reports no
/// session start or end: `session.started`/`session.ended` are the adapter's,
/// synthetic), not `shared_process` (one CLI process per session). The session's MCP
/// servers reach the CLI as `--mcp-config` JSON (`mcp_servers`, `mcp_tools`: the
/// conformance suite calls a real MCP server's tool through it), its skills as a
/// plugin made of its scratch folder (`skills`). A session's changed modes reach a
/// running CLI as a `set_permission_mode` control request before the next message
/// (`mode_change`), its changed model as a `set_model` one (`model_change`), its
/// changed variant (the effort level) as an `apply_flag_settings` one
/// (`variant_change`).
const CAPABILITIES: Capabilities = sandbox_agent_adapter_kit::capabilities![
    questions,
    variants,
    skills,
    mode_change,
    model_change,
    variant_change,
    ..Capabilities::SUPERVISED_AGENT
];

sandbox_agent_adapter_kit::export!(Claude);
