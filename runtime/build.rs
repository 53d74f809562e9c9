//! Builds the default adapter components (`adapters/`, for `wasm32-wasip2`) and
//! embeds them in the daemon, so `sandbox-agent server` works with no files next
//! to it. Adapters stay replaceable at run time through `--adapters-dir`.
//!
//! `SANDBOX_AGENT_BUILTIN_ADAPTERS=mock,claude` (comma-separated agent crates
//! under `adapters/`) builds and embeds only those: for a daemon with fewer agents,
//! or to keep building while another adapter crate is mid-edit.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};

const WASM_TARGET: &str = "wasm32-wasip2";
/// Environment variable that limits the built-in adapters (see the module docs).
const SELECTION_VAR: &str = "SANDBOX_AGENT_BUILTIN_ADAPTERS";

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest_dir.parent().unwrap();
    let adapters = root.join("adapters");
    watch_sources(&adapters, &root.join("wit"));

    println!("cargo:rerun-if-env-changed={SELECTION_VAR}");
    let selection: Option<Vec<String>> = env::var(SELECTION_VAR).ok().map(|list| {
        list.split(',')
            .map(|name| format!("sandbox-agent-adapter-{}", name.trim()))
            .collect()
    });

    let target_dir = adapters.join("target");
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .args([
            "build",
            "--release",
            "--target",
            WASM_TARGET,
            "--manifest-path",
        ])
        .arg(adapters.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir);
    for package in selection.iter().flatten() {
        build.args(["-p", package]);
    }
    // The outer build's settings are for the host target, not for the adapters.
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "RUSTC_WORKSPACE_WRAPPER",
    ] {
        build.env_remove(var);
    }
    let status = build
        .status()
        .expect("running cargo to build the adapter components");
    if !status.success() {
        panic!(
            "building the adapter components failed; is the {WASM_TARGET} target installed? \
             (rustup target add {WASM_TARGET})"
        );
    }

    let out_dir = target_dir.join(WASM_TARGET).join("release");
    let mut components: Vec<PathBuf> = fs::read_dir(&out_dir)
        .expect("reading the adapter build output")
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.starts_with("sandbox_agent_adapter_")
                && name.ends_with(".wasm")
                && selection.as_ref().is_none_or(|packages| {
                    packages
                        .iter()
                        .any(|p| format!("{}.wasm", p.replace('-', "_")) == name)
                })
        })
        .collect();
    components.sort();
    let mut generated =
        String::from("/// Adapter components built from `adapters/`: (file name, bytes).\n");
    generated.push_str("pub const BUILTIN_ADAPTERS: &[(&str, &[u8])] = &[\n");
    for path in &components {
        let name = path.file_name().unwrap().to_string_lossy();
        generated.push_str(&format!(
            "    ({name:?}, include_bytes!({:?})),\n",
            path.display().to_string()
        ));
    }
    generated.push_str("];\n");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("builtin_adapters.rs");
    fs::write(out, generated).unwrap();
}

/// Rebuild when an adapter's sources or the contract change (not on every build
/// of `adapters/target`).
fn watch_sources(adapters: &Path, wit: &Path) {
    println!("cargo:rerun-if-changed={}", wit.display());
    for entry in fs::read_dir(adapters).expect("reading adapters/") {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|name| name != "target") {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}
