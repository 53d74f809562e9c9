//! Records the transcripts in `transcripts/` from the real `claude` binary, driven
//! through the adapter's own state machine by a small native host (ignored by
//! default: it needs the binary and the scripted model server). The host is the
//! kit's (`sandbox_agent_adapter_kit::testing::record`).
//!
//! ```sh
//! cargo run -p sandbox-agent-model-server -- --port 0     # prints its URL
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
use sandbox_agent_adapter_kit::testing::record::{common, record_all, Agent, Scenario, Step};
use sandbox_agent_adapter_kit::types::PermissionReply;

/// The `claude` binary, pointed at the model server with a dummy key.
const AGENT: Agent = Agent {
    id: "claude",
    env: |url| {
        vec![
            ("ANTHROPIC_BASE_URL", url.to_owned()),
            ("ANTHROPIC_API_KEY", "dummy-key".to_owned()),
        ]
    },
    prepare_home: |_| {},
    real_directory: false,
};

const SCENARIOS: &[Scenario] = &[
    common::TEXT_MULTI_TURN,
    common::THINK,
    common::PERMISSION_ONCE,
    (
        "permission-always",
        "build",
        "default",
        &[
            Step::Send("run: touch a.txt"),
            Step::Permission(PermissionReply::Always),
            Step::Send("run: rm a.txt"),
        ],
    ),
    common::PERMISSION_REJECT,
    (
        "bypass-run",
        "build",
        "bypass",
        &[Step::Send("run: touch a.txt && echo made a.txt")],
    ),
    (
        "file-changes",
        "build",
        "bypass",
        &[
            Step::Send("write: notes.txt: hello world"),
            Step::Send("read: notes.txt"),
            Step::Send("write: notes.txt: goodbye"),
        ],
    ),
    (
        "question-answer",
        "build",
        "default",
        &[Step::Send("ask: Proceed?"), Step::Answer("yes")],
    ),
    (
        "question-decline",
        "build",
        "default",
        &[Step::Send("ask: Proceed?"), Step::Decline],
    ),
    (
        "plan-approve",
        "plan",
        "default",
        &[
            Step::Send("plan: Step one, then step two"),
            Step::Answer("approve"),
            Step::Send("run: touch a.txt"),
            Step::Permission(PermissionReply::Once),
        ],
    ),
    (
        "plan-reject",
        "plan",
        "default",
        &[Step::Send("plan: Step one"), Step::Answer("reject")],
    ),
    (
        "cancel-streaming",
        "build",
        "default",
        &[
            Step::Begin("slow: 20"),
            Step::CancelAfter(1500),
            Step::Send("hello after cancel"),
        ],
    ),
    common::CANCEL_PERMISSION,
    common::API_ERROR,
    (
        "crash-mid-turn",
        "build",
        "default",
        &[Step::Begin("slow: 20"), Step::KillAfter(1500)],
    ),
    (
        "idle-exit-resume",
        "build",
        "default",
        &[
            Step::Send("hello"),
            Step::KillAfter(1000),
            Step::Send("second message"),
        ],
    ),
    common::TERMINATE,
];

#[test]
#[ignore = "needs the claude binary and the scripted model server"]
fn record_transcripts() {
    record_all::<ClaudeSession>(&AGENT, SCENARIOS, env!("CARGO_MANIFEST_DIR"));
}
