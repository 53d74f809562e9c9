//! `agentplex adapters validate FILE` on good and bad files, and what the daemon
//! does with components built against another version of the contract: a newer or
//! older one is refused with a plain-words reason (and the daemon keeps serving with
//! the other adapters), a semver-compatible patch version is run.
//!
//! Components "built against" another version are the mock's component with the
//! contract's version rewritten in every interface name it imports and exports
//! (`sandbox-agent:adapter/adapter@0.5.0` → `@0.6.0`): same-length names keep the
//! binary valid, and the names are all the host looks at to pick a contract.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::api::*;
use common::{binary, describe, shared_cache_dir, text, Daemon, Options};
use serde_json::Value;

/// The built-in mock's component, built with the daemon.
fn mock_component() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../adapters/target/wasm32-wasip2/release/sandbox_agent_adapter_mock.wasm");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Replaces every occurrence of `from` with `to` (same length) in `bytes`; there
/// must be one.
fn replace_all(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    let (out, replaced) = replace_any(bytes, from, to);
    assert!(replaced > 0, "nothing to replace");
    out
}

/// Replaces every occurrence of `from` with `to` (same length) in `bytes`, and
/// says how many there were.
fn replace_any(bytes: &[u8], from: &str, to: &str) -> (Vec<u8>, usize) {
    assert_eq!(from.len(), to.len(), "a same-length replacement");
    let (from, to) = (from.as_bytes(), to.as_bytes());
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    let mut replaced = 0;
    while !rest.is_empty() {
        if rest.starts_with(from) {
            out.extend_from_slice(to);
            rest = &rest[from.len()..];
            replaced += 1;
        } else {
            out.push(rest[0]);
            rest = &rest[1..];
        }
    }
    (out, replaced)
}

/// The mock's component as if built against contract `version` (`x.y.z`, 5 characters).
fn mock_for_contract(version: &str) -> Vec<u8> {
    let mut bytes = mock_component();
    let rename = |interface: &str| {
        (
            format!("sandbox-agent:adapter/{interface}@0.5.0"),
            format!("sandbox-agent:adapter/{interface}@{version}"),
        )
    };
    for interface in ["adapter", "actions", "events"] {
        let (from, to) = rename(interface);
        bytes = replace_all(&bytes, &from, &to);
    }
    // The `host` import is there only when the adapter logs.
    let (from, to) = rename("host");
    replace_any(&bytes, &from, &to).0
}

/// Writes `bytes` to `dir/name` and returns the path.
fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `agentplex adapters <args>` with the shared compile cache and no adapters
/// folder from the environment.
fn adapters(args: &[&str]) -> Output {
    Command::new(binary())
        .arg("adapters")
        .args(args)
        .arg("--data-dir")
        .arg(shared_cache_dir().join("validate-data"))
        .env_remove("AGENTPLEX_DATA_DIR")
        .env_remove("AGENTPLEX_ADAPTERS_DIR")
        .output()
        .expect("running agentplex")
}

fn validate(file: &Path) -> Output {
    adapters(&["validate", file.to_str().unwrap()])
}

/// Asserts that validation failed on one problem whose line contains every needle, and
/// that stderr is the one-line summary naming the file.
#[track_caller]
fn assert_one_problem(output: &Output, file: &Path, needles: &[&str]) {
    assert_eq!(output.status.code(), Some(1), "{}", describe(output));
    let stdout = text(&output.stdout);
    let problems: Vec<&str> = stdout
        .lines()
        .filter(|line| line.starts_with("problem"))
        .collect();
    assert_eq!(problems.len(), 1, "{}", describe(output));
    for needle in needles {
        assert!(
            problems[0].contains(needle),
            "{needle:?} in {}",
            problems[0]
        );
    }
    let stderr = text(&output.stderr);
    assert_eq!(
        stderr,
        format!(
            "error: {} is not a valid adapter: 1 problem (see above)\n",
            file.display()
        )
    );
}

#[test]
fn a_good_component_passes() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "mock.wasm", &mock_component());
    let output = validate(&file);
    assert!(output.status.success(), "{}", describe(&output));
    let report = text(&output.stdout);
    for line in [
        "ok       file: a WebAssembly component",
        "ok       contract: sandbox-agent:adapter@0.5.0 (world adapter-component), supported",
        r#"ok       info: agent "mock" (Mock)"#,
        "ok       session: start, snapshot",
        "valid: mock 0.1.0 (0 warnings)",
    ] {
        assert!(report.contains(line), "{line:?} in:\n{report}");
    }
    assert!(output.stderr.is_empty(), "{}", describe(&output));
}

#[test]
fn files_that_are_not_components_fail_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let junk = write(dir.path(), "junk.wasm", b"this is not WebAssembly\n");
    assert_one_problem(
        &validate(&junk),
        &junk,
        &["problem  file:", "junk.wasm", "not a WebAssembly file"],
    );

    // The smallest core module: what `--target wasm32-wasip1` or `wasm32-unknown-unknown`
    // would give instead of a component.
    let core = write(dir.path(), "core.wasm", b"\0asm\x01\x00\x00\x00");
    assert_one_problem(
        &validate(&core),
        &core,
        &["core WebAssembly module, not a component", "wasm32-wasip2"],
    );

    let missing = dir.path().join("missing.wasm");
    assert_one_problem(
        &validate(&missing),
        &missing,
        &["cannot read", "missing.wasm"],
    );
}

#[test]
fn a_component_of_another_world_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    // The smallest component: a header, no exports at all.
    let empty = write(dir.path(), "empty.wasm", b"\0asm\x0d\x00\x01\x00");
    assert_one_problem(
        &validate(&empty),
        &empty,
        &[
            "problem  contract:",
            "does not export the sandbox-agent:adapter/adapter interface (it exports [])",
        ],
    );

    // A component whose interface has another name.
    let renamed = replace_all(
        &mock_component(),
        "sandbox-agent:adapter/adapter@",
        "sandbox-agent:adapter/adaptor@",
    );
    let other = write(dir.path(), "other.wasm", &renamed);
    assert_one_problem(
        &validate(&other),
        &other,
        &[
            "does not export the sandbox-agent:adapter/adapter interface",
            "sandbox-agent:adapter/adaptor@0.5.0",
        ],
    );
}

#[test]
fn components_built_against_another_contract_version() {
    let dir = tempfile::tempdir().unwrap();
    let newer = write(dir.path(), "newer.wasm", &mock_for_contract("0.6.0"));
    assert_one_problem(
        &validate(&newer),
        &newer,
        &[
            "problem  contract:",
            "built against sandbox-agent:adapter@0.6.0, a newer contract than this daemon supports",
            "upgrade agentplex",
        ],
    );
    let older = write(dir.path(), "older.wasm", &mock_for_contract("0.0.9"));
    assert_one_problem(
        &validate(&older),
        &older,
        &[
            "built against sandbox-agent:adapter@0.0.9, an older contract",
            "rebuild",
        ],
    );

    // A later patch of the same contract is semver-compatible: it is run.
    let patch = write(dir.path(), "patch.wasm", &mock_for_contract("0.5.1"));
    let output = validate(&patch);
    assert!(output.status.success(), "{}", describe(&output));
    assert!(
        text(&output.stdout).contains(
            "ok       contract: sandbox-agent:adapter@0.5.1 (world adapter-component), \
             run as the compatible sandbox-agent:adapter@0.5.0"
        ),
        "{}",
        describe(&output)
    );
}

/// The daemon's view of its adapters folder, through `adapters list`.
fn list(adapters_dir: &Path) -> Value {
    let output = adapters(&["list", "--adapters-dir", adapters_dir.to_str().unwrap()]);
    assert!(output.status.success(), "{}", describe(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_daemon_refuses_other_contract_versions_and_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a-newer.wasm", &mock_for_contract("0.6.0"));
    write(dir.path(), "b-older.wasm", &mock_for_contract("0.0.9"));
    write(dir.path(), "c-patch.wasm", &mock_for_contract("0.5.1"));

    let listed = list(dir.path());
    let skipped: Vec<&str> = listed["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(skipped.len(), 2, "{listed}");
    assert!(
        skipped[0].contains("a-newer.wasm") && skipped[0].contains("a newer contract"),
        "{listed}"
    );
    assert!(
        skipped[1].contains("b-older.wasm") && skipped[1].contains("an older contract"),
        "{listed}"
    );
    let mock = listed["adapters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "mock")
        .unwrap();
    assert!(
        mock["origin"].as_str().unwrap().ends_with("c-patch.wasm"),
        "the compatible component replaced the builtin: {mock}"
    );

    // The server starts, and the compatible component serves sessions.
    let daemon = Daemon::start_with(Options {
        args: vec!["--adapters-dir".into(), dir.path().display().to_string()],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    api.create("m", "mock");
    assert_eq!(assistant_texts(&api.turn("m", "hello")), ["hello"]);
}
