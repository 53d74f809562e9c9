//! Builds the component and replays `transcripts/` through it with
//! `agentplex adapters test`, the same host code the daemon runs.
//!
//! Needs the `agentplex` binary: `$AGENTPLEX_BIN`, or `agentplex` on
//! `PATH`. After changing the adapter, review what changed with
//! `agentplex adapters test target/wasm32-wasip2/release/adapter_template.wasm transcripts`
//! and accept it with `--update`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Builds the component for `wasm32-wasip2` and returns its path.
fn build_component() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-wasip2",
            "--manifest-path",
        ])
        .arg(root.join("Cargo.toml"))
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .status()
        .expect("running cargo");
    assert!(status.success(), "building the component failed");
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    target_dir.join("wasm32-wasip2/release/adapter_template.wasm")
}

#[test]
fn recorded_transcripts_replay_to_their_expected_output() {
    let component = build_component();
    let daemon = std::env::var_os("AGENTPLEX_BIN").unwrap_or_else(|| "agentplex".into());
    let transcripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("transcripts");
    let output = Command::new(&daemon)
        .args(["adapters", "test"])
        .arg(&component)
        .arg(&transcripts)
        .output()
        .unwrap_or_else(|error| {
            panic!("cannot run {daemon:?} ({error}): install agentplex, or set AGENTPLEX_BIN")
        });
    assert!(
        output.status.success(),
        "adapters test failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
