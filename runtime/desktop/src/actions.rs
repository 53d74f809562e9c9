//! What clients ask of a running desktop, checked and carried out: every field is
//! checked (a point on the screen, a known key, a window that exists) before anything
//! reaches the X server, and every action is done when its answer is sent (the X server
//! has processed it).

use std::time::Duration;

use agentplex_api::{
    DesktopClipboardQuery, DesktopClipboardResponse, DesktopClipboardWriteRequest,
    DesktopDisplayInfoResponse, DesktopKeyModifiers, DesktopKeyRequest,
    DesktopKeyboardPressRequest, DesktopKeyboardTypeRequest, DesktopMouseButton,
    DesktopMouseButtonRequest, DesktopMouseClickRequest, DesktopMouseDragRequest,
    DesktopMouseMoveRequest, DesktopMousePositionResponse, DesktopMouseScrollRequest,
    DesktopRecordingInfo, DesktopRecordingStartRequest, DesktopRegionScreenshotQuery,
    DesktopScreenshotFormat, DesktopScreenshotQuery, DesktopWindowInfo, DesktopWindowMoveRequest,
    DesktopWindowResizeRequest,
};

use crate::capture::{self, Encoding, Region};
use crate::input::Button;
use crate::keys::{self, Modifier};
use crate::recordings::Recordings;
use crate::{Desktop, DesktopError, Screen};

/// The most characters one type request types.
pub const MAX_TYPED: usize = 10_000;
/// The most wheel steps of one scroll request, each way.
pub const MAX_SCROLL: i32 = 100;
/// Steps of the pointer between a drag's ends.
const DRAG_STEPS: i32 = 10;

/// A screenshot: its bytes and their media type.
pub struct Screenshot {
    /// The encoded image.
    pub bytes: Vec<u8>,
    /// `image/png`, `image/jpeg` or `image/webp`.
    pub media_type: &'static str,
}

impl Desktop {
    /// Runs `action` on the X connection (on a blocking thread) and waits until the
    /// server has done it. A failure because the X server died says so.
    pub async fn on_screen<T: Send + 'static>(
        &self,
        action: impl FnOnce(&Screen) -> Result<T, DesktopError> + Send + 'static,
    ) -> Result<T, DesktopError> {
        let running = self.running().await?;
        let screen = running.screen().clone();
        let result = blocking(move || {
            let out = action(&screen)?;
            screen.sync()?;
            Ok(out)
        })
        .await;
        if result.is_err() && !running.alive() {
            return Err(DesktopError::Died(self.fail(&running).await));
        }
        result
    }

    /// Whether the desktop runs: checked before a request's fields, so a desktop that
    /// does not run answers the same whatever is asked of it.
    async fn ready(&self) -> Result<(), DesktopError> {
        self.running().await.map(drop)
    }

    /// The display's name and size.
    pub async fn display_info(&self) -> Result<DesktopDisplayInfoResponse, DesktopError> {
        let running = self.running().await?;
        Ok(DesktopDisplayInfoResponse {
            display: running.display().to_string(),
            resolution: running.resolution,
        })
    }

    /// A screenshot of the whole screen.
    pub async fn screenshot(
        &self,
        query: &DesktopScreenshotQuery,
    ) -> Result<Screenshot, DesktopError> {
        self.ready().await?;
        let encoding = encoding(query.format, query.quality, query.scale)?;
        let cursor = query.show_cursor.unwrap_or(false);
        self.shoot(None, encoding, cursor).await
    }

    /// A screenshot of a region of the screen.
    pub async fn region_screenshot(
        &self,
        query: &DesktopRegionScreenshotQuery,
    ) -> Result<Screenshot, DesktopError> {
        self.ready().await?;
        let encoding = encoding(query.format, query.quality, query.scale)?;
        let cursor = query.show_cursor.unwrap_or(false);
        let asked = (query.x, query.y, query.width, query.height);
        self.shoot(Some(asked), encoding, cursor).await
    }

    async fn shoot(
        &self,
        asked: Option<(i32, i32, u32, u32)>,
        encoding: Encoding,
        cursor: bool,
    ) -> Result<Screenshot, DesktopError> {
        let (bytes, media_type) = self
            .on_screen(move |screen| {
                let (width, height) = screen.size();
                let region = match asked {
                    Some(asked) => region(asked, width, height)?,
                    None => Region {
                        x: 0,
                        y: 0,
                        width,
                        height,
                    },
                };
                capture::encode(screen.capture(region, cursor)?, encoding)
            })
            .await?;
        Ok(Screenshot { bytes, media_type })
    }

    /// Moves the pointer.
    pub async fn mouse_move(
        &self,
        request: DesktopMouseMoveRequest,
    ) -> Result<DesktopMousePositionResponse, DesktopError> {
        self.on_screen(move |screen| {
            on_screen(screen, (request.x, "x"), (request.y, "y"))?;
            screen.move_pointer(request.x, request.y)?;
            position(screen)
        })
        .await
    }

    /// Moves the pointer and clicks.
    pub async fn mouse_click(
        &self,
        request: DesktopMouseClickRequest,
    ) -> Result<DesktopMousePositionResponse, DesktopError> {
        self.ready().await?;
        let count = request.click_count.unwrap_or(1);
        if !(1..=3).contains(&count) {
            return Err(invalid("clickCount", format!("{count} is not 1, 2 or 3")));
        }
        self.on_screen(move |screen| {
            on_screen(screen, (request.x, "x"), (request.y, "y"))?;
            screen.move_pointer(request.x, request.y)?;
            screen.click(button(request.button), count)?;
            position(screen)
        })
        .await
    }

    /// Presses (`down`) or releases a button, after moving when a point is given.
    pub async fn mouse_button(
        &self,
        request: DesktopMouseButtonRequest,
        down: bool,
    ) -> Result<DesktopMousePositionResponse, DesktopError> {
        self.ready().await?;
        let point = match (request.x, request.y) {
            (Some(x), Some(y)) => Some((x, y)),
            (None, None) => None,
            (None, Some(_)) => return Err(invalid("x", "is needed with `y`".into())),
            (Some(_), None) => return Err(invalid("y", "is needed with `x`".into())),
        };
        self.on_screen(move |screen| {
            if let Some((x, y)) = point {
                on_screen(screen, (x, "x"), (y, "y"))?;
                screen.move_pointer(x, y)?;
            }
            screen.button(button(request.button), down)?;
            position(screen)
        })
        .await
    }

    /// Presses at the start, moves to the end in steps, releases there.
    pub async fn mouse_drag(
        &self,
        request: DesktopMouseDragRequest,
    ) -> Result<DesktopMousePositionResponse, DesktopError> {
        self.on_screen(move |screen| {
            on_screen(
                screen,
                (request.start_x, "startX"),
                (request.start_y, "startY"),
            )?;
            on_screen(screen, (request.end_x, "endX"), (request.end_y, "endY"))?;
            let pressed = button(request.button);
            screen.move_pointer(request.start_x, request.start_y)?;
            screen.button(pressed, true)?;
            for step in 1..=DRAG_STEPS {
                let x = request.start_x + (request.end_x - request.start_x) * step / DRAG_STEPS;
                let y = request.start_y + (request.end_y - request.start_y) * step / DRAG_STEPS;
                screen.move_pointer(x, y)?;
                screen.sync()?;
            }
            screen.button(pressed, false)?;
            position(screen)
        })
        .await
    }

    /// Turns the wheel at a point.
    pub async fn mouse_scroll(
        &self,
        request: DesktopMouseScrollRequest,
    ) -> Result<DesktopMousePositionResponse, DesktopError> {
        self.ready().await?;
        let (dx, dy) = (request.delta_x.unwrap_or(0), request.delta_y.unwrap_or(0));
        for (delta, field) in [(dx, "deltaX"), (dy, "deltaY")] {
            if delta.abs() > MAX_SCROLL {
                return Err(invalid(
                    field,
                    format!("{delta} is more than {MAX_SCROLL} steps"),
                ));
            }
        }
        self.on_screen(move |screen| {
            on_screen(screen, (request.x, "x"), (request.y, "y"))?;
            screen.move_pointer(request.x, request.y)?;
            screen.scroll(dx, dy)?;
            position(screen)
        })
        .await
    }

    /// Where the pointer is.
    pub async fn mouse_position(&self) -> Result<DesktopMousePositionResponse, DesktopError> {
        self.on_screen(position).await
    }

    /// Types text.
    pub async fn type_text(&self, request: DesktopKeyboardTypeRequest) -> Result<(), DesktopError> {
        self.ready().await?;
        let count = request.text.chars().count();
        if count > MAX_TYPED {
            return Err(invalid(
                "text",
                format!("{count} characters is more than {MAX_TYPED}"),
            ));
        }
        let delay = request.delay_ms.unwrap_or(0);
        if delay > 1000 {
            return Err(invalid("delayMs", format!("{delay} is more than 1000")));
        }
        let delay = Duration::from_millis(u64::from(delay));
        self.on_screen(move |screen| screen.type_text(&request.text, delay))
            .await
    }

    /// Presses a key or a chord.
    pub async fn press(&self, request: DesktopKeyboardPressRequest) -> Result<(), DesktopError> {
        self.ready().await?;
        let held = modifiers(request.modifiers.unwrap_or_default());
        let chord =
            keys::chord(&request.key, &held).map_err(|error| invalid("key", error.to_string()))?;
        self.on_screen(move |screen| screen.press(&chord)).await
    }

    /// Presses (`down`) or releases a key.
    pub async fn key(&self, request: DesktopKeyRequest, down: bool) -> Result<(), DesktopError> {
        self.ready().await?;
        let keysym =
            keys::keysym(&request.key).map_err(|error| invalid("key", error.to_string()))?;
        self.on_screen(move |screen| screen.key(keysym, down)).await
    }

    /// The visible windows.
    pub async fn windows(&self) -> Result<Vec<DesktopWindowInfo>, DesktopError> {
        self.on_screen(Screen::windows).await
    }

    /// The window with the focus.
    pub async fn focused_window(&self) -> Result<DesktopWindowInfo, DesktopError> {
        self.on_screen(Screen::focused)
            .await?
            .ok_or_else(|| DesktopError::WindowNotFound("with the focus".into()))
    }

    /// Focuses and raises a window.
    pub async fn focus_window(&self, id: String) -> Result<DesktopWindowInfo, DesktopError> {
        self.on_screen(move |screen| screen.focus(&id)).await
    }

    /// Moves a window.
    pub async fn move_window(
        &self,
        id: String,
        request: DesktopWindowMoveRequest,
    ) -> Result<DesktopWindowInfo, DesktopError> {
        self.on_screen(move |screen| {
            let (width, height) = screen.size();
            if request.x.unsigned_abs() > width * 2 || request.y.unsigned_abs() > height * 2 {
                return Err(invalid(
                    "x",
                    format!(
                        "({}, {}) is far off the {width}x{height} screen",
                        request.x, request.y
                    ),
                ));
            }
            screen.move_window(&id, request.x, request.y)
        })
        .await
    }

    /// Resizes a window.
    pub async fn resize_window(
        &self,
        id: String,
        request: DesktopWindowResizeRequest,
    ) -> Result<DesktopWindowInfo, DesktopError> {
        self.ready().await?;
        for (side, field) in [(request.width, "width"), (request.height, "height")] {
            if !(1..=crate::MAX_SIDE).contains(&side) {
                return Err(invalid(
                    field,
                    format!("{side} is not between 1 and {}", crate::MAX_SIDE),
                ));
            }
        }
        self.on_screen(move |screen| screen.resize_window(&id, request.width, request.height))
            .await
    }

    /// Asks a window to close.
    pub async fn close_window(&self, id: String) -> Result<(), DesktopError> {
        self.on_screen(move |screen| screen.close_window(&id)).await
    }

    /// The first window of process `pid`, waiting up to `timeout` for it.
    pub async fn window_of(
        &self,
        pid: u32,
        timeout: Duration,
    ) -> Result<Option<DesktopWindowInfo>, DesktopError> {
        self.on_screen(move |screen| screen.window_of(pid, timeout))
            .await
    }

    /// A selection's text.
    pub async fn clipboard(
        &self,
        query: DesktopClipboardQuery,
    ) -> Result<DesktopClipboardResponse, DesktopError> {
        let selection = query.selection.unwrap_or_default();
        let running = self.running().await?;
        let text = blocking(move || running.clipboard().get(selection)).await?;
        Ok(DesktopClipboardResponse { selection, text })
    }

    /// Makes text a selection's.
    pub async fn set_clipboard(
        &self,
        request: DesktopClipboardWriteRequest,
    ) -> Result<(), DesktopError> {
        let selection = request.selection.unwrap_or_default();
        let running = self.running().await?;
        blocking(move || running.clipboard().set(selection, request.text)).await
    }

    /// Starts recording the screen.
    pub async fn start_recording(
        &self,
        request: DesktopRecordingStartRequest,
    ) -> Result<DesktopRecordingInfo, DesktopError> {
        let running = self.running().await?;
        self.recordings.start(&running, request.fps).await
    }

    /// The recordings, made now or before.
    pub fn recordings(&self) -> &Recordings {
        &self.recordings
    }

    /// `DISPLAY`, `XAUTHORITY` and the session bus's address, for a program started on
    /// the desktop.
    pub async fn program_env(&self) -> Result<Vec<(String, String)>, DesktopError> {
        Ok(self.running().await?.env().to_vec())
    }
}

/// Runs `work` on a blocking thread.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, DesktopError> + Send + 'static,
) -> Result<T, DesktopError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| DesktopError::X11(format!("the desktop's worker failed: {error}")))?
}

fn invalid(field: &'static str, reason: String) -> DesktopError {
    DesktopError::Invalid { field, reason }
}

/// Checks that a point is on the screen.
fn on_screen(
    screen: &Screen,
    (x, x_field): (i32, &'static str),
    (y, y_field): (i32, &'static str),
) -> Result<(), DesktopError> {
    let (width, height) = screen.size();
    if x < 0 || x as u32 >= width {
        return Err(invalid(
            x_field,
            format!("{x} is off the screen (0 to {})", width - 1),
        ));
    }
    if y < 0 || y as u32 >= height {
        return Err(invalid(
            y_field,
            format!("{y} is off the screen (0 to {})", height - 1),
        ));
    }
    Ok(())
}

/// A region asked for, inside a `width` x `height` screen.
fn region(
    (x, y, w, h): (i32, i32, u32, u32),
    width: u32,
    height: u32,
) -> Result<Region, DesktopError> {
    if x < 0 || x as u32 >= width {
        return Err(invalid(
            "x",
            format!("{x} is off the screen (0 to {})", width - 1),
        ));
    }
    if y < 0 || y as u32 >= height {
        return Err(invalid(
            "y",
            format!("{y} is off the screen (0 to {})", height - 1),
        ));
    }
    let (x, y) = (x as u32, y as u32);
    if w == 0 || w > width - x {
        return Err(invalid(
            "width",
            format!("{w} is not between 1 and {} from x = {x}", width - x),
        ));
    }
    if h == 0 || h > height - y {
        return Err(invalid(
            "height",
            format!("{h} is not between 1 and {} from y = {y}", height - y),
        ));
    }
    Ok(Region {
        x,
        y,
        width: w,
        height: h,
    })
}

fn encoding(
    format: Option<DesktopScreenshotFormat>,
    quality: Option<u8>,
    scale: Option<f32>,
) -> Result<Encoding, DesktopError> {
    let quality = quality.unwrap_or(85);
    if !(1..=100).contains(&quality) {
        return Err(invalid(
            "quality",
            format!("{quality} is not between 1 and 100"),
        ));
    }
    let scale = scale.unwrap_or(1.0);
    if !(scale > 0.0 && scale <= 1.0) {
        return Err(invalid(
            "scale",
            format!("{scale} is not above 0 and at most 1"),
        ));
    }
    Ok(Encoding {
        format: format.unwrap_or_default(),
        quality,
        scale,
    })
}

fn button(button: Option<DesktopMouseButton>) -> Button {
    match button.unwrap_or_default() {
        DesktopMouseButton::Left => 1,
        DesktopMouseButton::Middle => 2,
        DesktopMouseButton::Right => 3,
    }
}

fn modifiers(held: DesktopKeyModifiers) -> Vec<Modifier> {
    [
        (held.ctrl, Modifier::Ctrl),
        (held.shift, Modifier::Shift),
        (held.alt, Modifier::Alt),
        (held.cmd, Modifier::Super),
    ]
    .into_iter()
    .filter(|(on, _)| on.unwrap_or(false))
    .map(|(_, modifier)| modifier)
    .collect()
}

fn position(screen: &Screen) -> Result<DesktopMousePositionResponse, DesktopError> {
    let (x, y, window) = screen.pointer()?;
    Ok(DesktopMousePositionResponse {
        x,
        y,
        screen: Some(0),
        window: window.map(|window| window.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_stay_on_the_screen() {
        assert_eq!(
            region((10, 20, 30, 40), 100, 100).unwrap(),
            Region {
                x: 10,
                y: 20,
                width: 30,
                height: 40
            }
        );
        let field = |result: Result<Region, DesktopError>| match result {
            Err(DesktopError::Invalid { field, .. }) => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(field(region((-1, 0, 1, 1), 100, 100)), "x");
        assert_eq!(field(region((0, 100, 1, 1), 100, 100)), "y");
        assert_eq!(field(region((90, 0, 11, 1), 100, 100)), "width");
        assert_eq!(field(region((0, 0, 1, 0), 100, 100)), "height");
    }

    #[test]
    fn encodings_are_checked() {
        assert!(encoding(None, None, None).is_ok());
        assert!(matches!(
            encoding(None, Some(0), None),
            Err(DesktopError::Invalid {
                field: "quality",
                ..
            })
        ));
        assert!(matches!(
            encoding(None, None, Some(0.0)),
            Err(DesktopError::Invalid { field: "scale", .. })
        ));
        assert!(matches!(
            encoding(None, None, Some(f32::NAN)),
            Err(DesktopError::Invalid { field: "scale", .. })
        ));
        assert!(matches!(
            encoding(None, None, Some(1.5)),
            Err(DesktopError::Invalid { field: "scale", .. })
        ));
    }
}
