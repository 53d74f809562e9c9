//! Helpers for adapter tests (cargo feature `testing`; enable it on the kit as a
//! dev-dependency: `sandbox-agent-adapter-kit = { workspace = true, features =
//! ["testing"] }`). Native only: these helpers read files and run processes.
//!
//! - [`replay`]: replays a recorded transcript (`transcripts/NAME.jsonl`, the input
//!   format of `sandbox-agent adapters test`) through a [`crate::SessionMachine`],
//!   snapshotting and restoring the session after every input, and renders what it
//!   returned.
//! - [`shape`]: the checks every replayed transcript must pass (nothing unparsed,
//!   every native line kept as a `raw`, items and turns opened and closed in order).
//! - [`record`]: a small native host that records such transcripts from the real
//!   agent, for ignored `tests/record.rs` tests.
//! - [`fuzz`]: fuzzes a session with mutated transcripts ([`crate::fuzz_test!`]).
//! - [`lifecycle`]: what replays show when a long-lived agent process goes away
//!   (terminated, crashed mid-turn), and the shape check of every transcript.
//! - [`facts`]: checks an adapter's static facts (info, install recipes for every
//!   platform, version probes) against a JSON table ([`crate::facts_test!`]).
//! - [`config`], [`without_raw`], [`render_without_raw`] and [`check`] for tests that
//!   feed single lines; [`model_endpoint`] for tests of how an adapter points its agent
//!   at the daemon's endpoints.

pub mod facts;
pub mod fuzz;
pub mod lifecycle;
pub mod record;
pub mod replay;
pub mod shape;

use crate::transcript::render;
use crate::types::{Action, EmittedEvent, SessionConfig};

/// The session configuration a transcript gets when its `create` line leaves
/// everything out: session `s1`, mode `build`, permission mode `default`, directory
/// `/workspace`, nothing else.
pub fn config() -> SessionConfig {
    replay::config_of(&serde_json::Value::Null)
}

/// A local MCP server `name` started with `command`, for tests of how an adapter
/// passes a session's MCP servers on.
pub fn local_mcp_server(name: &str, command: &[&str]) -> crate::types::McpServer {
    crate::types::McpServer {
        name: name.to_owned(),
        transport: crate::types::McpTransport::Local(crate::types::McpLocal {
            command: command.iter().map(|arg| (*arg).to_owned()).collect(),
            env: vec![("MCP_KEY".to_owned(), "v".to_owned())],
            cwd: None,
            timeout_ms: None,
        }),
    }
}

/// The token of [`model_endpoint`]'s endpoints.
pub const MODEL_TOKEN: &str = "apx_test";

/// The daemon's endpoint for `format` as a session receives it, for tests of how an
/// adapter points its agent: `http://127.0.0.1:7070/s/apx_test/<format>`, with
/// `/v1` after it for the OpenAI formats, and the token [`MODEL_TOKEN`].
pub fn model_endpoint(
    format: crate::types::ModelApiFormat,
    provider: &str,
) -> crate::types::ModelEndpoint {
    use crate::types::ModelApiFormat as F;
    let path = match format {
        F::AnthropicMessages => "anthropic-messages",
        F::OpenaiResponses => "openai-responses/v1",
        F::OpenaiChatCompletions => "openai-chat-completions/v1",
        F::Gemini => "gemini",
    };
    crate::types::ModelEndpoint {
        format,
        provider: provider.to_owned(),
        base_url: format!("http://127.0.0.1:7070/s/{MODEL_TOKEN}/{path}"),
        token: MODEL_TOKEN.to_owned(),
    }
}

/// [`model_endpoint`] for every format, each standing for its usual built-in
/// provider (`anthropic`, `openai`, `openrouter`, `google`).
pub fn every_model_endpoint() -> Vec<crate::types::ModelEndpoint> {
    use crate::types::ModelApiFormat as F;
    [
        (F::AnthropicMessages, "anthropic"),
        (F::OpenaiResponses, "openai"),
        (F::OpenaiChatCompletions, "openrouter"),
        (F::Gemini, "google"),
    ]
    .map(|(format, provider)| model_endpoint(format, provider))
    .into()
}

/// `actions` with the raw payloads of their events left out (they repeat the native
/// line the test fed).
pub fn without_raw(actions: impl IntoIterator<Item = Action>) -> Vec<Action> {
    actions
        .into_iter()
        .map(|action| match action {
            Action::Emit(event) => Action::Emit(EmittedEvent { raw: None, ..event }),
            other => other,
        })
        .collect()
}

/// `actions` rendered one line each ([`crate::transcript::render`]), raw payloads
/// left out.
pub fn render_without_raw(actions: impl IntoIterator<Item = Action>) -> Vec<String> {
    render(&without_raw(actions))
}

/// Compares rendered lines, printing both lists in full when they differ.
#[track_caller]
pub fn check(actual: Vec<String>, expected: &[&str]) {
    if actual != expected {
        panic!(
            "transcript differs\n--- actual:\n{}\n--- expected:\n{}\n",
            actual.join("\n"),
            expected.join("\n")
        );
    }
}

/// Panics unless `lines` (rendered actions) have one equal to `expected`, printing
/// them all when not.
#[track_caller]
pub fn assert_has(lines: &[String], expected: &str) {
    assert!(
        lines.iter().any(|line| line == expected),
        "missing line:\n{expected}\n--- in:\n{}",
        lines.join("\n")
    );
}

/// Panics unless `actions` are one `agent.unparsed` event with `error` that keeps
/// `line` as its raw payload.
#[track_caller]
pub fn assert_unparsed(actions: &[Action], line: &str, error: &str) {
    let [Action::Emit(event)] = actions else {
        panic!("not one event: {actions:?}");
    };
    let crate::types::Event::AgentUnparsed(unparsed) = &event.event else {
        panic!("not agent.unparsed: {event:?}");
    };
    assert_eq!(unparsed.error, error);
    assert_eq!(
        event.raw.as_deref(),
        Some(crate::text::raw_json(line).as_str())
    );
}

/// Panics unless a line that is not JSON (`not a JSON line`) and a JSON line of an
/// unknown `type` (`unknown message type "brand_new"`) each come back from `feed`
/// as one `agent.unparsed` event that keeps the line: the rule for agents that
/// print one JSON object with a `type` a line.
#[track_caller]
pub fn assert_unknown_lines_unparsed(mut feed: impl FnMut(&str) -> Vec<Action>) {
    for (line, error) in [
        ("not json at all", "not a JSON line"),
        (
            r#"{"type":"brand_new"}"#,
            "unknown message type \"brand_new\"",
        ),
    ] {
        assert_unparsed(&feed(line), line, error);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event;

    #[test]
    fn raw_payloads_are_left_out() {
        let actions = vec![Action::Emit(event::error("boom", None).with_raw("{}"))];
        let stripped = without_raw(actions.clone());
        assert!(matches!(&stripped[0], Action::Emit(e) if e.raw.is_none()));
        check(render_without_raw(actions), &["error \"boom\""]);
    }

    #[test]
    fn the_default_config_is_the_transcripts() {
        let config = config();
        assert_eq!(
            (config.session_id.as_str(), config.agent_mode.as_str()),
            ("s1", "build")
        );
        assert_eq!(config.permission_mode, "default");
        assert_eq!(config.directory, "/workspace");
    }
}
