//! The programs a started desktop runs: the X server (Xvfb), the session bus and the
//! window manager (openbox), each leading its own process group with its output in a
//! log file, stopped with their groups.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use agentplex_api::DesktopProcessInfo;
use rustix::process::{kill_process_group, Pid, Signal};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};

use crate::xauth::Authority;
use crate::DesktopError;

/// How long the X server and the session bus may take to come up.
const READY_WITHIN: Duration = Duration::from_secs(15);
/// How long a program has to end after SIGTERM before its group is killed.
const STOP_GRACE: Duration = Duration::from_secs(3);

/// One program of the desktop.
pub(crate) struct Program {
    name: &'static str,
    child: Child,
    pid: Option<u32>,
    log: PathBuf,
}

impl Program {
    /// Starts `command` in a process group of its own, stderr (and stdout unless it
    /// is read) to `<dir>/<name>.log`.
    fn spawn(
        name: &'static str,
        mut command: Command,
        dir: &Path,
        read_stdout: bool,
    ) -> Result<Program, DesktopError> {
        let log = dir.join(format!("{name}.log"));
        let file = File::create(&log).map_err(|error| {
            DesktopError::StartFailed(format!("cannot create {}: {error}", log.display()))
        })?;
        let stdout = if read_stdout {
            Stdio::piped()
        } else {
            Stdio::from(
                file.try_clone()
                    .map_err(|error| DesktopError::StartFailed(error.to_string()))?,
            )
        };
        command
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(file)
            .process_group(0)
            .kill_on_drop(true);
        let child = command
            .spawn()
            .map_err(|error| DesktopError::StartFailed(format!("cannot start {name}: {error}")))?;
        let pid = child.id();
        Ok(Program {
            name,
            child,
            pid,
            log,
        })
    }

    /// Whether it still runs.
    pub(crate) fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// How the status describes it.
    pub(crate) fn info(&mut self) -> DesktopProcessInfo {
        let running = self.running();
        DesktopProcessInfo {
            name: self.name.to_string(),
            pid: self.pid.filter(|_| running),
            running,
            log_path: Some(self.log.display().to_string()),
        }
    }

    /// The end of its log, for an error message.
    pub(crate) fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text
            .lines()
            .filter(|line| !line.trim().is_empty())
            .collect();
        lines[lines.len().saturating_sub(5)..].join(" | ")
    }

    /// Stops its process group: SIGTERM, then SIGKILL after a grace period.
    pub(crate) async fn stop(mut self) {
        let Some(group) = self.pid.and_then(|pid| Pid::from_raw(pid as i32)) else {
            return;
        };
        let _ = kill_process_group(group, Signal::TERM);
        if tokio::time::timeout(STOP_GRACE, self.child.wait())
            .await
            .is_err()
        {
            let _ = kill_process_group(group, Signal::KILL);
            let _ = self.child.wait().await;
        }
        // What it left running in its group.
        let _ = kill_process_group(group, Signal::KILL);
    }

    /// The first line it prints on stdout, within [`READY_WITHIN`].
    async fn first_line(&mut self) -> Result<String, DesktopError> {
        let stdout = self.child.stdout.take();
        let line = match stdout {
            Some(stdout) => tokio::time::timeout(READY_WITHIN, read_line(stdout))
                .await
                .ok()
                .flatten(),
            None => None,
        };
        line.ok_or_else(|| {
            DesktopError::StartFailed(format!(
                "{} did not come up: {}",
                self.name,
                self.log_tail()
            ))
        })
    }
}

async fn read_line(stdout: impl AsyncRead + Unpin) -> Option<String> {
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).await.ok()?;
    Some(line.trim().to_string()).filter(|line| !line.is_empty())
}

/// The X server's settings.
pub(crate) struct ServerSettings {
    pub width: u32,
    pub height: u32,
    pub dpi: u32,
    /// The display number; the first free one when absent.
    pub display: Option<u32>,
}

/// Starts Xvfb and waits until it accepts connections; answers it and its display
/// name (`:N`).
pub(crate) async fn start_x_server(
    settings: &ServerSettings,
    dir: &Path,
    authority: &Authority,
) -> Result<(Program, String), DesktopError> {
    let mut command = Command::new("Xvfb");
    if let Some(number) = settings.display {
        command.arg(format!(":{number}"));
    }
    command
        // The display number, written once the server accepts connections.
        .args(["-displayfd", "1"])
        .args([
            "-screen",
            "0",
            &format!("{}x{}x24", settings.width, settings.height),
        ])
        .args(["-dpi", &settings.dpi.to_string()])
        // Only clients with the cookie connect.
        .arg("-auth")
        .arg(authority.path())
        .args([
            "-nolisten",
            "tcp",
            "+extension",
            "XTEST",
            "+extension",
            "XFIXES",
        ]);
    let mut program = Program::spawn("xvfb", command, dir, true)?;
    let number = program.first_line().await?;
    authority.for_display(number.trim())?;
    Ok((program, format!(":{number}")))
}

/// Starts a session bus for the desktop's programs; answers it and its address.
pub(crate) async fn start_session_bus(
    display: &str,
    dir: &Path,
) -> Result<(Program, String), DesktopError> {
    let mut command = Command::new("dbus-daemon");
    command
        .args(["--session", "--nofork", "--nopidfile", "--print-address=1"])
        .env("DISPLAY", display);
    let mut program = Program::spawn("dbus", command, dir, true)?;
    let address = program.first_line().await?;
    Ok((program, address))
}

/// Starts openbox on the display.
pub(crate) fn start_window_manager(
    env: &[(String, String)],
    dir: &Path,
) -> Result<Program, DesktopError> {
    let mut command = Command::new("openbox");
    command
        .arg("--sm-disable")
        .envs(env.iter().map(|(name, value)| (name, value)));
    Program::spawn("openbox", command, dir, false)
}
