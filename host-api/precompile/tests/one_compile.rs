//! The builtins' build script precompiles adapters with this crate, a build
//! dependency: cargo resolves its features apart from the daemon's, and any crate
//! of the two trees that ends up with other features is compiled twice. For
//! wasmtime and Cranelift that was minutes of every build. This test fails when a
//! crate of the graph (normal and build dependencies) has two feature sets, and
//! names them: in the workspace's build (`cargo test`) and in the daemon's alone
//! (`cargo build -p agentplex`).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

#[test]
fn every_crate_of_the_workspace_graph_has_one_feature_set() {
    assert_one_feature_set_each(&["--workspace"]);
}

#[test]
fn every_crate_of_the_daemons_graph_has_one_feature_set() {
    assert_one_feature_set_each(&["--package", "agentplex"]);
}

/// Fails, naming them, if crates of `cargo tree PACKAGES`' graph have two feature sets.
fn assert_one_feature_set_each(packages: &[&str]) {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new(env!("CARGO"))
        .arg("tree")
        .args(packages)
        .args(["--locked", "--offline", "--prefix", "none"])
        .args(["--edges", "normal,build", "--format", "{p}|{f}"])
        .current_dir(&workspace)
        .output()
        .expect("running cargo tree");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut features: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let line = line.trim_end_matches(" (*)");
        let Some((package, set)) = line.split_once('|') else {
            continue;
        };
        let sets = features.entry(package.to_owned()).or_default();
        if !sets.iter().any(|known| known == set) {
            sets.push(set.to_owned());
        }
    }
    let split: Vec<String> = features
        .into_iter()
        .filter(|(_, sets)| sets.len() > 1)
        .map(|(package, sets)| format!("{package}: [{}]", sets.join("] and [")))
        .collect();
    assert!(
        split.is_empty(),
        "compiled twice in `cargo tree {}`, with two feature sets (name what one set lacks \
         in host-api/Cargo.toml, beside wasmtime):\n{}",
        packages.join(" "),
        split.join("\n")
    );
}
