//! An adapter project folder (as `adapters new` writes one) for `adapters test
//! DIR`: build its component, then check and replay it like a component file.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::error::LocalError;

/// Whether `path` is a Cargo project (a folder with a `Cargo.toml`).
pub fn is_project(path: &Path) -> bool {
    path.is_dir() && path.join("Cargo.toml").is_file()
}

/// Builds the project's component with `cargo build --release --target
/// wasm32-wasip2` (cargo's output goes to stderr) and returns its path.
pub fn build(project: &Path) -> Result<PathBuf, LocalError> {
    let manifest = project.join("Cargo.toml");
    let package = package_name(&manifest)?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!(
        "building {} (cargo build --release --target wasm32-wasip2)",
        project.display()
    );
    let status = Command::new(&cargo)
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-wasip2",
            "--manifest-path",
        ])
        .arg(&manifest)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .stdout(std::process::Stdio::inherit())
        .stderr(std::process::Stdio::inherit())
        .status()
        .map_err(LocalError::NoCargo)?;
    if !status.success() {
        return Err(LocalError::BuildFailed(project.to_owned()));
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| project.join("target"));
    let component = target
        .join("wasm32-wasip2/release")
        .join(format!("{}.wasm", package.replace('-', "_")));
    if component.is_file() {
        Ok(component)
    } else {
        Err(LocalError::NoComponent(component))
    }
}

/// The `name` of the manifest's `[package]`.
fn package_name(manifest: &Path) -> Result<String, LocalError> {
    let text = std::fs::read_to_string(manifest).map_err(|source| LocalError::Read {
        path: manifest.to_owned(),
        source,
    })?;
    let mut in_package = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package {
            if let Some(value) = line.strip_prefix("name").map(str::trim_start) {
                if let Some(value) = value.strip_prefix('=') {
                    return Ok(value.trim().trim_matches('"').to_owned());
                }
            }
        }
    }
    Err(LocalError::NoPackageName(manifest.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_package_name_is_read_from_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("Cargo.toml");
        std::fs::write(
            &manifest,
            "[workspace]\n\n[package]\nname = \"my-agent-adapter\"\nversion = \"0.1.0\"\n\n[dependencies]\nname = 1\n",
        )
        .unwrap();
        assert_eq!(package_name(&manifest).unwrap(), "my-agent-adapter");
        std::fs::write(&manifest, "[workspace]\n").unwrap();
        assert!(matches!(
            package_name(&manifest),
            Err(LocalError::NoPackageName(path)) if path == manifest
        ));
        assert!(is_project(dir.path()) && !is_project(&manifest));
    }
}
