//! `agentplex adapters test`: every builtin adapter's recorded transcripts
//! (`adapters/<crate>/transcripts/`) replay to their expected output, a changed
//! expected file fails with a diff, `--update` rewrites it, and bad input is refused
//! with a one-line error and exit code 2.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{binary, describe, text};
use serde_json::Value;

/// The repository's `adapters/` folder.
fn adapters_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("adapters")
}

/// The mock's transcripts, the cases these tests tamper with (in copies).
fn mock_transcripts() -> PathBuf {
    adapters_root().join("mock/transcripts")
}

/// `agentplex adapters <args>` with a data dir of its own (compile cache, no
/// adapters folder), so the user's environment cannot leak in.
fn adapters(args: &[&str]) -> Output {
    let data_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("adapter-transcripts-data");
    Command::new(binary())
        .arg("adapters")
        .args(args)
        .arg("--data-dir")
        .arg(&data_dir)
        .env_remove("AGENTPLEX_DATA_DIR")
        .env_remove("AGENTPLEX_ADAPTERS_DIR")
        .output()
        .expect("running agentplex")
}

/// `adapters test <args>` on `dir`.
fn test_dir(component: &str, dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["test", component, dir.to_str().unwrap()];
    args.extend(extra);
    adapters(&args)
}

/// A copy of the mock's transcripts (cases and expected files) to change.
fn copy_of_mock_transcripts() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(mock_transcripts()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// Asserts a bad-input failure: exit code 2, nothing on stdout, and one `error:` line
/// on stderr containing every one of `needles`.
#[track_caller]
fn assert_bad_input(output: &Output, needles: &[&str]) {
    assert_eq!(output.status.code(), Some(2), "{}", describe(output));
    assert!(output.stdout.is_empty(), "{}", describe(output));
    let stderr = text(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "expected a one-line error: {}",
        describe(output)
    );
    assert!(lines[0].starts_with("error: "), "{}", describe(output));
    for needle in needles {
        assert!(lines[0].contains(needle), "no {needle:?} in {:?}", lines[0]);
    }
}

/// The builtin adapters by crate folder (`adapters/<folder>`) and agent id, from
/// `adapters list` (origin `builtin:sandbox_agent_adapter_<folder>.wasm`).
fn builtin_adapters() -> Vec<(String, String)> {
    let output = adapters(&["list"]);
    assert!(output.status.success(), "{}", describe(&output));
    let list: Value = serde_json::from_slice(&output.stdout).unwrap();
    list["adapters"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|adapter| {
            let origin = adapter["origin"].as_str()?;
            let folder = origin
                .strip_prefix("builtin:sandbox_agent_adapter_")?
                .strip_suffix(".wasm")?;
            Some((folder.to_owned(), adapter["id"].as_str()?.to_owned()))
        })
        .collect()
}

#[test]
fn every_builtin_adapters_transcripts_replay_to_their_expected_output() {
    let builtins = builtin_adapters();
    let mut tested = Vec::new();
    let mut failures = Vec::new();
    for (folder, id) in &builtins {
        let dir = adapters_root().join(folder).join("transcripts");
        if !dir.is_dir() {
            continue;
        }
        let output = test_dir(id, &dir, &[]);
        if !output.status.success() {
            failures.push(format!(
                "transcripts of {id} ({}) do not replay: {}",
                dir.display(),
                describe(&output)
            ));
        }
        tested.push(id.clone());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(tested.contains(&"mock".to_owned()), "{builtins:?}");
    eprintln!("replayed the transcripts of {tested:?}");
    // A crate with transcripts but no component yet (still an `rlib`) is not covered:
    // say so rather than fail while its author is at work.
    for entry in std::fs::read_dir(adapters_root()).unwrap() {
        let folder = entry.unwrap().file_name().to_string_lossy().into_owned();
        let has_transcripts = adapters_root().join(&folder).join("transcripts").is_dir();
        if has_transcripts && !builtins.iter().any(|(f, _)| *f == folder) {
            eprintln!("note: adapters/{folder}/transcripts is not tested: no builtin component");
        }
    }
}

#[test]
fn a_component_file_works_as_well_as_an_agent_id() {
    let wasm = adapters_root().join("target/wasm32-wasip2/release/sandbox_agent_adapter_mock.wasm");
    assert!(wasm.is_file(), "no mock component at {}", wasm.display());
    let output = test_dir(wasm.to_str().unwrap(), &mock_transcripts(), &[]);
    assert!(output.status.success(), "{}", describe(&output));
}

#[test]
fn a_changed_expected_file_fails_with_a_diff_and_update_rewrites_it() {
    let dir = copy_of_mock_transcripts();
    let expected = dir.path().join("text_turn.expected.jsonl");
    let original = std::fs::read_to_string(&expected).unwrap();
    let needle = r#""delta":"he""#;
    assert!(original.contains(needle), "{original}");
    std::fs::write(&expected, original.replacen(needle, r#""delta":"HE""#, 1)).unwrap();
    std::fs::remove_file(dir.path().join("shell_command.expected.jsonl")).unwrap();

    let output = test_dir("mock", dir.path(), &[]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("FAILED  text_turn"), "{stdout}");
    assert!(stdout.contains("text_turn.expected.jsonl"), "{stdout}");
    assert!(stdout.contains(r#"-{"type":"item.delta""#), "{stdout}");
    assert!(stdout.contains(r#""delta":"HE"}}"#), "{stdout}");
    assert!(stdout.contains(r#"+{"type":"item.delta""#), "{stdout}");
    assert!(stdout.contains("@@"), "not a unified diff: {stdout}");
    assert!(
        stdout.contains("FAILED  shell_command: no ") && stdout.contains("--update"),
        "{stdout}"
    );
    assert!(stdout.contains("ok      cancel_slow"), "{stdout}");
    let cases = std::fs::read_dir(mock_transcripts())
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            let name = name.to_string_lossy();
            name.ends_with(".jsonl") && !name.ends_with(".expected.jsonl")
        })
        .count();
    assert!(
        stdout.ends_with(&format!("{cases} cases, 2 failed\n")),
        "{stdout}"
    );
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with("error: ") && stderr.contains("2 failed"),
        "{stderr}"
    );

    let output = test_dir("mock", dir.path(), &["--update"]);
    assert!(output.status.success(), "{}", describe(&output));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("updated text_turn"), "{stdout}");
    assert!(stdout.contains("updated shell_command"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&expected).unwrap(), original);
    let output = test_dir("mock", dir.path(), &[]);
    assert!(output.status.success(), "{}", describe(&output));
}

#[test]
fn bad_input_is_a_one_line_error_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("bad.jsonl");
    let write = |text: &str| std::fs::write(&case, text).unwrap();

    write("{\"input\":\"start\"}\n{\"input\":\"dance\"}\n");
    assert_bad_input(
        &test_dir("mock", dir.path(), &[]),
        &["bad.jsonl:2", "unknown input kind `dance`"],
    );

    write("{\"input\":\"start\"}\n\n{\"input\":\"sendMessage\",\"text\":\n");
    assert_bad_input(
        &test_dir("mock", dir.path(), &[]),
        &["bad.jsonl:3", "bad JSON"],
    );

    write("{\"input\":\"replyPermission\",\"id\":\"p\",\"reply\":\"maybe\"}\n");
    assert_bad_input(
        &test_dir("mock", dir.path(), &[]),
        &["bad.jsonl:1", "maybe"],
    );
    assert!(
        !dir.path().join("bad.expected.jsonl").exists(),
        "nothing is written for bad input"
    );

    std::fs::remove_file(&case).unwrap();
    assert_bad_input(&test_dir("mock", dir.path(), &[]), &["no transcript cases"]);

    let missing = dir.path().join("missing");
    assert_bad_input(&test_dir("mock", &missing, &[]), &["missing"]);

    let not_wasm = dir.path().join("broken.wasm");
    std::fs::write(&not_wasm, "not WebAssembly").unwrap();
    let output = test_dir(not_wasm.to_str().unwrap(), &mock_transcripts(), &[]);
    assert_bad_input(&output, &["broken.wasm"]);

    let output = test_dir("no-such-agent", &mock_transcripts(), &[]);
    assert_bad_input(&output, &["no-such-agent", "mock"]);
}

/// Amp cannot run offline (its current CLI runs the agent loop on Amp's servers), so
/// its recorded transcripts are its only end-to-end test: every case must be there
/// and replay, through the built component (present whenever the daemon embeds Amp).
#[test]
fn amp_transcripts_cover_its_lifecycle_and_replay() {
    let wasm = adapters_root().join("target/wasm32-wasip2/release/sandbox_agent_adapter_amp.wasm");
    if !wasm.is_file() {
        eprintln!("note: no Amp component at {}: not tested", wasm.display());
        return;
    }
    let output = test_dir(
        wasm.to_str().unwrap(),
        &adapters_root().join("amp/transcripts"),
        &[],
    );
    assert!(output.status.success(), "{}", describe(&output));
    let stdout = text(&output.stdout);
    for case in [
        "text-turn",
        "tool-call",
        "thinking",
        "multi-turn-continue",
        "new-cli-unreachable",
        "exit-mid-turn",
        "error-result",
        "cancel",
        "spawn-failed",
    ] {
        assert!(
            stdout.contains(&format!("ok      {case}\n")),
            "{case}: {stdout}"
        );
    }
}
