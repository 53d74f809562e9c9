"""What the sync and async clients share for ``/v1/processes``: request shapes, the state of a
followed log (which entry to resume after), and the terminal WebSocket's URL, frames and
errors. No I/O here."""

from __future__ import annotations

import base64
import json
import urllib.parse
from typing import Any, Union

from pydantic import TypeAdapter, ValidationError
from websockets.exceptions import InvalidStatus

from . import _core
from ._core import seg
from .errors import AgentplexError, error_from_response
from .generated.models import (
    ProcessInfo,
    ProcessInputRequest,
    ProcessLogEntry,
    ProcessLogsMissed,
    ProcessLogsStream,
    TerminalClientFrameInput,
    TerminalClientFrameResize,
    TerminalServerFrame,
)

ProcessLogEvent = Union[ProcessLogEntry, ProcessLogsMissed, ProcessInfo]
"""One event of a followed log, told apart by its type: a ``ProcessLogEntry`` of output, a
``ProcessLogsMissed`` (output dropped from the ring buffer before it was sent), or the
``ProcessInfo`` of the process once it exited (last)."""

_SERVER_FRAME: TypeAdapter[TerminalServerFrame] = TypeAdapter(TerminalServerFrame)


def path(id: str, tail: str = "") -> str:
    """The path of a process's route: ``/v1/processes/{id}`` and ``tail``."""
    return f"/v1/processes/{seg(id)}{tail}"


def decode_process_log_data(entry: ProcessLogEntry) -> bytes:
    """The bytes of a log entry (its ``data`` is base64)."""
    return base64.b64decode(entry.data)


decode_log_data = decode_process_log_data
"""Deprecated: the 0.2 name of ``decode_process_log_data``."""


def input_request(data: str | bytes | ProcessInputRequest) -> ProcessInputRequest:
    """The body of ``POST .../input``: a string as UTF-8, bytes as base64, a body as it is."""
    if isinstance(data, ProcessInputRequest):
        return data
    if isinstance(data, str):
        return ProcessInputRequest(data=data, encoding="utf8")
    return ProcessInputRequest(data=base64.b64encode(data).decode("ascii"), encoding="base64")


def signal_params(wait_ms: int | None) -> dict[str, str]:
    """The query of ``stop`` and ``kill``."""
    return _core.query(waitMs=wait_ms)


def logs_params(
    stream: ProcessLogsStream | None, tail: int | None, since: int | None, offset: int | None
) -> dict[str, str]:
    """The query of ``GET .../logs``."""
    return _core.query(stream=stream, tail=tail, since=since, offset=offset)


class LogFollower:
    """Where a followed log is: the query of its next connection (``since`` the last entry
    yielded, so a reconnect repeats and skips nothing) and the events worth yielding."""

    def __init__(
        self, id: str, stream: ProcessLogsStream | None, since: int | None, offset: int | None
    ) -> None:
        self.id = id
        self.path = path(id, "/logs")
        self._stream = stream
        self._offset = offset
        self._since = since

    def params(self) -> dict[str, str]:
        """The next connection's query."""
        return {**logs_params(self._stream, None, self._since, self._offset), "follow": "true"}

    def headers(self) -> dict[str, str]:
        """``Last-Event-ID`` once an entry was seen."""
        return {"last-event-id": str(self._since)} if self._since is not None else {}

    def accept(self, event: str, data: str) -> ProcessLogEvent | None:
        """The event of one SSE message, or None for one to skip (an entry already yielded,
        an event this SDK does not know)."""
        try:
            if event == "log":
                entry = ProcessLogEntry.model_validate_json(data)
                if self._since is not None and entry.sequence <= self._since:
                    return None
                self._since = entry.sequence
                # The daemon reads from `offset` rather than `since` when given both: a
                # reconnect goes on after this entry alone.
                self._offset = None
                return entry
            if event == "missed":
                return ProcessLogsMissed.model_validate_json(data)
            if event == "exit":
                return ProcessInfo.model_validate_json(data)
        except ValidationError as error:
            raise AgentplexError.create(
                "unexpected_response", 200, f'a log event of process "{self.id}" is not valid: {data[:200]}'
            ) from error
        return None

    def failed(self, failures: int, last_error: BaseException | None) -> AgentplexError:
        """The ``StreamError`` of a log stream that kept failing."""
        error = AgentplexError.create(
            "stream_error",
            last_error.status if isinstance(last_error, AgentplexError) else 0,
            f'the log stream of process "{self.id}" failed {failures} times in a row'
            + (f"; last: {last_error}" if last_error is not None else ""),
        )
        error.__cause__ = last_error
        return error


def terminal_url(base_url: str, id: str, access_token: str | None = None) -> str:
    """The ``ws:`` (or ``wss:``) URL of a process's terminal, with ``access_token`` as its query
    parameter when given."""
    url = "ws" + base_url.removeprefix("http") + path(id, "/terminal/ws")
    return url + "?" + urllib.parse.urlencode({"access_token": access_token}) if access_token else url


def refused(error: InvalidStatus) -> AgentplexError:
    """The problem of a refused WebSocket upgrade (404, 409, 401...), as its error class."""
    response = error.response
    return error_from_response(response.status_code, response.reason_phrase, bytes(response.body))


def input_frame(data: str | bytes) -> str:
    """A terminal ``input`` frame: a string as UTF-8, bytes as base64."""
    frame = (
        TerminalClientFrameInput(type="input", data=data, encoding="utf8")
        if isinstance(data, str)
        else TerminalClientFrameInput(
            type="input", data=base64.b64encode(data).decode("ascii"), encoding="base64"
        )
    )
    return frame.model_dump_json(by_alias=True, exclude_none=True)


def resize_frame(cols: int, rows: int) -> str:
    """A terminal ``resize`` frame."""
    return TerminalClientFrameResize(type="resize", cols=cols, rows=rows).model_dump_json(by_alias=True)


CLOSE_FRAME = json.dumps({"type": "close"})
"""The terminal ``close`` frame: this socket closes, the process goes on."""


def server_frame(text: str) -> TerminalServerFrame | None:
    """A control frame from the daemon, or None for one this SDK does not know."""
    try:
        return _SERVER_FRAME.validate_json(text)
    except ValidationError:
        return None


def handshake_headers(headers: dict[str, str]) -> dict[str, Any]:
    """The client's headers fit for a WebSocket handshake: the token and the caller's own,
    without those the handshake sets itself."""
    own = ("connection", "upgrade", "host", "user-agent")
    return {k: v for k, v in headers.items() if k.lower() not in own}
