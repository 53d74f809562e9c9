//! The npm source: `npm pack <spec>` (so npm's configured registry, auth and proxy
//! apply), the tarball unpacked, and the package's own dependencies installed with
//! `npm install --omit=dev` when it has any (a Node CLI needs them to run).
//!
//! npm checks every tarball against the integrity hash the registry lists for it,
//! and both commands run with `--ignore-scripts`: no lifecycle script of the
//! package or of any dependency runs (an install must not run code from the
//! registry; the agents' packages need none, see the adapters' install docs).

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use super::archive::{self, Unpacked};
use super::error::NpmError;
use super::progress::{Progress, Stage};
use super::InstallError;

/// Longest an npm command may run.
const NPM_TIMEOUT: Duration = Duration::from_secs(600);

/// Fetches `spec` into `staging` and finds `binary_path` in the package.
pub async fn fetch(
    spec: &str,
    binary_path: &str,
    staging: &Path,
    progress: &Progress,
) -> Result<Unpacked, InstallError> {
    let fail = |reason: NpmError| InstallError::Npm {
        spec: spec.to_owned(),
        reason,
    };
    let staging_error = |error| fail(NpmError::Staging(Arc::new(error)));
    let package_error = |error| fail(NpmError::Package(Arc::new(error)));
    let npm = which::which("npm").map_err(|_| fail(NpmError::NotOnPath))?;
    progress.report(Stage::Npm, spec, 0, None);
    run(
        &npm,
        &["pack", spec, "--pack-destination", ".", "--ignore-scripts"],
        staging,
    )
    .await
    .map_err(&fail)?;
    let tarball = std::fs::read_dir(staging)
        .map_err(staging_error)?
        .flatten()
        .map(|entry| entry.path())
        .find(|path| path.extension().is_some_and(|ext| ext == "tgz"))
        .ok_or_else(|| fail(NpmError::NoTarball))?;
    let unpacked = staging.join("unpacked");
    std::fs::create_dir(&unpacked).map_err(staging_error)?;
    let root = unpacked.join("package");
    {
        let (tarball, unpacked) = (tarball.clone(), unpacked.clone());
        tokio::task::spawn_blocking(move || {
            archive::unpack(
                &tarball,
                agentplex_host::ArchiveKind::TarGz,
                "package/package.json",
                &unpacked,
            )
        })
        .await
        .map_err(|error| fail(NpmError::Unpacking(Arc::new(error))))?
        .map_err(package_error)?;
    }
    if has_dependencies(&root.join("package.json")) {
        run(
            &npm,
            &[
                "install",
                "--omit=dev",
                "--no-audit",
                "--no-fund",
                "--no-package-lock",
                "--ignore-scripts",
            ],
            &root,
        )
        .await
        .map_err(&fail)?;
    }
    archive::find_binary(&root, binary_path).map_err(package_error)
}

/// Whether a `package.json` lists runtime dependencies.
fn has_dependencies(manifest: &Path) -> bool {
    std::fs::read(manifest)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|manifest| {
            manifest
                .get("dependencies")?
                .as_object()
                .map(|d| !d.is_empty())
        })
        .unwrap_or(false)
}

/// Runs npm in `dir`; on failure, the end of what it printed.
async fn run(npm: &Path, args: &[&str], dir: &Path) -> Result<(), NpmError> {
    let mut command = tokio::process::Command::new(npm);
    agentplex_processes::secrets::keep_from_child(command.as_std_mut());
    let command = command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(NPM_TIMEOUT, command)
        .await
        .map_err(|_| NpmError::TimedOut {
            command: args[0].to_owned(),
            timeout: NPM_TIMEOUT,
        })?
        .map_err(|error| NpmError::Spawn(Arc::new(error)))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = stderr
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.contains("npm warn"))
        .collect();
    let tail = tail[tail.len().saturating_sub(4)..].join(" / ");
    Err(NpmError::Failed {
        command: args[0].to_owned(),
        status: output.status,
        tail,
    })
}
