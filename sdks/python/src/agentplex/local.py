"""``start()``: runs a local ``agentplex server`` as a child process and returns a client of
it; leaving its ``with`` block (or ``stop()``) stops the daemon.

The daemon is run with ``--port 0`` (unless a port is given): it binds a free port itself and
prints ``agentplex listening on http://HOST:PORT`` on stdout once it accepts connections
(docs/cli.md, "The listening line"; ``sandbox-agent listening on ...`` from 0.2 and older
binaries), so there is no race for a port. The binary, its token variables and its listening
line are ``agentplex.daemon_binary``'s.
"""

from __future__ import annotations

import atexit
import collections
import os
import queue
import secrets
import socket
import subprocess
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import IO, Literal, NoReturn

import httpx

from ._core import DEFAULT_TIMEOUT
from .aio import AsyncAgentplex
from .client import Agentplex
from .daemon_binary import daemon_env, find_binary, listening_address
from .errors import AgentplexError

_STDERR_TAIL = 64 * 1024


class Daemon:
    """An ``agentplex server`` child process (made by ``start()``)."""

    def __init__(
        self,
        binary: str,
        args: Sequence[str],
        env: Mapping[str, str],
        log: Literal["pipe", "inherit"],
    ) -> None:
        self.binary = binary
        """The binary that runs."""
        self._stderr: collections.deque[str] = collections.deque()
        self._stderr_size = 0
        self._lines: queue.Queue[str | None] = queue.Queue()
        try:
            self.process = subprocess.Popen(
                [binary, *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE if log == "pipe" else None,
                env=dict(env),
            )
        except OSError as error:
            raise AgentplexError.create("binary_not_found", 0, f"could not run {binary}: {error}") from error
        """The daemon's process."""
        _running.add(self)
        assert self.process.stdout is not None
        self._threads = [threading.Thread(target=self._read_stdout, args=(self.process.stdout,), daemon=True)]
        if self.process.stderr is not None:
            self._threads.append(
                threading.Thread(target=self._read_stderr, args=(self.process.stderr,), daemon=True)
            )
        for thread in self._threads:
            thread.start()

    @property
    def pid(self) -> int:
        """The daemon's process id."""
        return self.process.pid

    def stderr(self) -> str:
        """The last 64 KiB the daemon wrote on stderr (with ``log="pipe"``)."""
        return "".join(self._stderr)

    def _read_stdout(self, stream: IO[bytes]) -> None:
        for raw in stream:
            self._lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        self._lines.put(None)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        for raw in stream:
            text = raw.decode("utf-8", "replace")
            self._stderr.append(text)
            self._stderr_size += len(text)
            while self._stderr_size > _STDERR_TAIL and len(self._stderr) > 1:
                self._stderr_size -= len(self._stderr.popleft())

    def wait_listening(self, timeout: float) -> str:
        """Waits for the listening line; the daemon's address (``http://HOST:PORT``)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AgentplexError.create(
                    "timeout",
                    0,
                    f"{self.binary} printed no listening line within {timeout:g} s",
                    stderr=self.stderr(),
                )
            try:
                line = self._lines.get(timeout=min(remaining, 0.1))
            except queue.Empty:
                continue
            if line is None:
                self._exited()
            address = listening_address(line)
            if address is None:
                raise AgentplexError.create(
                    "unexpected_response",
                    0,
                    f"{self.binary} printed {line[:200]!r} instead of its listening line:"
                    " not an agentplex daemon?",
                    stderr=self.stderr(),
                )
            return address

    def _exited(self) -> NoReturn:
        code = self.process.wait()
        for thread in self._threads:
            thread.join(timeout=1)
        stderr = self.stderr()
        tail = "\n".join(stderr.strip().splitlines()[-10:])
        raise AgentplexError.create(
            "daemon_exited",
            0,
            f"{self.binary} exited with code {code} before it listened" + (f":\n{tail}" if tail else ""),
            exit_code=code,
            stderr=stderr,
        )

    def stop(self, grace: float = 5.0) -> int:
        """Stops the daemon: SIGTERM (it stops its sessions and exits), SIGKILL after ``grace``
        seconds. Returns its exit code. Safe to call more than once."""
        _running.discard(self)
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for thread in self._threads:
            thread.join(timeout=1)
        return self.process.returncode


_running: weakref.WeakSet[Daemon] = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    for daemon in list(_running):
        daemon.stop(grace=2.0)


def _launch(
    binary: str | None,
    host: str,
    port: int,
    token: str | None,
    data_dir: str | os.PathLike[str] | None,
    args: Sequence[str],
    env: Mapping[str, str] | None,
    log: Literal["pipe", "inherit"],
    timeout: float,
) -> tuple[Daemon, str, str]:
    """Runs the daemon and waits for its listening line: the daemon, its address, its token."""
    path = find_binary(binary)
    token = token or secrets.token_hex(24)
    if port != 0 and not _port_free(host, port):
        raise AgentplexError.create("port_in_use", 0, f"{host}:{port} is already in use")
    argv = ["server", "--host", host, "--port", str(port)]
    if data_dir is not None:
        argv += ["--data-dir", os.fspath(data_dir)]
    argv += list(args)
    environment = daemon_env(os.environ if env is None else env, path, token)
    daemon = Daemon(path, argv, environment, log)
    try:
        return daemon, daemon.wait_listening(timeout), token
    except BaseException:
        daemon.stop(grace=1.0)
        raise


def _port_free(host: str, port: int) -> bool:
    """Whether ``port`` on ``host`` can be listened on now (as the daemon binds: connections of
    a daemon that listened there before, closing, do not count)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        if os.name != "nt":
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


class LocalAgentplex(Agentplex):
    """An ``Agentplex`` client of a daemon that ``start()`` runs; ``stop()`` (or leaving
    ``with``) stops it."""

    def __init__(
        self, daemon: Daemon, base_url: str, token: str, timeout: float | httpx.Timeout | None
    ) -> None:
        super().__init__(base_url, token, timeout=timeout)
        self.daemon = daemon
        """The daemon's process."""

    def stop(self, grace: float = 5.0) -> None:
        """Closes the client and stops the daemon."""
        self.close()
        self.daemon.stop(grace)

    def __enter__(self) -> LocalAgentplex:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


class AsyncLocalAgentplex(AsyncAgentplex):
    """An ``AsyncAgentplex`` client of a daemon that ``start_async()`` runs; ``stop()`` (or
    leaving ``async with``) stops it."""

    def __init__(
        self, daemon: Daemon, base_url: str, token: str, timeout: float | httpx.Timeout | None
    ) -> None:
        super().__init__(base_url, token, timeout=timeout)
        self.daemon = daemon
        """The daemon's process."""

    async def stop(self, grace: float = 5.0) -> None:
        """Closes the client and stops the daemon."""
        import asyncio

        await self.aclose()
        await asyncio.to_thread(self.daemon.stop, grace)

    async def __aenter__(self) -> AsyncLocalAgentplex:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()


def start(
    binary: str | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    token: str | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    log: Literal["pipe", "inherit"] = "pipe",
    timeout: float = 30.0,
    request_timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
) -> LocalAgentplex:
    """Runs ``agentplex server`` (``binary``; else ``$AGENTPLEX_BIN`` or ``$SANDBOX_AGENT_BIN``;
    else ``agentplex``, then ``sandbox-agent``, on PATH) on ``host`` and a port it picks
    (``port`` 0), with ``token`` (a random one when None; read it from ``client.token``), waits
    until it listens and answers its health check, and returns a client of it. Use it as a
    context manager (``with start() as client:``) or call ``stop()``; daemons still running
    when Python exits are stopped then.

    ``data_dir`` is the daemon's ``--data-dir``; ``args`` more arguments of ``server``
    (``--ephemeral``...); ``env`` its environment (default: this process's); ``log="inherit"``
    lets its stderr through (default: kept, the tail in errors and ``daemon.stderr()``);
    ``timeout`` the wait for the listening line in seconds; ``request_timeout`` the client's
    ``timeout``. Failures: ``BinaryNotFoundError``, ``PortInUseError``, ``DaemonExitedError``
    (with ``exit_code`` and ``stderr``), ``TimeoutError``, and ``UnexpectedResponseError``
    when the binary's first line is not the listening line.
    """
    daemon, base_url, secret = _launch(binary, host, port, token, data_dir, args, env, log, timeout)
    client = LocalAgentplex(daemon, base_url, secret, request_timeout)
    try:
        client.health()
    except BaseException:
        client.stop(grace=1.0)
        raise
    return client


async def start_async(
    binary: str | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    token: str | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    log: Literal["pipe", "inherit"] = "pipe",
    timeout: float = 30.0,
    request_timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
) -> AsyncLocalAgentplex:
    """``start()`` for asyncio: the same daemon, an ``AsyncAgentplex`` client of it
    (``async with await start_async() as client:``)."""
    import asyncio

    daemon, base_url, secret = await asyncio.to_thread(
        _launch, binary, host, port, token, data_dir, args, env, log, timeout
    )
    client = AsyncLocalAgentplex(daemon, base_url, secret, request_timeout)
    try:
        await client.health()
    except BaseException:
        await client.stop(grace=1.0)
        raise
    return client


LocalClient = LocalAgentplex
"""Deprecated: the 0.2 name of ``LocalAgentplex``."""
AsyncLocalClient = AsyncLocalAgentplex
"""Deprecated: the 0.2 name of ``AsyncLocalAgentplex``."""
