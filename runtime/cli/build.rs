//! Embeds what `agentplex adapters new` writes (the adapter template, the kit and
//! the contract) and stamps the binary with the commit and target `--version`
//! prints. The builtin adapters are embedded by `agentplex-builtins`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest_dir.ancestors().nth(2).unwrap();
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    embed_scaffold(root, &out_dir);
    stamp_version(root, &env::var("TARGET").unwrap());
}

/// What `agentplex adapters new` writes: the adapter template, the kit and the
/// contract it is built against, embedded as one zstd-compressed tar archive per
/// set (its files in path order, with fixed times and owners, so a build gives
/// the same bytes), read back by `cli/scaffold.rs`.
fn embed_scaffold(root: &Path, out_dir: &Path) {
    let template = root.join("examples/adapter-template");
    let sets = [
        (
            "TEMPLATE_FILES",
            template.clone(),
            vec!["Cargo.lock", "src", "tests", "transcripts"],
        ),
        (
            "KIT_FILES",
            root.join("adapters/kit"),
            vec!["Cargo.toml", "src"],
        ),
        ("KIT_WORKSPACE", root.join("adapters"), vec!["Cargo.toml"]),
        // The fuzzing driver the kit's `testing` feature uses.
        (
            "FUZZ_FILES",
            root.join("testing/fuzz"),
            vec!["Cargo.toml", "src"],
        ),
        ("WIT_FILES", root.join("wit/v0.5.0"), vec!["."]),
    ];
    let mut generated = String::new();
    for (name, base, entries) in sets {
        let mut files = Vec::new();
        for entry in entries {
            let path = base.join(entry);
            println!("cargo:rerun-if-changed={}", path.display());
            collect_files(&path, &mut files);
        }
        files.sort();
        let mut archive = tar::Builder::new(Vec::new());
        for file in files {
            let relative = file
                .strip_prefix(&base)
                .unwrap()
                .to_string_lossy()
                .replace("/./", "/");
            let relative = relative.trim_start_matches("./");
            let bytes = fs::read(&file).unwrap();
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_mtime(0);
            archive
                .append_data(&mut header, relative, bytes.as_slice())
                .unwrap();
        }
        let bundle = archive.into_inner().unwrap();
        let path = out_dir.join(format!("scaffold-{name}.tar.zst"));
        fs::write(&path, agentplex_compression::compress(&bundle)).unwrap();
        generated.push_str(&format!(
            "pub(crate) const {name}: &[u8] = include_bytes!({:?});\n",
            path.display().to_string()
        ));
    }
    fs::write(out_dir.join("scaffold_files.rs"), generated).unwrap();
}

/// Every file under `path` (or `path` itself), skipping build output.
fn collect_files(path: &Path, files: &mut Vec<PathBuf>) {
    if path.is_file() {
        files.push(path.to_owned());
        return;
    }
    for entry in fs::read_dir(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())) {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|name| name != "target") {
            collect_files(&path, files);
        }
    }
}

/// `AGENTPLEX_BUILD_COMMIT` (from `AGENTPLEX_COMMIT` in the environment, or the older
/// `SANDBOX_AGENT_COMMIT`, else `git rev-parse`) and
/// `AGENTPLEX_BUILD_TARGET` for `agentplex --version`. Cargo also sets these in the
/// environment of `cargo test` and `cargo run`, so they must not be names the daemon
/// reads as settings (an old `SANDBOX_AGENT_*` name would print its deprecation line).
fn stamp_version(root: &Path, target: &str) {
    println!("cargo:rerun-if-env-changed=AGENTPLEX_COMMIT");
    println!("cargo:rerun-if-env-changed=SANDBOX_AGENT_COMMIT");
    let git = root.join(".git");
    if git.is_dir() {
        println!("cargo:rerun-if-changed={}", git.join("HEAD").display());
        if let Ok(head) = fs::read_to_string(git.join("HEAD")) {
            if let Some(reference) = head.trim().strip_prefix("ref: ") {
                println!("cargo:rerun-if-changed={}", git.join(reference).display());
            }
        }
    }
    let given = env::var("AGENTPLEX_COMMIT").or_else(|_| env::var("SANDBOX_AGENT_COMMIT"));
    let commit = given.ok().or_else(|| {
        let output = Command::new("git")
            .args(["rev-parse", "--short=12", "HEAD"])
            .current_dir(root)
            .output()
            .ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    });
    println!(
        "cargo:rustc-env=AGENTPLEX_BUILD_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );
    println!("cargo:rustc-env=AGENTPLEX_BUILD_TARGET={target}");
}
