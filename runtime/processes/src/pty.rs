//! Pseudo-terminals for processes started with `tty`: the pair from `openpt`
//! (rustix), the child's side made its controlling terminal, and the daemon's
//! side read and written without blocking through tokio.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::process::CommandExt as _;
use std::process::Stdio;

use rustix::fs::{Mode, OFlags};
use rustix::pty::OpenptFlags;
use rustix::termios::Winsize;
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

/// A terminal's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Width in columns.
    pub cols: u16,
    /// Height in rows.
    pub rows: u16,
}

impl Size {
    /// 80×24.
    pub const DEFAULT: Size = Size { cols: 80, rows: 24 };

    fn winsize(self) -> Winsize {
        Winsize {
            ws_row: self.rows,
            ws_col: self.cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        }
    }
}

/// The daemon's side of a terminal.
pub struct Master {
    fd: AsyncFd<OwnedFd>,
}

/// The child's side, until the child is spawned with it.
pub struct Replica {
    fd: OwnedFd,
}

/// Opens a terminal pair of the given size.
pub fn open(size: Size) -> io::Result<(Master, Replica)> {
    let master = rustix::pty::openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY)?;
    rustix::pty::grantpt(&master)?;
    rustix::pty::unlockpt(&master)?;
    let name = rustix::pty::ptsname(&master, Vec::new())?;
    let replica = rustix::fs::open(
        name.as_c_str(),
        OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    rustix::termios::tcsetwinsize(&master, size.winsize())?;
    // `openpt` may not take CLOEXEC: set it, with O_NONBLOCK for tokio.
    rustix::io::fcntl_setfd(&master, rustix::io::FdFlags::CLOEXEC)?;
    rustix::fs::fcntl_setfl(&master, OFlags::NONBLOCK)?;
    // SAFETY: an `OwnedFd` stays open, on the same descriptor, until it is dropped
    // with the `AsyncFd` that owns it.
    let fd = unsafe { AsyncFd::register(master) }.map_err(|e| e.into_parts().1)?;
    Ok((Master { fd }, Replica { fd: replica }))
}

impl Replica {
    /// Makes `command` run on this terminal: stdin, stdout and stderr on it, the
    /// leader of a new session (so of a new process group too) whose controlling
    /// terminal it is.
    pub fn attach(&self, command: &mut std::process::Command) -> io::Result<()> {
        command
            .stdin(Stdio::from(self.fd.try_clone()?))
            .stdout(Stdio::from(self.fd.try_clone()?))
            .stderr(Stdio::from(self.fd.try_clone()?));
        // SAFETY: only async-signal-safe system calls run between fork and exec.
        unsafe {
            command.pre_exec(|| {
                rustix::process::setsid()?;
                // stdin is the terminal by now.
                rustix::process::ioctl_tiocsctty(BorrowedFd::borrow_raw(0))?;
                Ok(())
            });
        }
        Ok(())
    }
}

impl Master {
    /// Reads what the terminal printed; 0 once the child's side is closed by
    /// everyone (Linux answers EIO then, read as the end).
    pub async fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let mut guard = self.fd.readable().await?;
            match guard
                .try_io(|fd| rustix::io::read(fd.get_ref(), &mut *buf).map_err(io::Error::from))
            {
                Ok(Ok(n)) => return Ok(n),
                Ok(Err(error)) if error.raw_os_error() == Some(libc::EIO) => return Ok(0),
                Ok(Err(error)) => return Err(error),
                Err(_would_block) => continue,
            }
        }
    }

    /// Writes some of `bytes` to the terminal (the child reads them as typed);
    /// waits while the terminal's input buffer is full.
    pub async fn write(&self, bytes: &[u8]) -> io::Result<usize> {
        self.fd
            .async_io(Interest::WRITABLE, |fd| {
                rustix::io::write(fd, bytes).map_err(io::Error::from)
            })
            .await
    }

    /// Sets the terminal's size; the kernel signals SIGWINCH to its foreground group.
    pub fn resize(&self, size: Size) -> io::Result<()> {
        rustix::termios::tcsetwinsize(self.fd.get_ref().as_fd(), size.winsize())?;
        Ok(())
    }
}
