"""The asyncio client: the same methods, awaited, against a daemon of its own."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentplex import AsyncAgentplex, SessionNotFoundError, models, start_async

from .conftest import daemon_env


def test_async_client(binary: str, tmp_path: Path) -> None:
    async def main() -> None:
        env = daemon_env(tmp_path)
        async with await start_async(
            binary, args=["--ephemeral"], data_dir=tmp_path / "d", env=env
        ) as client:
            assert (await client.health()).status == "ok"
            assert "mock" in [a.id for a in await client.list_agents()]
            session = await client.create_session("async", agent="mock")

            async def allow(
                request: models.PermissionEventData, event: models.UniversalEvent
            ) -> models.PermissionReply:
                return "always"

            watched: list[str] = []

            def watch(request: models.PermissionEventData, event: models.UniversalEvent) -> None:
                watched.append(request.permission_id)

            # A plain listener that only watches, then a coroutine one that answers.
            session.on_permission(watch).on_permission(allow)
            result = await session.prompt("permission ls")
            assert "granted for this session" in result.text
            assert len(watched) == 1
            session.off_permission(watch).off_permission(allow)
            question = await session.prompt("question", on_question=lambda request, event: ["Red"])
            assert question.text == "You answered: Red."
            streamed = [e.type async for e in session.stream("echo streamed")]
            assert streamed[0] == "turn.started" and streamed[-1] == "turn.ended"
            await session.terminate()
            sequences = [e.sequence async for e in session.events()]
            assert sequences == list(range(1, len(sequences) + 1))
            written = await client.write_fs_file(str(tmp_path / "f.txt"), b"async")
            assert written.bytes_written == 5
            assert await client.read_fs_file(str(tmp_path / "f.txt")) == b"async"
            chunks = [c async for c in client.read_fs_file_stream(str(tmp_path / "f.txt"))]
            assert b"".join(chunks) == b"async"
            async with AsyncAgentplex(client.base_url, token=client.token) as other:
                with pytest.raises(SessionNotFoundError):
                    await other.session("nosuch").cancel()
        assert client.daemon.process.poll() is not None

    asyncio.run(main())
