//! The desktop (`/v1/desktop/*`): an X display in the sandbox for programs and for
//! agents to look at and act on.
//!
//! [`Desktop`] starts and stops the display's programs ([`programs`]: Xvfb, a session
//! bus, openbox) and holds one X connection to it ([`Screen`]), through which every
//! request is carried out: screenshots ([`capture`]), mouse and keyboard through
//! XTEST ([`input`], with key names from [`keys`]) and windows ([`windows`]). No
//! request shells out. [`actions`] checks what clients ask (coordinates on the screen,
//! known keys, windows that exist) before anything reaches the X server.
//!
//! A desktop whose X server died is `failed` in its status and every request says so;
//! the next start starts it again. Everything stops with [`Desktop::stop`], which the
//! daemon calls when it stops.

pub mod actions;
pub mod capture;
pub mod clipboard;
pub mod deps;
mod error;
pub mod input;
pub mod keys;
mod programs;
pub mod recordings;
pub mod screen;
pub mod windows;
pub mod xauth;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agentplex_api::{
    DesktopErrorInfo, DesktopResolution, DesktopStartRequest, DesktopState, DesktopStatusResponse,
};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

pub use error::DesktopError;
pub use screen::Screen;

use crate::clipboard::Clipboard;
use crate::programs::{Program, ServerSettings};
use crate::recordings::Recordings;

/// Screen size and DPI when a start request gives none.
pub const DEFAULT_WIDTH: u32 = 1440;
/// See [`DEFAULT_WIDTH`].
pub const DEFAULT_HEIGHT: u32 = 900;
/// See [`DEFAULT_WIDTH`].
pub const DEFAULT_DPI: u32 = 96;
/// The largest screen side Xvfb is asked for.
pub const MAX_SIDE: u32 = 8192;

/// The desktop of this daemon: at most one display at a time.
pub struct Desktop {
    /// Where the programs' logs go.
    dir: PathBuf,
    /// Held by a start or a stop while it runs.
    transition: tokio::sync::Mutex<()>,
    phase: Mutex<Phase>,
    recordings: Recordings,
}

enum Phase {
    Inactive,
    Starting,
    Stopping,
    Active(Arc<Running>),
    Failed(DesktopErrorInfo),
}

/// A started desktop.
pub struct Running {
    display: String,
    resolution: DesktopResolution,
    started_at: String,
    screen: Arc<Screen>,
    clipboard: Clipboard,
    /// The X server first.
    programs: Mutex<Vec<Program>>,
    /// Variables a program on the desktop is started with.
    env: Vec<(String, String)>,
    /// The display's cookie.
    authority: xauth::Authority,
}

impl Running {
    /// The X connection.
    pub fn screen(&self) -> &Arc<Screen> {
        &self.screen
    }

    /// The clipboard.
    pub fn clipboard(&self) -> &Clipboard {
        &self.clipboard
    }

    /// The display name (`:99`).
    pub fn display(&self) -> &str {
        &self.display
    }

    /// `DISPLAY`, `XAUTHORITY` and the session bus's address, for a program on the
    /// desktop.
    pub fn env(&self) -> &[(String, String)] {
        &self.env
    }

    /// The display's cookie (for a connection of the daemon's own).
    pub fn authority(&self) -> &xauth::Authority {
        &self.authority
    }

    /// The screen's size.
    pub fn resolution(&self) -> DesktopResolution {
        self.resolution
    }

    /// Whether the X server still runs.
    fn alive(&self) -> bool {
        self.programs
            .lock()
            .unwrap()
            .first_mut()
            .is_some_and(Program::running)
    }

    async fn stop(&self) {
        let programs = std::mem::take(&mut *self.programs.lock().unwrap());
        // The window manager and the bus before the X server they are clients of.
        for program in programs.into_iter().rev() {
            program.stop().await;
        }
    }
}

impl Desktop {
    /// No desktop yet; its programs' logs will go to `dir`.
    pub fn new(dir: PathBuf) -> Desktop {
        Desktop {
            recordings: Recordings::new(dir.join("recordings")),
            dir,
            transition: tokio::sync::Mutex::new(()),
            phase: Mutex::new(Phase::Inactive),
        }
    }

    /// The running desktop, or why there is none. A desktop whose X server died
    /// becomes `failed` here.
    pub async fn running(&self) -> Result<Arc<Running>, DesktopError> {
        let running = match &*self.phase.lock().unwrap() {
            Phase::Active(running) => running.clone(),
            Phase::Failed(error) => return Err(DesktopError::Died(error.message.clone())),
            _ => return Err(DesktopError::NotRunning),
        };
        if running.alive() {
            return Ok(running);
        }
        let message = self.fail(&running).await;
        Err(DesktopError::Died(message))
    }

    /// Records that the X server of `running` died and stops what is left of it.
    async fn fail(&self, running: &Arc<Running>) -> String {
        let tail = running
            .programs
            .lock()
            .unwrap()
            .first()
            .map(Program::log_tail)
            .unwrap_or_default();
        let message = format!("the X server of {} exited: {tail}", running.display);
        {
            let mut phase = self.phase.lock().unwrap();
            if matches!(&*phase, Phase::Active(current) if Arc::ptr_eq(current, running)) {
                *phase = Phase::Failed(DesktopErrorInfo {
                    code: "x_server_exited".into(),
                    message: message.clone(),
                });
            }
        }
        running.stop().await;
        message
    }

    /// What the desktop is doing, with its programs and windows while it runs.
    pub async fn status(&self) -> DesktopStatusResponse {
        // Notices an X server that died.
        let running = self.running().await.ok();
        let missing = deps::missing();
        let mut status = DesktopStatusResponse {
            state: DesktopState::Inactive,
            display: None,
            resolution: None,
            started_at: None,
            last_error: None,
            missing_dependencies: missing
                .iter()
                .map(|dependency| dependency.package.to_string())
                .collect(),
            install_command: deps::install_command(&missing),
            processes: Vec::new(),
            runtime_log_path: Some(self.dir.display().to_string()),
            windows: Vec::new(),
        };
        status.state = match &*self.phase.lock().unwrap() {
            Phase::Inactive if missing.iter().any(|dependency| dependency.required) => {
                DesktopState::InstallRequired
            }
            Phase::Inactive => DesktopState::Inactive,
            Phase::Starting => DesktopState::Starting,
            Phase::Stopping => DesktopState::Stopping,
            Phase::Active(_) => DesktopState::Active,
            Phase::Failed(error) => {
                status.last_error = Some(error.clone());
                DesktopState::Failed
            }
        };
        if let Some(running) = running {
            status.display = Some(running.display.clone());
            status.resolution = Some(running.resolution);
            status.started_at = Some(running.started_at.clone());
            status.processes = running
                .programs
                .lock()
                .unwrap()
                .iter_mut()
                .map(Program::info)
                .collect();
            let screen = running.screen.clone();
            status.windows = tokio::task::spawn_blocking(move || screen.windows())
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
        }
        status
    }

    /// Whether the desktop can run here: the programs it needs are installed.
    pub fn available(&self) -> Result<(), DesktopError> {
        let missing: Vec<_> = deps::missing()
            .into_iter()
            .filter(|dependency| dependency.required)
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(DesktopError::Unavailable {
            missing: missing
                .iter()
                .map(|dependency| dependency.package.to_string())
                .collect(),
            install_command: deps::install_command(&missing).unwrap_or_default(),
        })
    }

    /// Starts the desktop (a running one is left as it is) and answers its status.
    pub async fn start(
        &self,
        request: &DesktopStartRequest,
    ) -> Result<DesktopStatusResponse, DesktopError> {
        let settings = server_settings(request)?;
        let _transition = self.transition.try_lock().map_err(|_| DesktopError::Busy)?;
        if self.running().await.is_ok() {
            return Ok(self.status().await);
        }
        self.available()?;
        *self.phase.lock().unwrap() = Phase::Starting;
        match self.launch(&settings).await {
            Ok(running) => *self.phase.lock().unwrap() = Phase::Active(Arc::new(running)),
            Err(error) => {
                *self.phase.lock().unwrap() = Phase::Failed(DesktopErrorInfo {
                    code: "x_server_start_failed".into(),
                    message: error.to_string(),
                });
                return Err(error);
            }
        }
        Ok(self.status().await)
    }

    async fn launch(&self, settings: &ServerSettings) -> Result<Running, DesktopError> {
        std::fs::create_dir_all(&self.dir).map_err(|error| {
            DesktopError::StartFailed(format!("cannot create {}: {error}", self.dir.display()))
        })?;
        let authority = xauth::Authority::create(&self.dir)?;
        let (x_server, display) = programs::start_x_server(settings, &self.dir, &authority).await?;
        let mut started = vec![x_server];
        match self.launch_on(&display, &authority, &mut started).await {
            Ok((screen, clipboard, env)) => Ok(Running {
                resolution: DesktopResolution {
                    width: screen.size().0,
                    height: screen.size().1,
                    dpi: Some(settings.dpi),
                },
                display,
                started_at: OffsetDateTime::now_utc()
                    .format(&Rfc3339)
                    .unwrap_or_default(),
                screen: Arc::new(screen),
                clipboard,
                programs: Mutex::new(started),
                env,
                authority,
            }),
            Err(error) => {
                for program in started.into_iter().rev() {
                    program.stop().await;
                }
                Err(error)
            }
        }
    }

    /// Connects to the new X server and starts the bus and the window manager on it.
    async fn launch_on(
        &self,
        display: &str,
        authority: &xauth::Authority,
        started: &mut Vec<Program>,
    ) -> Result<(Screen, Clipboard, Vec<(String, String)>), DesktopError> {
        let (name, cookie) = (display.to_string(), authority.clone());
        let connecting = tokio::task::spawn_blocking(move || {
            Ok::<_, DesktopError>((
                Screen::connect(&name, &cookie)?,
                Clipboard::start(&name, &cookie)?,
            ))
        });
        let mut env = vec![
            ("DISPLAY".to_string(), display.to_string()),
            (
                "XAUTHORITY".to_string(),
                authority.path().display().to_string(),
            ),
        ];
        // The window manager and the bus come up while the connections are made
        // (openbox needs no bus: the programs it would start, we start).
        let window_manager = started.len();
        started.push(programs::start_window_manager(&env, &self.dir)?);
        let bus = async {
            match deps::find("dbus-daemon") {
                Some(_) => Some(programs::start_session_bus(display, &self.dir).await),
                None => None,
            }
        };
        let (connected, bus) = tokio::join!(connecting, bus);
        if let Some(bus) = bus {
            let (bus, address) = bus?;
            started.push(bus);
            env.push(("DBUS_SESSION_BUS_ADDRESS".to_string(), address));
        }
        let (screen, clipboard) =
            connected.map_err(|error| DesktopError::StartFailed(error.to_string()))??;
        let (screen, ready) = tokio::task::spawn_blocking(move || {
            let ready = screen.wait_for_window_manager();
            (screen, ready)
        })
        .await
        .map_err(|error| DesktopError::StartFailed(error.to_string()))?;
        if !ready? {
            let tail = started[window_manager].log_tail();
            return Err(DesktopError::StartFailed(format!(
                "openbox did not come up: {tail}"
            )));
        }
        Ok((screen, clipboard, env))
    }

    /// Stops the desktop and everything it started; answers its status.
    pub async fn stop(&self) -> Result<DesktopStatusResponse, DesktopError> {
        let _transition = self.transition.try_lock().map_err(|_| DesktopError::Busy)?;
        self.shut().await;
        Ok(self.status().await)
    }

    /// Stops the desktop whatever it is doing (the daemon is stopping).
    pub async fn shutdown(&self) {
        let _transition = self.transition.lock().await;
        self.shut().await;
    }

    async fn shut(&self) {
        self.recordings.stop_running().await;
        let previous = std::mem::replace(&mut *self.phase.lock().unwrap(), Phase::Stopping);
        if let Phase::Active(running) = previous {
            running.stop().await;
        }
        *self.phase.lock().unwrap() = Phase::Inactive;
    }
}

/// The X server's settings from a start request, each field checked.
fn server_settings(request: &DesktopStartRequest) -> Result<ServerSettings, DesktopError> {
    let side =
        |value: Option<u32>, default: u32, field: &'static str| match value.unwrap_or(default) {
            side @ 16..=MAX_SIDE => Ok(side),
            other => Err(DesktopError::Invalid {
                field,
                reason: format!("{other} is not between 16 and {MAX_SIDE} pixels"),
            }),
        };
    let dpi = match request.dpi.unwrap_or(DEFAULT_DPI) {
        dpi @ 1..=1000 => dpi,
        other => {
            return Err(DesktopError::Invalid {
                field: "dpi",
                reason: format!("{other} is not between 1 and 1000"),
            })
        }
    };
    if let Some(number) = request.display_num.filter(|&number| number > 65_535) {
        return Err(DesktopError::Invalid {
            field: "displayNum",
            reason: format!("{number} is not a display number (0 to 65535)"),
        });
    }
    Ok(ServerSettings {
        width: side(request.width, DEFAULT_WIDTH, "width")?,
        height: side(request.height, DEFAULT_HEIGHT, "height")?,
        dpi,
        display: request.display_num,
    })
}
