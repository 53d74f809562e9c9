//! Unit tests of the static facts and of single lines the recordings lack; the
//! recorded transcripts in `transcripts/` are replayed by `sandbox-agent adapters
//! test` (runtime/tests/adapter_transcripts.rs).

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing;
use sandbox_agent_adapter_kit::transcript::render;

use crate::{Gemini, GeminiSession};

/// The transcripts' default config with `permission_mode`.
fn config(permission_mode: &str) -> SessionConfig {
    SessionConfig {
        permission_mode: permission_mode.into(),
        ..testing::config()
    }
}

#[test]
fn version_and_install_recipe() {
    assert_eq!(
        <Gemini as Adapter>::parse_version("0.61.0\n".into()).as_deref(),
        Some("0.61.0")
    );
    let recipe = <Gemini as Adapter>::install_plan(
        Platform {
            os: Os::Linux,
            arch: Arch::X8664,
            libc: Some(Libc::Gnu),
        },
        None,
    )
    .unwrap();
    assert_eq!(recipe.npm_package.as_deref(), Some("@google/gemini-cli"));
    assert_eq!(recipe.npm_binary_path.as_deref(), Some("bundle/gemini.js"));
}

#[test]
fn permission_modes_map_to_approval_modes() {
    for (mode, approval) in [("default", "default"), ("plan", "plan"), ("bypass", "yolo")] {
        let mut session = GeminiSession::new(config(mode));
        let started = render(&session.start());
        assert!(
            started[1].contains(&format!("\"--approval-mode\", \"{approval}\"")),
            "{started:?}"
        );
    }
}

#[test]
fn non_json_output_is_kept_as_unparsed() {
    let mut session = GeminiSession::new(config("default"));
    session.start();
    let out = render(&session.on_stdout("gemini_1".into(), "hello".into()));
    assert_eq!(
        out,
        [r#"agent.unparsed stdout "not a JSON-RPC message" raw="hello""#]
    );
}
