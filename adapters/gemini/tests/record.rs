//! Records the transcripts in `transcripts/` from the real `gemini` CLI, driven
//! through the adapter's own state machine by a small native host (ignored by
//! default: it needs the CLI and the scripted model server). The host is the kit's
//! (`sandbox_agent_adapter_kit::testing::record`).
//!
//! ```sh
//! cargo run -p agentplex-model-server -- --port 0     # prints its URL
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
use sandbox_agent_adapter_kit::testing::record::{record_all, Agent, Scenario, Shared, Step};

/// The Gemini CLI, told by `settings.json` in its `HOME` to use an API key; the
/// session gets the real folder (the transcript says `/workspace`).
const AGENT: Agent = Agent {
    id: "gemini",
    base_url_var: "GOOGLE_GEMINI_BASE_URL",
    api_key_var: "GEMINI_API_KEY",
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

/// The Gemini CLI's own scenarios: plan mode, and a cancel before the first prompt
/// went out.
fn own() -> Vec<Scenario> {
    vec![
        Scenario::new("plan-mode", &[Step::Send("write: notes.txt: hello")]).plan(),
        Scenario::new(
            "cancel-before-start",
            &[
                Step::Begin("slow: 20"),
                Step::CancelAfter(100),
                Step::Send("hello after cancel"),
            ],
        ),
    ]
}

#[test]
#[ignore = "needs the gemini CLI and the scripted model server"]
fn record_transcripts() {
    // The CLI loads a session only in a later minute than it started.
    let shared = Shared::new("run: touch a.txt", "run: printf 'tool-output-%d' 42")
        .warmed_up()
        .resumed_a_minute_later();
    let scenarios = [shared.scenarios(), own()].concat();
    record_all::<GeminiSession>(&AGENT, &scenarios, env!("CARGO_MANIFEST_DIR"));
}
