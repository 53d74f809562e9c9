"""``start()``: runs a local ``sandbox-agent server`` as a child process and returns a client
of it; leaving its ``with`` block (or ``stop()``) stops the daemon.

The daemon is run with ``--port 0`` (unless a port is given): it binds a free port itself and
prints ``sandbox-agent listening on http://HOST:PORT`` on stdout once it accepts connections
(docs/cli.md, "The listening line"), so there is no race for a port.
"""

from __future__ import annotations

import atexit
import collections
import os
import queue
import re
import secrets
import shutil
import subprocess
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import IO, Literal

import httpx

from ._core import DEFAULT_TIMEOUT
from .aio import AsyncClient
from .client import Client
from .errors import SandboxAgentError

LISTENING = re.compile(r"^sandbox-agent listening on (http://\S+)$")
"""The daemon's listening line on stdout."""

_STDERR_TAIL = 64 * 1024


class Daemon:
    """A ``sandbox-agent server`` child process (made by ``start()``)."""

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
            raise SandboxAgentError.create(
                "binary_not_found", 0, f"could not run {binary}: {error}"
            ) from error
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
                raise SandboxAgentError.create(
                    "timeout",
                    504,
                    f"{self.binary} printed no listening line within {timeout} s",
                    stderr=self.stderr(),
                )
            try:
                line = self._lines.get(timeout=min(remaining, 0.1))
            except queue.Empty:
                continue
            if line is None:
                self._exited()
            else:
                match = LISTENING.match(line)
                if match:
                    return match.group(1)

    def _exited(self) -> None:
        code = self.process.wait()
        for thread in self._threads:
            thread.join(timeout=1)
        stderr = self.stderr()
        tail = "\n".join(stderr.strip().splitlines()[-10:])
        raise SandboxAgentError.create(
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


def find_binary(binary: str | None = None) -> str:
    """The binary to run: ``binary``, else ``$SANDBOX_AGENT_BIN``, else ``sandbox-agent`` on PATH."""
    given = binary or os.environ.get("SANDBOX_AGENT_BIN")
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            source = "binary" if binary else "SANDBOX_AGENT_BIN"
            raise SandboxAgentError.create(
                "binary_not_found", 0, f"{given} ({source}) is not an executable file"
            )
        return given
    found = shutil.which("sandbox-agent")
    if found is None:
        raise SandboxAgentError.create(
            "binary_not_found",
            0,
            "no sandbox-agent binary: pass binary=, set SANDBOX_AGENT_BIN, or put sandbox-agent on PATH",
        )
    return found


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
    argv = ["server", "--host", host, "--port", str(port)]
    if data_dir is not None:
        argv += ["--data-dir", os.fspath(data_dir)]
    argv += list(args)
    environment = dict(os.environ if env is None else env)
    # The token goes by environment, not argv, so it does not show in `ps`.
    environment["SANDBOX_AGENT_TOKEN"] = token
    daemon = Daemon(path, argv, environment, log)
    try:
        return daemon, daemon.wait_listening(timeout), token
    except BaseException:
        daemon.stop(grace=1.0)
        raise


class LocalClient(Client):
    """A ``Client`` of a daemon that ``start()`` runs; ``stop()`` (or leaving ``with``) stops it."""

    def __init__(self, daemon: Daemon, base_url: str, token: str, timeout: httpx.Timeout | float) -> None:
        super().__init__(base_url, token, timeout=timeout)
        self.daemon = daemon
        """The daemon's process."""

    def stop(self, grace: float = 5.0) -> None:
        """Closes the client and stops the daemon."""
        self.close()
        self.daemon.stop(grace)

    def __enter__(self) -> LocalClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


class AsyncLocalClient(AsyncClient):
    """An ``AsyncClient`` of a daemon that ``start_async()`` runs; ``stop()`` (or leaving
    ``async with``) stops it."""

    def __init__(self, daemon: Daemon, base_url: str, token: str, timeout: httpx.Timeout | float) -> None:
        super().__init__(base_url, token, timeout=timeout)
        self.daemon = daemon
        """The daemon's process."""

    async def stop(self, grace: float = 5.0) -> None:
        """Closes the client and stops the daemon."""
        import asyncio

        await self.aclose()
        await asyncio.to_thread(self.daemon.stop, grace)

    async def __aenter__(self) -> AsyncLocalClient:
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
    request_timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
) -> LocalClient:
    """Runs ``sandbox-agent server`` (``binary``, ``$SANDBOX_AGENT_BIN`` or PATH) on
    ``host`` and a port it picks (``port`` 0), with ``token`` (a random one when None; read it
    from ``client.token``), waits until it listens and answers its health check, and returns a
    client of it. Use it as a context manager (``with start() as client:``) or call ``stop()``;
    daemons still running when Python exits are stopped then.

    ``data_dir`` is the daemon's ``--data-dir``; ``args`` more arguments of ``server``
    (``--ephemeral``...); ``env`` its environment (default: this process's); ``log="inherit"``
    lets its stderr through (default: kept, the tail in errors and ``daemon.stderr()``).
    """
    daemon, base_url, secret = _launch(binary, host, port, token, data_dir, args, env, log, timeout)
    client = LocalClient(daemon, base_url, secret, request_timeout)
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
    request_timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
) -> AsyncLocalClient:
    """``start()`` for asyncio: the same daemon, an ``AsyncClient`` of it
    (``async with await start_async() as client:``)."""
    import asyncio

    daemon, base_url, secret = await asyncio.to_thread(
        _launch, binary, host, port, token, data_dir, args, env, log, timeout
    )
    client = AsyncLocalClient(daemon, base_url, secret, request_timeout)
    try:
        await client.health()
    except BaseException:
        await client.stop(grace=1.0)
        raise
    return client
