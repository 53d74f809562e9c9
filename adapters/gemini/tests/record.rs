//! Records the transcripts in `transcripts/` from the real `gemini` CLI, driven
//! through the adapter's own state machine by a small native host (ignored by
//! default: it needs the CLI and the scripted model server). The host is the kit's
//! (`sandbox_agent_adapter_kit::testing::record`).
//!
//! ```sh
//! cargo run -p sandbox-agent-model-server -- --port 0     # prints its URL
//! GEMINI_RECORD_BIN=/path/to/node_modules/@google/gemini-cli/bundle/gemini.js \
//!   GEMINI_RECORD_MODEL_URL=http://127.0.0.1:PORT \
//!   cargo test --manifest-path adapters/Cargo.toml -p sandbox-agent-adapter-gemini \
//!   --test record -- --ignored --test-threads 1
//! ```
//!
//! `GEMINI_RECORD_ONLY=a,b` records only those scenarios. Each scenario runs in a
//! fresh working directory and `HOME` (with the `settings.json` that selects API-key
//! auth); their paths are rewritten to `/workspace` and `/home/user` in the recorded
//! lines. Every input the adapter receives is written to `transcripts/<name>.jsonl`
//! in the transcript format of `sandbox-agent adapters test`.

use sandbox_agent_adapter_gemini::GeminiSession;
use sandbox_agent_adapter_kit::testing::record::{common, record_all, Agent, Scenario, Step};
use sandbox_agent_adapter_kit::types::PermissionReply;

/// The Gemini CLI, told by `settings.json` in its `HOME` to use an API key; the
/// session gets the real folder (the transcript says `/workspace`).
const AGENT: Agent = Agent {
    id: "gemini",
    env: |url| {
        vec![
            ("GOOGLE_GEMINI_BASE_URL", url.to_owned()),
            ("GEMINI_API_KEY", "dummy-key".to_owned()),
        ]
    },
    prepare_home: |home| {
        std::fs::create_dir_all(home.join(".gemini")).unwrap();
        std::fs::write(
            home.join(".gemini/settings.json"),
            r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
        )
        .unwrap();
    },
    real_directory: true,
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
            Step::Send("run: touch a.txt"),
        ],
    ),
    common::PERMISSION_REJECT,
    (
        "bypass-run",
        "build",
        "bypass",
        &[Step::Send("run: printf 'tool-output-%d' 42")],
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
        "plan-mode",
        "plan",
        "default",
        &[Step::Send("write: notes.txt: hello")],
    ),
    (
        "cancel-streaming",
        "build",
        "default",
        &[
            Step::Send("hello"),
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
        &[
            Step::Send("hello"),
            Step::Begin("slow: 20"),
            Step::KillAfter(1500),
        ],
    ),
    (
        "idle-exit-resume",
        "build",
        "default",
        &[
            Step::Send("hello"),
            Step::KillAfter(1000),
            Step::NextMinute,
            Step::Send("second message"),
        ],
    ),
    (
        "resume-same-minute",
        "build",
        "default",
        &[
            Step::Send("hello"),
            Step::KillAfter(1000),
            Step::Send("second message"),
        ],
    ),
    common::TERMINATE,
    (
        "cancel-before-start",
        "build",
        "default",
        &[
            Step::Begin("slow: 20"),
            Step::CancelAfter(100),
            Step::Send("hello after cancel"),
        ],
    ),
];

#[test]
#[ignore = "needs the gemini CLI and the scripted model server"]
fn record_transcripts() {
    record_all::<GeminiSession>(&AGENT, SCENARIOS, env!("CARGO_MANIFEST_DIR"));
}
