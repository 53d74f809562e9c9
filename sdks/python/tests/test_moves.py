"""Sessions moving between daemons (``export_session``, ``import_session``, ``move_session``),
sync and async, against two daemons and the mock agent."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from agentplex import (
    Agentplex,
    AsyncAgentplex,
    InvalidArchiveError,
    InvalidRequestError,
    LocalAgentplex,
    SessionAlreadyExistsError,
    SessionNotFoundError,
    start,
)
from agentplex.generated.models import ContentPartToolResult
from agentplex.session import Session

from .conftest import daemon_env

_ids = itertools.count(1)


def unique(prefix: str) -> str:
    """A session id unique within the module."""
    return f"{prefix}-{next(_ids)}"


@pytest.fixture(scope="module")
def other(binary: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalAgentplex]:
    """A second daemon, of its own home and data dir, for sessions to move to."""
    home = tmp_path_factory.mktemp("other-home")
    with start(binary, args=["--ephemeral"], data_dir=home / "data", env=daemon_env(home)) as local:
        yield local


def with_a_turn(client: LocalAgentplex, directory: Path, env: dict[str, str] | None = None) -> Session:
    """A mock session that has had one turn."""
    session = client.create_session(unique("move"), agent="mock", directory=str(directory), env=env)
    assert session.prompt("hello from the first sandbox").stop_reason == "turn_ended"
    return session


def types(client: LocalAgentplex, id: str) -> list[str]:
    """The types of every event of a session, in order."""
    return [event.type for event in client.session(id).get_events().events]


def test_export_and_import_under_another_id_and_in_another_daemon(
    client: LocalAgentplex, other: LocalAgentplex, tmp_path: Path
) -> None:
    session = with_a_turn(client, tmp_path)
    transcript = types(client, session.id)
    assert transcript[-1] == "turn.ended"
    lost: list[str] = []
    archive = b"".join(client.export_session(session.id, on_native_lost=lost.append))
    assert archive[:2] == b"\x1f\x8b"
    assert lost == []  # the mock keeps its whole session in its snapshot

    # The same daemon, under another id, from bytes.
    copy = unique("copy")
    here = client.import_session(copy, archive)
    assert (here.session.session_id, here.session.agent, here.session.event_count) == (
        copy,
        "mock",
        len(transcript),
    )
    assert (here.missing_secrets, here.native_files, here.lost) == ([], 0, None)
    assert types(client, copy) == transcript

    # The other daemon, under the same id, from chunks; its next turn carries on.
    chunks = (archive[i : i + 100] for i in range(0, len(archive), 100))
    there = other.import_session(session.id, chunks, directory=str(tmp_path))
    assert (there.session.event_count, there.session.directory) == (len(transcript), str(tmp_path))
    assert types(other, session.id) == transcript
    turn = other.session(session.id).prompt("hello from the second sandbox")
    assert "hello from the second sandbox" in turn.text
    assert turn.turn_id == "turn_2"  # the mock's own session came along
    # The session stays where it was.
    assert client.get_session(session.id).info is not None
    assert types(client, session.id) == transcript


def test_import_streams_the_export_and_takes_the_secrets(
    client: LocalAgentplex, other: LocalAgentplex, tmp_path: Path
) -> None:
    env = {"MOCK_API_KEY": "k-1", "OTHER_TOKEN": "t-2", "PLAIN": "plain"}
    session = with_a_turn(client, tmp_path, env)
    streamed = other.import_session(unique("streamed"), client.export_session(session.id, chunk_size=256))
    assert sorted(streamed.missing_secrets) == ["MOCK_API_KEY", "OTHER_TOKEN"]
    # Both variables, in one header: none missing.
    given = other.import_session(
        unique("given"),
        client.export_session(session.id),
        env={"MOCK_API_KEY": "k-1", "OTHER_TOKEN": "t-2"},
    )
    assert given.missing_secrets == []
    id = unique("refused")
    with pytest.raises(InvalidRequestError) as refused:
        other.import_session(id, b"", env={"": "x"})
    assert refused.value.status == 0  # refused before any request
    with pytest.raises(SessionNotFoundError):
        other.get_session(id)


def test_several_secrets_reach_the_agent_whatever_their_values_hold(
    client: LocalAgentplex, other: LocalAgentplex, tmp_path: Path
) -> None:
    env = {"MOCK_API_KEY": "k-1", "OTHER_TOKEN": "a&b=c d+e%20f é ✓", "DB_PASSWORD": "line\nbreak"}
    session = with_a_turn(client, tmp_path, {**env, "PLAIN": "plain"})
    archive = b"".join(client.export_session(session.id))
    without = other.import_session(unique("without"), archive)
    assert sorted(without.missing_secrets) == sorted(env)

    id = unique("several")
    assert other.import_session(id, archive, env=env).missing_secrets == []
    # The agent's processes get each value as it was given (the output's lines end in "\n").
    command = 'shell printf %s/%s/%s/%s "$MOCK_API_KEY" "$OTHER_TOKEN" "$DB_PASSWORD" "$PLAIN"'
    shown = other.session(id).prompt(command)
    assert shown.stop_reason == "turn_ended"
    parts = [part for item in shown.items for part in item.content]
    outputs = [part.output for part in parts if isinstance(part, ContentPartToolResult)]
    assert outputs == ["k-1/a&b=c d+e%20f é ✓/line\nbreak/plain\n"]


def test_a_bad_archive_is_invalid_archive(client: LocalAgentplex, tmp_path: Path) -> None:
    id = unique("bad")
    with pytest.raises(InvalidArchiveError) as garbage:
        client.import_session(id, b"not an archive at all")
    assert (garbage.value.code, garbage.value.status) == ("invalid_archive", 400)
    session = with_a_turn(client, tmp_path)
    archive = b"".join(client.export_session(session.id))
    with pytest.raises(InvalidArchiveError):
        client.import_session(id, archive[: len(archive) // 2])
    with pytest.raises(SessionNotFoundError):
        client.get_session(id)  # nothing was imported
    with pytest.raises(SessionAlreadyExistsError) as taken:
        client.import_session(session.id, archive)
    assert taken.value.status == 409
    with pytest.raises(SessionNotFoundError):
        b"".join(client.export_session("no-such-session"))


def test_move_session_between_daemons(client: LocalAgentplex, other: LocalAgentplex, tmp_path: Path) -> None:
    session = with_a_turn(client, tmp_path, {"SERVICE_TOKEN": "t-1"})
    transcript = types(client, session.id)
    moved = client.move_session(session.id, other, env={"SERVICE_TOKEN": "t-1"})
    assert (moved.session.session_id, moved.session.event_count) == (session.id, len(transcript))
    assert moved.missing_secrets == []
    assert types(other, session.id) == transcript
    assert "still here" in other.session(session.id).prompt("still here").text
    assert types(client, session.id) == transcript  # here until deleted

    # The id is taken there (the daemon answers while the body streams); another id lands.
    with pytest.raises(SessionAlreadyExistsError):
        client.move_session(session.id, other)
    to_id = unique("moved")
    landed = client.move_session(session.id, other, to_id=to_id, directory=str(tmp_path))
    assert landed.session.session_id == to_id
    assert landed.missing_secrets == ["SERVICE_TOKEN"]
    back = unique("back")
    assert other.move_session(to_id, client, to_id=back).session.event_count == len(transcript)

    missing = unique("missing")
    with pytest.raises(SessionNotFoundError):
        client.move_session(missing, other)
    with pytest.raises(SessionNotFoundError):
        other.get_session(missing)


class Recording(httpx.HTTPTransport):
    """A transport that keeps every request it sends."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return super().handle_request(request)


def test_move_sends_the_archive_as_it_reads_it(
    client: LocalAgentplex, other: LocalAgentplex, tmp_path: Path
) -> None:
    env = {"SERVICE_TOKEN": "t-1", "OTHER_KEY": "a&b c"}
    session = with_a_turn(client, tmp_path, env)
    recording = Recording()
    with Agentplex(other.base_url, other.token, transport=recording) as to:
        moved = client.move_session(session.id, to, to_id=unique("chunked"), env=env)
    assert moved.missing_secrets == []
    (request,) = recording.requests
    # A chunked body (an iterator, sent as read), with no length known beforehand.
    assert request.headers.get("transfer-encoding") == "chunked"
    assert "content-length" not in request.headers
    # Both variables in one header, form-encoded.
    assert request.headers.get_list("x-agentplex-env") == ["SERVICE_TOKEN=t-1&OTHER_KEY=a%26b+c"]


def test_async_export_import_and_move(client: LocalAgentplex, other: LocalAgentplex, tmp_path: Path) -> None:
    session = with_a_turn(client, tmp_path)
    transcript = types(client, session.id)

    async def main() -> None:
        async with (
            AsyncAgentplex(client.base_url, token=client.token) as here,
            AsyncAgentplex(other.base_url, token=other.token) as there,
        ):
            archive = b"".join([chunk async for chunk in here.export_session(session.id)])
            copy = unique("async-copy")
            imported = await here.import_session(copy, archive)
            assert imported.session.event_count == len(transcript)

            async def chunks() -> AsyncIterator[bytes]:
                async for chunk in here.export_session(session.id, chunk_size=128):
                    yield chunk

            streamed = await there.import_session(unique("async-streamed"), chunks())
            assert streamed.session.event_count == len(transcript)
            moved = await here.move_session(session.id, there, to_id=unique("async-moved"))
            assert moved.session.event_count == len(transcript)
            with pytest.raises(SessionAlreadyExistsError):
                await here.move_session(session.id, here, to_id=copy)
            with pytest.raises(InvalidArchiveError):
                await there.import_session(unique("async-bad"), b"\x1f\x8b garbage")

    asyncio.run(main())
    assert types(client, session.id) == transcript
