//! The agent's own export and import commands, run for a session that moves (see
//! the contract's `native-command`): in the session's working directory, with the
//! environment of the agent's processes and none of the daemon's secrets, for at
//! most [`COMMAND_TIME`].

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;

use super::archive::EXPORT_PLACEHOLDER;
use super::native::MAX_NATIVE_BYTES;

/// How long one command may run.
pub const COMMAND_TIME: Duration = Duration::from_secs(120);
/// Most bytes of stderr kept for the reason of a failure.
const STDERR_BYTES: u64 = 4096;

/// Where and how the agent's commands run.
#[derive(Debug, Clone)]
pub struct CommandRunner {
    /// Variables for the agent's processes (its credentials, the session's own).
    pub env: Vec<(String, String)>,
    /// Variables no process of this agent gets (other agents' credentials).
    pub env_remove: Vec<String>,
    /// The session's working directory.
    pub cwd: PathBuf,
    /// Where bare program names are looked up first.
    pub install_dir: PathBuf,
}

impl CommandRunner {
    /// Runs `argv` (every `{file}` in it replaced by `file`) and returns what it
    /// printed on stdout; an error says why it failed, with its stderr.
    pub async fn run(&self, argv: &[String], file: Option<&Path>) -> Result<Vec<u8>, String> {
        let Some(program) = argv.first() else {
            return Err("the adapter named an empty command".into());
        };
        let located = agentplex_install::locate_program(program, &self.install_dir)
            .ok_or_else(|| format!("{program} is neither in the install dir nor on PATH"))?;
        let mut command = std::process::Command::new(&located);
        agentplex_processes::secrets::keep_from_child(&mut command);
        for name in &self.env_remove {
            command.env_remove(name);
        }
        let args = argv[1..].iter().map(|arg| match file {
            Some(file) => arg.replace(EXPORT_PLACEHOLDER, &file.display().to_string()),
            None => arg.clone(),
        });
        command
            .args(args)
            .envs(self.env.iter().cloned())
            .current_dir(&self.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut command = tokio::process::Command::from(command);
        command.kill_on_drop(true);
        let shown = argv.join(" ");
        let mut child = command
            .spawn()
            .map_err(|error| format!("cannot run `{shown}`: {error}"))?;
        let (mut stdout, mut stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
        let finished = async {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let mut limited = (&mut stdout).take(MAX_NATIVE_BYTES + 1);
            // The start of stderr is kept; the rest is read and dropped, so a
            // talkative command never waits on a full pipe.
            let errors = async {
                (&mut stderr)
                    .take(STDERR_BYTES)
                    .read_to_end(&mut err)
                    .await?;
                tokio::io::copy(&mut stderr, &mut tokio::io::sink()).await
            };
            let (read_out, read_err) = tokio::join!(limited.read_to_end(&mut out), errors);
            read_out
                .map(drop)
                .and(read_err.map(drop))
                .map_err(|error| error.to_string())?;
            let status = child.wait().await.map_err(|error| error.to_string())?;
            Ok::<_, String>((status, out, err))
        };
        let (status, out, err) = tokio::time::timeout(COMMAND_TIME, finished)
            .await
            .map_err(|_| format!("`{shown}` did not finish within {COMMAND_TIME:?}"))??;
        if out.len() as u64 > MAX_NATIVE_BYTES {
            return Err(format!(
                "`{shown}` printed more than {MAX_NATIVE_BYTES} bytes"
            ));
        }
        if !status.success() {
            let err = String::from_utf8_lossy(&err);
            return Err(format!("`{shown}` failed ({status}): {}", err.trim()));
        }
        Ok(out)
    }
}
