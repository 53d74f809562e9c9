//! Builds the default adapter components (`adapters/`, for `wasm32-wasip2`),
//! precompiles them for the target the daemon is built for, and embeds both, so
//! `agentplex server` works with no files next to it and starts without
//! compiling anything. Adapters stay replaceable at run time through
//! `--adapters-dir`.
//!
//! Precompiling (the `precompiled-builtins` feature, on by default) goes through the
//! host crate itself (`agentplex_host::precompile`, by way of
//! `agentplex-precompile`,
//! wasmtime's `Engine::precompile_component` under the engine settings the daemon
//! runs with by default), and gives portable code: the target's baseline CPU
//! features only. When the daemon later runs with other settings, its host sees
//! that the code does not fit and compiles the embedded WebAssembly instead.
//!
//! `AGENTPLEX_PRECOMPILED_BUILTINS=DIR` takes the artifacts from DIR instead, as
//! `agentplex-precompile` (`host-api/precompile`) wrote them, and fails the build
//! when one is missing: a second build of the daemon (the release after a debug
//! build) then needs no copy of the host for this script (build it with
//! `--no-default-features`).
//!
//! `AGENTPLEX_BUILTIN_ADAPTERS=mock,<agent>` (comma-separated agent crates
//! under `adapters/`) builds and embeds only those: for a daemon with fewer agents,
//! or to keep building while another adapter crate is mid-edit.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};

use agentplex_precompile::{base_index, HANDOVER_VAR};

const WASM_TARGET: &str = "wasm32-wasip2";
/// Environment variable that limits the built-in adapters (see the module docs).
const SELECTION_VAR: &str = "AGENTPLEX_BUILTIN_ADAPTERS";
/// Its name in 0.2 and earlier, still read.
const LEGACY_SELECTION_VAR: &str = "SANDBOX_AGENT_BUILTIN_ADAPTERS";

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest_dir.ancestors().nth(2).unwrap();
    let adapters = root.join("adapters");
    watch_sources(&adapters, &root.join("wit"));

    println!("cargo:rerun-if-env-changed={SELECTION_VAR}");
    println!("cargo:rerun-if-env-changed={LEGACY_SELECTION_VAR}");
    let selected = env::var(SELECTION_VAR).or_else(|_| env::var(LEGACY_SELECTION_VAR));
    let selection: Option<Vec<String>> = selected.ok().map(|list| {
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
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    let target = env::var("TARGET").unwrap();
    println!("cargo:rerun-if-env-changed={HANDOVER_VAR}");
    let handover = env::var_os(HANDOVER_VAR).map(PathBuf::from);
    let mut generated = String::from(
        "/// Adapter components built from `adapters/`, precompiled where possible.\n",
    );
    generated.push_str("pub const BUILTIN_ADAPTERS: &[Builtin] = &[\n");
    // The base the other builtins are stored against (`BASE_COMPONENT`).
    let base_index = base_index(&components);
    let base = base_index.map(|i| {
        let wasm = fs::read(&components[i]).expect("reading the base adapter component");
        let artifact = precompiled(&components[i], None, handover.as_deref(), &out_dir, &target)
            .ok()
            .flatten();
        (wasm, artifact)
    });
    for (index, path) in components.iter().enumerate() {
        let name = path.file_name().unwrap().to_string_lossy();
        let delta_base = base.as_ref().filter(|_| Some(index) != base_index);
        let against =
            delta_base.and_then(|(wasm, artifact)| Some((&wasm[..], artifact.as_deref()?)));
        let precompiled = match precompiled(path, against, handover.as_deref(), &out_dir, &target) {
            Ok(None) => "None".to_owned(),
            Ok(Some(artifact)) => {
                format!("Some(include_bytes!({:?}))", artifact.display().to_string())
            }
            Err(error) => {
                println!("cargo:warning=not precompiling {name} for {target}: {error}; the daemon will compile it when it starts");
                "None".to_owned()
            }
        };
        let compressed_wasm = compress(path, delta_base.map(|(wasm, _)| &wasm[..]), &out_dir);
        generated.push_str(&format!(
            "    Builtin {{ name: {name:?}, compressed_wasm: include_bytes!({:?}), precompiled: {precompiled}, against_base: {} }},\n",
            compressed_wasm.display().to_string(),
            delta_base.is_some()
        ));
    }
    generated.push_str("];\n");
    generated.push_str(&format!(
        "/// The builtin the others are compressed against.\npub const BUILTIN_BASE: Option<&Builtin> = {};\n",
        base_index.map_or("None".to_owned(), |i| format!("Some(&BUILTIN_ADAPTERS[{i}])"))
    ));
    fs::write(out_dir.join("builtin_adapters.rs"), generated).unwrap();
}

/// The precompiled artifact of one component for `target`, its code stored against
/// the base's when `base` (the base's WebAssembly and artifact) is given: taken
/// from the `handover` folder when there is one (a build that asked for it fails
/// without it), else precompiled into `out_dir` with the `precompiled-builtins`
/// feature, else none (the daemon compiles the builtin when it starts).
fn precompiled(
    wasm_path: &Path,
    base: Option<(&[u8], &Path)>,
    handover: Option<&Path>,
    out_dir: &Path,
    target: &str,
) -> Result<Option<PathBuf>, String> {
    if let Some(dir) = handover {
        let artifact = agentplex_precompile::handed_over(dir, wasm_path, base.map(|b| b.0), target)
            .unwrap_or_else(|error| panic!("{HANDOVER_VAR}: {error}"));
        return Ok(Some(artifact));
    }
    #[cfg(feature = "precompiled-builtins")]
    return agentplex_precompile::precompile_builtin(wasm_path, base, out_dir, target).map(Some);
    #[cfg(not(feature = "precompiled-builtins"))]
    {
        let _ = (wasm_path, out_dir);
        Ok(None)
    }
}

/// The component zstd-compressed into `out_dir`, against `base` when given (kept
/// while both are unchanged).
fn compress(wasm_path: &Path, base: Option<&[u8]>, out_dir: &Path) -> PathBuf {
    let wasm = fs::read(wasm_path).expect("reading an adapter component");
    let compressed_path = out_dir.join(format!(
        "{}.wasm.zst",
        wasm_path.file_stem().unwrap().to_string_lossy()
    ));
    let stamp = compressed_path.with_extension("zst.sha256");
    let mut inputs = wasm.clone();
    inputs.extend_from_slice(base.unwrap_or_default());
    let digest = agentplex_compression::sha256(&inputs);
    if fs::read(&stamp).is_ok_and(|known| known == digest) && compressed_path.is_file() {
        return compressed_path;
    }
    let compressed = match base {
        Some(base) => agentplex_compression::compress_against(&wasm, base),
        None => agentplex_compression::compress(&wasm),
    };
    fs::write(&compressed_path, compressed).unwrap();
    fs::write(&stamp, digest).unwrap();
    compressed_path
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
