//! What the builtins' build script (`runtime/builtins/build.rs`) uses of the adapter
//! host: precompiling the builtin adapters for a target (the `compile` feature), or
//! finding them precompiled in a folder handed over through [`HANDOVER_VAR`].
//!
//! Handing over is for a second build of the daemon for the same architecture: the
//! release after the tests' debug build. Precompiling needs the host (wasmtime and
//! Cranelift) compiled for the build script, minutes of CPU in a release build; the
//! `agentplex-precompile` tool of this crate, already built with the debug build,
//! writes the same artifacts in seconds.
//!
//! Artifacts are named by what they are made from ([`artifact_file_name`]), so a
//! folder can serve any number of builds and never serves a stale artifact.

use std::fs;
use std::path::{Path, PathBuf};

use agentplex_compression::sha256;

/// Names a folder of artifacts written by `agentplex-precompile` that the builtins'
/// build script embeds instead of precompiling.
pub const HANDOVER_VAR: &str = "AGENTPLEX_PRECOMPILED_BUILTINS";

/// The builtin whose code the others are stored against: they share the kit's
/// code, so each stores mainly what differs from it. The mock is always built.
pub const BASE_COMPONENT: &str = "sandbox_agent_adapter_mock.wasm";

/// Which of `components` is the base ([`BASE_COMPONENT`]), if it is among them.
pub fn base_index(components: &[PathBuf]) -> Option<usize> {
    components
        .iter()
        .position(|path| path.file_name().is_some_and(|name| name == BASE_COMPONENT))
}

/// The file name of the artifact of component `stem` for `target`, made from its
/// WebAssembly `wasm` and, when stored against the base, the base's `base_wasm`.
/// Any other input gives another name.
pub fn artifact_file_name(
    stem: &str,
    target: &str,
    wasm: &[u8],
    base_wasm: Option<&[u8]>,
) -> String {
    let mut inputs = wasm.to_vec();
    if let Some(base) = base_wasm {
        inputs.extend_from_slice(base);
    }
    let digest: String = sha256(&inputs)[..8]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let stored = if base_wasm.is_some() {
        "delta"
    } else {
        "precompiled"
    };
    format!("{stem}.{target}.{digest}.{stored}")
}

/// The artifact of `wasm_path` for `target` that `agentplex-precompile` wrote in
/// `dir`, or why there is none.
pub fn handed_over(
    dir: &Path,
    wasm_path: &Path,
    base_wasm: Option<&[u8]>,
    target: &str,
) -> Result<PathBuf, String> {
    let (_, path) = artifact_path(dir, wasm_path, base_wasm, target)?;
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{} holds no artifact of {} for {target} (looked for {}); write it with agentplex-precompile",
            dir.display(),
            wasm_path.display(),
            path.display()
        ))
    }
}

/// Precompiles the component at `wasm_path` for `target` into `dir` (under
/// [`artifact_file_name`]) and returns the artifact's path. With `base` (the base
/// component's WebAssembly and artifact) its code is stored compressed against the
/// base's. An artifact already in `dir` is kept.
#[cfg(feature = "compile")]
pub fn precompile_builtin(
    wasm_path: &Path,
    base: Option<(&[u8], &Path)>,
    dir: &Path,
    target: &str,
) -> Result<PathBuf, String> {
    use agentplex_host::{artifact, precompile, AdapterOrigin, HostConfig};

    let (wasm, path) = artifact_path(dir, wasm_path, base.map(|b| b.0), target)?;
    if path.is_file() {
        return Ok(path);
    }
    let name = wasm_path.file_name().unwrap_or_default().to_string_lossy();
    let code = precompile(
        &HostConfig::default(),
        AdapterOrigin::Builtin(name.to_string()),
        &wasm,
        target,
    )
    .map_err(|e| e.to_string())?;
    let stored = match base {
        None => code,
        Some((_, base_artifact)) => {
            let base_code = fs::read(base_artifact)
                .map_err(|e| format!("reading {}: {e}", base_artifact.display()))?;
            artifact::rebase(&code, &base_code)
                .map_err(|e| format!("storing {name} against the base adapter: {e}"))?
        }
    };
    // Written whole or not at all: a build that stops half way leaves no artifact.
    let partial = path.with_extension("partial");
    fs::write(&partial, stored).map_err(|e| format!("writing {}: {e}", partial.display()))?;
    fs::rename(&partial, &path).map_err(|e| format!("writing {}: {e}", path.display()))?;
    Ok(path)
}

/// The component at `wasm_path`, and where its artifact for `target` is in `dir`.
fn artifact_path(
    dir: &Path,
    wasm_path: &Path,
    base_wasm: Option<&[u8]>,
    target: &str,
) -> Result<(Vec<u8>, PathBuf), String> {
    let wasm = fs::read(wasm_path).map_err(|e| format!("reading {}: {e}", wasm_path.display()))?;
    let name = artifact_file_name(&stem(wasm_path), target, &wasm, base_wasm);
    Ok((wasm, dir.join(name)))
}

/// A component's file name without `.wasm`.
fn stem(wasm_path: &Path) -> String {
    wasm_path
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_artifact_name_changes_with_every_input() {
        let alone = artifact_file_name("a", "x86_64-unknown-linux-musl", b"wasm", None);
        assert!(alone.starts_with("a.x86_64-unknown-linux-musl."), "{alone}");
        assert!(alone.ends_with(".precompiled"), "{alone}");
        let names = [
            alone,
            artifact_file_name("a", "x86_64-unknown-linux-gnu", b"wasm", None),
            artifact_file_name("a", "x86_64-unknown-linux-musl", b"wasm2", None),
            artifact_file_name("a", "x86_64-unknown-linux-musl", b"wasm", Some(b"base")),
            artifact_file_name("a", "x86_64-unknown-linux-musl", b"wasm", Some(b"base2")),
        ];
        let distinct: std::collections::BTreeSet<_> = names.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{names:?}");
    }

    #[test]
    fn a_missing_handover_names_the_file_it_looked_for() {
        let dir = std::env::temp_dir().join(format!("precompile-handover-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let wasm = dir.join("sandbox_agent_adapter_x.wasm");
        fs::write(&wasm, b"not really wasm").unwrap();
        let error = handed_over(&dir, &wasm, None, "x86_64-unknown-linux-musl").unwrap_err();
        let expected = artifact_file_name(
            "sandbox_agent_adapter_x",
            "x86_64-unknown-linux-musl",
            b"not really wasm",
            None,
        );
        assert!(error.contains(&expected), "{error}");
        fs::write(dir.join(&expected), b"artifact").unwrap();
        assert_eq!(
            handed_over(&dir, &wasm, None, "x86_64-unknown-linux-musl").unwrap(),
            dir.join(expected)
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
