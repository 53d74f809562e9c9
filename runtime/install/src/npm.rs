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
    let root = fetch_package(spec, staging, progress).await?;
    archive::find_binary(&root, binary_path).map_err(|error| InstallError::Npm {
        spec: spec.to_owned(),
        reason: NpmError::Package(Arc::new(error)),
    })
}

/// Fetches `spec` into `staging` with its dependencies; returns the package's
/// folder (`<staging>/unpacked/package`).
pub async fn fetch_package(
    spec: &str,
    staging: &Path,
    progress: &Progress,
) -> Result<std::path::PathBuf, InstallError> {
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
    Ok(root)
}

/// The script `npx` would run for a package: its `bin` entry named `command`, else
/// its only one, else the one named after the package (without its scope).
pub fn bin_entry(root: &Path, package: &str, command: Option<&str>) -> Result<String, String> {
    let manifest: serde_json::Value = std::fs::read(root.join("package.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or("the package has no readable package.json")?;
    let bare = match package.char_indices().skip(1).find(|&(_, c)| c == '@') {
        Some((at, _)) => &package[..at],
        None => package,
    };
    let unscoped = bare.rsplit('/').next().unwrap_or(bare);
    let name = command.unwrap_or(unscoped);
    match &manifest["bin"] {
        serde_json::Value::String(path) => Ok(path.clone()),
        serde_json::Value::Object(bins) => {
            let only = (bins.len() == 1).then(|| bins.values().next()).flatten();
            bins.get(name)
                .or(only.filter(|_| command.is_none()))
                .and_then(|path| path.as_str())
                .map(str::to_owned)
                .ok_or_else(|| format!("the package has no command {name:?} in its bin"))
        }
        _ => Err("the package lists no command (no bin in package.json)".into()),
    }
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

/// How many times an npm command is tried: once more after a failure, since a
/// registry's or a cache's passing trouble (a dropped connection, a tarball cut
/// short) fails a command that succeeds when run again, and both are idempotent
/// in a fresh staging folder.
const NPM_ATTEMPTS: usize = 2;

/// Runs npm in `dir`, again after a failure; on the last failure, what npm said.
async fn run(npm: &Path, args: &[&str], dir: &Path) -> Result<(), NpmError> {
    let mut attempt = 1;
    loop {
        match run_once(npm, args, dir).await {
            Err(error @ NpmError::Failed { .. }) if attempt < NPM_ATTEMPTS => {
                tracing::warn!(command = args[0], %error, "npm failed; trying again");
                attempt += 1;
            }
            outcome => return outcome,
        }
    }
}

/// Runs npm in `dir` once; on failure, what it said.
async fn run_once(npm: &Path, args: &[&str], dir: &Path) -> Result<(), NpmError> {
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
    Err(NpmError::Failed {
        command: args[0].to_owned(),
        status: output.status,
        tail: what_npm_said(&String::from_utf8_lossy(&output.stderr)),
    })
}

/// The last lines of npm's complaint: its `npm error` lines without the pointer
/// to its debug log (a file the client cannot read), or, when it printed no
/// other error, its last warnings (which then say what went wrong).
fn what_npm_said(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.contains("A complete log of this run"))
        .collect();
    let errors: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|line| !line.starts_with("npm warn"))
        .collect();
    let said = if errors.is_empty() { lines } else { errors };
    said[said.len().saturating_sub(4)..].join(" / ")
}

#[cfg(test)]
mod tests {
    use super::what_npm_said;

    #[test]
    fn npm_errors_are_kept_without_the_log_pointer() {
        let stderr = "npm warn deprecated x@1\nnpm error code E404\nnpm error 404 Not Found - GET x\n\
                      npm error A complete log of this run can be found in: /root/.npm/_logs/a.log\n";
        assert_eq!(
            what_npm_said(stderr),
            "npm error code E404 / npm error 404 Not Found - GET x"
        );
    }

    #[test]
    fn warnings_say_what_went_wrong_when_npm_printed_no_error() {
        let stderr = "npm warn tarball data for y@2 seems to be corrupted\n\
                      npm error A complete log of this run can be found in: /root/.npm/_logs/b.log\n";
        assert_eq!(
            what_npm_said(stderr),
            "npm warn tarball data for y@2 seems to be corrupted"
        );
    }
}
