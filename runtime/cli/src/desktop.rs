//! `agentplex desktop ...`: the desktop API (`/v1/desktop/*`) from the command line,
//! and `agentplex desktop install-deps`, which installs what the desktop runs.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use agentplex_client::{
    DesktopClipboardQuery, DesktopClipboardWriteRequest, DesktopKeyboardPressRequest,
    DesktopKeyboardTypeRequest, DesktopLaunchRequest, DesktopMouseButton, DesktopMouseClickRequest,
    DesktopMouseDragRequest, DesktopMouseMoveRequest, DesktopMousePositionResponse,
    DesktopMouseScrollRequest, DesktopOpenRequest, DesktopRecordingInfo,
    DesktopRecordingStartRequest, DesktopScreenshotFormat, DesktopScreenshotQuery,
    DesktopSelection, DesktopStartRequest, DesktopStatusResponse, DesktopWindowInfo,
};
use agentplex_desktop::deps;
use clap::{Subcommand, ValueEnum};

use super::error::CliError;
use super::remote::{call, done, show, Connection};
use super::Failure;

/// `agentplex desktop ...`.
#[derive(Debug, Subcommand)]
pub enum DesktopCommand {
    /// Install what the desktop runs (Xvfb, openbox, ffmpeg, dbus, xdg-utils) with
    /// apt-get, as root or through sudo (no daemon needed).
    InstallDeps,
    /// What the desktop is doing: state, display, programs, windows, what is missing.
    Status(Connection),
    /// Start the desktop (a running one is left as it is).
    Start {
        /// Screen width [default: 1440].
        #[arg(long)]
        width: Option<u32>,
        /// Screen height [default: 900].
        #[arg(long)]
        height: Option<u32>,
        /// Dots per inch [default: 96].
        #[arg(long)]
        dpi: Option<u32>,
        #[command(flatten)]
        connection: Connection,
    },
    /// Stop the desktop and what it runs.
    Stop(Connection),
    /// Save a screenshot to a file (`-`: our stdout).
    Screenshot {
        /// Where to write the image.
        #[arg(long, short)]
        out: PathBuf,
        /// Only this region: X,Y,WIDTH,HEIGHT.
        #[arg(long, value_parser = parse_region)]
        region: Option<(i32, i32, u32, u32)>,
        /// Image format [default: png].
        #[arg(long, value_enum)]
        format: Option<Format>,
        /// JPEG quality, 1 to 100.
        #[arg(long)]
        quality: Option<u8>,
        /// Scale factor, above 0 and at most 1.
        #[arg(long)]
        scale: Option<f32>,
        /// Draw the mouse cursor.
        #[arg(long)]
        cursor: bool,
        #[command(flatten)]
        connection: Connection,
    },
    /// Move the pointer.
    Move {
        /// From the left.
        x: i32,
        /// From the top.
        y: i32,
        #[command(flatten)]
        connection: Connection,
    },
    /// Move the pointer and click.
    Click {
        /// From the left.
        x: i32,
        /// From the top.
        y: i32,
        /// The button.
        #[arg(long, value_enum, default_value_t = Button::Left)]
        button: Button,
        /// Clicks, 1 to 3.
        #[arg(long, default_value_t = 1)]
        count: u32,
        #[command(flatten)]
        connection: Connection,
    },
    /// Press at one point, move to another, release there.
    Drag {
        /// Start, from the left.
        start_x: i32,
        /// Start, from the top.
        start_y: i32,
        /// End, from the left.
        end_x: i32,
        /// End, from the top.
        end_y: i32,
        #[command(flatten)]
        connection: Connection,
    },
    /// Turn the wheel at a point.
    Scroll {
        /// From the left.
        x: i32,
        /// From the top.
        y: i32,
        /// Steps down (negative: up).
        #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
        dy: i32,
        /// Steps right (negative: left).
        #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
        dx: i32,
        #[command(flatten)]
        connection: Connection,
    },
    /// Type text into the focused window.
    Type {
        /// The text.
        text: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// Press a key or a chord (`Return`, `ctrl+shift+t`).
    Key {
        /// The key.
        key: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// Print the clipboard's text, or put TEXT on it.
    Clipboard {
        /// The text to put on it.
        text: Option<String>,
        /// The primary selection instead of the clipboard.
        #[arg(long)]
        primary: bool,
        #[command(flatten)]
        connection: Connection,
    },
    /// List the visible windows.
    Windows(Connection),
    /// Give a window the focus.
    Focus {
        /// Window id.
        id: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// Ask a window to close.
    Close {
        /// Window id.
        id: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// Start a program on the desktop (a managed process).
    Launch {
        /// Wait (up to 10 s) for its first window and print its id.
        #[arg(long)]
        wait: bool,
        /// The program and its arguments (after `--` when they start with `-`).
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
        #[command(flatten)]
        connection: Connection,
    },
    /// Open a file or URL with its default program.
    Open {
        /// A path or a URL.
        target: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// Start recording the screen.
    RecordStart {
        /// Frames per second, 1 to 60 [default: 15].
        #[arg(long)]
        fps: Option<u32>,
        #[command(flatten)]
        connection: Connection,
    },
    /// Stop the recording.
    RecordStop(Connection),
    /// List the recordings.
    Recordings(Connection),
    /// Save a recording's MP4 file.
    Download {
        /// Recording id (`rec_1`).
        id: String,
        /// Where to write it (`-`: our stdout).
        #[arg(long, short)]
        out: PathBuf,
        #[command(flatten)]
        connection: Connection,
    },
}

/// A screenshot's format.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    /// PNG.
    Png,
    /// JPEG.
    Jpeg,
    /// Lossless WebP.
    Webp,
}

/// A mouse button.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Button {
    /// The left button.
    Left,
    /// The middle button.
    Middle,
    /// The right button.
    Right,
}

fn parse_region(text: &str) -> Result<(i32, i32, u32, u32), String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let bad = || format!("{text:?} is not X,Y,WIDTH,HEIGHT");
    match parts.as_slice() {
        [x, y, width, height] => Ok((
            x.parse().map_err(|_| bad())?,
            y.parse().map_err(|_| bad())?,
            width.parse().map_err(|_| bad())?,
            height.parse().map_err(|_| bad())?,
        )),
        _ => Err(bad()),
    }
}

/// `agentplex desktop ...`.
pub async fn desktop(command: DesktopCommand) -> Result<(), Failure> {
    match command {
        DesktopCommand::InstallDeps => install_deps(),
        DesktopCommand::Status(c) => {
            let status = call(&c, c.client()?.desktop_status()).await?;
            Ok(show(&c, &status, describe)?)
        }
        DesktopCommand::Start {
            width,
            height,
            dpi,
            connection: c,
        } => {
            let request = DesktopStartRequest {
                width,
                height,
                dpi,
                ..DesktopStartRequest::default()
            };
            let status = call(&c, c.client()?.start_desktop(&request)).await?;
            Ok(show(&c, &status, describe)?)
        }
        DesktopCommand::Stop(c) => {
            let status = call(&c, c.client()?.stop_desktop()).await?;
            Ok(show(&c, &status, describe)?)
        }
        DesktopCommand::Screenshot {
            out,
            region,
            format,
            quality,
            scale,
            cursor,
            connection: c,
        } => {
            let query = DesktopScreenshotQuery {
                format: format.map(|format| match format {
                    Format::Png => DesktopScreenshotFormat::Png,
                    Format::Jpeg => DesktopScreenshotFormat::Jpeg,
                    Format::Webp => DesktopScreenshotFormat::Webp,
                }),
                quality,
                scale,
                show_cursor: cursor.then_some(true),
            };
            let image = call(&c, c.client()?.desktop_screenshot(&query, region)).await?;
            write_out(&out, &image)?;
            Ok(saved(&c, &out, image.len())?)
        }
        DesktopCommand::Move {
            x,
            y,
            connection: c,
        } => {
            let request = DesktopMouseMoveRequest { x, y };
            mouse(&c, "move", &request).await
        }
        DesktopCommand::Click {
            x,
            y,
            button,
            count,
            connection: c,
        } => {
            let request = DesktopMouseClickRequest {
                x,
                y,
                button: Some(mouse_button(button)),
                click_count: Some(count),
            };
            mouse(&c, "click", &request).await
        }
        DesktopCommand::Drag {
            start_x,
            start_y,
            end_x,
            end_y,
            connection: c,
        } => {
            let request = DesktopMouseDragRequest {
                start_x,
                start_y,
                end_x,
                end_y,
                button: None,
            };
            mouse(&c, "drag", &request).await
        }
        DesktopCommand::Scroll {
            x,
            y,
            dx,
            dy,
            connection: c,
        } => {
            let request = DesktopMouseScrollRequest {
                x,
                y,
                delta_x: Some(dx),
                delta_y: Some(dy),
            };
            mouse(&c, "scroll", &request).await
        }
        DesktopCommand::Type {
            text,
            connection: c,
        } => {
            let count = text.chars().count();
            let request = DesktopKeyboardTypeRequest {
                text,
                delay_ms: None,
            };
            call(&c, c.client()?.desktop_type(&request)).await?;
            Ok(done(&c, format!("typed {count} characters"))?)
        }
        DesktopCommand::Key { key, connection: c } => {
            let request = DesktopKeyboardPressRequest {
                key: key.clone(),
                modifiers: None,
            };
            call(&c, c.client()?.desktop_press(&request)).await?;
            Ok(done(&c, format!("pressed {key}"))?)
        }
        DesktopCommand::Clipboard {
            text,
            primary,
            connection: c,
        } => {
            let selection = primary.then_some(DesktopSelection::Primary);
            match text {
                Some(text) => {
                    let request = DesktopClipboardWriteRequest { text, selection };
                    call(&c, c.client()?.set_desktop_clipboard(&request)).await?;
                    Ok(done(&c, "copied".into())?)
                }
                None => {
                    let query = DesktopClipboardQuery { selection };
                    let clipboard = call(&c, c.client()?.desktop_clipboard(&query)).await?;
                    Ok(show(&c, &clipboard, |clipboard| clipboard.text.clone())?)
                }
            }
        }
        DesktopCommand::Windows(c) => {
            let list = call(&c, c.client()?.desktop_windows()).await?;
            Ok(show(&c, &list, |list| {
                list.windows
                    .iter()
                    .map(window)
                    .collect::<Vec<_>>()
                    .join("\n")
            })?)
        }
        DesktopCommand::Focus { id, connection: c } => {
            let focused = call(&c, c.client()?.desktop_window::<()>(&id, "focus", None)).await?;
            Ok(show(&c, &focused, window)?)
        }
        DesktopCommand::Close { id, connection: c } => {
            call(&c, c.client()?.close_desktop_window(&id)).await?;
            Ok(done(&c, format!("asked window {id} to close"))?)
        }
        DesktopCommand::Launch {
            wait,
            command,
            connection: c,
        } => {
            let mut words = command.into_iter();
            let request = DesktopLaunchRequest {
                app: words.next().unwrap_or_default(),
                args: Some(words.collect()),
                wait: Some(wait),
            };
            let launched = call(&c, c.client()?.desktop_launch(&request)).await?;
            Ok(show(&c, &launched, |launched| match &launched.window_id {
                Some(window) => format!("{} (window {window})", launched.process_id),
                None => launched.process_id.clone(),
            })?)
        }
        DesktopCommand::Open {
            target,
            connection: c,
        } => {
            let opened = call(&c, c.client()?.desktop_open(&DesktopOpenRequest { target })).await?;
            Ok(show(&c, &opened, |opened| opened.process_id.clone())?)
        }
        DesktopCommand::RecordStart { fps, connection: c } => {
            let request = DesktopRecordingStartRequest { fps };
            let recording = call(&c, c.client()?.start_desktop_recording(&request)).await?;
            Ok(show(&c, &recording, recording_line)?)
        }
        DesktopCommand::RecordStop(c) => {
            let recording = call(&c, c.client()?.stop_desktop_recording()).await?;
            Ok(show(&c, &recording, recording_line)?)
        }
        DesktopCommand::Recordings(c) => {
            let list = call(&c, c.client()?.desktop_recordings()).await?;
            Ok(show(&c, &list, |list| {
                list.recordings
                    .iter()
                    .map(recording_line)
                    .collect::<Vec<_>>()
                    .join("\n")
            })?)
        }
        DesktopCommand::Download {
            id,
            out,
            connection: c,
        } => {
            let video = call(&c, c.client()?.download_desktop_recording(&id)).await?;
            write_out(&out, &video)?;
            Ok(saved(&c, &out, video.len())?)
        }
    }
}

async fn mouse(
    c: &Connection,
    action: &str,
    request: &impl serde::Serialize,
) -> Result<(), Failure> {
    let position = call(c, c.client()?.desktop_mouse(action, request)).await?;
    Ok(show(c, &position, pointer)?)
}

fn mouse_button(button: Button) -> DesktopMouseButton {
    match button {
        Button::Left => DesktopMouseButton::Left,
        Button::Middle => DesktopMouseButton::Middle,
        Button::Right => DesktopMouseButton::Right,
    }
}

/// Writes bytes to a file, or to stdout for `-`.
fn write_out(out: &Path, bytes: &[u8]) -> Result<(), CliError> {
    use std::io::Write;
    let written = if out.as_os_str() == "-" {
        std::io::stdout()
            .write_all(bytes)
            .and_then(|()| std::io::stdout().flush())
    } else {
        std::fs::write(out, bytes)
    };
    written.map_err(|error| CliError::invalid(format!("cannot write {}: {error}", out.display())))
}

/// What a command that saved bytes prints (nothing more when they went to stdout).
fn saved(c: &Connection, out: &Path, bytes: usize) -> Result<(), CliError> {
    if out.as_os_str() == "-" {
        return Ok(());
    }
    let path = out.display().to_string();
    show(
        c,
        &serde_json::json!({ "path": path, "bytes": bytes }),
        |_| format!("wrote {bytes} bytes to {path}"),
    )
}

fn describe(status: &DesktopStatusResponse) -> String {
    let state = serde_json::to_value(status.state)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut lines = vec![match (&status.display, &status.resolution) {
        (Some(display), Some(size)) => format!(
            "{state} on {display} ({}x{}), {} windows",
            size.width,
            size.height,
            status.windows.len()
        ),
        _ => state,
    }];
    if let Some(error) = &status.last_error {
        lines.push(format!("last error ({}): {}", error.code, error.message));
    }
    if let Some(command) = &status.install_command {
        lines.push(format!(
            "missing: {} (agentplex desktop install-deps, or {command})",
            status.missing_dependencies.join(", ")
        ));
    }
    lines.join("\n")
}

fn pointer(position: &DesktopMousePositionResponse) -> String {
    match &position.window {
        Some(window) => format!("{},{} over window {window}", position.x, position.y),
        None => format!("{},{}", position.x, position.y),
    }
}

fn window(window: &DesktopWindowInfo) -> String {
    let active = if window.is_active { " (focused)" } else { "" };
    format!(
        "{}  {}x{}+{}+{}  {}{active}",
        window.id, window.width, window.height, window.x, window.y, window.title
    )
}

fn recording_line(recording: &DesktopRecordingInfo) -> String {
    let status = serde_json::to_value(recording.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    format!(
        "{}  {status}  {} bytes  {}",
        recording.id, recording.bytes, recording.started_at
    )
}

fn failed(message: String) -> Failure {
    Failure { message, code: 1 }
}

/// Installs the missing packages with apt-get (through sudo when not root).
fn install_deps() -> Result<(), Failure> {
    let missing = deps::missing();
    let Some(command) = deps::install_command(&missing) else {
        println!("everything the desktop runs is installed");
        return Ok(());
    };
    if deps::find("apt-get").is_none() {
        return Err(failed(format!(
            "no apt-get here: install {} with this system's package manager",
            missing
                .iter()
                .map(|dependency| dependency.program)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let root = rustix::process::geteuid().is_root();
    let sudo = !root && deps::find("sudo").is_some();
    if !root && !sudo {
        return Err(failed(format!(
            "installing needs root: run `{command}` as root"
        )));
    }
    let packages: Vec<&str> = missing
        .iter()
        .map(|dependency| dependency.package)
        .collect();
    let apt = |arguments: &[&str]| {
        let mut process = if sudo {
            Process::new("sudo")
        } else {
            Process::new("apt-get")
        };
        if sudo {
            process.arg("apt-get");
        }
        process
            .args(arguments)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
    };
    let install: Vec<&str> = ["install", "-y", "--no-install-recommends"]
        .into_iter()
        .chain(packages.iter().copied())
        .collect();
    // A fresh image has no package lists yet: update once and try again.
    let installed = match apt(&install) {
        Ok(status) if status.success() => true,
        _ => {
            apt(&["update"]).is_ok_and(|status| status.success())
                && apt(&install).is_ok_and(|status| status.success())
        }
    };
    if !installed {
        return Err(failed(format!("`{command}` failed (its output is above)")));
    }
    println!("installed {}", packages.join(" "));
    Ok(())
}
