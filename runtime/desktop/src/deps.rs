//! The programs the desktop runs, and the Debian packages they come from.

use std::path::PathBuf;

/// A program the desktop runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dependency {
    /// The command.
    pub program: &'static str,
    /// The Debian package that has it.
    pub package: &'static str,
    /// Whether the desktop cannot start without it (the others serve one feature).
    pub required: bool,
    /// What it is for.
    pub purpose: &'static str,
}

/// Every program the desktop may run.
pub const DEPENDENCIES: [Dependency; 5] = [
    Dependency {
        program: "Xvfb",
        package: "xvfb",
        required: true,
        purpose: "the X server",
    },
    Dependency {
        program: "openbox",
        package: "openbox",
        required: true,
        purpose: "the window manager",
    },
    Dependency {
        program: "dbus-daemon",
        package: "dbus",
        required: false,
        purpose: "the session bus programs on the desktop talk over",
    },
    Dependency {
        program: "ffmpeg",
        package: "ffmpeg",
        required: false,
        purpose: "recordings",
    },
    Dependency {
        program: "xdg-open",
        package: "xdg-utils",
        required: false,
        purpose: "opening files and URLs",
    },
];

/// Where a program is on the daemon's `PATH`.
pub fn find(program: &str) -> Option<PathBuf> {
    which::which(program).ok()
}

/// The dependencies that are not installed.
pub fn missing() -> Vec<Dependency> {
    DEPENDENCIES
        .into_iter()
        .filter(|dependency| find(dependency.program).is_none())
        .collect()
}

/// The command that installs `packages` on Debian or Ubuntu.
pub fn install_command(missing: &[Dependency]) -> Option<String> {
    if missing.is_empty() {
        return None;
    }
    let packages: Vec<&str> = missing
        .iter()
        .map(|dependency| dependency.package)
        .collect();
    Some(format!(
        "apt-get install -y --no-install-recommends {}",
        packages.join(" ")
    ))
}
