//! Building and starting the command of a run or a managed process, with the
//! system's reason when it cannot start.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};

use std::process::{Child, Command};

use crate::group::Leader;
use crate::in_use::{self, Hold};
use crate::ProcessError;

/// What to start.
pub struct CommandSpec<'a> {
    /// The program: a path, or a name looked up in `PATH`.
    pub command: &'a str,
    /// Its arguments.
    pub args: &'a [String],
    /// Its working directory; the daemon's when `None`.
    pub cwd: Option<&'a str>,
    /// Variables added to the daemon's environment (less its secrets).
    pub env: &'a BTreeMap<String, String>,
}

impl CommandSpec<'_> {
    /// The command with its arguments, directory and environment; stdio is the
    /// caller's to set. Checks the directory first, so a bad one is told apart
    /// from a missing program. A program in an installed agent's package folder
    /// is started from the folder's real path, and the folder is held (kept by
    /// reinstalls) as long as the returned hold is.
    pub fn command(&self) -> Result<(Command, Option<Hold>), ProcessError> {
        if self.command.is_empty() {
            return Err(ProcessError::InvalidRequest("`command` is empty".into()));
        }
        if let Some(cwd) = self.cwd {
            agentplex_files::check_working_directory(Path::new(cwd))?;
        }
        let held = self.located().map(|program| in_use::hold(&program));
        let mut command = match &held {
            Some((real, Some(_))) => {
                let mut command = Command::new(real);
                command.arg0(self.command);
                command
            }
            _ => Command::new(self.command),
        };
        crate::secrets::keep_from_child(&mut command);
        command.args(self.args).envs(self.env);
        if let Some(cwd) = self.cwd {
            command.current_dir(cwd);
        }
        Ok((command, held.and_then(|(_, hold)| hold)))
    }

    /// Where the program is, as `exec` will find it: a path (relative to the
    /// working directory), or a name looked up in the `PATH` it will have.
    fn located(&self) -> Option<PathBuf> {
        let cwd = self
            .cwd
            .map(PathBuf::from)
            .or_else(|| std::env::current_dir().ok())?;
        if self.command.contains('/') {
            return Some(cwd.join(self.command));
        }
        let path = self
            .env
            .get("PATH")
            .map(std::ffi::OsString::from)
            .or_else(|| std::env::var_os("PATH"));
        which::which_in(self.command, path, cwd).ok()
    }

    /// Starts the command (which must make the child a group leader), or says
    /// why it could not. The `Child` is for its stdio only.
    pub fn spawn(&self, command: &mut Command) -> Result<(Leader, Child), ProcessError> {
        Leader::spawn(command).map_err(|source| ProcessError::SpawnFailed {
            command: self.command.to_owned(),
            source,
        })
    }
}

/// The exit code and the signal of a finished process.
pub fn exit_parts(status: std::process::ExitStatus) -> (Option<i32>, Option<i32>) {
    use std::os::unix::process::ExitStatusExt as _;
    (status.code(), status.signal())
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentplex_files::FsError;

    fn spec<'a>(
        command: &'a str,
        cwd: Option<&'a str>,
        env: &'a BTreeMap<String, String>,
    ) -> CommandSpec<'a> {
        CommandSpec {
            command,
            args: &[],
            cwd,
            env,
        }
    }

    #[tokio::test]
    async fn a_missing_program_carries_the_system_reason_and_a_bad_directory_is_a_path_error() {
        let env = BTreeMap::new();
        let missing = spec("/nonexistent/program", None, &env);
        let error = missing
            .spawn(&mut missing.command().unwrap().0)
            .unwrap_err();
        assert!(
            matches!(&error, ProcessError::SpawnFailed { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
                && error.to_string().contains("No such file or directory"),
            "{error}"
        );
        let error = spec("true", Some("/nonexistent-dir"), &env)
            .command()
            .unwrap_err();
        assert!(
            matches!(&error, ProcessError::WorkingDirectory(FsError::NotFound(_)))
                && error.to_string() == "working directory /nonexistent-dir does not exist",
            "{error}"
        );
        let error = spec("true", Some("/proc/self/status"), &env)
            .command()
            .unwrap_err();
        assert!(
            matches!(&error, ProcessError::WorkingDirectory(FsError::Conflict(d)) if d.contains("is not a directory")),
            "{error}"
        );
    }
}
