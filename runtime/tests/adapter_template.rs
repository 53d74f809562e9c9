//! The adapter author's path, end to end: `examples/adapter-template` builds to a
//! component with one cargo command, `adapters validate` accepts it, its recorded
//! transcripts replay with `adapters test`, and dropped into `--adapters-dir` of this
//! (already built) daemon it runs a session over HTTP: create, two turns through
//! `cat`, terminate.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use common::api::*;
use common::{
    binary, describe, shared_cache_dir, text, wasm_component, wasm_target_dir, Daemon, Options,
};
use serde_json::{json, Value};

/// The template's folder.
fn template_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("examples/adapter-template")
}

/// Builds the template with the command its README gives (once per test process) and
/// returns the component.
fn template_component() -> &'static Path {
    static COMPONENT: OnceLock<PathBuf> = OnceLock::new();
    COMPONENT.get_or_init(|| {
        let dir = template_dir();
        let output = Command::new(env!("CARGO"))
            .args(["build", "--release", "--target", "wasm32-wasip2"])
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", wasm_target_dir())
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .output()
            .expect("running cargo to build the template");
        assert!(
            output.status.success(),
            "building the template failed: {}",
            describe(&output)
        );
        let component = wasm_component("adapter_template");
        assert!(
            component.is_file(),
            "no component at {}",
            component.display()
        );
        component
    })
}

/// `agentplex adapters <args>` with the shared compile cache.
fn adapters(args: &[&str]) -> Output {
    Command::new(binary())
        .arg("adapters")
        .args(args)
        .arg("--data-dir")
        .arg(shared_cache_dir().join("template-data"))
        .env_remove("AGENTPLEX_DATA_DIR")
        .env_remove("AGENTPLEX_ADAPTERS_DIR")
        .output()
        .expect("running agentplex")
}

#[test]
fn the_template_validates() {
    let component = template_component().to_str().unwrap();
    let output = adapters(&["validate", component]);
    assert!(output.status.success(), "{}", describe(&output));
    let report = text(&output.stdout);
    assert!(
        report.contains("ok       contract: sandbox-agent:adapter@0.5.0"),
        "{report}"
    );
    assert!(report.contains(r#"agent "template""#), "{report}");
    assert!(
        !report.contains("problem"),
        "the template has no problems: {report}"
    );
    assert!(
        report.ends_with("valid: template 0.1.0 (1 warning)\n"),
        "{report}"
    );
}

#[test]
fn the_template_transcripts_replay() {
    let component = template_component().to_str().unwrap();
    let transcripts = template_dir().join("transcripts");
    let output = adapters(&["test", component, transcripts.to_str().unwrap()]);
    assert!(output.status.success(), "{}", describe(&output));
    assert!(
        text(&output.stdout).ends_with("6 cases, 0 failed\n"),
        "{}",
        describe(&output)
    );
}

/// The assistant's streamed text in `events`.
fn streamed(events: &[Value]) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "item.delta")
        .map(|e| e["data"]["delta"].as_str().unwrap_or_default())
        .collect()
}

#[test]
fn the_template_dropped_into_a_daemon_runs_a_session() {
    let adapters_dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        template_component(),
        adapters_dir.path().join("adapter_template.wasm"),
    )
    .unwrap();
    let daemon = Daemon::start_with(Options {
        args: vec![
            "--adapters-dir".into(),
            adapters_dir.path().display().to_string(),
        ],
        ..Options::default()
    });
    let api = Api::new(&daemon);

    let template = api.agent("template");
    assert_eq!(template["installed"], true, "cat is on PATH: {template}");
    assert!(
        template["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("/cat")),
        "{template}"
    );
    assert_eq!(template["capabilities"]["cancel"], true, "{template}");

    api.create("t", "template");
    let first = api.turn("t", "hello from the test");
    assert_eq!(streamed(&first), "hello from the test\n");
    assert_eq!(assistant_texts(&first), ["hello from the test\n"]);
    let second = api.turn("t", "line one\nline two");
    assert_eq!(streamed(&second), "line one\nline two\n");
    let delta = second.iter().find(|e| e["type"] == "item.delta").unwrap();
    assert_eq!(delta["source"], "agent", "{delta}");

    let all = api.events("t");
    check_envelopes("t", 0, &all);
    check_turns(&all, true);
    assert_eq!(all[0]["type"], "session.started");
    assert_eq!(
        all[0]["data"]["metadata"]["binary"],
        json!(template["path"])
    );

    let offset = api.last_sequence("t");
    expect_no_content(api.post_empty("/v1/sessions/t/terminate"), "terminate");
    let rest = api.wait_for_type("t", offset, "session.ended");
    let ended = &rest.last().unwrap()["data"];
    assert_eq!(ended["reason"], "terminated", "{ended}");
}
