"""``DesktopMethods``: the methods of ``Agentplex`` for the desktop (``/v1/desktop/*``) and
its live view's URL, which it inherits; ``AsyncDesktopMethods`` (``agentplex.aio_desktop_client``)
are the async client's. What both share (paths, queries, headers) is in ``agentplex.desktop``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from typing_extensions import Unpack

from . import _core, desktop
from ._core import CallOptions
from .client_base import ClientBase
from .generated.models import (
    DesktopActionResponse,
    DesktopClipboardResponse,
    DesktopClipboardWriteRequest,
    DesktopDisplayInfoResponse,
    DesktopKeyboardPressRequest,
    DesktopKeyboardTypeRequest,
    DesktopKeyModifiers,
    DesktopKeyRequest,
    DesktopLaunchRequest,
    DesktopLaunchResponse,
    DesktopMouseButton,
    DesktopMouseButtonRequest,
    DesktopMouseClickRequest,
    DesktopMouseDragRequest,
    DesktopMouseMoveRequest,
    DesktopMousePositionResponse,
    DesktopMouseScrollRequest,
    DesktopOpenRequest,
    DesktopOpenResponse,
    DesktopRecordingInfo,
    DesktopRecordingListResponse,
    DesktopRecordingStartRequest,
    DesktopScreenshotFormat,
    DesktopSelection,
    DesktopStartRequest,
    DesktopStatusResponse,
    DesktopWindowInfo,
    DesktopWindowListResponse,
    DesktopWindowMoveRequest,
    DesktopWindowResizeRequest,
)


class DesktopMethods(ClientBase):
    """The desktop routes of ``Agentplex`` (``/v1/desktop/*``) and its live view's URL."""

    def build_desktop_stream_web_socket_url(
        self,
        *,
        access_token: str | None = None,
        fps: int | None = None,
        quality: int | None = None,
        scale: float | None = None,
    ) -> str:
        """The ``ws:`` (or ``wss:``) URL of the desktop's live view (``GET
        /v1/desktop/stream/ws``): binary JPEG frames of the screen after a ``ready`` frame, JSON
        input frames in. The token (``access_token``, else the client's) is its
        ``access_token`` query parameter, for a client that cannot send headers (a browser)."""
        return desktop.stream_url(self.base_url, access_token or self.token, fps, quality, scale)

    def get_desktop_status(self, **options: Unpack[CallOptions]) -> DesktopStatusResponse:
        """``GET /v1/desktop/status``: what the desktop is doing (``state``), its display,
        programs and windows, and the programs it needs that are not installed
        (``missing_dependencies``, with the ``install_command`` that installs them)."""
        answer = self._request("GET", "/v1/desktop/status", options)
        return _core.parse(DesktopStatusResponse, answer)

    def start_desktop(
        self,
        request: DesktopStartRequest | None = None,
        /,
        *,
        timeout: float | None = None,
        max_retries: int | None = None,
        **fields: Any,
    ) -> DesktopStatusResponse:
        """``POST /v1/desktop/start``: starts the desktop (Xvfb at the size asked, a session bus,
        openbox) and returns its status once it runs. A running desktop is left as it is.

        Give the body as keyword arguments (``width=``, ``height=``, ``dpi=``,
        ``display_num=``...; 1440x900 at 96 DPI when absent) or as a ``DesktopStartRequest``.
        ``DesktopUnavailableError`` (501) when Xvfb or openbox is not installed,
        ``DesktopFailedError`` (503) when they did not come up, ``DesktopConflictError`` (409)
        while a start or stop is under way.
        """
        body = request if request is not None else DesktopStartRequest.model_validate(fields)
        options = _core.call_options(timeout, max_retries)
        answer = self._request("POST", "/v1/desktop/start", options, body=body)
        return _core.parse(DesktopStatusResponse, answer)

    def stop_desktop(self, **options: Unpack[CallOptions]) -> DesktopStatusResponse:
        """``POST /v1/desktop/stop``: stops the desktop, its recording and its programs; its
        status once stopped."""
        answer = self._request("POST", "/v1/desktop/stop", options)
        return _core.parse(DesktopStatusResponse, answer)

    def get_desktop_display_info(self, **options: Unpack[CallOptions]) -> DesktopDisplayInfoResponse:
        """``GET /v1/desktop/display/info``: the display's name and size. Every route of the
        running desktop (this one and those below) raises ``DesktopNotRunningError`` (409) when
        it is not started."""
        answer = self._request("GET", "/v1/desktop/display/info", options)
        return _core.parse(DesktopDisplayInfoResponse, answer)

    def take_desktop_screenshot(
        self,
        *,
        format: DesktopScreenshotFormat | None = None,
        quality: int | None = None,
        scale: float | None = None,
        show_cursor: bool | None = None,
        **options: Unpack[CallOptions],
    ) -> bytes:
        """``GET /v1/desktop/screenshot``: the whole screen as image bytes (``format``: ``png``,
        the default, ``jpeg`` at ``quality``, or ``webp``; ``scale`` shrinks it; ``show_cursor``
        draws the pointer). ``InvalidRequestError`` for a ``quality`` or ``scale`` out of range."""
        params = desktop.screenshot_params(format, quality, scale, show_cursor)
        answer = self._request(
            "GET", "/v1/desktop/screenshot", options, params=params, headers=desktop.IMAGE_HEADERS
        )
        return answer.content

    def take_desktop_region_screenshot(
        self,
        x: int,
        y: int,
        width: int,
        height: int,
        *,
        format: DesktopScreenshotFormat | None = None,
        quality: int | None = None,
        scale: float | None = None,
        show_cursor: bool | None = None,
        **options: Unpack[CallOptions],
    ) -> bytes:
        """``GET /v1/desktop/screenshot/region``: a region of the screen as image bytes, with the
        options of ``take_desktop_screenshot``. ``InvalidRequestError`` for a region that is not
        on the screen."""
        region = {"x": x, "y": y, "width": width, "height": height}
        params = desktop.screenshot_params(format, quality, scale, show_cursor, **region)
        answer = self._request(
            "GET", "/v1/desktop/screenshot/region", options, params=params, headers=desktop.IMAGE_HEADERS
        )
        return answer.content

    def get_desktop_mouse_position(self, **options: Unpack[CallOptions]) -> DesktopMousePositionResponse:
        """``GET /v1/desktop/mouse/position``: where the pointer is, and the window under it."""
        answer = self._request("GET", "/v1/desktop/mouse/position", options)
        return _core.parse(DesktopMousePositionResponse, answer)

    def move_desktop_mouse(
        self, x: int, y: int, **options: Unpack[CallOptions]
    ) -> DesktopMousePositionResponse:
        """``POST /v1/desktop/mouse/move``: moves the pointer; where it is then. A point off the
        screen raises ``InvalidRequestError``, here and in the mouse methods below."""
        body = DesktopMouseMoveRequest(x=x, y=y)
        answer = self._request("POST", "/v1/desktop/mouse/move", options, body=body)
        return _core.parse(DesktopMousePositionResponse, answer)

    def click_desktop(
        self,
        x: int,
        y: int,
        *,
        button: DesktopMouseButton | None = None,
        click_count: int | None = None,
        **options: Unpack[CallOptions],
    ) -> DesktopMousePositionResponse:
        """``POST /v1/desktop/mouse/click``: moves the pointer to ``x``, ``y`` and clicks
        (``click_count`` 1 to 3, ``button`` ``left`` by default)."""
        body = DesktopMouseClickRequest(x=x, y=y, button=button, click_count=click_count)
        answer = self._request("POST", "/v1/desktop/mouse/click", options, body=body)
        return _core.parse(DesktopMousePositionResponse, answer)

    def mouse_down_desktop(
        self,
        x: int | None = None,
        y: int | None = None,
        *,
        button: DesktopMouseButton | None = None,
        **options: Unpack[CallOptions],
    ) -> DesktopMousePositionResponse:
        """``POST /v1/desktop/mouse/down``: presses a button (at ``x``, ``y`` when given) and
        holds it."""
        body = DesktopMouseButtonRequest(x=x, y=y, button=button)
        answer = self._request("POST", "/v1/desktop/mouse/down", options, body=body)
        return _core.parse(DesktopMousePositionResponse, answer)

    def mouse_up_desktop(
        self,
        x: int | None = None,
        y: int | None = None,
        *,
        button: DesktopMouseButton | None = None,
        **options: Unpack[CallOptions],
    ) -> DesktopMousePositionResponse:
        """``POST /v1/desktop/mouse/up``: releases a button (at ``x``, ``y`` when given)."""
        body = DesktopMouseButtonRequest(x=x, y=y, button=button)
        answer = self._request("POST", "/v1/desktop/mouse/up", options, body=body)
        return _core.parse(DesktopMousePositionResponse, answer)

    def drag_desktop_mouse(
        self,
        start_x: int,
        start_y: int,
        end_x: int,
        end_y: int,
        *,
        button: DesktopMouseButton | None = None,
        **options: Unpack[CallOptions],
    ) -> DesktopMousePositionResponse:
        """``POST /v1/desktop/mouse/drag``: presses at the start, moves to the end in steps,
        releases there."""
        body = DesktopMouseDragRequest(
            start_x=start_x, start_y=start_y, end_x=end_x, end_y=end_y, button=button
        )
        answer = self._request("POST", "/v1/desktop/mouse/drag", options, body=body)
        return _core.parse(DesktopMousePositionResponse, answer)

    def scroll_desktop(
        self,
        x: int,
        y: int,
        *,
        delta_x: int | None = None,
        delta_y: int | None = None,
        **options: Unpack[CallOptions],
    ) -> DesktopMousePositionResponse:
        """``POST /v1/desktop/mouse/scroll``: turns the wheel at ``x``, ``y`` (``delta_y`` > 0
        scrolls down, ``delta_x`` > 0 right)."""
        body = DesktopMouseScrollRequest(x=x, y=y, delta_x=delta_x, delta_y=delta_y)
        answer = self._request("POST", "/v1/desktop/mouse/scroll", options, body=body)
        return _core.parse(DesktopMousePositionResponse, answer)

    def type_desktop_text(
        self, text: str, *, delay_ms: int | None = None, **options: Unpack[CallOptions]
    ) -> DesktopActionResponse:
        """``POST /v1/desktop/keyboard/type``: types ``text`` (any Unicode) into the focused
        window, ``delay_ms`` apart. ``InvalidRequestError`` past 10 000 characters or a
        ``delay_ms`` over 1000."""
        body = DesktopKeyboardTypeRequest(text=text, delay_ms=delay_ms)
        answer = self._request("POST", "/v1/desktop/keyboard/type", options, body=body)
        return _core.parse(DesktopActionResponse, answer)

    def press_desktop_key(
        self, key: str, *, modifiers: DesktopKeyModifiers | None = None, **options: Unpack[CallOptions]
    ) -> DesktopActionResponse:
        """``POST /v1/desktop/keyboard/press``: presses and releases a key (an X keysym name such
        as ``Return``, or a character) or a chord (``ctrl+shift+t``), with ``modifiers`` held.
        ``InvalidRequestError`` for a name that names no key."""
        body = DesktopKeyboardPressRequest(key=key, modifiers=modifiers)
        answer = self._request("POST", "/v1/desktop/keyboard/press", options, body=body)
        return _core.parse(DesktopActionResponse, answer)

    def key_down_desktop(self, key: str, **options: Unpack[CallOptions]) -> DesktopActionResponse:
        """``POST /v1/desktop/keyboard/down``: presses a key and holds it (until
        ``key_up_desktop``)."""
        body = DesktopKeyRequest(key=key)
        answer = self._request("POST", "/v1/desktop/keyboard/down", options, body=body)
        return _core.parse(DesktopActionResponse, answer)

    def key_up_desktop(self, key: str, **options: Unpack[CallOptions]) -> DesktopActionResponse:
        """``POST /v1/desktop/keyboard/up``: releases a key."""
        body = DesktopKeyRequest(key=key)
        answer = self._request("POST", "/v1/desktop/keyboard/up", options, body=body)
        return _core.parse(DesktopActionResponse, answer)

    def get_desktop_clipboard(
        self, *, selection: DesktopSelection | None = None, **options: Unpack[CallOptions]
    ) -> DesktopClipboardResponse:
        """``GET /v1/desktop/clipboard``: the clipboard's text (``selection="primary"``: the
        primary selection's)."""
        params = _core.query(selection=selection)
        answer = self._request("GET", "/v1/desktop/clipboard", options, params=params)
        return _core.parse(DesktopClipboardResponse, answer)

    def set_desktop_clipboard(
        self, text: str, *, selection: DesktopSelection | None = None, **options: Unpack[CallOptions]
    ) -> DesktopActionResponse:
        """``POST /v1/desktop/clipboard``: puts ``text`` on the clipboard (or in the primary
        selection) for programs on the desktop to paste."""
        body = DesktopClipboardWriteRequest(text=text, selection=selection)
        answer = self._request("POST", "/v1/desktop/clipboard", options, body=body)
        return _core.parse(DesktopActionResponse, answer)

    def list_desktop_windows(self, **options: Unpack[CallOptions]) -> list[DesktopWindowInfo]:
        """``GET /v1/desktop/windows``: the visible windows, bottom to top."""
        answer = self._request("GET", "/v1/desktop/windows", options)
        return _core.parse(DesktopWindowListResponse, answer).windows

    def get_desktop_focused_window(self, **options: Unpack[CallOptions]) -> DesktopWindowInfo:
        """``GET /v1/desktop/windows/focused``: the window with the focus;
        ``WindowNotFoundError`` when none has it."""
        answer = self._request("GET", "/v1/desktop/windows/focused", options)
        return _core.parse(DesktopWindowInfo, answer)

    def focus_desktop_window(self, id: str, **options: Unpack[CallOptions]) -> DesktopWindowInfo:
        """``POST /v1/desktop/windows/{id}/focus``: gives a window the focus and raises it; the
        window after the change. ``WindowNotFoundError`` for an unknown id, here and below."""
        answer = self._request("POST", desktop.window_path(id, "/focus"), options)
        return _core.parse(DesktopWindowInfo, answer)

    def move_desktop_window(
        self, id: str, x: int, y: int, **options: Unpack[CallOptions]
    ) -> DesktopWindowInfo:
        """``POST /v1/desktop/windows/{id}/move``: moves a window's contents to ``x``, ``y``; the
        window after the change."""
        body = DesktopWindowMoveRequest(x=x, y=y)
        answer = self._request("POST", desktop.window_path(id, "/move"), options, body=body)
        return _core.parse(DesktopWindowInfo, answer)

    def resize_desktop_window(
        self, id: str, width: int, height: int, **options: Unpack[CallOptions]
    ) -> DesktopWindowInfo:
        """``POST /v1/desktop/windows/{id}/resize``: resizes a window's contents; the window
        after the change."""
        body = DesktopWindowResizeRequest(width=width, height=height)
        answer = self._request("POST", desktop.window_path(id, "/resize"), options, body=body)
        return _core.parse(DesktopWindowInfo, answer)

    def close_desktop_window(self, id: str, **options: Unpack[CallOptions]) -> DesktopActionResponse:
        """``POST /v1/desktop/windows/{id}/close``: asks a window to close, as its close button
        would (the program may ask first)."""
        answer = self._request("POST", desktop.window_path(id, "/close"), options)
        return _core.parse(DesktopActionResponse, answer)

    def launch_desktop_app(
        self,
        app: str,
        args: Sequence[str] | None = None,
        *,
        wait: bool | None = None,
        **options: Unpack[CallOptions],
    ) -> DesktopLaunchResponse:
        """``POST /v1/desktop/launch``: starts a program on the desktop as a managed process
        (its ``process_id`` works with ``get_process``, ``stop_process``...); with ``wait``,
        waits up to 10 s for its first window (``window_id``). ``SpawnFailedError`` when it
        cannot start."""
        body = DesktopLaunchRequest(app=app, args=list(args) if args is not None else None, wait=wait)
        answer = self._request("POST", "/v1/desktop/launch", options, body=body)
        return _core.parse(DesktopLaunchResponse, answer)

    def open_desktop_target(self, target: str, **options: Unpack[CallOptions]) -> DesktopOpenResponse:
        """``POST /v1/desktop/open``: opens a file or URL with its default program
        (``xdg-open``), as a managed process. ``DesktopUnavailableError`` when ``xdg-open`` is
        not installed."""
        body = DesktopOpenRequest(target=target)
        answer = self._request("POST", "/v1/desktop/open", options, body=body)
        return _core.parse(DesktopOpenResponse, answer)

    def start_desktop_recording(
        self, *, fps: int | None = None, **options: Unpack[CallOptions]
    ) -> DesktopRecordingInfo:
        """``POST /v1/desktop/recording/start``: starts recording the screen to an MP4 file
        (``fps`` 1 to 60, 15 when absent). ``DesktopConflictError`` while another recording
        runs, ``DesktopUnavailableError`` when ffmpeg is not installed."""
        body = DesktopRecordingStartRequest(fps=fps)
        answer = self._request("POST", "/v1/desktop/recording/start", options, body=body)
        return _core.parse(DesktopRecordingInfo, answer)

    def stop_desktop_recording(self, **options: Unpack[CallOptions]) -> DesktopRecordingInfo:
        """``POST /v1/desktop/recording/stop``: stops the running recording; its file is complete
        when this returns. ``DesktopConflictError`` when none runs."""
        answer = self._request("POST", "/v1/desktop/recording/stop", options)
        return _core.parse(DesktopRecordingInfo, answer)

    def list_desktop_recordings(self, **options: Unpack[CallOptions]) -> list[DesktopRecordingInfo]:
        """``GET /v1/desktop/recordings``: the recordings, oldest first."""
        answer = self._request("GET", "/v1/desktop/recordings", options)
        return _core.parse(DesktopRecordingListResponse, answer).recordings

    def get_desktop_recording(self, id: str, **options: Unpack[CallOptions]) -> DesktopRecordingInfo:
        """``GET /v1/desktop/recordings/{id}``; ``RecordingNotFoundError`` for an unknown id."""
        answer = self._request("GET", desktop.recording_path(id), options)
        return _core.parse(DesktopRecordingInfo, answer)

    def delete_desktop_recording(self, id: str, **options: Unpack[CallOptions]) -> None:
        """``DELETE /v1/desktop/recordings/{id}``: deletes a recording that has ended, and its
        file (``DesktopConflictError`` while it records)."""
        self._request("DELETE", desktop.recording_path(id), options)

    def download_desktop_recording(self, id: str, **options: Unpack[CallOptions]) -> bytes:
        """``GET /v1/desktop/recordings/{id}/download``: a recording's MP4 file, read whole.
        ``DesktopConflictError`` while it records, ``RecordingNotFoundError`` for an unknown id."""
        path = desktop.recording_path(id, "/download")
        answer = self._request("GET", path, options, headers=desktop.MP4_HEADERS)
        return answer.content
