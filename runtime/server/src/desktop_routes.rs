//! `/v1/desktop/*`: the desktop (an X display with a window manager) and its screen,
//! mouse, keyboard, clipboard, windows, programs and recordings. Shaped like the
//! reference's 0.4 desktop API; see docs/desktop.md.

use std::time::Duration;

use agentplex_api::*;
use agentplex_desktop::actions::Screenshot;
use agentplex_desktop::deps;
use axum::body::Body;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json as JsonResponse, Router};
use tokio_util::io::ReaderStream;

use super::extract::{Json, OptionalJson, Path, Query};
use super::AppState;
use crate::error::{ApiError, Result};
use agentplex_desktop::DesktopError;

/// How long a launch with `wait` waits for the program's first window.
const WINDOW_WAIT: Duration = Duration::from_secs(10);

/// The routes of the desktop group.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/desktop/status", get(status))
        .route("/v1/desktop/start", post(start))
        .route("/v1/desktop/stop", post(stop))
        .route("/v1/desktop/display/info", get(display_info))
        .route("/v1/desktop/screenshot", get(screenshot))
        .route("/v1/desktop/screenshot/region", get(region_screenshot))
        .route("/v1/desktop/mouse/position", get(mouse_position))
        .route("/v1/desktop/mouse/move", post(mouse_move))
        .route("/v1/desktop/mouse/click", post(mouse_click))
        .route("/v1/desktop/mouse/down", post(mouse_down))
        .route("/v1/desktop/mouse/up", post(mouse_up))
        .route("/v1/desktop/mouse/drag", post(mouse_drag))
        .route("/v1/desktop/mouse/scroll", post(mouse_scroll))
        .route("/v1/desktop/keyboard/type", post(keyboard_type))
        .route("/v1/desktop/keyboard/press", post(keyboard_press))
        .route("/v1/desktop/keyboard/down", post(keyboard_down))
        .route("/v1/desktop/keyboard/up", post(keyboard_up))
        .route("/v1/desktop/clipboard", get(clipboard).post(set_clipboard))
        .route("/v1/desktop/windows", get(windows))
        .route("/v1/desktop/windows/focused", get(focused_window))
        .route("/v1/desktop/windows/{id}/focus", post(focus_window))
        .route("/v1/desktop/windows/{id}/move", post(move_window))
        .route("/v1/desktop/windows/{id}/resize", post(resize_window))
        .route("/v1/desktop/windows/{id}/close", post(close_window))
        .route(
            "/v1/desktop/stream/ws",
            get(super::desktop_stream::stream_ws),
        )
        .route("/v1/desktop/launch", post(launch))
        .route("/v1/desktop/open", post(open))
        .route("/v1/desktop/recording/start", post(start_recording))
        .route("/v1/desktop/recording/stop", post(stop_recording))
        .route("/v1/desktop/recordings", get(recordings))
        .route(
            "/v1/desktop/recordings/{id}",
            get(recording).delete(delete_recording),
        )
        .route(
            "/v1/desktop/recordings/{id}/download",
            get(download_recording),
        )
}

const OK: JsonResponse<DesktopActionResponse> = JsonResponse(DesktopActionResponse { ok: true });

/// What the desktop is doing: its state, display, programs, windows, and the
/// programs it needs that are missing.
#[utoipa::path(get, path = "/v1/desktop/status", operation_id = "desktop_status", tag = "desktop",
    responses((status = 200, body = DesktopStatusResponse)))]
pub async fn status(State(state): State<AppState>) -> JsonResponse<DesktopStatusResponse> {
    JsonResponse(state.desktop.status().await)
}

/// Starts the desktop: Xvfb at the size asked, a session bus, openbox. A running
/// desktop is left as it is; a failed one is started again.
#[utoipa::path(post, path = "/v1/desktop/start", operation_id = "start_desktop", tag = "desktop",
    request_body(content = Option<DesktopStartRequest>, description = "Optional; an empty body starts a 1440x900 screen at 96 DPI"),
    responses(
        (status = 200, description = "The desktop's status once it runs", body = DesktopStatusResponse),
        (status = 409, description = "A start or stop is under way (`desktop_conflict`)", body = ProblemDetails),
        (status = 501, description = "Xvfb or openbox is not installed (`desktop_unavailable`, naming the packages and the command that installs them)", body = ProblemDetails),
        (status = 503, description = "The X server or the window manager did not come up (`desktop_failed`, with the end of its log)", body = ProblemDetails),
    ))]
pub async fn start(
    State(state): State<AppState>,
    OptionalJson(request): OptionalJson<DesktopStartRequest>,
) -> Result<JsonResponse<DesktopStatusResponse>> {
    Ok(JsonResponse(state.desktop.start(&request).await?))
}

/// Stops the desktop, its recording and its programs (Xvfb, the bus, openbox).
#[utoipa::path(post, path = "/v1/desktop/stop", operation_id = "stop_desktop", tag = "desktop",
    responses(
        (status = 200, description = "The desktop's status once stopped", body = DesktopStatusResponse),
        (status = 409, description = "A start or stop is under way (`desktop_conflict`)", body = ProblemDetails),
    ))]
pub async fn stop(State(state): State<AppState>) -> Result<JsonResponse<DesktopStatusResponse>> {
    Ok(JsonResponse(state.desktop.stop().await?))
}

/// The display's name and size.
#[utoipa::path(get, path = "/v1/desktop/display/info", operation_id = "desktop_display_info", tag = "desktop",
    responses((status = 200, body = DesktopDisplayInfoResponse), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn display_info(
    State(state): State<AppState>,
) -> Result<JsonResponse<DesktopDisplayInfoResponse>> {
    Ok(JsonResponse(state.desktop.display_info().await?))
}

/// A screenshot of the whole screen.
#[utoipa::path(get, path = "/v1/desktop/screenshot", operation_id = "desktop_screenshot", tag = "desktop",
    params(DesktopScreenshotQuery),
    responses(
        (status = 200, description = "The image", content(
            (Vec<u8> = "image/png"), (Vec<u8> = "image/jpeg"), (Vec<u8> = "image/webp"))),
        (status = 400, description = "`quality` or `scale` out of range (`invalid_request`, naming the field)", body = ProblemDetails),
        (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails),
    ))]
pub async fn screenshot(
    State(state): State<AppState>,
    Query(query): Query<DesktopScreenshotQuery>,
) -> Result<Response> {
    Ok(image(state.desktop.screenshot(&query).await?))
}

/// A screenshot of a region of the screen.
#[utoipa::path(get, path = "/v1/desktop/screenshot/region", operation_id = "desktop_region_screenshot", tag = "desktop",
    params(DesktopRegionScreenshotQuery),
    responses(
        (status = 200, description = "The image", content(
            (Vec<u8> = "image/png"), (Vec<u8> = "image/jpeg"), (Vec<u8> = "image/webp"))),
        (status = 400, description = "The region is not on the screen, or `quality` or `scale` is out of range (`invalid_request`, naming the field)", body = ProblemDetails),
        (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails),
    ))]
pub async fn region_screenshot(
    State(state): State<AppState>,
    Query(query): Query<DesktopRegionScreenshotQuery>,
) -> Result<Response> {
    Ok(image(state.desktop.region_screenshot(&query).await?))
}

fn image(shot: Screenshot) -> Response {
    (
        [
            (header::CONTENT_TYPE, shot.media_type),
            (header::CACHE_CONTROL, "no-store"),
        ],
        shot.bytes,
    )
        .into_response()
}

/// Where the pointer is, and the window under it.
#[utoipa::path(get, path = "/v1/desktop/mouse/position", operation_id = "desktop_mouse_position", tag = "desktop",
    responses((status = 200, body = DesktopMousePositionResponse), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn mouse_position(
    State(state): State<AppState>,
) -> Result<JsonResponse<DesktopMousePositionResponse>> {
    Ok(JsonResponse(state.desktop.mouse_position().await?))
}

/// Moves the pointer.
#[utoipa::path(post, path = "/v1/desktop/mouse/move", operation_id = "desktop_mouse_move", tag = "desktop",
    request_body = DesktopMouseMoveRequest,
    responses((status = 200, body = DesktopMousePositionResponse), (status = 400, description = "A point off the screen, or a bad button or count (`invalid_request`, naming the field)", body = ProblemDetails), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn mouse_move(
    State(state): State<AppState>,
    Json(request): Json<DesktopMouseMoveRequest>,
) -> Result<JsonResponse<DesktopMousePositionResponse>> {
    Ok(JsonResponse(state.desktop.mouse_move(request).await?))
}

/// Moves the pointer and clicks (1 to 3 times).
#[utoipa::path(post, path = "/v1/desktop/mouse/click", operation_id = "desktop_mouse_click", tag = "desktop",
    request_body = DesktopMouseClickRequest,
    responses((status = 200, body = DesktopMousePositionResponse), (status = 400, description = "A point off the screen, or a bad button or count (`invalid_request`, naming the field)", body = ProblemDetails), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn mouse_click(
    State(state): State<AppState>,
    Json(request): Json<DesktopMouseClickRequest>,
) -> Result<JsonResponse<DesktopMousePositionResponse>> {
    Ok(JsonResponse(state.desktop.mouse_click(request).await?))
}

/// Presses a button (after moving, when `x` and `y` are given) and holds it.
#[utoipa::path(post, path = "/v1/desktop/mouse/down", operation_id = "desktop_mouse_down", tag = "desktop",
    request_body = DesktopMouseButtonRequest,
    responses((status = 200, body = DesktopMousePositionResponse), (status = 400, description = "A point off the screen, or a bad button or count (`invalid_request`, naming the field)", body = ProblemDetails), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn mouse_down(
    State(state): State<AppState>,
    Json(request): Json<DesktopMouseButtonRequest>,
) -> Result<JsonResponse<DesktopMousePositionResponse>> {
    Ok(JsonResponse(
        state.desktop.mouse_button(request, true).await?,
    ))
}

/// Releases a button (after moving, when `x` and `y` are given).
#[utoipa::path(post, path = "/v1/desktop/mouse/up", operation_id = "desktop_mouse_up", tag = "desktop",
    request_body = DesktopMouseButtonRequest,
    responses((status = 200, body = DesktopMousePositionResponse), (status = 400, description = "A point off the screen, or a bad button or count (`invalid_request`, naming the field)", body = ProblemDetails), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn mouse_up(
    State(state): State<AppState>,
    Json(request): Json<DesktopMouseButtonRequest>,
) -> Result<JsonResponse<DesktopMousePositionResponse>> {
    Ok(JsonResponse(
        state.desktop.mouse_button(request, false).await?,
    ))
}

/// Drags: presses at the start, moves to the end in steps, releases there.
#[utoipa::path(post, path = "/v1/desktop/mouse/drag", operation_id = "desktop_mouse_drag", tag = "desktop",
    request_body = DesktopMouseDragRequest,
    responses((status = 200, body = DesktopMousePositionResponse), (status = 400, description = "A point off the screen, or a bad button or count (`invalid_request`, naming the field)", body = ProblemDetails), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn mouse_drag(
    State(state): State<AppState>,
    Json(request): Json<DesktopMouseDragRequest>,
) -> Result<JsonResponse<DesktopMousePositionResponse>> {
    Ok(JsonResponse(state.desktop.mouse_drag(request).await?))
}

/// Turns the wheel at a point (`deltaY` > 0 scrolls down, `deltaX` > 0 right).
#[utoipa::path(post, path = "/v1/desktop/mouse/scroll", operation_id = "desktop_mouse_scroll", tag = "desktop",
    request_body = DesktopMouseScrollRequest,
    responses((status = 200, body = DesktopMousePositionResponse), (status = 400, description = "A point off the screen, or a bad button or count (`invalid_request`, naming the field)", body = ProblemDetails), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn mouse_scroll(
    State(state): State<AppState>,
    Json(request): Json<DesktopMouseScrollRequest>,
) -> Result<JsonResponse<DesktopMousePositionResponse>> {
    Ok(JsonResponse(state.desktop.mouse_scroll(request).await?))
}

/// Types text into the focused window, any Unicode.
#[utoipa::path(post, path = "/v1/desktop/keyboard/type", operation_id = "desktop_keyboard_type", tag = "desktop",
    request_body = DesktopKeyboardTypeRequest,
    responses((status = 200, body = DesktopActionResponse),
        (status = 400, description = "More than 10,000 characters, or `delayMs` over 1000 (`invalid_request`)", body = ProblemDetails),
        (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn keyboard_type(
    State(state): State<AppState>,
    Json(request): Json<DesktopKeyboardTypeRequest>,
) -> Result<JsonResponse<DesktopActionResponse>> {
    state.desktop.type_text(request).await?;
    Ok(OK)
}

/// Presses and releases a key or a chord (`ctrl+shift+t`).
#[utoipa::path(post, path = "/v1/desktop/keyboard/press", operation_id = "desktop_keyboard_press", tag = "desktop",
    request_body = DesktopKeyboardPressRequest,
    responses((status = 200, body = DesktopActionResponse), (status = 400, description = "A key name that names no key (`invalid_request`, naming `key`)", body = ProblemDetails), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn keyboard_press(
    State(state): State<AppState>,
    Json(request): Json<DesktopKeyboardPressRequest>,
) -> Result<JsonResponse<DesktopActionResponse>> {
    state.desktop.press(request).await?;
    Ok(OK)
}

/// Presses a key and holds it.
#[utoipa::path(post, path = "/v1/desktop/keyboard/down", operation_id = "desktop_keyboard_down", tag = "desktop",
    request_body = DesktopKeyRequest,
    responses((status = 200, body = DesktopActionResponse), (status = 400, description = "A key name that names no key (`invalid_request`, naming `key`)", body = ProblemDetails), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn keyboard_down(
    State(state): State<AppState>,
    Json(request): Json<DesktopKeyRequest>,
) -> Result<JsonResponse<DesktopActionResponse>> {
    state.desktop.key(request, true).await?;
    Ok(OK)
}

/// Releases a key.
#[utoipa::path(post, path = "/v1/desktop/keyboard/up", operation_id = "desktop_keyboard_up", tag = "desktop",
    request_body = DesktopKeyRequest,
    responses((status = 200, body = DesktopActionResponse), (status = 400, description = "A key name that names no key (`invalid_request`, naming `key`)", body = ProblemDetails), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn keyboard_up(
    State(state): State<AppState>,
    Json(request): Json<DesktopKeyRequest>,
) -> Result<JsonResponse<DesktopActionResponse>> {
    state.desktop.key(request, false).await?;
    Ok(OK)
}

/// The clipboard's text (or the primary selection's).
#[utoipa::path(get, path = "/v1/desktop/clipboard", operation_id = "desktop_clipboard", tag = "desktop",
    params(DesktopClipboardQuery),
    responses((status = 200, body = DesktopClipboardResponse),
        (status = 400, description = "`selection` is not `clipboard` or `primary` (`invalid_request`)", body = ProblemDetails),
        (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn clipboard(
    State(state): State<AppState>,
    Query(query): Query<DesktopClipboardQuery>,
) -> Result<JsonResponse<DesktopClipboardResponse>> {
    Ok(JsonResponse(state.desktop.clipboard(query).await?))
}

/// Puts text on the clipboard (or in the primary selection), for programs on the
/// desktop to paste.
#[utoipa::path(post, path = "/v1/desktop/clipboard", operation_id = "set_desktop_clipboard", tag = "desktop",
    request_body = DesktopClipboardWriteRequest,
    responses((status = 200, body = DesktopActionResponse),
        (status = 400, description = "`selection` is not `clipboard` or `primary` (`invalid_request`)", body = ProblemDetails),
        (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn set_clipboard(
    State(state): State<AppState>,
    Json(request): Json<DesktopClipboardWriteRequest>,
) -> Result<JsonResponse<DesktopActionResponse>> {
    state.desktop.set_clipboard(request).await?;
    Ok(OK)
}

/// The visible windows, bottom to top.
#[utoipa::path(get, path = "/v1/desktop/windows", operation_id = "desktop_windows", tag = "desktop",
    responses((status = 200, body = DesktopWindowListResponse), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn windows(
    State(state): State<AppState>,
) -> Result<JsonResponse<DesktopWindowListResponse>> {
    let windows = state.desktop.windows().await?;
    Ok(JsonResponse(DesktopWindowListResponse { windows }))
}

/// The window with the focus.
#[utoipa::path(get, path = "/v1/desktop/windows/focused", operation_id = "desktop_focused_window", tag = "desktop",
    responses((status = 200, body = DesktopWindowInfo),
        (status = 404, description = "No window has the focus (`window_not_found`)", body = ProblemDetails),
        (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn focused_window(
    State(state): State<AppState>,
) -> Result<JsonResponse<DesktopWindowInfo>> {
    Ok(JsonResponse(state.desktop.focused_window().await?))
}

/// Gives a window the focus and raises it.
#[utoipa::path(post, path = "/v1/desktop/windows/{id}/focus", operation_id = "focus_desktop_window", tag = "desktop",
    params(("id" = String, Path, description = "The window's id")),
    responses((status = 200, description = "The window after the change", body = DesktopWindowInfo), (status = 404, description = "No window has that id (`window_not_found`)", body = ProblemDetails), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn focus_window(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<JsonResponse<DesktopWindowInfo>> {
    Ok(JsonResponse(state.desktop.focus_window(id).await?))
}

/// Moves a window's contents to a point.
#[utoipa::path(post, path = "/v1/desktop/windows/{id}/move", operation_id = "move_desktop_window", tag = "desktop",
    params(("id" = String, Path, description = "The window's id")),
    request_body = DesktopWindowMoveRequest,
    responses((status = 200, description = "The window after the change", body = DesktopWindowInfo), (status = 404, description = "No window has that id (`window_not_found`)", body = ProblemDetails), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn move_window(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(request): Json<DesktopWindowMoveRequest>,
) -> Result<JsonResponse<DesktopWindowInfo>> {
    Ok(JsonResponse(state.desktop.move_window(id, request).await?))
}

/// Resizes a window's contents.
#[utoipa::path(post, path = "/v1/desktop/windows/{id}/resize", operation_id = "resize_desktop_window", tag = "desktop",
    params(("id" = String, Path, description = "The window's id")),
    request_body = DesktopWindowResizeRequest,
    responses((status = 200, description = "The window after the change", body = DesktopWindowInfo), (status = 404, description = "No window has that id (`window_not_found`)", body = ProblemDetails), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn resize_window(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(request): Json<DesktopWindowResizeRequest>,
) -> Result<JsonResponse<DesktopWindowInfo>> {
    Ok(JsonResponse(
        state.desktop.resize_window(id, request).await?,
    ))
}

/// Asks a window to close, as its close button would (the program may ask first).
#[utoipa::path(post, path = "/v1/desktop/windows/{id}/close", operation_id = "close_desktop_window", tag = "desktop",
    params(("id" = String, Path, description = "The window's id")),
    responses((status = 200, body = DesktopActionResponse), (status = 404, description = "No window has that id (`window_not_found`)", body = ProblemDetails), (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn close_window(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<JsonResponse<DesktopActionResponse>> {
    state.desktop.close_window(id).await?;
    Ok(OK)
}

/// Starts a program on the desktop as a managed process (`/v1/processes/{id}`),
/// optionally waiting (up to 10 seconds) for its first window.
#[utoipa::path(post, path = "/v1/desktop/launch", operation_id = "desktop_launch", tag = "desktop",
    request_body = DesktopLaunchRequest,
    responses((status = 200, body = DesktopLaunchResponse),
        (status = 400, description = "The program cannot start (`spawn_failed`)", body = ProblemDetails),
        (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn launch(
    State(state): State<AppState>,
    Json(request): Json<DesktopLaunchRequest>,
) -> Result<JsonResponse<DesktopLaunchResponse>> {
    let process = start_on_desktop(&state, request.app, request.args.unwrap_or_default()).await?;
    let window_id = match (request.wait.unwrap_or(false), process.pid) {
        (true, Some(pid)) => state
            .desktop
            .window_of(pid, WINDOW_WAIT)
            .await?
            .map(|window| window.id),
        _ => None,
    };
    Ok(JsonResponse(DesktopLaunchResponse {
        process_id: process.id,
        pid: process.pid,
        window_id,
    }))
}

/// Opens a file or URL with its default program (`xdg-open`), as a managed process.
#[utoipa::path(post, path = "/v1/desktop/open", operation_id = "desktop_open", tag = "desktop",
    request_body = DesktopOpenRequest,
    responses((status = 200, body = DesktopOpenResponse),
        (status = 501, description = "`xdg-open` is not installed (`desktop_unavailable`)", body = ProblemDetails),
        (status = 409, description = "The desktop is not started, or its X server died (`desktop_not_running`)", body = ProblemDetails)))]
pub async fn open(
    State(state): State<AppState>,
    Json(request): Json<DesktopOpenRequest>,
) -> Result<JsonResponse<DesktopOpenResponse>> {
    if request.target.is_empty() {
        return Err(ApiError::InvalidRequest("`target` is empty".into()));
    }
    state.desktop.running().await?;
    if deps::find("xdg-open").is_none() {
        return Err(DesktopError::Unavailable {
            missing: vec!["xdg-utils".into()],
            install_command: "apt-get install -y --no-install-recommends xdg-utils".into(),
        }
        .into());
    }
    let process = start_on_desktop(&state, "xdg-open".into(), vec![request.target]).await?;
    Ok(JsonResponse(DesktopOpenResponse {
        process_id: process.id,
        pid: process.pid,
    }))
}

/// Starts `command` as a managed process with the desktop's `DISPLAY` and bus.
async fn start_on_desktop(
    state: &AppState,
    command: String,
    args: Vec<String>,
) -> Result<ProcessInfo> {
    if command.is_empty() {
        return Err(ApiError::InvalidRequest("`app` is empty".into()));
    }
    let env = state.desktop.program_env().await?.into_iter().collect();
    let request = ProcessCreateRequest {
        command,
        args,
        env,
        cwd: state.fs.working_directory(None)?,
        ..ProcessCreateRequest::default()
    };
    Ok(state.processes.start(request)?)
}

/// Starts recording the screen to an MP4 file (one recording at a time).
#[utoipa::path(post, path = "/v1/desktop/recording/start", operation_id = "start_desktop_recording", tag = "desktop",
    request_body(content = Option<DesktopRecordingStartRequest>, description = "Optional; 15 frames per second when absent"),
    responses((status = 200, body = DesktopRecordingInfo),
        (status = 409, description = "A recording runs already (`desktop_conflict`), or the desktop is not running (`desktop_not_running`)", body = ProblemDetails),
        (status = 501, description = "ffmpeg is not installed (`desktop_unavailable`)", body = ProblemDetails)))]
pub async fn start_recording(
    State(state): State<AppState>,
    OptionalJson(request): OptionalJson<DesktopRecordingStartRequest>,
) -> Result<JsonResponse<DesktopRecordingInfo>> {
    Ok(JsonResponse(state.desktop.start_recording(request).await?))
}

/// Stops the running recording; its file is complete when this answers.
#[utoipa::path(post, path = "/v1/desktop/recording/stop", operation_id = "stop_desktop_recording", tag = "desktop",
    responses((status = 200, body = DesktopRecordingInfo),
        (status = 409, description = "No recording runs (`desktop_conflict`)", body = ProblemDetails)))]
pub async fn stop_recording(
    State(state): State<AppState>,
) -> Result<JsonResponse<DesktopRecordingInfo>> {
    Ok(JsonResponse(state.desktop.recordings().stop().await?))
}

/// The recordings, oldest first.
#[utoipa::path(get, path = "/v1/desktop/recordings", operation_id = "desktop_recordings", tag = "desktop",
    responses((status = 200, body = DesktopRecordingListResponse)))]
pub async fn recordings(
    State(state): State<AppState>,
) -> JsonResponse<DesktopRecordingListResponse> {
    JsonResponse(DesktopRecordingListResponse {
        recordings: state.desktop.recordings().list(),
    })
}

/// One recording.
#[utoipa::path(get, path = "/v1/desktop/recordings/{id}", operation_id = "desktop_recording", tag = "desktop",
    params(("id" = String, Path, description = "The recording's id")),
    responses((status = 200, body = DesktopRecordingInfo), (status = 404, description = "No recording has that id (`recording_not_found`)", body = ProblemDetails)))]
pub async fn recording(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<JsonResponse<DesktopRecordingInfo>> {
    Ok(JsonResponse(state.desktop.recordings().get(&id)?))
}

/// Deletes a recording that has ended, and its file.
#[utoipa::path(delete, path = "/v1/desktop/recordings/{id}", operation_id = "delete_desktop_recording", tag = "desktop",
    params(("id" = String, Path, description = "The recording's id")),
    responses((status = 204, description = "Deleted"), (status = 404, description = "No recording has that id (`recording_not_found`)", body = ProblemDetails),
        (status = 409, description = "It is still recording (`desktop_conflict`)", body = ProblemDetails)))]
pub async fn delete_recording(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<axum::http::StatusCode> {
    state.desktop.recordings().delete(&id)?;
    Ok(axum::http::StatusCode::NO_CONTENT)
}

/// A recording's MP4 file.
#[utoipa::path(get, path = "/v1/desktop/recordings/{id}/download", operation_id = "download_desktop_recording", tag = "desktop",
    params(("id" = String, Path, description = "The recording's id")),
    responses((status = 200, description = "The MP4 file", content((Vec<u8> = "video/mp4"))), (status = 404, description = "No recording has that id (`recording_not_found`)", body = ProblemDetails),
        (status = 409, description = "It is still recording (`desktop_conflict`)", body = ProblemDetails)))]
pub async fn download_recording(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response> {
    let path = state.desktop.recordings().file(&id)?;
    let file = tokio::fs::File::open(&path)
        .await
        .map_err(|error| ApiError::Internal(format!("{}: {error}", path.display())))?;
    let length = file
        .metadata()
        .await
        .map(|metadata| metadata.len())
        .unwrap_or(0);
    let disposition = format!("attachment; filename=\"{id}.mp4\"");
    Ok((
        [
            (header::CONTENT_TYPE, "video/mp4".to_string()),
            (header::CONTENT_LENGTH, length.to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        Body::from_stream(ReaderStream::new(file)),
    )
        .into_response())
}
