"""``ProcessTerminal`` and ``AsyncProcessTerminal``: a WebSocket to a process's pseudo-terminal
(``GET /v1/processes/{id}/terminal/ws``), with the ``websockets`` library. The terminal's
output is read as bytes (the scrollback first); keystrokes, resizes and the close go out as
JSON control frames. The token goes in the handshake's ``Authorization`` header."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from types import TracebackType

from websockets.asyncio.client import ClientConnection as AsyncConnection
from websockets.asyncio.client import connect as async_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as sync_connect

from . import processes
from .errors import AgentplexError
from .generated.models import (
    TerminalServerFrameError,
    TerminalServerFrameExit,
    TerminalServerFrameReady,
)

_TIMEOUTS = (TimeoutError, asyncio.TimeoutError)
"""What a time limit raises (``asyncio.TimeoutError`` is another class before Python 3.11)."""


def _not_ready(process_id: str, error: Exception, timeout: float | None) -> AgentplexError:
    """The error of a socket that could not be opened: the refused upgrade's problem
    (``ProcessNotFoundError``, ``ProcessConflictError``, ``TokenInvalidError``...), a
    ``TimeoutError`` past ``timeout``, else a ``network_error``."""
    if isinstance(error, InvalidStatus):
        return processes.refused(error)
    if isinstance(error, _TIMEOUTS):
        return AgentplexError.create(
            "timeout", 0, f'the terminal of process "{process_id}" was not ready within {timeout:g} s'
        )
    failure = AgentplexError.create(
        "network_error", 0, f'the terminal of process "{process_id}": {type(error).__name__}: {error}'
    )
    failure.__cause__ = error
    return failure


class _Frames:
    """What both terminals do with the daemon's frames: record the exit and refused controls,
    and tell output (bytes) from control frames."""

    def __init__(self, process_id: str) -> None:
        self.process_id = process_id
        """The process whose terminal this is."""
        self.exit: TerminalServerFrameExit | None = None
        """The process's exit (``exit_code``, ``signal``), once the daemon reported it."""
        self.errors: list[str] = []
        """The messages of control frames the daemon refused (an input past the limit...)."""

    def _output(self, message: str | bytes) -> bytes | None:
        """The bytes of an output frame; None for a control frame (recorded)."""
        if isinstance(message, bytes):
            return message
        frame = processes.server_frame(message)
        if isinstance(frame, TerminalServerFrameExit):
            self.exit = frame
        elif isinstance(frame, TerminalServerFrameError):
            self.errors.append(frame.message)
        return None

    def _check_ready(self, message: str | bytes) -> None:
        frame = processes.server_frame(message) if isinstance(message, str) else None
        if not isinstance(frame, TerminalServerFrameReady):
            raise AgentplexError.create(
                "unexpected_response",
                101,
                f'the terminal of process "{self.process_id}" did not start with a ready frame',
            )


class ProcessTerminal(_Frames):
    """A terminal of the sync client (``Client.connect_process_terminal``). Iterating it
    yields its output until the socket closes (after the process exited, or ``close()``)."""

    def __init__(self, process_id: str, connection: ClientConnection) -> None:
        super().__init__(process_id)
        self._connection = connection

    @classmethod
    def open(
        cls, url: str, headers: dict[str, str], process_id: str, timeout: float | None
    ) -> ProcessTerminal:
        """Opens the socket and returns once the daemon sent ``ready`` (within ``timeout``
        seconds; None: no limit)."""
        try:
            # Entered as a context manager, the form websockets 17.1+ asks for (``close()`` exits it).
            connection = sync_connect(
                url, additional_headers=headers, open_timeout=timeout, max_size=None
            ).__enter__()
        except (InvalidHandshake, OSError, *_TIMEOUTS) as error:
            raise _not_ready(process_id, error, timeout) from error
        terminal = cls(process_id, connection)
        try:
            terminal._check_ready(connection.recv(timeout=timeout))
        except _TIMEOUTS as error:
            connection.close()
            raise _not_ready(process_id, error, timeout) from error
        except BaseException:
            connection.close()
            raise
        return terminal

    def read(self, timeout: float | None = None) -> bytes:
        """The next chunk of output; ``b""`` once the socket has closed. ``TimeoutError`` when
        none came within ``timeout`` seconds."""
        while True:
            try:
                message = self._connection.recv(timeout=timeout)
            except ConnectionClosed:
                return b""
            output = self._output(message)
            if output is not None:
                return output

    def __iter__(self) -> Iterator[bytes]:
        while chunk := self.read():
            yield chunk

    def send_input(self, data: str | bytes) -> None:
        """Sends keystrokes: a string as UTF-8, bytes as they are."""
        self._connection.send(processes.input_frame(data))

    def resize(self, cols: int, rows: int) -> None:
        """Sets the terminal's size (shared by every viewer; the process gets SIGWINCH)."""
        self._connection.send(processes.resize_frame(cols, rows))

    def close(self) -> None:
        """Closes this socket; the process goes on."""
        try:
            self._connection.send(processes.CLOSE_FRAME)
        except ConnectionClosed:
            pass
        self._connection.close()

    def __enter__(self) -> ProcessTerminal:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class AsyncProcessTerminal(_Frames):
    """A terminal of the async client (``AsyncClient.connect_process_terminal``); ``async for``
    yields its output until the socket closes."""

    def __init__(self, process_id: str, connection: AsyncConnection) -> None:
        super().__init__(process_id)
        self._connection = connection

    @classmethod
    async def open(
        cls, url: str, headers: dict[str, str], process_id: str, timeout: float | None
    ) -> AsyncProcessTerminal:
        """Opens the socket and returns once the daemon sent ``ready`` (within ``timeout``
        seconds; None: no limit)."""
        try:
            connection = await async_connect(
                url, additional_headers=headers, open_timeout=timeout, max_size=None
            )
        except (InvalidHandshake, OSError, *_TIMEOUTS) as error:
            raise _not_ready(process_id, error, timeout) from error
        terminal = cls(process_id, connection)
        try:
            terminal._check_ready(await asyncio.wait_for(connection.recv(), timeout))
        except _TIMEOUTS as error:
            await connection.close()
            raise _not_ready(process_id, error, timeout) from error
        except BaseException:
            await connection.close()
            raise
        return terminal

    async def read(self, timeout: float | None = None) -> bytes:
        """The next chunk of output; ``b""`` once the socket has closed. ``TimeoutError`` when
        none came within ``timeout`` seconds."""
        while True:
            try:
                message = await asyncio.wait_for(self._connection.recv(), timeout)
            except ConnectionClosed:
                return b""
            output = self._output(message)
            if output is not None:
                return output

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while chunk := await self.read():
            yield chunk

    async def send_input(self, data: str | bytes) -> None:
        """Sends keystrokes: a string as UTF-8, bytes as they are."""
        await self._connection.send(processes.input_frame(data))

    async def resize(self, cols: int, rows: int) -> None:
        """Sets the terminal's size (shared by every viewer; the process gets SIGWINCH)."""
        await self._connection.send(processes.resize_frame(cols, rows))

    async def close(self) -> None:
        """Closes this socket; the process goes on."""
        try:
            await self._connection.send(processes.CLOSE_FRAME)
        except ConnectionClosed:
            pass
        await self._connection.close()

    async def __aenter__(self) -> AsyncProcessTerminal:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()
