//! `sandbox-agent adapters new NAME --dir DIR`: a buildable adapter project
//! anywhere on disk. It is the adapter template (`examples/adapter-template`)
//! renamed, with the kit and the contract it is built against vendored under
//! `vendor/`, so it needs nothing from this repository: `cargo build --release
//! --target wasm32-wasip2` inside DIR makes the component.

use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/scaffold_files.rs"));

/// Where the kit goes inside the project.
const KIT_DIR: &str = "vendor/sandbox-agent-adapter-kit";
/// The contract the embedded kit is built against.
const CONTRACT: &str = "v0.2.0";

/// What was written, for the CLI to report.
#[derive(Debug)]
pub struct Scaffolded {
    /// The project folder.
    pub dir: PathBuf,
    /// The cargo package (`my-agent-adapter`).
    pub package: String,
    /// Where `cargo build --release --target wasm32-wasip2` puts the component,
    /// relative to the project folder.
    pub component: String,
}

/// Writes a new adapter project for agent `name` into `dir` (which must not exist,
/// or be empty).
pub fn scaffold(name: &str, dir: &Path) -> Result<Scaffolded, String> {
    check_name(name)?;
    check_empty(dir)?;
    let package = format!("{name}-adapter");
    let library = package.replace('-', "_");
    let component = format!("target/wasm32-wasip2/release/{library}.wasm");
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for (path, bytes) in TEMPLATE_FILES {
        let text = String::from_utf8_lossy(bytes);
        let text = match *path {
            "Cargo.lock" => text.replacen(
                "name = \"adapter-template\"",
                &format!("name = \"{package}\""),
                1,
            ),
            "src/lib.rs" => text
                .replacen(
                    "pub const AGENT_ID: &str = \"template\";",
                    &format!("pub const AGENT_ID: &str = \"{name}\";"),
                    1,
                )
                .replacen("\"Template (line echo)\"", &format!("\"{name}\""), 1),
            _ => text.replace("adapter_template.wasm", &format!("{library}.wasm")),
        };
        files.push(((*path).to_owned(), text.into_bytes()));
    }
    files.push((
        "Cargo.toml".into(),
        project_manifest(&package, name).into_bytes(),
    ));
    files.push(("README.md".into(), readme(name, &component).into_bytes()));
    files.push((".gitignore".into(), b"/target\n".to_vec()));
    for (path, bytes) in KIT_FILES {
        let bytes = match *path {
            "Cargo.toml" => kit_manifest(&String::from_utf8_lossy(bytes))?.into_bytes(),
            "src/bindings.rs" => String::from_utf8_lossy(bytes)
                .replace(
                    &format!("\"../../wit/{CONTRACT}\""),
                    &format!("\"wit/{CONTRACT}\""),
                )
                .into_bytes(),
            _ => bytes.to_vec(),
        };
        files.push((format!("{KIT_DIR}/{path}"), bytes));
    }
    for (path, bytes) in WIT_FILES {
        files.push((format!("{KIT_DIR}/wit/{CONTRACT}/{path}"), bytes.to_vec()));
    }
    for (path, bytes) in &files {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot make {}: {e}", parent.display()))?;
        }
        std::fs::write(&target, bytes)
            .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    }
    Ok(Scaffolded {
        dir: dir.to_owned(),
        package,
        component,
    })
}

/// An agent id the daemon accepts that also makes a crate name: `[a-z0-9_-]`,
/// starting with a letter, at most 64 characters.
fn check_name(name: &str) -> Result<(), String> {
    let valid = name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if valid {
        Ok(())
    } else {
        Err(format!(
            "invalid adapter name {name:?}: use 1-64 characters of [a-z0-9_-], starting with a letter (it becomes the agent id)"
        ))
    }
}

fn check_empty(dir: &Path) -> Result<(), String> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(format!(
                    "{} is not empty: give a new folder (or an empty one)",
                    dir.display()
                ));
            }
            Ok(())
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(format!("cannot use {}: {error}", dir.display())),
    }
}

/// The project's `Cargo.toml`: a workspace of its own, the vendored kit.
fn project_manifest(package: &str, name: &str) -> String {
    format!(
        r#"# The sandbox-agent adapter for `{name}`, written by `sandbox-agent adapters new`.
# Build the component:   cargo build --release --target wasm32-wasip2
# Check it:              sandbox-agent adapters validate target/wasm32-wasip2/release/{library}.wasm
# Test it:               cargo test   (or: sandbox-agent adapters test .)
[workspace]

[package]
name = "{package}"
description = "sandbox-agent adapter for {name}"
version = "0.1.0"
edition = "2021"
publish = false

[lib]
# cdylib: the WebAssembly component; rlib: native tests of the same code.
crate-type = ["cdylib", "rlib"]

[dependencies]
# The kit carries the contract's bindings and helpers; vendored with the contract
# (its wit/ folder) so the project builds on its own.
sandbox-agent-adapter-kit = {{ path = "{KIT_DIR}" }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"

[profile.release]
# The daemon loads the component for every session: keep it small.
opt-level = "s"
lto = true
codegen-units = 1
panic = "abort"
strip = true
"#,
        library = package.replace('-', "_"),
    )
}

/// The kit's manifest with the workspace's values written in (the kit inherits
/// its version, edition, license and dependency versions from `adapters/`).
fn kit_manifest(kit: &str) -> Result<String, String> {
    let workspace = KIT_WORKSPACE
        .iter()
        .find(|(path, _)| *path == "Cargo.toml")
        .map(|(_, bytes)| String::from_utf8_lossy(bytes).into_owned())
        .ok_or("the adapters workspace manifest is not embedded")?;
    let mut out = String::new();
    for line in kit.lines() {
        let Some(key) = line.trim().strip_suffix(".workspace = true") else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let value = workspace
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once('=')?;
                (k.trim() == key).then(|| v.trim().to_owned())
            })
            .ok_or_else(|| format!("the adapters workspace does not set {key}"))?;
        out.push_str(&format!("{key} = {value}\n"));
    }
    Ok(out)
}

fn readme(name: &str, component: &str) -> String {
    format!(
        r#"# `{name}`: a sandbox-agent adapter

Written by `sandbox-agent adapters new`. It starts as the adapter template: the agent is
a program that reads the user's message on stdin and prints its answer line by line (`cat`
by default). Teach it your agent in `src/lib.rs` (facts, install recipe, credentials) and
`src/session.rs` (the session state machine).

```bash
rustup target add wasm32-wasip2                  # once
cargo build --release --target wasm32-wasip2     # -> {component}
sandbox-agent adapters validate {component}
cargo test                                       # unit tests + transcripts/ replayed (needs sandbox-agent)
sandbox-agent adapters test .                    # builds, validates and replays in one go
```

Run it in a daemon: copy the component into a folder and start `sandbox-agent server
--adapters-dir <folder>`; a daemon already running with that folder loads new and changed
components by itself (or on `POST /v1/adapters/reload`).

`vendor/sandbox-agent-adapter-kit` is the adapter kit with the contract it implements
(`wit/`), copied from the `sandbox-agent` that wrote this project; the contract and the kit
are documented there (`src/lib.rs`, `wit/{CONTRACT}/*.wit`).
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_folders_are_checked() {
        assert!(check_name("my-agent").is_ok());
        for bad in ["", "My", "1st", "a b", "x/y", &"a".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        let dir = tempfile::tempdir().unwrap();
        assert!(check_empty(dir.path()).is_ok());
        assert!(check_empty(&dir.path().join("new")).is_ok());
        std::fs::write(dir.path().join("x"), "").unwrap();
        assert!(check_empty(dir.path()).unwrap_err().contains("not empty"));
    }

    #[test]
    fn the_kit_manifest_stands_alone() {
        let manifest = KIT_FILES
            .iter()
            .find(|(path, _)| *path == "Cargo.toml")
            .map(|(_, bytes)| String::from_utf8_lossy(bytes).into_owned())
            .unwrap();
        let standalone = kit_manifest(&manifest).unwrap();
        assert!(!standalone.contains(".workspace"), "{standalone}");
        assert!(standalone.contains("wit-bindgen = \""), "{standalone}");
    }
}
