//! A template agentplex adapter: copy it to write your own (see README.md).
//!
//! The agent it drives is any program that reads the user's message on stdin and
//! prints its answer on stdout, one line at a time, then exits: `cat` (the default,
//! an echo agent), `sh` (runs the message as a script), or your own CLI. The adapter
//! runs the program once per turn and streams every line it prints as text of one
//! assistant message:
//!
//! | native | universal |
//! |---|---|
//! | `start()` | `session.started` (synthetic) |
//! | `send-message` | `turn.started`, the user item, the assistant item started (synthetic); spawn `<binary>`, the text on stdin, stdin closed |
//! | a stdout line | `item.delta` of the assistant item (the line and `\n`), raw = the line |
//! | exit 0 | `item.completed` (the whole text), `turn.ended` (synthetic) |
//! | exit ≠ 0, spawn failure | `error` (`agent_failed`), the item `failed`, `turn.ended` |
//! | `cancel-turn` | kill; on exit the item `failed`, `turn.ended` with `{"cancelled":true}` |
//! | `terminate` during a turn | the item `failed`, `turn.ended` with `{"cancelled":true}` |
//! | a line of any other process | `agent.unparsed`, raw = the line |
//!
//! stderr lines are not events: the daemon captures them itself and attaches them to
//! a `session.ended` error.

#![warn(missing_docs)]

mod session;
#[cfg(test)]
mod tests;

use sandbox_agent_adapter_kit::prelude::*;

pub use session::TemplateSession;

/// The agent id in the API (`{"agent": "template"}`). Rename it for your agent.
pub const AGENT_ID: &str = "template";

/// The program run for each turn when the daemon gives no absolute path.
pub const DEFAULT_BINARY: &str = "cat";

/// The adapter (register it with `export!` below).
pub struct TemplateAdapter;

impl Adapter for TemplateAdapter {
    type Session = TemplateSession;

    fn info() -> AdapterInfo {
        AdapterInfo {
            // The agent is a program the daemon must find (`install_plan`'s binary
            // name, in its install dir or on PATH): not built in.
            builtin: false,
            // Variable names the daemon copies into the session's env when set.
            credential_env: Vec::new(),
            ..AdapterInfo::builtin(
                AGENT_ID,
                "Template (line echo)",
                env!("CARGO_PKG_VERSION"),
                Capabilities {
                    streaming_deltas: true,
                    cancel: true,
                    error_events: true,
                    ..Capabilities::TEXT
                },
            )
        }
    }

    fn install_plan(target: Platform, _version: Option<String>) -> Option<InstallRecipe> {
        // A real agent names where to download it (`sources`, with `{version}` in the
        // URL and a `latest_version_url`) and/or its npm package. `cat` is on every
        // Unix machine, so the recipe only names the binary the daemon looks for.
        match target.os {
            Os::Windows => None,
            Os::Linux | Os::Macos => Some(InstallRecipe {
                binary_name: DEFAULT_BINARY.to_owned(),
                latest_version_url: None,
                sources: Vec::new(),
                npm_package: None,
                npm_binary_path: None,
            }),
        }
    }

    fn version_args() -> Option<Vec<String>> {
        Some(vec!["--version".to_owned()])
    }

    fn parse_version(output: String) -> Option<String> {
        first_version_number(&output)
    }
}

/// The first word of `text` that looks like a version number (`9.4`, `2.1.197`),
/// ignoring surrounding punctuation: `cat (GNU coreutils) 9.4` gives `9.4`.
pub fn first_version_number(text: &str) -> Option<String> {
    text.split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
        .map(|word| word.trim_start_matches('v'))
        .find(|word| {
            word.contains('.')
                && word.starts_with(|c: char| c.is_ascii_digit())
                && word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        })
        .map(str::to_owned)
}

sandbox_agent_adapter_kit::export!(TemplateAdapter);
