//! A child leading its own process group, kept unreaped while the daemon may
//! still signal its group (see the module above for why that makes the group
//! id unambiguous), and its stdio as tokio pipes.

use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt as _;
use std::process::{Child, Command, ExitStatus};
use std::sync::Mutex;
use std::time::Duration;

use rustix::io::Errno;
use rustix::process::{Pid, PidfdFlags, Signal, WaitId, WaitIdOptions, WaitIdStatus};
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;
use tokio::net::unix::pipe;

/// How often the exit is checked where the kernel offers no pidfd (Linux < 5.3).
const EXIT_POLL: Duration = Duration::from_millis(20);

/// Where a leader is in its life.
#[derive(Debug, Clone, Copy)]
enum State {
    /// Not known to have exited.
    Running,
    /// Exited, unreaped: its pid, and so its group id, is still its own.
    Exited(ExitStatus),
    /// Reaped: its pid may be anyone's now.
    Reaped(ExitStatus),
    /// The kernel no longer knows it as the daemon's child (never expected):
    /// treated as reaped.
    Lost(Errno),
}

/// A child the daemon spawned as the leader of its own process group. Its group
/// is signalled only until the leader is reaped; dropping it reaps it (once it
/// has exited, in the background if it still runs).
#[derive(Debug)]
pub struct Leader {
    pid: Pid,
    /// Readable once the child exited; `None` where the kernel has no pidfds.
    pidfd: Option<AsyncFd<OwnedFd>>,
    state: Mutex<State>,
    /// The background reaper's own copy: its drop does not start another.
    detached: bool,
}

impl Leader {
    /// Spawns `command` (which must make the child a group leader) and takes
    /// charge of the child; the `Child` is returned for its stdio only: it must
    /// never be waited for. Call it within a tokio runtime.
    pub fn spawn(command: &mut Command) -> io::Result<(Leader, Child)> {
        let child = command.spawn()?;
        let pid = i32::try_from(child.id())
            .ok()
            .and_then(Pid::from_raw)
            .ok_or_else(|| io::Error::other("the child has no valid pid"))?;
        // The child is unreaped, so its pid cannot be anyone else's yet.
        let pidfd = rustix::process::pidfd_open(pid, PidfdFlags::NONBLOCK)
            .ok()
            // SAFETY: the `OwnedFd` stays open, on the same descriptor, until it is
            // dropped with the `AsyncFd` that owns it.
            .and_then(|fd| unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }.ok());
        let leader = Leader {
            pid,
            pidfd,
            state: Mutex::new(State::Running),
            detached: false,
        };
        Ok((leader, child))
    }

    /// Its pid, which is also its group's id.
    pub fn pid(&self) -> u32 {
        self.pid.as_raw_pid().unsigned_abs()
    }

    /// How it ended, once it did; it stays unreaped.
    pub fn try_exit(&self) -> Option<io::Result<ExitStatus>> {
        let mut state = self.state.lock().unwrap();
        match *state {
            State::Exited(status) | State::Reaped(status) => Some(Ok(status)),
            State::Lost(errno) => Some(Err(errno.into())),
            State::Running => match self.wait(WaitIdOptions::NOWAIT) {
                Ok(None) => None,
                Ok(Some(status)) => {
                    *state = State::Exited(status);
                    Some(Ok(status))
                }
                Err(errno) => {
                    *state = State::Lost(errno);
                    Some(Err(errno.into()))
                }
            },
        }
    }

    /// Resolves once the leader exited, with how; it stays unreaped.
    pub async fn exited(&self) -> io::Result<ExitStatus> {
        loop {
            if let Some(exit) = self.try_exit() {
                return exit;
            }
            match &self.pidfd {
                Some(pidfd) => {
                    let mut ready = pidfd.readable().await?;
                    if let Some(exit) = self.try_exit() {
                        return exit;
                    }
                    ready.clear_ready();
                }
                None => tokio::time::sleep(EXIT_POLL).await,
            }
        }
    }

    /// Sends `signal` to the leader's group, unless the leader was reaped (its
    /// group id may be someone else's then). False when nothing was signalled.
    pub fn signal_group(&self, signal: Signal) -> bool {
        // Held while signalling, so the leader cannot be reaped meanwhile.
        let state = self.state.lock().unwrap();
        match *state {
            State::Running | State::Exited(_) => super::signal(self.pid, signal),
            State::Reaped(_) | State::Lost(_) => false,
        }
    }

    /// SIGKILL to the leader's group, unless the leader was reaped.
    pub fn kill_group(&self) -> bool {
        self.signal_group(Signal::KILL)
    }

    /// Reaps the leader if it has exited: from then on its group is never
    /// signalled. False while it still runs.
    pub fn reap(&self) -> bool {
        let mut state = self.state.lock().unwrap();
        match *state {
            State::Reaped(_) | State::Lost(_) => true,
            State::Running | State::Exited(_) => match self.wait(WaitIdOptions::empty()) {
                Ok(None) => false,
                Ok(Some(status)) => {
                    *state = State::Reaped(status);
                    true
                }
                Err(errno) => {
                    *state = State::Lost(errno);
                    true
                }
            },
        }
    }

    /// `waitid` for the leader's exit, without blocking; `NOWAIT` in `more`
    /// leaves it unreaped.
    fn wait(&self, more: WaitIdOptions) -> Result<Option<ExitStatus>, Errno> {
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | more;
        loop {
            match rustix::process::waitid(WaitId::Pid(self.pid), options) {
                Ok(status) => return Ok(status.map(exit_status)),
                Err(Errno::INTR) => continue,
                Err(errno) => {
                    tracing::error!(pid = self.pid(), %errno, "waiting for a child");
                    return Err(errno);
                }
            }
        }
    }
}

impl Drop for Leader {
    fn drop(&mut self) {
        if self.reap() || self.detached {
            return;
        }
        // Still running: reaped once it exits (and never signalled by then).
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let orphan = Leader {
            pid: self.pid,
            pidfd: self.pidfd.take(),
            state: Mutex::new(State::Running),
            detached: true,
        };
        runtime.spawn(async move {
            let _ = orphan.exited().await;
            orphan.reap();
        });
    }
}

/// A `waitid` status as the standard library's `ExitStatus` (a wait status).
fn exit_status(status: WaitIdStatus) -> ExitStatus {
    let raw = match (status.exit_status(), status.terminating_signal()) {
        (Some(code), _) => (code & 0xff) << 8,
        (None, Some(signal)) if status.dumped() => signal | 0x80,
        (None, Some(signal)) => signal,
        (None, None) => 0,
    };
    ExitStatus::from_raw(raw)
}

/// A child's piped stdio as tokio pipes (each `None` when it was not piped).
pub struct Pipes {
    /// Its stdin.
    pub stdin: Option<pipe::Sender>,
    /// Its stdout.
    pub stdout: Option<pipe::Receiver>,
    /// Its stderr.
    pub stderr: Option<pipe::Receiver>,
}

impl Pipes {
    /// Takes the child's piped stdio. Call it within a tokio runtime.
    pub fn take(child: &mut Child) -> io::Result<Pipes> {
        let receiver = |fd: Option<OwnedFd>| fd.map(pipe::Receiver::from_owned_fd).transpose();
        Ok(Pipes {
            stdin: child
                .stdin
                .take()
                .map(|fd| pipe::Sender::from_owned_fd(fd.into()))
                .transpose()?,
            stdout: receiver(child.stdout.take().map(OwnedFd::from))?,
            stderr: receiver(child.stderr.take().map(OwnedFd::from))?,
        })
    }
}
