"""The process routes (``/v1/processes``): runs, managed processes with their logs followed
live, and terminals over a real WebSocket, with the sync and the async client, against a
daemon that needs a token (so the terminal's handshake is authenticated)."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import websockets.sync.client

from agentplex import (
    AsyncProcessTerminal,
    LocalAgentplex,
    PayloadTooLargeError,
    ProcessConflictError,
    ProcessLogEvent,
    ProcessNotFoundError,
    ProcessTerminal,
    SpawnFailedError,
    TokenInvalidError,
    decode_process_log_data,
    models,
    start_async,
)
from agentplex.client import Agentplex
from agentplex.processes import LogFollower

from .conftest import daemon_env


def read_until(terminal: ProcessTerminal, pattern: str, seen: bytearray) -> str:
    """Reads the terminal's output into ``seen`` until ``pattern`` matches it (10 s at most)."""
    while not re.search(pattern, seen.decode("utf-8", "replace")):
        chunk = terminal.read(timeout=10)
        assert chunk, f"the terminal closed before {pattern!r}: {seen!r}"
        seen += chunk
    return seen.decode("utf-8", "replace")


def test_run_exit_code_and_output(client: LocalAgentplex) -> None:
    run = client.run_process(command="sh", args=["-c", "echo out; echo err >&2; exit 3"])
    assert (run.exit_code, run.signal, run.timed_out) == (3, None, False)
    assert (run.stdout, run.stderr) == ("out\n", "err\n")

    slow = client.run_process(command="sleep", args=["30"], timeout_ms=200)
    assert (slow.timed_out, slow.exit_code, slow.signal) == (True, None, 9)

    with pytest.raises(SpawnFailedError) as missing:
        client.run_process(command=f"no-such-program-{secrets.token_hex(4)}")
    assert missing.value.status == 400


def test_cat_echoes_input_through_followed_logs(client: LocalAgentplex) -> None:
    cat = client.create_process(command="cat", interactive=True)
    assert cat.status == "running"
    assert cat.id in [p.id for p in client.list_processes()]

    events: list[ProcessLogEvent] = []
    echoed = threading.Event()
    line = f"hello {secrets.token_hex(4)}\n"

    def follow() -> None:
        for event in client.follow_process_logs(cat.id):
            events.append(event)
            if isinstance(event, models.ProcessLogEntry) and decode_process_log_data(event) == line.encode():
                echoed.set()

    follower = threading.Thread(target=follow)
    follower.start()
    assert client.send_process_input(cat.id, line).bytes_written == len(line)
    # The line comes back live, while cat still runs.
    assert echoed.wait(10)
    assert client.get_process(cat.id).status == "running"

    assert client.stop_process(cat.id, wait_ms=5000).status == "exited"
    follower.join(10)
    assert not follower.is_alive()
    assert isinstance(events[-1], models.ProcessInfo) and events[-1].id == cat.id

    logs = client.get_process_logs(cat.id, stream="stdout")
    assert b"".join(decode_process_log_data(e) for e in logs.entries) == line.encode()
    assert logs.next_offset == len(line)
    with pytest.raises(ProcessConflictError):
        client.send_process_input(cat.id, b"late")

    client.delete_process(cat.id)
    with pytest.raises(ProcessNotFoundError) as gone:
        client.get_process(cat.id)
    assert gone.value.status == 404
    with pytest.raises(ProcessNotFoundError):
        next(iter(client.follow_process_logs(cat.id)))


def test_follow_resumes_after_an_entry(client: LocalAgentplex) -> None:
    proc = client.create_process(command="sh", args=["-c", "for i in 1 2 3; do echo $i; sleep 0.1; done"])
    first = next(iter(client.follow_process_logs(proc.id)))
    assert isinstance(first, models.ProcessLogEntry)
    rest = [
        decode_process_log_data(e)
        for e in client.follow_process_logs(proc.id, since=first.sequence)
        if isinstance(e, models.ProcessLogEntry)
    ]
    assert decode_process_log_data(first) + b"".join(rest) == b"1\n2\n3\n"


class DroppingProxy:
    """A TCP proxy to the daemon whose open connections can all be cut at once."""

    def __init__(self, port: int) -> None:
        self._target = ("127.0.0.1", port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self.connections = 0
        """How many connections were made through the proxy."""
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self._target)
            with self._lock:
                self._open |= {client, upstream}
                self.connections += 1
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        self._close(source, sink)

    def _close(self, *sockets: socket.socket) -> None:
        with self._lock:
            for sock in sockets:
                self._open.discard(sock)
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()

    def drop_all(self) -> None:
        """Cuts every open connection; new ones still work."""
        with self._lock:
            sockets = list(self._open)
        self._close(*sockets)

    def close(self) -> None:
        self._listener.close()
        self.drop_all()


@contextmanager
def dropping_proxy(base_url: str) -> Iterator[DroppingProxy]:
    proxy = DroppingProxy(urlsplit(base_url).port or 80)
    try:
        yield proxy
    finally:
        proxy.close()


def test_follow_resumes_after_dropped_connections(client: LocalAgentplex) -> None:
    script = "i=1; while [ $i -le 30 ]; do echo line-$i; i=$((i+1)); sleep 0.02; done"
    proc = client.create_process(command="sh", args=["-c", script])
    with dropping_proxy(client.base_url) as proxy, Agentplex(proxy.url, client.token) as via_proxy:
        output = b""
        entries = 0
        for event in via_proxy.follow_process_logs(proc.id, retry_delay=0.01):
            if isinstance(event, models.ProcessLogEntry):
                output += decode_process_log_data(event)
                entries += 1
                if entries % 5 == 0:
                    proxy.drop_all()  # cut the stream every five entries
        assert proxy.connections > 1
    assert output == b"".join(f"line-{i}\n".encode() for i in range(1, 31))
    client.delete_process(proc.id)


def test_a_reconnect_goes_on_after_the_last_entry() -> None:
    follower = LogFollower("proc_1", "stdout", None, 0)
    assert follower.params() == {"stream": "stdout", "offset": "0", "follow": "true"}
    assert follower.headers() == {}
    data = '{"sequence":3,"offset":10,"stream":"stdout","timestampMs":1,"data":"aGk=","encoding":"base64"}'
    entry = follower.accept("log", data)
    assert isinstance(entry, models.ProcessLogEntry) and decode_process_log_data(entry) == b"hi"
    # The daemon would read from the offset again: after an entry, `since` alone.
    assert follower.params() == {"stream": "stdout", "since": "3", "follow": "true"}
    assert follower.headers() == {"last-event-id": "3"}
    assert follower.accept("log", data) is None  # sent again after a reconnect: skipped
    assert follower.accept("something-newer", "{}") is None


def test_conflicts_and_limits(client: LocalAgentplex) -> None:
    cat = client.create_process(command="cat", interactive=True)
    with pytest.raises(ProcessConflictError) as running:
        client.delete_process(cat.id)
    assert running.value.status == 409

    limit = client.get_process_config().max_input_bytes_per_request
    with pytest.raises(PayloadTooLargeError) as too_large:
        client.send_process_input(cat.id, bytes(limit + 1))
    assert too_large.value.status == 413

    with pytest.raises(ProcessConflictError):
        client.connect_process_terminal(cat.id)
    with pytest.raises(ProcessNotFoundError):
        client.connect_process_terminal("proc_missing")

    killed = client.kill_process(cat.id, wait_ms=5000)
    assert (killed.status, killed.signal) == ("exited", 9)
    client.delete_process(cat.id)


def test_terminal_runs_sh(client: LocalAgentplex) -> None:
    sh = client.create_process(command="sh", tty=True, cols=80, rows=24)
    assert sh.tty
    seen = bytearray()
    with client.connect_process_terminal(sh.id) as terminal:
        terminal.send_input("echo $((6*7))\r")
        # The echoed command line shows `6*7`; only the shell's answer has 42 (the prompt may
        # come before it on its line).
        read_until(terminal, r"42\r?\n", seen)

        terminal.resize(100, 30)
        terminal.send_input("stty size\r")
        read_until(terminal, r"30 100\r?\n", seen)

        resized = client.resize_process_terminal(sh.id, 90, 20)
        assert (resized.cols, resized.rows) == (90, 20)
        terminal.send_input(b"stty size\r")
        read_until(terminal, r"20 90\r?\n", seen)

        terminal.send_input("exit 5\r")
        while terminal.read(timeout=10):
            pass
        assert terminal.exit is not None and (terminal.exit.exit_code, terminal.exit.signal) == (5, None)
    client.delete_process(sh.id)


def test_terminal_needs_the_token(client: LocalAgentplex) -> None:
    sh = client.create_process(command="sh", tty=True)
    stranger = Agentplex(client.base_url, "wrong")
    with pytest.raises(TokenInvalidError):
        stranger.connect_process_terminal(sh.id)
    stranger.close()
    # The URL for a client that cannot send headers carries the token.
    url = client.build_process_terminal_web_socket_url(sh.id)
    assert url == f"ws{client.base_url[4:]}/v1/processes/{sh.id}/terminal/ws?access_token={client.token}"
    with websockets.sync.client.connect(url) as terminal:
        assert json.loads(terminal.recv(timeout=10))["type"] == "ready"
    client.kill_process(sh.id, wait_ms=5000)
    client.delete_process(sh.id)


def test_async_processes_and_terminal(binary: str, tmp_path: Path) -> None:
    async def main() -> None:
        env = daemon_env(tmp_path)
        async with await start_async(
            binary, args=["--ephemeral"], data_dir=tmp_path / "d", env=env
        ) as client:
            run = await client.run_process(command="sh", args=["-c", "exit 3"])
            assert run.exit_code == 3

            cat = await client.create_process(command="cat", interactive=True)
            await client.send_process_input(cat.id, "ping\n")
            output = b""
            # Stopped once its echo came (stopped at once, cat could die before it read the line).
            async for event in client.follow_process_logs(cat.id):
                if isinstance(event, models.ProcessLogEntry):
                    output += decode_process_log_data(event)
                    if output == b"ping\n":
                        await client.stop_process(cat.id)
            assert output == b"ping\n"
            await client.delete_process(cat.id)

            sh = await client.create_process(command="sh", tty=True)
            terminal = await client.connect_process_terminal(sh.id)
            assert isinstance(terminal, AsyncProcessTerminal)
            async with terminal:
                await terminal.send_input("echo $((6*7))\r")
                seen = b""
                while not re.search(rb"42\r?\n", seen):
                    chunk = await terminal.read(timeout=10)
                    assert chunk, seen
                    seen += chunk
            assert (await client.get_process(sh.id)).status == "running"
            await client.kill_process(sh.id, wait_ms=5000)

    asyncio.run(main())
