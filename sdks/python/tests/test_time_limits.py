"""Time limits and cancellation, as the TypeScript SDK's: a call past its limit raises
``TimeoutError`` (code ``timeout``, status 0), a call's own ``timeout`` wins over the client's,
the calls that may take long have none by default, and cancelling an asyncio task stops its
call (the daemon, and the client, go on)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentplex import Agentplex, AgentplexError, AsyncAgentplex, LocalAgentplex, connect, start_async
from agentplex import errors as sdk_errors

from .conftest import daemon_env


@pytest.fixture(scope="module")
def silent() -> Iterator[str]:
    """The address of a server that accepts connections and never answers."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            held.append(connection)

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    server.close()
    for connection in held:
        connection.close()


def test_a_call_past_the_clients_limit_raises_timeout_error(silent: str) -> None:
    with Agentplex(silent, timeout=0.2) as client:
        started = time.monotonic()
        with pytest.raises(sdk_errors.TimeoutError) as caught:
            client.list_sessions()
    assert time.monotonic() - started < 2
    assert (caught.value.code, caught.value.status) == ("timeout", 0)
    assert "GET /v1/sessions took longer than 0.2 s" in str(caught.value)
    assert isinstance(caught.value, TimeoutError) and isinstance(caught.value, AgentplexError)


def test_a_calls_own_limit_wins_and_retries_stay_within_it(silent: str) -> None:
    with Agentplex(silent, timeout=60) as client:
        started = time.monotonic()
        with pytest.raises(sdk_errors.TimeoutError):
            client.health(timeout=0.2, max_retries=5)
        with pytest.raises(sdk_errors.TimeoutError):
            client.session("s").send("hi", timeout=0.2)
    assert time.monotonic() - started < 3


def test_connect_says_a_time_limit_passed(silent: str) -> None:
    with pytest.raises(sdk_errors.TimeoutError):
        connect(silent, timeout=0.2)


def test_the_async_client_the_same(silent: str) -> None:
    async def main() -> None:
        async with AsyncAgentplex(silent, timeout=0.2) as client:
            with pytest.raises(sdk_errors.TimeoutError):
                await client.list_agents()
            with pytest.raises(sdk_errors.TimeoutError):
                await client.list_agents(timeout=0.1)

    asyncio.run(main())


def test_long_calls_have_no_limit_unless_given(client: LocalAgentplex) -> None:
    with Agentplex(client.base_url, client.token, timeout=0.5) as short:
        run = short.run_process(command="sleep", args=["1"])
        assert run.exit_code == 0
        with pytest.raises(sdk_errors.TimeoutError):
            short.run_process(command="sleep", args=["5"], timeout=0.3)
        result = short.install_agent("mock")
        assert result["agent"] == "mock" and result["alreadyInstalled"]


def test_cancelling_a_task_stops_its_call(binary: str, tmp_path: Path) -> None:
    async def main() -> None:
        env = daemon_env(tmp_path)
        async with await start_async(
            binary, args=["--ephemeral"], data_dir=tmp_path / "d", env=env
        ) as client:
            waiting = await client.create_session("waits", agent="mock")
            for call in (
                lambda: client.run_process(command="sleep", args=["30"]),
                # Nobody answers its permission request: the turn waits.
                lambda: waiting.prompt("permission ls"),
            ):
                task = asyncio.ensure_future(call())
                await asyncio.sleep(0.3)
                started = time.monotonic()
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
                assert time.monotonic() - started < 1
            session = await client.create_session("after-cancel", agent="mock")

            async def follow() -> None:
                async for _ in session.events():
                    pass

            following = asyncio.ensure_future(follow())
            await asyncio.sleep(0.3)
            following.cancel()
            with pytest.raises(asyncio.CancelledError):
                await following
            # The client and the daemon go on.
            assert (await session.prompt("echo still here")).text == "still here"

    asyncio.run(main())
