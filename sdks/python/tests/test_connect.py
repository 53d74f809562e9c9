"""``connect()``: a client once the daemon is known to work, or an error saying what is wrong."""

from __future__ import annotations

import asyncio
import http.server
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentplex import (
    NetworkError,
    TokenInvalidError,
    UnexpectedResponseError,
    connect,
    connect_async,
    start,
)

from .conftest import daemon_env


@pytest.fixture(scope="module")
def daemon(binary: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A daemon with a token: its address and its token."""
    home = tmp_path_factory.mktemp("home")
    with start(binary, args=["--ephemeral"], data_dir=home / "data", env=daemon_env(home)) as local:
        assert local.token is not None
        yield local.base_url, local.token


def test_a_working_daemon_and_token(daemon: tuple[str, str]) -> None:
    base_url, token = daemon
    with connect(base_url, token) as client:
        assert client.health().status == "ok"

    async def main() -> None:
        async with await connect_async(base_url, token) as client:
            assert (await client.health()).status == "ok"

    asyncio.run(main())


def test_no_token_and_a_wrong_token_say_which(daemon: tuple[str, str]) -> None:
    base_url, _ = daemon
    with pytest.raises(TokenInvalidError) as caught:
        connect(base_url)
    assert "none was given" in (caught.value.detail or "")
    with pytest.raises(TokenInvalidError) as caught:
        connect(base_url, "not-the-token")
    assert "refused the token" in (caught.value.detail or "")


def test_nothing_listening() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    with pytest.raises(NetworkError) as caught:
        connect(f"http://127.0.0.1:{port}")
    assert "nothing answers at" in (caught.value.detail or "")


class NotADaemon(http.server.BaseHTTPRequestHandler):
    """An HTTP server that is not an agentplex daemon."""

    def do_GET(self) -> None:
        body = b"<html>hello</html>"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_something_else_answering(tmp_path: Path) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotADaemon)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with pytest.raises(UnexpectedResponseError) as caught:
            connect(f"http://127.0.0.1:{server.server_address[1]}")
        assert "is not an agentplex daemon" in (caught.value.detail or "")
    finally:
        server.shutdown()
