//! Bodies and queries of the desktop routes (`/v1/desktop/*`): an X display in the
//! sandbox with a window manager, its screen, mouse, keyboard, clipboard and windows.
//!
//! Route paths and field names follow the reference's 0.4 desktop API, so a client
//! written for it works here. Coordinates are screen pixels from the top-left corner.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Where the desktop is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DesktopState {
    /// Not started (or stopped).
    Inactive,
    /// A program it needs is missing: `missingDependencies` names them and
    /// `installCommand` installs them (`agentplex desktop install-deps`).
    InstallRequired,
    /// Starting.
    Starting,
    /// Running: the display answers.
    Active,
    /// Stopping.
    Stopping,
    /// It started, then its X server died or did not come up: `lastError` says why;
    /// the next start starts it again.
    Failed,
}

/// Size of the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DesktopResolution {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Dots per inch the X server reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpi: Option<u32>,
}

/// Why the desktop failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DesktopErrorInfo {
    /// A stable code: `x_server_exited`, `x_server_start_failed`, `display_unreachable`.
    pub code: String,
    /// What happened, for a person.
    pub message: String,
}

/// One of the programs the desktop runs (the X server, the window manager, the
/// session bus).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DesktopProcessInfo {
    /// `xvfb`, `openbox` or `dbus`.
    pub name: String,
    /// Its process id while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Whether it runs.
    pub running: bool,
    /// The file its output goes to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_path: Option<String>,
}

/// A top-level window the window manager manages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DesktopWindowInfo {
    /// Its X window id, in decimal.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Left edge of its contents on the screen.
    pub x: i32,
    /// Top edge of its contents on the screen.
    pub y: i32,
    /// Width of its contents.
    pub width: u32,
    /// Height of its contents.
    pub height: u32,
    /// Whether it has the focus.
    pub is_active: bool,
    /// The process that owns it, when it says (`_NET_WM_PID`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

/// Answer of `GET /v1/desktop/status` (and of start and stop).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DesktopStatusResponse {
    /// Where the desktop is in its life.
    pub state: DesktopState,
    /// The X display name (`:99`) while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
    /// Size of the screen while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<DesktopResolution>,
    /// When it started (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<DesktopErrorInfo>,
    /// The programs it needs that are not installed.
    #[serde(default)]
    pub missing_dependencies: Vec<String>,
    /// The command that installs them, when some are missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install_command: Option<String>,
    /// The programs it runs.
    #[serde(default)]
    pub processes: Vec<DesktopProcessInfo>,
    /// The folder its programs' logs are in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_log_path: Option<String>,
    /// Its visible windows, while it runs.
    #[serde(default)]
    pub windows: Vec<DesktopWindowInfo>,
}

/// Body of `POST /v1/desktop/start`; every field has a default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopStartRequest {
    /// Width of the screen; 1440 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 16, maximum = 8192)]
    pub width: Option<u32>,
    /// Height of the screen; 900 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 16, maximum = 8192)]
    pub height: Option<u32>,
    /// Dots per inch; 96 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 1000)]
    pub dpi: Option<u32>,
    /// The display number (`:N`); the first free one when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(maximum = 65535)]
    pub display_num: Option<u32>,
    /// Accepted for the reference's clients; recordings take their rate at start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording_fps: Option<u32>,
    /// Accepted for the reference's clients; the desktop's files are in the daemon's
    /// data dir.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_dir: Option<String>,
    /// Accepted for the reference's clients (its WebRTC stream); unused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_video_codec: Option<String>,
    /// Accepted for the reference's clients (its WebRTC stream); unused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_audio_codec: Option<String>,
    /// Frames per second of the live view (`/v1/desktop/stream/ws`); 10 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_frame_rate: Option<u32>,
    /// Accepted for the reference's clients (its WebRTC stream); unused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webrtc_port_range: Option<String>,
}

/// Answer of a desktop action that has nothing else to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DesktopActionResponse {
    /// Always `true`: a failure is a problem document.
    pub ok: bool,
}

/// Answer of `GET /v1/desktop/display/info`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DesktopDisplayInfoResponse {
    /// The X display name (`:99`).
    pub display: String,
    /// Size of the screen.
    pub resolution: DesktopResolution,
}

/// An image format of a screenshot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DesktopScreenshotFormat {
    /// PNG, lossless.
    #[default]
    Png,
    /// JPEG at `quality`.
    Jpeg,
    /// WebP, lossless.
    Webp,
}

/// Query of `GET /v1/desktop/screenshot`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, IntoParams, ToSchema)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct DesktopScreenshotQuery {
    /// `png` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<DesktopScreenshotFormat>,
    /// JPEG quality, 1 to 100; 85 when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[param(minimum = 1, maximum = 100)]
    #[schema(minimum = 1, maximum = 100)]
    pub quality: Option<u8>,
    /// Scale factor, above 0 and at most 1; 1 when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[param(exclusive_minimum = 0, maximum = 1)]
    #[schema(exclusive_minimum = 0, maximum = 1)]
    pub scale: Option<f32>,
    /// Draw the mouse cursor; `false` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub show_cursor: Option<bool>,
}

/// Query of `GET /v1/desktop/screenshot/region`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, IntoParams, ToSchema)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct DesktopRegionScreenshotQuery {
    /// Left edge of the region.
    #[param(minimum = 0)]
    #[schema(minimum = 0)]
    pub x: i32,
    /// Top edge of the region.
    #[param(minimum = 0)]
    #[schema(minimum = 0)]
    pub y: i32,
    /// Width of the region.
    #[param(minimum = 1)]
    #[schema(minimum = 1)]
    pub width: u32,
    /// Height of the region.
    #[param(minimum = 1)]
    #[schema(minimum = 1)]
    pub height: u32,
    /// `png` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<DesktopScreenshotFormat>,
    /// JPEG quality, 1 to 100; 85 when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[param(minimum = 1, maximum = 100)]
    #[schema(minimum = 1, maximum = 100)]
    pub quality: Option<u8>,
    /// Scale factor, above 0 and at most 1; 1 when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[param(exclusive_minimum = 0, maximum = 1)]
    #[schema(exclusive_minimum = 0, maximum = 1)]
    pub scale: Option<f32>,
    /// Draw the mouse cursor; `false` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub show_cursor: Option<bool>,
}

/// A mouse button.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DesktopMouseButton {
    /// The left (primary) button.
    #[default]
    Left,
    /// The middle button.
    Middle,
    /// The right button.
    Right,
}

/// Body of `POST /v1/desktop/mouse/move`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopMouseMoveRequest {
    /// Where to, from the left.
    #[schema(minimum = 0)]
    pub x: i32,
    /// Where to, from the top.
    #[schema(minimum = 0)]
    pub y: i32,
}

/// Body of `POST /v1/desktop/mouse/click`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopMouseClickRequest {
    /// Where, from the left.
    #[schema(minimum = 0)]
    pub x: i32,
    /// Where, from the top.
    #[schema(minimum = 0)]
    pub y: i32,
    /// `left` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<DesktopMouseButton>,
    /// 1 (a click) to 3 (a triple click); 1 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 3)]
    pub click_count: Option<u32>,
}

/// Body of `POST /v1/desktop/mouse/down` and `.../up`: press or release a button,
/// after moving there when `x` and `y` are given.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopMouseButtonRequest {
    /// Where, from the left; where the pointer is when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    /// Where, from the top; where the pointer is when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
    /// `left` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<DesktopMouseButton>,
}

/// Body of `POST /v1/desktop/mouse/drag`: press at the start, move, release at the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopMouseDragRequest {
    /// Where it starts, from the left.
    #[schema(minimum = 0)]
    pub start_x: i32,
    /// Where it starts, from the top.
    #[schema(minimum = 0)]
    pub start_y: i32,
    /// Where it ends, from the left.
    #[schema(minimum = 0)]
    pub end_x: i32,
    /// Where it ends, from the top.
    #[schema(minimum = 0)]
    pub end_y: i32,
    /// `left` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<DesktopMouseButton>,
}

/// Body of `POST /v1/desktop/mouse/scroll`: wheel steps at a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopMouseScrollRequest {
    /// Where, from the left.
    #[schema(minimum = 0)]
    pub x: i32,
    /// Where, from the top.
    #[schema(minimum = 0)]
    pub y: i32,
    /// Steps to the right (negative: to the left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = -100, maximum = 100)]
    pub delta_x: Option<i32>,
    /// Steps down (negative: up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = -100, maximum = 100)]
    pub delta_y: Option<i32>,
}

/// Where the pointer is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DesktopMousePositionResponse {
    /// From the left.
    pub x: i32,
    /// From the top.
    pub y: i32,
    /// The screen number (always 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<u32>,
    /// The top-level window under the pointer, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
}

/// Modifier keys held while a key is pressed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopKeyModifiers {
    /// Control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ctrl: Option<bool>,
    /// Shift.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shift: Option<bool>,
    /// Alt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alt: Option<bool>,
    /// The Super (Windows, Command) key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmd: Option<bool>,
}

/// Body of `POST /v1/desktop/keyboard/type`: text typed character by character.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopKeyboardTypeRequest {
    /// The text; any Unicode (characters the keyboard lacks are mapped to a spare key).
    #[schema(max_length = 10000)]
    pub text: String,
    /// Pause between characters in milliseconds, at most 1000; none when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(maximum = 1000)]
    pub delay_ms: Option<u32>,
}

/// Body of `POST /v1/desktop/keyboard/press`: a key, or a chord such as `ctrl+shift+t`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopKeyboardPressRequest {
    /// An X keysym name (`Return`, `Escape`, `F5`, `a`), a character, or a chord
    /// joined with `+` (`ctrl+c`).
    #[schema(min_length = 1)]
    pub key: String,
    /// Modifiers held around it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<DesktopKeyModifiers>,
}

/// Body of `POST /v1/desktop/keyboard/down` and `.../up`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopKeyRequest {
    /// An X keysym name or a character.
    #[schema(min_length = 1)]
    pub key: String,
}

/// Answer of `GET /v1/desktop/windows`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DesktopWindowListResponse {
    /// The windows, bottom to top.
    pub windows: Vec<DesktopWindowInfo>,
}

/// Body of `POST /v1/desktop/windows/{id}/move`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopWindowMoveRequest {
    /// New left edge of its contents.
    pub x: i32,
    /// New top edge of its contents.
    pub y: i32,
}

/// Body of `POST /v1/desktop/windows/{id}/resize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopWindowResizeRequest {
    /// New width of its contents.
    #[schema(minimum = 1, maximum = 8192)]
    pub width: u32,
    /// New height of its contents.
    #[schema(minimum = 1, maximum = 8192)]
    pub height: u32,
}

/// Body of `POST /v1/desktop/launch`: a program started on the desktop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopLaunchRequest {
    /// The program: a path, or a name looked up in the daemon's `PATH`.
    #[schema(min_length = 1)]
    pub app: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Wait (up to 10 seconds) for its first window and answer with its id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<bool>,
}

/// Answer of `POST /v1/desktop/launch`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DesktopLaunchResponse {
    /// The managed process it runs as (`/v1/processes/{id}`).
    pub process_id: String,
    /// Its process id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Its first window, when `wait` was asked and one appeared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_id: Option<String>,
}

/// Body of `POST /v1/desktop/open`: a file or URL opened with its default program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopOpenRequest {
    /// A path or a URL.
    #[schema(min_length = 1)]
    pub target: String,
}

/// Answer of `POST /v1/desktop/open`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DesktopOpenResponse {
    /// The managed process of the opener (`/v1/processes/{id}`).
    pub process_id: String,
    /// Its process id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

/// One of the desktop's selections.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DesktopSelection {
    /// What copy and paste use.
    #[default]
    Clipboard,
    /// The text last selected (pasted with the middle button).
    Primary,
}

/// Query of `GET /v1/desktop/clipboard`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, IntoParams, ToSchema)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct DesktopClipboardQuery {
    /// `clipboard` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selection: Option<DesktopSelection>,
}

/// Answer of `GET /v1/desktop/clipboard`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DesktopClipboardResponse {
    /// The selection read.
    pub selection: DesktopSelection,
    /// Its text; empty when nobody holds it.
    pub text: String,
}

/// Body of `POST /v1/desktop/clipboard`: text the desktop holds until a program on it
/// copies something else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopClipboardWriteRequest {
    /// The text.
    pub text: String,
    /// `clipboard` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<DesktopSelection>,
}

/// Body of `POST /v1/desktop/recording/start`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DesktopRecordingStartRequest {
    /// Frames per second, 1 to 60; 15 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 60)]
    pub fps: Option<u32>,
}

/// Where a recording is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DesktopRecordingStatus {
    /// Recording now.
    Recording,
    /// Stopped; its MP4 file is complete.
    Completed,
    /// ffmpeg failed; what it wrote may not play.
    Failed,
}

/// A recording of the screen as an MP4 file (H.264).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DesktopRecordingInfo {
    /// Its id.
    pub id: String,
    /// Its file's name.
    pub file_name: String,
    /// Its file's size now.
    pub bytes: u64,
    /// When it started (RFC 3339).
    pub started_at: String,
    /// When it ended (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// Where it is in its life.
    pub status: DesktopRecordingStatus,
    /// The process id of the ffmpeg that records it, while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_id: Option<String>,
}

/// Answer of `GET /v1/desktop/recordings`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DesktopRecordingListResponse {
    /// The recordings, oldest first.
    pub recordings: Vec<DesktopRecordingInfo>,
}

/// Query of `GET /v1/desktop/stream/ws`, the live view.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, IntoParams, ToSchema)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct DesktopStreamQuery {
    /// The daemon's token, for browsers (a WebSocket cannot send headers); only the
    /// WebSocket routes accept it.
    #[serde(
        default,
        rename = "access_token",
        skip_serializing_if = "Option::is_none"
    )]
    pub access_token: Option<String>,
    /// Frames per second at most, 1 to 30; 10 when absent. A frame is sent only when
    /// the screen changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[param(minimum = 1, maximum = 30)]
    #[schema(minimum = 1, maximum = 30)]
    pub fps: Option<u32>,
    /// JPEG quality of the frames, 1 to 100; 70 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[param(minimum = 1, maximum = 100)]
    #[schema(minimum = 1, maximum = 100)]
    pub quality: Option<u8>,
    /// Scale of the frames, above 0 and at most 1; 1 when absent. Input coordinates
    /// stay the screen's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[param(exclusive_minimum = 0, maximum = 1)]
    #[schema(exclusive_minimum = 0, maximum = 1)]
    pub scale: Option<f32>,
}

/// A JSON text frame a client sends on the live view's WebSocket: input to the desktop,
/// in screen coordinates. Anything else closes the socket with a reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum DesktopStreamClientFrame {
    /// The pointer moved.
    #[serde(rename_all = "camelCase")]
    MouseMove {
        /// From the left.
        x: i32,
        /// From the top.
        y: i32,
    },
    /// A button went down at a point.
    #[serde(rename_all = "camelCase")]
    MouseDown {
        /// From the left.
        x: i32,
        /// From the top.
        y: i32,
        /// `left` when absent.
        #[serde(default)]
        button: Option<DesktopMouseButton>,
    },
    /// A button went up at a point.
    #[serde(rename_all = "camelCase")]
    MouseUp {
        /// From the left.
        x: i32,
        /// From the top.
        y: i32,
        /// `left` when absent.
        #[serde(default)]
        button: Option<DesktopMouseButton>,
    },
    /// The wheel turned at a point.
    #[serde(rename_all = "camelCase")]
    Scroll {
        /// From the left.
        x: i32,
        /// From the top.
        y: i32,
        /// Steps right (negative: left).
        #[serde(default)]
        delta_x: Option<i32>,
        /// Steps down (negative: up).
        #[serde(default)]
        delta_y: Option<i32>,
    },
    /// A key went down (a key name as `POST /v1/desktop/keyboard/down` takes).
    KeyDown {
        /// The key.
        key: String,
    },
    /// A key went up.
    KeyUp {
        /// The key.
        key: String,
    },
    /// Text to type.
    Type {
        /// The text.
        text: String,
    },
}

/// A JSON text frame the live view's WebSocket sends (frames of the screen are binary
/// JPEG messages).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum DesktopStreamServerFrame {
    /// First: the screen's size, the coordinates input frames use.
    Ready {
        /// Width of the screen.
        width: u32,
        /// Height of the screen.
        height: u32,
    },
    /// An input frame could not be carried out (a point off the screen, an unknown
    /// key); the view goes on.
    Error {
        /// Why.
        message: String,
    },
}
