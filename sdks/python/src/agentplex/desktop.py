"""What the sync and async clients share for ``/v1/desktop``: the paths of windows and
recordings, the query of a screenshot, the headers of the binary answers. No I/O here."""

from __future__ import annotations

import urllib.parse

from . import _core
from ._core import seg
from .generated.models import DesktopScreenshotFormat

IMAGE_HEADERS = {"accept": "image/png, image/jpeg, image/webp"}
"""The headers of a screenshot's request: its answer is the image's bytes."""

MP4_HEADERS = {"accept": "video/mp4"}
"""The headers of a recording's download: its answer is the MP4 file."""


def stream_url(
    base_url: str,
    access_token: str | None,
    fps: int | None,
    quality: int | None,
    scale: float | None,
) -> str:
    """The ``ws:`` (or ``wss:``) URL of the desktop's live view, with its query: the token as
    ``access_token`` when given, and the frames' rate, JPEG quality and scale."""
    query = {
        name: value
        for name, value in (
            ("access_token", access_token),
            ("fps", fps),
            ("quality", quality),
            ("scale", scale),
        )
        if value is not None and value != ""
    }
    url = "ws" + base_url.removeprefix("http") + "/v1/desktop/stream/ws"
    return url + "?" + urllib.parse.urlencode(query) if query else url


def window_path(id: str, tail: str) -> str:
    """The path of a window's route: ``/v1/desktop/windows/{id}`` and ``tail``."""
    return f"/v1/desktop/windows/{seg(id)}{tail}"


def recording_path(id: str, tail: str = "") -> str:
    """The path of a recording's route: ``/v1/desktop/recordings/{id}`` and ``tail``."""
    return f"/v1/desktop/recordings/{seg(id)}{tail}"


def screenshot_params(
    format: DesktopScreenshotFormat | None,
    quality: int | None,
    scale: float | None,
    show_cursor: bool | None,
    **region: int,
) -> dict[str, str]:
    """The query of ``GET /v1/desktop/screenshot`` (and of ``.../region``, with ``x``, ``y``,
    ``width`` and ``height``)."""
    return _core.query(**region, format=format, quality=quality, scale=scale, showCursor=show_cursor)
