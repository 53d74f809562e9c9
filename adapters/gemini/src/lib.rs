//! The Gemini CLI adapter: drives Google's `gemini` CLI for sandbox-agent.
//!
//! Each session runs one long-lived `gemini --acp` process that speaks the Agent
//! Client Protocol (JSON-RPC 2.0, one message per line) on stdin and stdout. The
//! adapter opens a native session with `session/new` (or `session/load` to resume),
//! sends each message as `session/prompt`, turns the CLI's `session/update`
//! notifications into universal events, and answers its `session/request_permission`
//! requests with the client's replies. `README.md` next to this crate has the launch
//! recipe, the mapping table and the reasons for ACP over `-p --output-format
//! stream-json`.
//!
//! - [`Gemini`] holds the static facts (info, install plan, version probe,
//!   credentials) and registers the component.
//! - [`GeminiSession`] is the kit's generic ACP session
//!   (`sandbox_agent_adapter_kit::acp`); what is Gemini's own is how the process is
//!   started (`launch`) and the token usage it reports in `_meta`.

#![warn(missing_docs)]

use sandbox_agent_adapter_kit::acp::{self, AcpAgent, AcpSession};
use sandbox_agent_adapter_kit::native;
use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::{credentials::CredentialFiles, install::VersionProbe};
use serde::Deserialize;
use serde_json::{json, Value};

mod credentials;
mod launch;
mod native_files;

#[cfg(test)]
mod tests;

/// A Gemini CLI session: one `gemini --acp` process, driven over ACP.
pub type GeminiSession = AcpSession<Gemini>;

/// The Gemini CLI adapter (agent id `gemini`).
pub struct Gemini;

impl AcpAgent for Gemini {
    const NAME: &'static str = "Gemini CLI";
    const PROCESS: &'static str = "gemini";

    fn spawn(config: &SessionConfig, process_id: &str) -> SpawnRequest {
        launch::spawn(config, process_id)
    }

    /// The CLI's ACP modes are its approval modes, `autoEdit` spelt as ACP
    /// names it (the flag says `auto_edit`).
    fn mode_id(config: &SessionConfig, _offered: &[String]) -> Option<String> {
        Some(config.cli_permission_mode("yolo", "autoEdit").to_owned())
    }

    /// Gemini CLI's ACP takes `session/set_model` (unstable in ACP).
    const MODEL_CHANGE: bool = true;

    fn session_metadata(config: &SessionConfig) -> Option<Value> {
        Some(json!({
            "approvalMode": launch::approval_mode(config),
            "model": config.model,
        }))
    }

    /// The CLI reports the turn's tokens in `_meta.quota.token_count`.
    fn usage(result: &Value) -> Option<Usage> {
        let tokens = native::read::<PromptResult>(result).meta.quota.token_count;
        Some(Usage::tokens(tokens.input_tokens?, tokens.output_tokens?))
    }
}

impl Adapter for Gemini {
    type Session = GeminiSession;
    const VERSION: Option<VersionProbe> = Some(VersionProbe::flag(text::version_word));
    const CREDENTIALS: Option<CredentialFiles> = Some(CredentialFiles {
        files: credentials::files,
        parse: credentials::parse,
    });
    /// The chat recordings in `~/.gemini/tmp/<project id>/chats/`, moved to the id
    /// the CLI gives a directory new to its home, under a name it never writes
    /// (`native_files`, which says when that is not where the CLI looks).
    const NATIVE_SESSIONS: Option<NativeSessions> = Some(native_files::SESSIONS);

    /// Gemini CLI's calls (with an API key) are Google's Gemini API; it reads its
    /// base URL from `GOOGLE_GEMINI_BASE_URL` and its key from `GEMINI_API_KEY` or
    /// `GOOGLE_API_KEY`. A Google login or Vertex AI is not carried.
    fn asks_for() -> Vec<ToolKind> {
        acp::asks_for()
    }

    fn model_apis() -> Vec<ModelApi> {
        vec![ModelApi::through_environment(
            ModelApiFormat::Gemini,
            "google",
            "https://generativelanguage.googleapis.com",
            &["GOOGLE_GEMINI_BASE_URL"],
            &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
        )]
    }

    /// Modes `build` and `plan` (the CLI's read-only approval mode), the models the
    /// CLI lists, and the capabilities the adapter maps and its tests prove.
    fn info() -> AdapterInfo {
        let models = [
            "auto",
            "gemini-2.5-pro",
            "gemini-2.5-flash",
            "gemini-3-flash-preview",
        ]
        .map(|id| Model::new(id, None, &[]));
        sandbox_agent_adapter_kit::agent_info!("gemini", "Gemini CLI", CAPABILITIES)
            .for_versions(">=0.61, <1")
            .with_build_and_plan(
                "Gemini CLI with its full tool set",
                "Gemini CLI's plan mode: read-only tools",
            )
            .with_models(models.into(), Some("auto"))
            .with_credentials(credentials::variables(), credentials::LOCATION_ENV)
    }

    /// The npm package `@google/gemini-cli`: one JavaScript bundle for every platform
    /// (run by Node.js 20 or later, which the machine must have).
    fn install_plan(_target: Platform, _version: Option<String>) -> Option<InstallRecipe> {
        Some(InstallRecipe::npm(
            "gemini",
            "@google/gemini-cli",
            "bundle/gemini.js",
        ))
    }
}

/// The `session/prompt` result of the CLI: the part the adapter reads.
#[derive(Default, Deserialize)]
struct PromptResult {
    /// The CLI's metadata.
    #[serde(default, rename = "_meta", deserialize_with = "native::lenient")]
    meta: PromptMeta,
}

/// The metadata of a `session/prompt` result.
#[derive(Default, Deserialize)]
struct PromptMeta {
    /// The account's quota, with the turn's tokens.
    #[serde(default, deserialize_with = "native::lenient")]
    quota: Quota,
}

/// The quota of a `session/prompt` result.
#[derive(Default, Deserialize)]
struct Quota {
    /// The turn's tokens.
    #[serde(default, deserialize_with = "native::lenient")]
    token_count: TokenCount,
}

/// The turn's tokens.
#[derive(Default, Deserialize)]
struct TokenCount {
    /// Input tokens.
    #[serde(default, deserialize_with = "native::lenient")]
    input_tokens: Option<u64>,
    /// Output tokens.
    #[serde(default, deserialize_with = "native::lenient")]
    output_tokens: Option<u64>,
}

/// What the adapter maps and its tests cover: the generic ACP session's. Not
/// `questions` (the CLI has no question tool in ACP mode), not
/// `images`/`file_attachments` (attachments are sent as paths in the text: the adapter
/// cannot read files), not `status` (the CLI's plan updates become status items, but
/// no test has one), not `session_lifecycle` (`session.started`/`session.ended` are
/// the adapter's), not `shared_process` (one CLI per session), not `variants` (no
/// effort levels), and no streaming of tool output (the CLI reports it when the tool
/// is done). The session's MCP servers go in ACP's `session/new` (`mcp_servers`,
/// `mcp_tools`: the conformance suite calls a real MCP server's tool through the CLI).
/// A session's changed modes reach the running CLI as `session/set_mode` (`mode_change`),
/// its changed model as `session/set_model` (`model_change`).
const CAPABILITIES: Capabilities =
    sandbox_agent_adapter_kit::capabilities![mode_change, model_change, ..acp::CAPABILITIES];

sandbox_agent_adapter_kit::export!(Gemini);
