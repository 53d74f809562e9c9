//! The desktop routes (`/v1/desktop/*`): the display, its screen, mouse, keyboard,
//! clipboard, windows, programs and recordings.

use super::*;

impl Client {
    /// `GET /v1/desktop/status`: what the desktop is doing.
    pub async fn desktop_status(&self) -> Result<DesktopStatusResponse, ClientError> {
        self.json(self.get(&["desktop", "status"])?).await
    }

    /// `POST /v1/desktop/start`: starts the desktop (a running one is left as it is).
    pub async fn start_desktop(
        &self,
        request: &DesktopStartRequest,
    ) -> Result<DesktopStatusResponse, ClientError> {
        self.json(self.post(&["desktop", "start"], request)?).await
    }

    /// `POST /v1/desktop/stop`: stops the desktop and what it runs.
    pub async fn stop_desktop(&self) -> Result<DesktopStatusResponse, ClientError> {
        self.json(self.post_empty(&["desktop", "stop"])?).await
    }

    /// `GET /v1/desktop/screenshot` (or `.../region` with `region` as x, y, width,
    /// height): the image's bytes.
    pub async fn desktop_screenshot(
        &self,
        query: &DesktopScreenshotQuery,
        region: Option<(i32, i32, u32, u32)>,
    ) -> Result<bytes::Bytes, ClientError> {
        let builder = match region {
            None => self.get(&["desktop", "screenshot"])?.query(query),
            Some((x, y, width, height)) => self
                .get(&["desktop", "screenshot", "region"])?
                .query(query)
                .query(&[("x", x.to_string()), ("y", y.to_string())])
                .query(&[("width", width), ("height", height)]),
        };
        Ok(self.send(builder).await?.bytes().await?)
    }

    /// `POST /v1/desktop/mouse/{action}` (`move`, `click`, `down`, `up`, `drag`,
    /// `scroll`) with its body: where the pointer is afterwards.
    pub async fn desktop_mouse<T: Serialize>(
        &self,
        action: &str,
        request: &T,
    ) -> Result<DesktopMousePositionResponse, ClientError> {
        self.json(self.post(&["desktop", "mouse", action], request)?)
            .await
    }

    /// `POST /v1/desktop/keyboard/type`: types text.
    pub async fn desktop_type(
        &self,
        request: &DesktopKeyboardTypeRequest,
    ) -> Result<(), ClientError> {
        self.no_content(self.post(&["desktop", "keyboard", "type"], request)?)
            .await
    }

    /// `POST /v1/desktop/keyboard/press`: presses and releases a key or chord.
    pub async fn desktop_press(
        &self,
        request: &DesktopKeyboardPressRequest,
    ) -> Result<(), ClientError> {
        self.no_content(self.post(&["desktop", "keyboard", "press"], request)?)
            .await
    }

    /// `GET /v1/desktop/clipboard`: a selection's text.
    pub async fn desktop_clipboard(
        &self,
        query: &DesktopClipboardQuery,
    ) -> Result<DesktopClipboardResponse, ClientError> {
        self.json(self.get(&["desktop", "clipboard"])?.query(query))
            .await
    }

    /// `POST /v1/desktop/clipboard`: puts text on a selection.
    pub async fn set_desktop_clipboard(
        &self,
        request: &DesktopClipboardWriteRequest,
    ) -> Result<(), ClientError> {
        self.no_content(self.post(&["desktop", "clipboard"], request)?)
            .await
    }

    /// `GET /v1/desktop/windows`: the visible windows.
    pub async fn desktop_windows(&self) -> Result<DesktopWindowListResponse, ClientError> {
        self.json(self.get(&["desktop", "windows"])?).await
    }

    /// `POST /v1/desktop/windows/{id}/{action}` (`focus`; `move` and `resize` with
    /// their body): the window afterwards.
    pub async fn desktop_window<T: Serialize>(
        &self,
        id: &str,
        action: &str,
        request: Option<&T>,
    ) -> Result<DesktopWindowInfo, ClientError> {
        let segments = ["desktop", "windows", id, action];
        let builder = match request {
            Some(body) => self.post(&segments, body)?,
            None => self.post_empty(&segments)?,
        };
        self.json(builder).await
    }

    /// `POST /v1/desktop/windows/{id}/close`: asks a window to close.
    pub async fn close_desktop_window(&self, id: &str) -> Result<(), ClientError> {
        self.no_content(self.post_empty(&["desktop", "windows", id, "close"])?)
            .await
    }

    /// `POST /v1/desktop/launch`: starts a program on the desktop.
    pub async fn desktop_launch(
        &self,
        request: &DesktopLaunchRequest,
    ) -> Result<DesktopLaunchResponse, ClientError> {
        self.json(self.post(&["desktop", "launch"], request)?).await
    }

    /// `POST /v1/desktop/open`: opens a file or URL with its default program.
    pub async fn desktop_open(
        &self,
        request: &DesktopOpenRequest,
    ) -> Result<DesktopOpenResponse, ClientError> {
        self.json(self.post(&["desktop", "open"], request)?).await
    }

    /// `POST /v1/desktop/recording/start`: starts recording the screen.
    pub async fn start_desktop_recording(
        &self,
        request: &DesktopRecordingStartRequest,
    ) -> Result<DesktopRecordingInfo, ClientError> {
        self.json(self.post(&["desktop", "recording", "start"], request)?)
            .await
    }

    /// `POST /v1/desktop/recording/stop`: stops the recording; its file is complete.
    pub async fn stop_desktop_recording(&self) -> Result<DesktopRecordingInfo, ClientError> {
        self.json(self.post_empty(&["desktop", "recording", "stop"])?)
            .await
    }

    /// `GET /v1/desktop/recordings`: the recordings.
    pub async fn desktop_recordings(&self) -> Result<DesktopRecordingListResponse, ClientError> {
        self.json(self.get(&["desktop", "recordings"])?).await
    }

    /// `GET /v1/desktop/recordings/{id}/download`: a recording's MP4 bytes.
    pub async fn download_desktop_recording(&self, id: &str) -> Result<bytes::Bytes, ClientError> {
        let builder = self.get(&["desktop", "recordings", id, "download"])?;
        Ok(self.send(builder).await?.bytes().await?)
    }

    /// `DELETE /v1/desktop/recordings/{id}`: deletes a recording and its file.
    pub async fn delete_desktop_recording(&self, id: &str) -> Result<(), ClientError> {
        self.no_content(self.request(Method::DELETE, &["desktop", "recordings", id])?)
            .await
    }
}
