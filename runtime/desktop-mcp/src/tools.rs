//! The tools: what an agent may ask of the desktop, each carried out by the same
//! checked actions as `/v1/desktop/*` (`agentplex_desktop::actions`). A request the
//! desktop refuses (a point off the screen, an unknown key, no such window) is a
//! tool error whose text says why, which the model reads; never a protocol error.

use std::sync::Arc;

use agentplex_api::{
    DesktopKeyboardPressRequest, DesktopKeyboardTypeRequest, DesktopMouseButton,
    DesktopMouseClickRequest, DesktopMouseScrollRequest, DesktopRegionScreenshotQuery,
    DesktopScreenshotFormat, DesktopScreenshotQuery, DesktopStartRequest, ProcessCreateRequest,
};
use agentplex_desktop::actions::Screenshot;
use agentplex_desktop::{deps, Desktop, DesktopError};
use agentplex_processes::ProcessManager;
use axum::http::request::Parts;
use base64::Engine as _;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::Extension;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler};
use serde::Deserialize;

use crate::Grantee;

/// The tools' names, as `tools/list` gives them.
pub const TOOLS: &[&str] = &[
    "screenshot",
    "click",
    "type",
    "key",
    "scroll",
    "open",
    "windows",
];

/// The tools over one desktop: the handler of every request to the server.
#[derive(Clone)]
pub struct Toolbox {
    desktop: Arc<Desktop>,
    processes: Arc<ProcessManager>,
    tool_router: ToolRouter<Self>,
}

/// Arguments of `screenshot`: the whole screen, or a region of it.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScreenshotArgs {
    /// Left edge of a region to capture (with y, width and height); the whole screen when absent.
    pub x: Option<i32>,
    /// Top edge of the region.
    pub y: Option<i32>,
    /// Width of the region.
    pub width: Option<u32>,
    /// Height of the region.
    pub height: Option<u32>,
}

/// A mouse button, as the tools name it.
#[derive(Debug, Clone, Copy, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Button {
    /// The primary button.
    #[default]
    Left,
    /// The middle button (or wheel press).
    Middle,
    /// The secondary button (context menus).
    Right,
}

/// Arguments of `click`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClickArgs {
    /// Pixels from the screen's left edge.
    pub x: i32,
    /// Pixels from the screen's top edge.
    pub y: i32,
    /// `left` (the default), `middle` or `right`.
    #[serde(default)]
    pub button: Button,
    /// Clicks in a row: 2 for a double click (1 when absent).
    pub clicks: Option<u32>,
}

/// Arguments of `type`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeArgs {
    /// The text, typed as a keyboard would (any Unicode character).
    pub text: String,
}

/// Arguments of `key`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyArgs {
    /// A key or a chord: `Return`, `Escape`, `Tab`, `F5`, `Page_Down`, `a`, `ctrl+s`, `ctrl+shift+t`, `alt+F4`.
    pub key: String,
}

/// Arguments of `scroll`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScrollArgs {
    /// Where, in pixels from the left.
    pub x: i32,
    /// Where, in pixels from the top.
    pub y: i32,
    /// Wheel steps down (negative: up).
    pub dy: Option<i32>,
    /// Wheel steps to the right (negative: to the left).
    pub dx: Option<i32>,
}

/// Arguments of `open`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenArgs {
    /// A URL, or a file's path (relative to the session's directory, or absolute).
    pub target: String,
}

#[tool_router]
impl Toolbox {
    /// The tools over `desktop`; `open` starts its programs as `processes`.
    pub fn new(desktop: Arc<Desktop>, processes: Arc<ProcessManager>) -> Toolbox {
        Toolbox {
            desktop,
            processes,
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Takes a screenshot of the desktop (a PNG image), or of a region of it given by x, y, width and height. Coordinates of the other tools are pixels of the whole screen, origin at the top left."
    )]
    async fn screenshot(
        &self,
        Parameters(args): Parameters<ScreenshotArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        let shot = self.shoot(args).await;
        log(&parts, "screenshot", &shot);
        match shot {
            Ok((shot, size)) => {
                let data = base64::engine::general_purpose::STANDARD.encode(&shot.bytes);
                CallToolResult::success(vec![
                    ContentBlock::image(data, shot.media_type),
                    ContentBlock::text(size),
                ])
            }
            Err(error) => failed(error),
        }
    }

    #[tool(
        description = "Clicks a mouse button at a point of the screen (pixels from the top left)."
    )]
    async fn click(
        &self,
        Parameters(args): Parameters<ClickArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        let clicked = self.act(|desktop| async move {
            let request = DesktopMouseClickRequest {
                x: args.x,
                y: args.y,
                button: Some(match args.button {
                    Button::Left => DesktopMouseButton::Left,
                    Button::Middle => DesktopMouseButton::Middle,
                    Button::Right => DesktopMouseButton::Right,
                }),
                click_count: args.clicks,
            };
            desktop.mouse_click(request).await?;
            Ok(format!("clicked at ({}, {})", args.x, args.y))
        });
        answer(&parts, "click", clicked.await)
    }

    #[tool(
        name = "type",
        description = "Types text with the keyboard into the focused window."
    )]
    async fn type_text(
        &self,
        Parameters(args): Parameters<TypeArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        let typed = self.act(|desktop| async move {
            let count = args.text.chars().count();
            let request = DesktopKeyboardTypeRequest {
                text: args.text,
                delay_ms: None,
            };
            desktop.type_text(request).await?;
            Ok(format!("typed {count} characters"))
        });
        answer(&parts, "type", typed.await)
    }

    #[tool(
        description = "Presses a key or a chord of keys in the focused window: Return, Escape, Tab, BackSpace, Up, F5, ctrl+s, ctrl+shift+t, alt+F4."
    )]
    async fn key(
        &self,
        Parameters(args): Parameters<KeyArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        let pressed = self.act(|desktop| async move {
            let request = DesktopKeyboardPressRequest {
                key: args.key.clone(),
                modifiers: None,
            };
            desktop.press(request).await?;
            Ok(format!("pressed {}", args.key))
        });
        answer(&parts, "key", pressed.await)
    }

    #[tool(
        description = "Turns the mouse wheel at a point of the screen: dy steps down (negative: up), dx steps right (negative: left)."
    )]
    async fn scroll(
        &self,
        Parameters(args): Parameters<ScrollArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        let scrolled = self.act(|desktop| async move {
            let request = DesktopMouseScrollRequest {
                x: args.x,
                y: args.y,
                delta_x: args.dx,
                delta_y: args.dy,
            };
            desktop.mouse_scroll(request).await?;
            Ok(format!("scrolled at ({}, {})", args.x, args.y))
        });
        answer(&parts, "scroll", scrolled.await)
    }

    #[tool(
        description = "Opens a file or a URL on the desktop with its default program (a browser for web pages). A file's path may be relative to the working directory."
    )]
    async fn open(
        &self,
        Parameters(args): Parameters<OpenArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        let opened = self.open_target(&parts, args.target).await;
        answer(&parts, "open", opened)
    }

    #[tool(
        description = "Lists the desktop's windows: id, title, position, size, whether it has the focus, and its process id."
    )]
    async fn windows(&self, Extension(parts): Extension<Parts>) -> CallToolResult {
        let listed = self.act(|desktop| async move {
            let windows = desktop.windows().await?;
            Ok(serde_json::to_string_pretty(&windows).unwrap_or_default())
        });
        answer(&parts, "windows", listed.await)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Toolbox {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_instructions(
            "The desktop of the sandbox (an X display): look at it with screenshot, act on it with click, type, key and scroll, open files and URLs with open, list windows with windows.",
        )
    }
}

impl Toolbox {
    /// Runs `action` on the running desktop, started first if it is not.
    async fn act<F, Fut>(&self, action: F) -> Result<String, DesktopError>
    where
        F: FnOnce(Arc<Desktop>) -> Fut,
        Fut: std::future::Future<Output = Result<String, DesktopError>>,
    {
        self.ensure_running().await?;
        action(self.desktop.clone()).await
    }

    /// Starts the desktop with its defaults when it does not run (never started,
    /// stopped, or its X server died); waits out a start or stop under way.
    async fn ensure_running(&self) -> Result<(), DesktopError> {
        for _ in 0..50 {
            if self.desktop.running().await.is_ok() {
                return Ok(());
            }
            match self.desktop.start(&DesktopStartRequest::default()).await {
                Ok(_) => return Ok(()),
                Err(DesktopError::Busy) => {
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
                Err(error) => return Err(error),
            }
        }
        Err(DesktopError::Busy)
    }

    /// The screenshot `args` ask for, and a line saying what it shows.
    async fn shoot(&self, args: ScreenshotArgs) -> Result<(Screenshot, String), DesktopError> {
        self.ensure_running().await?;
        let size = self.desktop.display_info().await?.resolution;
        let format = Some(DesktopScreenshotFormat::Png);
        match (args.x, args.y, args.width, args.height) {
            (None, None, None, None) => {
                let query = DesktopScreenshotQuery {
                    format,
                    ..Default::default()
                };
                let shot = self.desktop.screenshot(&query).await?;
                let said = format!("the whole screen, {}x{} pixels", size.width, size.height);
                Ok((shot, said))
            }
            (Some(x), Some(y), Some(width), Some(height)) => {
                let query = DesktopRegionScreenshotQuery {
                    x,
                    y,
                    width,
                    height,
                    format,
                    ..Default::default()
                };
                let shot = self.desktop.region_screenshot(&query).await?;
                let said = format!(
                    "the region {width}x{height} at ({x}, {y}) of the {}x{} screen",
                    size.width, size.height
                );
                Ok((shot, said))
            }
            _ => Err(DesktopError::Invalid {
                field: "x",
                reason: "a region needs all of x, y, width and height".into(),
            }),
        }
    }

    /// Opens `target` with `xdg-open` as a process of the daemon, a relative path
    /// from the session's directory.
    async fn open_target(&self, parts: &Parts, target: String) -> Result<String, DesktopError> {
        if target.trim().is_empty() {
            return Err(DesktopError::Invalid {
                field: "target",
                reason: "is empty".into(),
            });
        }
        self.ensure_running().await?;
        if deps::find("xdg-open").is_none() {
            return Err(DesktopError::Unavailable {
                missing: vec!["xdg-utils".into()],
                install_command: "apt-get install -y --no-install-recommends xdg-utils".into(),
            });
        }
        let env = self.desktop.program_env().await?.into_iter().collect();
        let request = ProcessCreateRequest {
            command: "xdg-open".into(),
            args: vec![target.clone()],
            env,
            cwd: parts
                .extensions
                .get::<Grantee>()
                .map(|grantee| grantee.directory.display().to_string()),
            ..ProcessCreateRequest::default()
        };
        let process = self
            .processes
            .start(request)
            .map_err(|error| DesktopError::StartFailed(error.to_string()))?;
        Ok(format!("opening {target} (process {})", process.id))
    }
}

/// The tool's answer: its text, or the desktop's refusal as a tool error.
fn answer(parts: &Parts, tool: &str, outcome: Result<String, DesktopError>) -> CallToolResult {
    log(parts, tool, &outcome);
    match outcome {
        Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        Err(error) => failed(error),
    }
}

/// A tool error the model reads.
fn failed(error: DesktopError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(error.to_string())])
}

/// One line of the daemon's log per tool call, naming the session.
fn log<T>(parts: &Parts, tool: &str, outcome: &Result<T, DesktopError>) {
    let session = parts
        .extensions
        .get::<Grantee>()
        .map(|grantee| grantee.session_id.as_str())
        .unwrap_or_default();
    match outcome {
        Ok(_) => tracing::debug!(session, tool, "desktop tool"),
        Err(error) => tracing::info!(session, tool, %error, "desktop tool refused"),
    }
}
