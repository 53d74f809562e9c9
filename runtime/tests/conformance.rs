//! The conformance suite: every real agent CLI (installed from the npm registry
//! by `npm ci` in `testing/agents`), driven through the daemon's HTTP API while it
//! talks to our scripted model server on 127.0.0.1. No agent is mocked.
//!
//! One set of checks (`conformance/checks.rs`) runs for every agent in
//! `conformance/agents.rs`. Locally, an agent that is not installed is skipped
//! with a message; under CI (`CI` set) it fails.

mod common;

#[path = "conformance/agents.rs"]
mod agents;
#[path = "conformance/checks.rs"]
mod checks;
#[path = "conformance/desktop.rs"]
mod desktop;
#[path = "conformance/harness.rs"]
mod harness;
#[path = "conformance/metering.rs"]
mod metering;
#[path = "conformance/mirror.rs"]
mod mirror;
#[path = "conformance/modes.rs"]
mod modes;
#[path = "conformance/policy.rs"]
mod policy;
#[path = "conformance/policy_cases.rs"]
mod policy_cases;

/// Runs a check against a fresh harness for the agent.
fn run(agent: &str, check: impl FnOnce(&mut harness::Harness)) {
    if let Some(mut harness) = harness::Harness::start(agent) {
        check(&mut harness);
    }
}

/// One test per (agent, check).
macro_rules! conformance {
    ($agent:ident: $($check:ident),* $(,)?) => {
        mod $agent {
            $(
                #[test]
                fn $check() {
                    super::run(stringify!($agent), |h| super::checks::$check(h));
                }
            )*
        }
    };
}

macro_rules! every_check {
    ($($agent:ident),*) => {$(
        conformance!($agent:
            installed_with_its_version, text_turn, tool_call_and_result, file_change,
            multi_turn, permission_once, permission_always, permission_reject, question,
            cancel_mid_turn, terminate, agent_crash, resume_after_exit,
            resume_after_daemon_restart, moves_to_another_sandbox, taken_over_when_its_daemon_dies,
            include_raw, mcp_tool, skill_from_a_folder, acp_client, policy_decides,
            policy_cases,
        );
    )*};
}

every_check!(claude, codex, opencode, pi, gemini, qwen);

/// Agents of the ACP registry, added and installed by the daemon from the
/// registry's snapshot and run by the generic ACP adapter: one run each (an
/// install from the registry is slow), the checks that apply to it in turn on one
/// daemon. The daemon's restart in the middle also proves the added agent is kept.
mod registry {
    macro_rules! registry_agents {
        ($($agent:ident: $id:literal => [$($check:ident),* $(,)?];)*) => {$(
            #[test]
            fn $agent() {
                super::run($id, |h| {
                    $(super::checks::$check(h);)*
                });
            }
        )*};
    }

    registry_agents! {
        claude_code_acp: "claude-code-acp" => [
            installed_with_its_version, text_turn, tool_call_and_result, permission_once,
            permission_reject, question, cancel_mid_turn, resume_after_daemon_restart, acp_client,
            registry_model_change,
        ];
        codex_acp: "codex-acp" => [
            installed_with_its_version, text_turn, tool_call_and_result, permission_once,
            permission_reject, question, cancel_mid_turn, resume_after_daemon_restart, acp_client,
            registry_model_change,
        ];
        // Pi asks no permission (it runs every tool: the permission checks see the
        // commands run unasked; its ACP build asks only for its extensions' dialogs)
        // and no question.
        pi_acp: "pi-acp" => [
            installed_with_its_version, text_turn, tool_call_and_result, file_change,
            multi_turn, permission_once, permission_reject, question, cancel_mid_turn,
            resume_after_daemon_restart, acp_client, registry_model_kept,
        ];
    }
}

/// The model gateway, on the agents whose adapters say how to point them at it:
/// one test per (agent, check of `conformance/metering.rs`).
macro_rules! metered {
    ($($agent:ident: $($check:ident),*;)*) => {$(
        mod $agent {
            $(
                #[test]
                fn $check() {
                    super::super::run(stringify!($agent), super::super::metering::$check);
                }
            )*
        }
    )*};
}

mod gateway {
    metered! {
        claude: metered_turn, budget_stops_a_turn;
        codex: metered_turn, budget_stops_a_turn;
        gemini: metered_turn;
        opencode: metered_turn;
        pi: metered_turn;
        qwen: metered_turn;
    }
}

/// A running session's modes changed, on the agents whose adapters can
/// (`mode-change`): one run each.
mod mode_change {
    #[test]
    fn claude() {
        super::run("claude", |h| super::modes::modes_change(h));
    }

    #[test]
    fn codex() {
        super::run("codex", |h| super::modes::modes_change(h));
    }

    #[test]
    fn opencode() {
        super::run("opencode", |h| super::modes::modes_change(h));
    }

    #[test]
    fn gemini() {
        super::run("gemini", |h| super::modes::modes_change(h));
    }

    #[test]
    fn qwen() {
        super::run("qwen", |h| super::modes::modes_change(h));
    }

    /// Pi never asks: `plan` is its read-only tool set.
    #[test]
    fn pi() {
        super::run("pi", |h| super::modes::read_only_plan_changes(h));
    }
}

/// A running session's model changed, on the agents whose adapters can
/// (`model-change`), and then its variant where they can (`variant-change`):
/// one run each.
mod model_change {
    use super::modes::model_change;
    use serde_json::Value;

    /// The model as the agent names it to the model server.
    fn same(model: &str) -> &str {
        model
    }

    /// OpenCode's and Pi's model without its provider (`provider/model`).
    fn without_provider(model: &str) -> &str {
        model.split_once('/').map_or(model, |(_, name)| name)
    }

    /// The effort of an OpenAI Responses call (Codex), or of Qwen Code's chat
    /// completion.
    fn reasoning_effort(body: &Value) -> &Value {
        &body["reasoning"]["effort"]
    }

    #[test]
    fn claude() {
        super::run("claude", |h| {
            let effort: fn(&Value) -> &Value = |body| &body["output_config"]["effort"];
            model_change(
                h,
                "claude-scripted-a",
                "claude-scripted-b",
                same,
                Some(effort),
            )
        });
    }

    #[test]
    fn codex() {
        super::run("codex", |h| {
            model_change(h, "scripted-a", "scripted-b", same, Some(reasoning_effort))
        });
    }

    #[test]
    fn opencode() {
        // The provider's models are the harness's configuration's; its
        // OpenAI-compatible provider names the effort as Chat Completions do.
        super::run("opencode", |h| {
            let effort: fn(&Value) -> &Value = |body| &body["reasoning_effort"];
            model_change(
                h,
                "scripted/scripted",
                "scripted/scripted-b",
                without_provider,
                Some(effort),
            )
        });
    }

    /// Gemini CLI takes no thought level over ACP: a changed one is refused.
    #[test]
    fn gemini() {
        super::run("gemini", |h| {
            model_change(h, "gemini-scripted-a", "gemini-scripted-b", same, None)
        });
    }

    #[test]
    fn qwen() {
        super::run("qwen", |h| {
            model_change(h, "scripted", "scripted-b", same, Some(reasoning_effort))
        });
    }

    #[test]
    fn pi() {
        // Its models are those of models.json, by provider; over Anthropic
        // Messages its thinking level is a budget.
        super::run("pi", |h| {
            let budget: fn(&Value) -> &Value = |body| &body["thinking"]["budget_tokens"];
            model_change(
                h,
                "scripted/scripted",
                "scripted/scripted-b",
                without_provider,
                Some(budget),
            )
        });
    }
}

/// The desktop's MCP tools (`desktop: true`): one run per agent that takes MCP
/// servers. `shown`: the agent's output carries the screenshot itself; `model`:
/// one the agent sends images to (Qwen Code sends none to a model it does not know
/// for a vision model).
mod desktop_tools {
    macro_rules! desktop_tools {
        ($($agent:ident: $shown:literal, $model:expr;)*) => {$(
            #[test]
            fn $agent() {
                super::run(stringify!($agent), |h| {
                    super::desktop::screenshot_and_click(h, $shown, $model)
                });
            }
        )*};
    }

    desktop_tools! {
        claude: true, None;
        codex: true, None;
        opencode: true, None;
        gemini: false, None;
        qwen: false, Some("qwen3-vl-plus");
    }
}
