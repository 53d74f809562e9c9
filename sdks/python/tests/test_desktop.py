"""The desktop routes (``/v1/desktop/*``) with the sync and the async client, against the real
daemon and the Xvfb, openbox and ffmpeg of the machine: a 640x480 desktop's screen, mouse,
keyboard, clipboard, windows and recordings, and the errors of a point off the screen and of a
desktop that is not running. Every test stops the desktop it started."""

from __future__ import annotations

import asyncio
import struct
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agentplex import (
    Agentplex,
    DesktopConflictError,
    DesktopNotRunningError,
    InvalidRequestError,
    LocalAgentplex,
    RecordingNotFoundError,
    SpawnFailedError,
    WindowNotFoundError,
    models,
    start_async,
)

from .conftest import daemon_env

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(image: bytes) -> tuple[int, int]:
    """The width and height of a PNG image, from its IHDR chunk (after the signature)."""
    assert image[:8] == PNG_SIGNATURE
    assert image[12:16] == b"IHDR"
    width, height = struct.unpack(">II", image[16:24])
    return width, height


@contextmanager
def desktop(client: Agentplex) -> Iterator[models.DesktopStatusResponse]:
    """A started 640x480 desktop, stopped after whatever happened."""
    try:
        started = client.start_desktop(width=640, height=480)
        assert started.state == "active"
        yield started
    finally:
        client.stop_desktop()


def test_a_desktop_that_is_not_running(client: LocalAgentplex) -> None:
    assert client.get_desktop_status().state == "inactive"
    for call in (
        client.get_desktop_mouse_position,
        client.take_desktop_screenshot,
        lambda: client.click_desktop(1, 1),
    ):
        with pytest.raises(DesktopNotRunningError) as refused:
            call()
        assert (refused.value.code, refused.value.status) == ("desktop_not_running", 409)


def test_the_live_view_url(client: LocalAgentplex) -> None:
    url = client.build_desktop_stream_web_socket_url(access_token="t k", fps=5, scale=0.5)
    assert (
        url
        == client.base_url.replace("http", "ws", 1) + "/v1/desktop/stream/ws?access_token=t+k&fps=5&scale=0.5"
    )
    assert client.build_desktop_stream_web_socket_url().endswith(
        f"/v1/desktop/stream/ws?access_token={client.token}"
    )


def test_screen_mouse_keyboard_and_clipboard(client: LocalAgentplex) -> None:
    with desktop(client) as started:
        assert started.resolution is not None
        assert (started.resolution.width, started.resolution.height) == (640, 480)
        status = client.get_desktop_status()
        assert status.state == "active"
        assert {"xvfb", "openbox"} <= {p.name for p in status.processes or []}
        info = client.get_desktop_display_info()
        assert info.display == status.display
        assert (info.resolution.width, info.resolution.height) == (640, 480)

        assert png_size(client.take_desktop_screenshot()) == (640, 480)
        assert png_size(client.take_desktop_region_screenshot(10, 20, 40, 30)) == (40, 30)
        jpeg = client.take_desktop_screenshot(format="jpeg", quality=50, scale=0.5, show_cursor=True)
        assert jpeg[:3] == b"\xff\xd8\xff"

        moved = client.move_desktop_mouse(100, 120)
        assert (moved.x, moved.y) == (100, 120)
        position = client.get_desktop_mouse_position()
        assert (position.x, position.y) == (100, 120)
        clicked = client.click_desktop(200, 150, click_count=2)
        assert (clicked.x, clicked.y) == (200, 150)
        down = client.mouse_down_desktop(10, 10)
        assert (down.x, down.y) == (10, 10)
        up = client.mouse_up_desktop(button="left")
        assert (up.x, up.y) == (10, 10)
        dragged = client.drag_desktop_mouse(10, 10, 60, 50)
        assert (dragged.x, dragged.y) == (60, 50)
        scrolled = client.scroll_desktop(60, 50, delta_y=2)
        assert (scrolled.x, scrolled.y) == (60, 50)

        # A point off the screen (x runs from 0 to 639) names the field.
        with pytest.raises(InvalidRequestError) as off_screen:
            client.click_desktop(640, 10)
        assert off_screen.value.status == 400
        assert "`x`" in (off_screen.value.detail or "")

        assert client.type_desktop_text("hé ✓", delay_ms=1).ok
        assert client.press_desktop_key("a", modifiers=models.DesktopKeyModifiers(ctrl=True)).ok
        assert client.key_down_desktop("Shift_L").ok
        assert client.key_up_desktop("Shift_L").ok
        with pytest.raises(InvalidRequestError):
            client.press_desktop_key("no-such-key")

        assert client.set_desktop_clipboard("héllo ✓").ok
        clipboard = client.get_desktop_clipboard()
        assert (clipboard.selection, clipboard.text) == ("clipboard", "héllo ✓")
        client.set_desktop_clipboard("selected", selection="primary")
        assert client.get_desktop_clipboard(selection="primary").text == "selected"
        assert isinstance(client.list_desktop_windows(), list)

        # Stopped, the desktop refuses its routes again.
        assert client.stop_desktop().state == "inactive"
        with pytest.raises(DesktopNotRunningError):
            client.get_desktop_clipboard()


def test_programs_and_unknown_windows(client: LocalAgentplex) -> None:
    with desktop(client):
        with pytest.raises(SpawnFailedError):
            client.launch_desktop_app("no-such-program-for-the-sdk")
        sleeper = client.launch_desktop_app("sleep", ["30"])
        assert client.get_process(sleeper.process_id).status == "running"
        client.kill_process(sleeper.process_id, wait_ms=5000)
        client.delete_process(sleeper.process_id)

        with pytest.raises(WindowNotFoundError):
            client.get_desktop_focused_window()
        # The id is one path segment, encoded.
        with pytest.raises(WindowNotFoundError) as unknown:
            client.focus_desktop_window("1/2")
        assert unknown.value.status == 404 and "1/2" in (unknown.value.detail or "")
        with pytest.raises(WindowNotFoundError):
            client.close_desktop_window("999999")
        with pytest.raises(InvalidRequestError):
            client.open_desktop_target("")


# ffplay (of the ffmpeg package) opens a window of a known size.
def test_a_window_focused_moved_resized_closed(client: LocalAgentplex) -> None:
    with desktop(client):
        args = ["-loglevel", "quiet", "-an", "-window_title", "sdk-window"]
        launched = client.launch_desktop_app(
            "ffplay", [*args, "-f", "lavfi", "-i", "color=c=red:s=200x150"], wait=True
        )
        window_id = launched.window_id
        assert window_id is not None and window_id.isdigit()
        listed = next(w for w in client.list_desktop_windows() if w.id == window_id)
        assert (listed.title, listed.width, listed.height) == ("sdk-window", 200, 150)
        assert client.focus_desktop_window(window_id).is_active
        assert client.get_desktop_focused_window().id == window_id
        moved = client.move_desktop_window(window_id, 10, 20)
        assert (moved.x, moved.y) == (10, 20)
        resized = client.resize_desktop_window(window_id, 300, 200)
        assert (resized.width, resized.height) == (300, 200)
        assert client.close_desktop_window(window_id).ok
        deadline = time.monotonic() + 10
        while window_id in [w.id for w in client.list_desktop_windows()]:
            assert time.monotonic() < deadline, "the window did not close"
            time.sleep(0.05)
        with pytest.raises(WindowNotFoundError):
            client.focus_desktop_window(window_id)


def test_a_recording(client: LocalAgentplex) -> None:
    with desktop(client):
        recording = client.start_desktop_recording(fps=10)
        assert recording.status == "recording"
        with pytest.raises(DesktopConflictError) as again:
            client.start_desktop_recording()
        assert again.value.status == 409
        with pytest.raises(DesktopConflictError):
            client.download_desktop_recording(recording.id)
        for x in (100, 200, 300):
            client.move_desktop_mouse(x, 100)
            time.sleep(0.2)
        stopped = client.stop_desktop_recording()
        assert (stopped.id, stopped.status) == (recording.id, "completed")
        assert stopped.bytes > 0
        assert recording.id in [r.id for r in client.list_desktop_recordings()]
        assert client.get_desktop_recording(recording.id).status == "completed"

        mp4 = client.download_desktop_recording(recording.id)
        assert len(mp4) == stopped.bytes
        assert mp4[4:8] == b"ftyp"

        client.delete_desktop_recording(recording.id)
        with pytest.raises(RecordingNotFoundError) as gone:
            client.get_desktop_recording(recording.id)
        assert gone.value.status == 404
        with pytest.raises(RecordingNotFoundError):
            client.download_desktop_recording("a/b c")
        with pytest.raises(DesktopConflictError):
            client.stop_desktop_recording()


def test_the_async_client(binary: str, tmp_path: Path) -> None:
    async def main() -> None:
        env = daemon_env(tmp_path)
        async with await start_async(
            binary, args=["--ephemeral"], data_dir=tmp_path / "d", env=env
        ) as client:
            with pytest.raises(DesktopNotRunningError):
                await client.take_desktop_screenshot()
            try:
                started = await client.start_desktop(models.DesktopStartRequest(width=640, height=480))
                assert started.state == "active"
                assert png_size(await client.take_desktop_screenshot()) == (640, 480)
                region = await client.take_desktop_region_screenshot(0, 0, 64, 48, format="png")
                assert png_size(region) == (64, 48)
                clicked = await client.click_desktop(320, 240)
                assert (clicked.x, clicked.y) == (320, 240)
                with pytest.raises(InvalidRequestError) as off_screen:
                    await client.move_desktop_mouse(0, 480)
                assert off_screen.value.status == 400
                await client.set_desktop_clipboard("async")
                assert (await client.get_desktop_clipboard()).text == "async"
                assert isinstance(await client.list_desktop_windows(), list)

                recording = await client.start_desktop_recording()
                await asyncio.sleep(0.5)
                await client.stop_desktop_recording()
                mp4 = await client.download_desktop_recording(recording.id)
                assert mp4[4:8] == b"ftyp"
                await client.delete_desktop_recording(recording.id)
                assert await client.list_desktop_recordings() == []
            finally:
                await client.stop_desktop()
            with pytest.raises(DesktopNotRunningError) as stopped:
                await client.get_desktop_display_info()
            assert stopped.value.status == 409

    asyncio.run(main())
