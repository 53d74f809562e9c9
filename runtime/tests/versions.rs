//! One version number covers the daemon, the CLI, the npm packages and the
//! TypeScript SDK, and `agentplex --version` says which build it is.

use std::path::Path;
use std::process::Command;

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn json_version(path: &str) -> String {
    let text = std::fs::read_to_string(repo().join(path)).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["version"].as_str().unwrap().to_owned()
}

#[test]
fn the_versions_move_together() {
    assert_eq!(
        json_version("sdks/typescript/package.json"),
        VERSION,
        "sdks/typescript/package.json"
    );
    assert_eq!(
        json_version("sdks/typescript/package-lock.json"),
        VERSION,
        "sdks/typescript/package-lock.json"
    );
    let changelog = std::fs::read_to_string(repo().join("CHANGELOG.md")).unwrap();
    assert!(
        changelog.contains(&format!("\n## {VERSION} - ")),
        "CHANGELOG.md has no section `## {VERSION} - DATE`"
    );
    assert_eq!(
        json_version("inspector/package.json"),
        VERSION,
        "inspector/package.json"
    );
    let pyproject = std::fs::read_to_string(repo().join("sdks/python/pyproject.toml")).unwrap();
    assert!(
        pyproject.contains(&format!("\nversion = \"{VERSION}\"\n")),
        "sdks/python/pyproject.toml is not at {VERSION}"
    );
}

#[test]
fn version_names_the_commit_and_the_target() {
    let output = Command::new(env!("CARGO_BIN_EXE_agentplex"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(output.status.success());
    let line = String::from_utf8(output.stdout).unwrap();
    let rest = line
        .trim()
        .strip_prefix(&format!("agentplex {VERSION} ("))
        .unwrap_or_else(|| panic!("{line}"));
    let (commit, target) = rest
        .strip_suffix(')')
        .and_then(|inner| inner.split_once(' '))
        .unwrap_or_else(|| panic!("{line}"));
    assert!(
        commit == "unknown" || (commit.len() >= 7 && commit.bytes().all(|b| b.is_ascii_hexdigit())),
        "commit {commit:?} in {line}"
    );
    assert!(
        target.split('-').count() >= 3,
        "target {target:?} is a target triple in {line}"
    );
}
