//! The PyPI source of a registry agent (what `uvx` would run): a virtual
//! environment in the package folder, the package installed into it by its pip.
//! Only wheels are taken (`--only-binary=:all:`): as with npm's
//! `--ignore-scripts`, an install runs no code from the registry.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use crate::InstallError;

/// Longest one step (making the environment, installing the package) may run.
const STEP_TIMEOUT: Duration = Duration::from_secs(600);

/// The folder of the environment inside the package folder.
pub const VENV: &str = "venv";

/// The pip requirement for a registry package (`tool@1.2.3` → `tool==1.2.3`; a
/// bare name pinned to `version`).
pub fn requirement(package: &str, version: &str) -> String {
    match package.split_once('@') {
        Some((name, pinned)) => format!("{name}=={pinned}"),
        None if package.contains("==") => package.to_owned(),
        None => format!("{package}=={version}"),
    }
}

/// The command a package runs by default: its name, without version or extras.
pub fn default_command(package: &str) -> &str {
    let end = package
        .find(['@', '=', '[', '<', '>', '~', '!'])
        .unwrap_or(package.len());
    &package[..end]
}

/// Makes a virtual environment in `root` and installs `requirement` into it.
pub async fn install(requirement: &str, root: &Path) -> Result<(), InstallError> {
    let fail = |reason: String| InstallError::Pypi {
        requirement: requirement.to_owned(),
        reason,
    };
    let python = which::which("python3")
        .or_else(|_| which::which("python"))
        .map_err(|_| fail("python3 is not on PATH".into()))?;
    let venv = root.join(VENV);
    let venv_arg = venv.display().to_string();
    run(&python, &["-m", "venv", &venv_arg], root)
        .await
        .map_err(&fail)?;
    let pip_python = venv.join("bin/python");
    run(
        &pip_python,
        &[
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "--only-binary=:all:",
            requirement,
        ],
        root,
    )
    .await
    .map_err(&fail)
}

/// Runs one step; on failure, the end of what it printed.
async fn run(program: &Path, args: &[&str], dir: &Path) -> Result<(), String> {
    let mut command = tokio::process::Command::new(program);
    agentplex_processes::secrets::keep_from_child(command.as_std_mut());
    let output = command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(STEP_TIMEOUT, output)
        .await
        .map_err(|_| format!("{} took longer than {STEP_TIMEOUT:?}", args.join(" ")))?
        .map_err(|error| format!("cannot run {}: {error}", program.display()))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    Err(format!(
        "{} failed ({}): {}",
        args.get(1).copied().unwrap_or_default(),
        output.status,
        lines[lines.len().saturating_sub(3)..].join(" / ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_packages_become_pinned_requirements() {
        assert_eq!(requirement("tool@1.2.3", "9"), "tool==1.2.3");
        assert_eq!(requirement("tool==1.2.3", "9"), "tool==1.2.3");
        assert_eq!(requirement("tool", "2.0.0"), "tool==2.0.0");
        assert_eq!(default_command("tool[acp]@1.2.3"), "tool");
        assert_eq!(default_command("tool"), "tool");
    }
}
