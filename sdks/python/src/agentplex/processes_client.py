"""``ProcessMethods``: the methods of ``Agentplex`` for the managed processes
(``/v1/processes/*``) and their terminals, which it inherits; ``AsyncProcessMethods``
(``agentplex.aio_processes_client``) are the async client's. What both share (paths, queries,
the log follower) is in ``agentplex.processes``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from typing_extensions import Unpack

from . import _core, processes
from ._core import CallOptions
from .client_base import ClientBase
from .errors import AgentplexError
from .generated.models import (
    ProcessConfig,
    ProcessCreateRequest,
    ProcessInfo,
    ProcessInputRequest,
    ProcessInputResponse,
    ProcessListResponse,
    ProcessLogsResponse,
    ProcessLogsStream,
    ProcessRunRequest,
    ProcessRunResponse,
    ProcessTerminalResizeRequest,
)
from .terminal import ProcessTerminal


class ProcessMethods(ClientBase):
    """The process routes of ``Agentplex`` (``/v1/processes/*``), its terminals' included."""

    def get_process_config(self, **options: Unpack[CallOptions]) -> ProcessConfig:
        """``GET /v1/processes/config``: the daemon's process limits (set by its flags)."""
        return _core.parse(ProcessConfig, self._request("GET", "/v1/processes/config", options))

    def run_process(
        self,
        request: ProcessRunRequest | None = None,
        /,
        *,
        timeout: float | None = None,
        max_retries: int | None = None,
        **fields: Any,
    ) -> ProcessRunResponse:
        """``POST /v1/processes/run``: runs a command to its end; its exit status and output.

        Give the body as keyword arguments (``command="sh"``, ``args=[...]``, ``cwd=``,
        ``env=``, ``stdin=``, ``timeout_ms=``, ``max_output_bytes=``...) or as a
        ``ProcessRunRequest``. The daemon kills the run at ``timeout_ms`` (30 s when absent), so
        the call has no time limit of its own unless it gives ``timeout``.
        """
        body = request if request is not None else ProcessRunRequest.model_validate(fields)
        options = _core.call_options(timeout, max_retries)
        answer = self._request("POST", "/v1/processes/run", options, body=body, unlimited=True)
        return _core.parse(ProcessRunResponse, answer)

    def create_process(
        self,
        request: ProcessCreateRequest | None = None,
        /,
        *,
        timeout: float | None = None,
        max_retries: int | None = None,
        **fields: Any,
    ) -> ProcessInfo:
        """``POST /v1/processes``: starts a managed process (``tty=True`` for a terminal,
        ``interactive=True`` to keep its stdin open), as keyword arguments or a
        ``ProcessCreateRequest``."""
        body = request if request is not None else ProcessCreateRequest.model_validate(fields)
        options = _core.call_options(timeout, max_retries)
        return _core.parse(ProcessInfo, self._request("POST", "/v1/processes", options, body=body))

    def list_processes(self, **options: Unpack[CallOptions]) -> list[ProcessInfo]:
        """``GET /v1/processes``: every process not deleted, oldest first."""
        return _core.parse(ProcessListResponse, self._request("GET", "/v1/processes", options)).processes

    def get_process(self, id: str, **options: Unpack[CallOptions]) -> ProcessInfo:
        """``GET /v1/processes/{id}``; ``ProcessNotFoundError`` for an unknown id."""
        return _core.parse(ProcessInfo, self._request("GET", processes.path(id), options))

    def stop_process(
        self, id: str, *, wait_ms: int | None = None, **options: Unpack[CallOptions]
    ) -> ProcessInfo:
        """``POST /v1/processes/{id}/stop``: SIGTERM to its process group, SIGKILL after the
        daemon's grace; with ``wait_ms``, answers once it exited or ``wait_ms`` passed."""
        params = processes.signal_params(wait_ms)
        answer = self._request("POST", processes.path(id, "/stop"), options, params=params)
        return _core.parse(ProcessInfo, answer)

    def kill_process(
        self, id: str, *, wait_ms: int | None = None, **options: Unpack[CallOptions]
    ) -> ProcessInfo:
        """``POST /v1/processes/{id}/kill``: SIGKILL to its process group (``wait_ms`` as for
        ``stop_process``)."""
        params = processes.signal_params(wait_ms)
        answer = self._request("POST", processes.path(id, "/kill"), options, params=params)
        return _core.parse(ProcessInfo, answer)

    def delete_process(self, id: str, **options: Unpack[CallOptions]) -> None:
        """``DELETE /v1/processes/{id}``: forgets an exited process and its logs
        (``ProcessConflictError`` while it runs)."""
        self._request("DELETE", processes.path(id), options)

    def send_process_input(
        self, id: str, data: str | bytes | ProcessInputRequest, **options: Unpack[CallOptions]
    ) -> ProcessInputResponse:
        """``POST /v1/processes/{id}/input``: writes to its stdin (or terminal): a string as
        UTF-8, bytes as they are, or the request body. ``ProcessConflictError`` when its stdin
        is not open, ``PayloadTooLargeError`` past ``--process-input-bytes``."""
        body = processes.input_request(data)
        answer = self._request("POST", processes.path(id, "/input"), options, body=body)
        return _core.parse(ProcessInputResponse, answer)

    def get_process_logs(
        self,
        id: str,
        *,
        stream: ProcessLogsStream | None = None,
        tail: int | None = None,
        since: int | None = None,
        offset: int | None = None,
        **options: Unpack[CallOptions],
    ) -> ProcessLogsResponse:
        """``GET /v1/processes/{id}/logs``: the output its ring buffer holds, by entry and byte
        offset (``decode_process_log_data(entry)`` for an entry's bytes)."""
        params = processes.logs_params(stream, tail, since, offset)
        answer = self._request("GET", processes.path(id, "/logs"), options, params=params)
        return _core.parse(ProcessLogsResponse, answer)

    def follow_process_logs(
        self,
        id: str,
        *,
        stream: ProcessLogsStream | None = None,
        since: int | None = None,
        offset: int | None = None,
        max_retries: int = 10,
        retry_delay: float = 0.25,
        idle_timeout: float = _core.DEFAULT_IDLE_TIMEOUT,
        timeout: float | None = None,
    ) -> Iterator[processes.ProcessLogEvent]:
        """``GET /v1/processes/{id}/logs?follow=true``: the entries held that match (from
        ``offset`` or after ``since``, else from the oldest held), then new ones as they are read
        (``ProcessLogEntry``), ``ProcessLogsMissed`` when output was
        dropped before it was sent, and the ``ProcessInfo`` of its exit, last.

        A dropped connection is reopened with ``Last-Event-ID`` = the last entry yielded, so
        none is repeated or skipped; ``max_retries`` failed reconnects in a row raise
        ``StreamError``; problem answers (404...) are raised at once. ``timeout`` bounds
        opening each connection (the client's when None); ``idle_timeout`` (0: none) a silence.
        """
        follower = processes.LogFollower(id, stream, since, offset)
        options = _core.call_options(timeout, None)
        failures = 0
        delay = 0.0
        last_error: BaseException | None = None
        while True:
            if failures > max_retries:
                raise follower.failed(failures, last_error)
            if delay > 0:
                time.sleep(delay)
            alive = False
            try:
                with self._open(
                    "GET",
                    follower.path,
                    options,
                    params=follower.params(),
                    headers=follower.headers(),
                    read_timeout=idle_timeout,
                ) as response:
                    decoder = _core.SseDecoder()
                    for line in _core.read_lines(response.iter_lines()):
                        alive = True
                        failures = 0
                        message = decoder.message(line)
                        event = follower.accept(*message) if message is not None else None
                        if event is None:
                            continue
                        yield event
                        if isinstance(event, ProcessInfo):
                            return
            except AgentplexError as error:
                if not _core.retryable(error):
                    raise
                last_error = error
            if alive:
                delay = 0.0
            else:
                failures += 1
                delay = _core.backoff(retry_delay, failures)

    def resize_process_terminal(
        self, id: str, cols: int, rows: int, **options: Unpack[CallOptions]
    ) -> ProcessTerminalResizeRequest:
        """``POST /v1/processes/{id}/terminal/resize``: sets a terminal's size; the size set."""
        body = ProcessTerminalResizeRequest(cols=cols, rows=rows)
        answer = self._request("POST", processes.path(id, "/terminal/resize"), options, body=body)
        return _core.parse(ProcessTerminalResizeRequest, answer)

    def build_process_terminal_web_socket_url(self, id: str, *, access_token: str | None = None) -> str:
        """The ``ws:`` (or ``wss:``) URL of a process's terminal, with the token
        (``access_token``, else the client's) as the ``access_token`` query parameter, for a
        client that cannot send headers (a browser's WebSocket)."""
        return processes.terminal_url(self.base_url, id, access_token or self.token)

    def connect_process_terminal(self, id: str, *, timeout: float | None = None) -> ProcessTerminal:
        """Opens the WebSocket of a process's terminal (``GET .../terminal/ws``) and returns once
        the daemon is ready (within ``timeout``, the client's when None; 0: no limit): read its
        output (the scrollback first), send keystrokes and resizes. ``ProcessNotFoundError``,
        ``ProcessConflictError`` (it has no terminal), ``TokenInvalidError`` when the daemon
        refuses the socket, ``TimeoutError`` past the limit."""
        url = processes.terminal_url(self.base_url, id)
        headers = processes.handshake_headers(self._headers)
        limit = _core.call_limit(_core.call_options(timeout, None), self._timeout)
        return ProcessTerminal.open(url, headers, id, limit)
