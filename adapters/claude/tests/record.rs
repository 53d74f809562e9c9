//! Records the transcripts in `transcripts/` from the real `claude` binary, driven
//! through the adapter's own state machine by a small native host (ignored by
//! default: it needs the binary and the scripted model server). The host is the
//! kit's (`sandbox_agent_adapter_kit::testing::record`).
//!
//! ```sh
//! cargo run -p agentplex-model-server -- --port 0     # prints its URL
//! CLAUDE_RECORD_BIN=/path/to/claude CLAUDE_RECORD_MODEL_URL=http://127.0.0.1:PORT \
//!   cargo test --manifest-path adapters/Cargo.toml -p sandbox-agent-adapter-claude \
//!   --test record -- --ignored --test-threads 1 [scenario name]
//! ```
//!
//! Each scenario runs in a fresh working directory and `HOME`; their paths are
//! rewritten to `/workspace` and `/home/user` in the recorded lines. Every input the
//! adapter receives is written to `transcripts/<name>.jsonl` in the transcript format
//! of `sandbox-agent adapters test`.

use sandbox_agent_adapter_claude::ClaudeSession;
use sandbox_agent_adapter_kit::testing::record::{record_all, Agent, Scenario, Shared, Step};
use sandbox_agent_adapter_kit::types::PermissionReply;

/// The `claude` binary, pointed at the model server with a dummy key.
const AGENT: Agent = Agent {
    id: "claude",
    base_url_var: "ANTHROPIC_BASE_URL",
    api_key_var: "ANTHROPIC_API_KEY",
    prepare_home: |_| {},
    real_directory: false,
};

/// Claude Code's own scenarios: questions and plans.
fn questions_and_plans() -> Vec<Scenario> {
    let ask = Step::Send("ask: Proceed?");
    vec![
        Scenario::new("question-answer", &[ask, Step::Answer("yes")]),
        Scenario::new("question-decline", &[ask, Step::Decline]),
        Scenario::new(
            "plan-approve",
            &[
                Step::Send("plan: Step one, then step two"),
                Step::Answer("approve"),
                Step::Send("run: touch a.txt"),
                Step::Permission(PermissionReply::Once),
            ],
        )
        .plan(),
        Scenario::new(
            "plan-reject",
            &[Step::Send("plan: Step one"), Step::Answer("reject")],
        )
        .plan(),
    ]
}

#[test]
#[ignore = "needs the claude binary and the scripted model server"]
fn record_transcripts() {
    let shared = Shared::new("run: rm a.txt", "run: touch a.txt && echo made a.txt");
    let scenarios = [shared.scenarios(), questions_and_plans()].concat();
    record_all::<ClaudeSession>(&AGENT, &scenarios, env!("CARGO_MANIFEST_DIR"));
}
