//! `adapters` (local, no daemon): list, matrix, inspect.

use super::*;

#[test]
fn adapters_list_shows_the_builtin_mock() {
    let output = run_command(command(&["adapters", "list"]), COMMAND_TIMEOUT);
    let list = json_ok(&output);
    let adapters = list["adapters"].as_array().expect("adapters array");
    let mock = adapters
        .iter()
        .find(|a| a["id"] == "mock")
        .unwrap_or_else(|| panic!("no mock adapter: {list}"));
    assert_eq!(mock["builtin"], true, "{mock}");
    assert_eq!(mock["defaultMode"], "build", "{mock}");
    assert_eq!(mock["contract"], "sandbox-agent:adapter@0.5.0", "{mock}");
    assert!(
        mock["origin"].as_str().is_some_and(|o| o.contains("mock")),
        "{mock}"
    );
}

#[test]
fn the_coverage_matrix_doc_matches_the_builtin_adapters() {
    if std::env::var_os("AGENTPLEX_BUILTIN_ADAPTERS").is_some() {
        eprintln!("skipped: this daemon was built with a subset of the adapters");
        return;
    }
    let data_dir = tempfile::tempdir().unwrap();
    let mut matrix = command(&["adapters", "matrix", "--data-dir"]);
    matrix.arg(data_dir.path());
    let output = run_command(matrix, COMMAND_TIMEOUT);
    assert!(output.status.success(), "{}", describe(&output));
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/coverage-matrix.md");
    let committed = std::fs::read_to_string(&doc).unwrap_or_default();
    assert!(
        committed == text(&output.stdout),
        "docs/coverage-matrix.md is stale; regenerate it with \
         `cargo run -p agentplex -- adapters matrix > docs/coverage-matrix.md`"
    );
    for agent in ["Claude Code", "Codex", "OpenCode", "Mock"] {
        assert!(
            committed.contains(agent),
            "{agent} is a column of the matrix"
        );
    }
}

#[test]
fn adapters_inspect_describes_the_mock_component() {
    let wasm = mock_wasm();
    assert!(
        wasm.is_file(),
        "the mock component was not built at {}",
        wasm.display()
    );
    let output = run_command(
        command(&["adapters", "inspect", wasm.to_str().unwrap()]),
        COMMAND_TIMEOUT,
    );
    let view = json_ok(&output);
    assert_eq!(view["id"], "mock", "{view}");
    assert_eq!(
        view["name"].as_str().map(str::is_empty),
        Some(false),
        "{view}"
    );
    assert_eq!(view["contract"], "sandbox-agent:adapter@0.5.0", "{view}");
    assert_eq!(view["defaultModel"], "mock", "{view}");
    let modes: Vec<&str> = view["modes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["build", "plan"], "{view}");
    assert_eq!(view["capabilities"]["questions"], true, "{view}");
    assert!(
        view["origin"]
            .as_str()
            .unwrap()
            .contains("sandbox_agent_adapter_mock.wasm"),
        "{view}"
    );
}

#[test]
fn adapters_inspect_refuses_a_non_wasm_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-component.wasm");
    std::fs::write(&file, "this is not WebAssembly\n").unwrap();
    let output = run_command(
        command(&["adapters", "inspect", file.to_str().unwrap()]),
        COMMAND_TIMEOUT,
    );
    let failure = expect_failure(&output);
    assert!(failure.problem.is_none(), "{}", failure.stderr);
    assert_eq!(
        failure.stderr.trim_end().lines().count(),
        1,
        "expected a one-line error: {}",
        failure.stderr
    );
    assert!(
        failure.error_line.contains("not-a-component.wasm"),
        "the error should name the file: {}",
        failure.error_line
    );
    assert!(output.stdout.is_empty(), "{}", describe(&output));

    // A file that does not exist: also one line, naming it.
    let missing = dir.path().join("missing.wasm");
    let output = run_command(
        command(&["adapters", "inspect", missing.to_str().unwrap()]),
        COMMAND_TIMEOUT,
    );
    let failure = expect_failure(&output);
    assert_eq!(
        failure.stderr.trim_end().lines().count(),
        1,
        "expected a one-line error: {}",
        failure.stderr
    );
    assert!(
        failure.error_line.contains("missing.wasm"),
        "{}",
        failure.error_line
    );
}
